/* Rail-aligned rings on rail-optimized fat trees, as NCCL's default ring search with PXN
 * builds them (ring_rail.c). */
#ifndef GCSIM_RING_RAIL_H
#define GCSIM_RING_RAIL_H

#include <stdbool.h>

#include "collectives.h"

/* Whether rings keep their hops between nodes on one rail: rail-optimized fat trees of
 * several nodes and NICs. */
bool gcsim_ring_rail_aligned(const gcsim_topology *t);
/* Node `node`'s GPUs in ring r's order: entering at rail r's first GPU, leaving from its
 * last; written to order, returns the count (GPUs past the last one skipped), or -1 when
 * rail r has no GPU (more NICs than GPUs: the caller keeps its own order). */
int gcsim_ring_rail_order_node(const gcsim_topology *t, int node, int r, int *order);
/* The GPU that relays a ring hop src -> dst between nodes onto dst's rail (PXN): the
 * first GPU of dst's rail on src's node; -1 when the hop needs none (same node, same
 * rail, not rail-aligned, no NVLink, or that GPU absent). */
int gcsim_ring_pxn_relay(const gcsim_topology *t, int src, int dst);

#endif
