/*
 * sim/collectives/onebit_alltoall.h: DeepSpeed's compressed all-reduce of 1-bit Adam
 * (COLLECTIVE_ONEBIT_ALLTOALL): every GPU is the server of one 1/N chunk; a flat all-to-all
 * of the packed sign chunks among all N GPUs, the servers' decode-average-encode, a flat
 * all-gather of the servers' chunks (onebit_alltoall.c says from which of DeepSpeed's
 * sources). Run by the `deepspeed` stack (platforms/stacks/deepspeed.json,
 * "compressed_allreduce").
 */
#ifndef GCSIM_COLLECTIVES_ONEBIT_ALLTOALL_H
#define GCSIM_COLLECTIVES_ONEBIT_ALLTOALL_H

#include "collectives.h"

#define GCSIM_ONEBIT_ALLTOALL_PHASES 2
typedef struct {
    const char *name;
    bool reduce;
} gcsim_onebit_phase;

/* Phase k (0 .. GCSIM_ONEBIT_ALLTOALL_PHASES - 1) on t: *ph and its flows (malloc'd, in
 * sender order, one step each: every GPU to every other, 1/N of the payload each). -1 when
 * out of memory or when N (N - 1) flows do not fit an int. */
int gcsim_onebit_alltoall_phase(const gcsim_topology *t, int k, gcsim_onebit_phase *ph,
                                gcsim_flow **flows, int *n);
/* Flows it lists on t (schedule_size.c): 2 N (N - 1). */
double gcsim_onebit_alltoall_flows(const gcsim_topology *t);

#endif
