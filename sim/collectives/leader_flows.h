/*
 * sim/collectives/leader_flows.h: flows between one GPU per machine, shared by the
 * schedules whose machines exchange through a single GPU each (Bagua's leaders,
 * bagua_leader.c; BytePS's pushing GPU to the colocated servers, byteps_ps.c).
 */
#ifndef GCSIM_LEADER_FLOWS_H
#define GCSIM_LEADER_FLOWS_H

#include "collectives.h"

/* Every machine's first GPU to every other machine's, 1/j of the payload each (j machines),
 * in sender order: j (j - 1) flows of one step, into *out (malloc'd; the caller frees).
 * -1 when out of memory. */
int gcsim_leader_all_to_all_flows(const gcsim_topology *t, gcsim_flow **out, int *n);

#endif
