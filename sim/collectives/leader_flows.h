/*
 * sim/collectives/leader_flows.h: all-to-all flows, shared by the schedules whose machines
 * exchange through a single GPU each (Bagua's leaders, bagua_leader.c; BytePS's pushing GPU
 * to the colocated servers, byteps_ps.c) and by DeepSpeed's flat exchange among all GPUs
 * (onebit_alltoall.c).
 */
#ifndef GCSIM_LEADER_FLOWS_H
#define GCSIM_LEADER_FLOWS_H

#include "collectives.h"

/* Every member GPU k x stride (k < members) to every other member, 1/members of the
 * payload each, in sender order: members (members - 1) flows of one step, into *out
 * (malloc'd; the caller frees). -1 when out of memory or past INT_MAX flows. */
int gcsim_strided_all_to_all_flows(int members, int stride, gcsim_flow **out, int *n);

/* Every machine's first GPU to every other machine's, 1/j of the payload each (j machines),
 * in sender order: j (j - 1) flows of one step, into *out (malloc'd; the caller frees).
 * -1 when out of memory. */
int gcsim_leader_all_to_all_flows(const gcsim_topology *t, gcsim_flow **out, int *n);

#endif
