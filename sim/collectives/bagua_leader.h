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

/* Its phases, in order: name, whether receivers reduce, whether it moves the fp32 bucket. */
#define GCSIM_BAGUA_LEADER_PHASES 4
typedef struct {
    const char *name;
    bool reduce, uncompressed;
} gcsim_bagua_phase;

/* Phase k (0 .. GCSIM_BAGUA_LEADER_PHASES - 1) on t: *ph, and its flows (malloc'd, in sender
 * order, one step each; *flows NULL and *n 0 for the leader exchange on one node), which
 * schedule.c turns into the schedule's phases. -1 when out of memory. */
int gcsim_bagua_leader_phase(const gcsim_topology *t, int k, gcsim_bagua_phase *ph,
                             gcsim_flow **flows, int *n);
/* Flows it lists on t (schedule_size.c). */
double gcsim_bagua_leader_flows(const gcsim_topology *t);

#endif
