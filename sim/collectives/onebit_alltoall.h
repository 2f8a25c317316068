/*
 * sim/collectives/onebit_alltoall.h: DeepSpeed's compressed all-reduce of 1-bit Adam
 * (COLLECTIVE_ONEBIT_ALLTOALL): every GPU is the server of one 1/N chunk; a flat all-to-all
 * of the packed sign chunks among all N GPUs (listed here), the servers' decode-average-encode,
 * NCCL's ring all-gather of the servers' chunks (schedule.c's ring, as for COLLECTIVE_RING's
 * second phase); onebit_alltoall.c says from which of DeepSpeed's sources. Run by the `deepspeed` stack (platforms/stacks/deepspeed.json,
 * "compressed_allreduce").
 */
#ifndef GCSIM_COLLECTIVES_ONEBIT_ALLTOALL_H
#define GCSIM_COLLECTIVES_ONEBIT_ALLTOALL_H

#include "collectives.h"

/* The all-to-all phase's flows on t (malloc'd, in sender order, one step each: every GPU to
 * every other, 1/N of the payload each; *n 0 on one GPU). -1 when out of
 * memory or when N (N - 1) flows do not fit an int. */
int gcsim_onebit_alltoall_exchange(const gcsim_topology *t, gcsim_flow **flows, int *n);
/* Flows the all-to-all lists on t (schedule_size.c adds the ring all-gather's): N (N - 1). */
double gcsim_onebit_alltoall_flows(const gcsim_topology *t);

#endif
