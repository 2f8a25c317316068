/*
 * sim/des/des_fabric.h: what the DES adds to the topology's links on a shared fabric
 * (issue 41): a background load of a fraction f of the capacity of the leaf uplinks and
 * downlinks of a fat tree, or of the NICs (platform.h, "background"). The analytic engine
 * costs the unloaded links.
 *
 * Model: the other traffic is a constant-rate stream (another job's collectives, rate
 * limited, or a storage stream) holding f x C on each loaded link in each direction, so the
 * collective sees (1 - f) C there. A collective whose time is set by those links' bandwidth
 * therefore slows by 1 / (1 - f); one set elsewhere (NVLink, a NIC when the uplinks are
 * loaded but not the bottleneck) slows less, down to not at all: the bound
 *     T(f) <= T(0) / (1 - f)
 * with equality when the loaded links are the bottleneck (tests/des/background_load.sh).
 */
#ifndef GCSIM_DES_FABRIC_H
#define GCSIM_DES_FABRIC_H

#include "collectives.h"

/* The capacity the DES gives link l of t, a NIC link (nic true) or a leaf link. */
double des_fabric_capacity_Bps(const gcsim_topology *t, int l, bool nic);

#endif
