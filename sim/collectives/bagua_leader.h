/*
 * sim/collectives/bagua_leader.h: Bagua's hierarchical centralized low-precision
 * all-reduce (COLLECTIVE_BAGUA_LEADER): an uncompressed reduce to one leader GPU per node,
 * a compressed all-to-all and all-gather among the leaders, an uncompressed broadcast
 * back (bagua_leader.c says from which of Bagua's sources). Run by the `bagua` stack
 * (platforms/stacks/bagua.json, "compressed_allreduce").
 */
#ifndef GCSIM_COLLECTIVES_BAGUA_LEADER_H
#define GCSIM_COLLECTIVES_BAGUA_LEADER_H

#include "collectives.h"

/* Adds the schedule's phases to s (started by gcsim_schedule_build); -1 when out of
 * memory. At least 2 GPUs. */
int gcsim_bagua_leader_build(gcsim_schedule *s, const gcsim_topology *t);
/* Flows it lists on t (schedule_size.c). */
double gcsim_bagua_leader_flows(const gcsim_topology *t);

#endif
