/*
 * sim/collectives/mpi_host_allgather.h: Horovod's all-gather of GPU tensors when its GPU
 * all-gather is not NCCL (COLLECTIVE_MPI_HOST_ALLGATHER): each GPU's payload copied to host
 * memory, OpenMPI's MPI_Allgatherv among the ranks' host buffers, the gathered buffer
 * copied back to every GPU (mpi_host_allgather.c says from which sources). Run by a stack
 * whose "allgather" names "mpi-host-staged" (docs/formats.md; the horovod-dgc stack).
 */
#ifndef GCSIM_COLLECTIVES_MPI_HOST_ALLGATHER_H
#define GCSIM_COLLECTIVES_MPI_HOST_ALLGATHER_H

#include "collectives.h"

#define GCSIM_MPI_HOST_ALLGATHER_PHASES 3

/* Phase k (0 .. GCSIM_MPI_HOST_ALLGATHER_PHASES - 1) on t: its name, steps and flows
 * (malloc'd; *flows NULL and *n 0 when the phase moves nothing between endpoints, as the
 * MPI exchange on one machine; endpoints N + m are the machines' host memories). Shares
 * are in payloads of one worker. -1 when out of memory. */
int gcsim_mpi_host_allgather_phase(const gcsim_topology *t, int k, const char **name,
                                   int *steps, gcsim_flow **flows, int *n);
/* MPI's exchange steps among N ranks (OpenMPI 4.0 tuned allgatherv, sizes >= 50,000 B):
 * two processes 1, an even count N / 2 (neighbor exchange), an odd one N - 1 (ring). */
int gcsim_mpi_host_allgather_steps(int gpus);
/* An upper bound on the flows it lists on t (schedule_size.c). */
double gcsim_mpi_host_allgather_flows(const gcsim_topology *t);

#endif
