/*
 * sim/collectives/onebit_alltoall.c: DeepSpeed's compressed all-reduce (1-bit Adam, 0/1
 * Adam, 1-bit LAMB), as the schedule both engines run (onebit_alltoall.h).
 *
 * What DeepSpeed runs per call (microsoft/DeepSpeed @0a849d56997753093f0906a5ed6cf2e5d55c4d6a,
 * deepspeed/runtime/comm/nccl.py, NcclBackend.compressed_allreduce from line 53; read, not
 * copied):
 *   - worker: adds its error feedback, scales by the norm, packs the signs with cupy
 *     packbits into N chunks (compress_by_chunk(..., self.size)), one per rank;
 *   - phase 1: dist.all_to_all_single of the packed chunks over the whole data-parallel
 *     group (world_group: every GPU, no intra-node step), and dist.all_gather of the
 *     per-worker scales (one float each);
 *   - server (every rank, for its 1/N chunk): unpacks the N chunks, averages them with their
 *     scales, adds its own error feedback, re-scales and packs the result (one chunk);
 *   - phase 2: dist.all_gather of the servers' packed chunks and of their scales, then every
 *     rank unpacks all N chunks into the buffer.
 * deepspeed/runtime/comm/mpi.py (MpiBackend, the backend of the 2020 blog's runs) has the
 * same two phases over MPI (an Igather to every server rank, then Allgather), with the same
 * bytes per rank; which algorithm the MPI library ran for its Allgather is not known, the
 * ring is assumed.
 *
 * Phases (GPUs node-major):
 *   1. "all-to-all" (compressed, reducing): every GPU sends each other GPU the 1/N chunk
 *      that GPU serves, all at once; the receiver decodes and sums (the hop codec rule);
 *   2. "all-gather" (compressed): dist.all_gather over NCCL is NCCL's ring all-gather (the
 *      second phase of gcsim's ring, schedule.c): N - 1 steps of 1/N of the payload.
 * all_to_all_single over NCCL is grouped point-to-point send/recv, so the first phase is
 * flat: unlike Bagua's leaders (bagua_leader.c) nothing is reduced inside the node first,
 * and each of a node's i GPUs sends (N - i)/N of the payload across the node's NIC, i times
 * what a ring's reduce-scatter of the same payload puts through it (on BERT-Large's 41.9 MB
 * 1-bit payload, 64 GPUs, 4 per node: 157.1 MB per NIC and direction, then 41.2 MB for the
 * ring all-gather, against 82.5 MB for a ring all-reduce; docs/stacks.md).
 * The scales' all-gathers (4 bytes per rank) are not listed: their latency is one more
 * small collective per phase, under the flows' own latency terms at N <= 1024.
 */
#include "onebit_alltoall.h"

#include "leader_flows.h"

int gcsim_onebit_alltoall_exchange(const gcsim_topology *t, gcsim_flow **flows, int *n)
{
    return gcsim_strided_all_to_all_flows(t->gpus, 1, flows, n);
}

double gcsim_onebit_alltoall_flows(const gcsim_topology *t)
{
    double n = t->gpus;
    return n * (n - 1);
}
