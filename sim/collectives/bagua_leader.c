/*
 * sim/collectives/bagua_leader.c: Bagua's hierarchical centralized low-precision
 * all-reduce (ByteGrad, QAdam), as the schedule both engines run (bagua_leader.h).
 *
 * What Bagua runs per bucket with hierarchical=True, the default of both algorithms
 * (BaguaSys/bagua @3e480d294dde311c99de64eb6e4247e3f75cecee; read, not copied):
 *   - rust/bagua-core/bagua-core-internal/src/communicators/mod.rs: hierarchical_pre is an
 *     NCCL reduce_inplace of the fp32 bucket to intra-node rank 0 (the leader), and
 *     hierarchical_post an NCCL broadcast of the fp32 result from it; only the leader runs
 *     the inter-node communication hook (execute_communication, Leader/Worker);
 *   - comm_ops/centralized_low_precision_synchronous.rs, the leaders' hook: compress the
 *     bucket into one chunk per leader, alltoall_inplace, decompress and reduce the chunks
 *     received, compress the own reduced chunk, allgather_inplace, decompress;
 *   - bagua/torch_api/algorithms/bytegrad.py and q_adam.py: hierarchical=True defaults.
 *
 * Phases (GPUs node-major; node m's leader is its first GPU, m i):
 *   1. "node reduce" (uncompressed): NCCL's reduce runs as a pipelined chain (its ring
 *      algorithm towards the root), so one step in which every GPU of the node but the
 *      leader passes the whole fp32 bucket to the next one down the chain; the step lasts
 *      as long as one link takes for the bucket;
 *   2. "leader all-to-all" (compressed, reducing): every leader sends each other leader the
 *      1/j chunk it owns, all at once (NCCL grouped send/recv); its receiver decodes and sums
 *      (the hop codec rule: 1/j of the bucket's decode and encode);
 *   3. "leader all-gather" (compressed): every leader sends its re-compressed chunk to the
 *      others, at once;
 *   4. "node broadcast" (uncompressed): the fp32 result down the same chain from the leader.
 * The GPUs that are not leaders send nothing across nodes: the node's NIC carries one
 * leader's 2 (j - 1) / j payloads each way, and on a socket transport one proxy thread
 * (the leader's) moves them. Each GPU then decodes the bucket once (decodes 1): the
 * leader's decompress of the gathered chunks.
 * Not modelled: Bagua decodes all j - 1 received chunks in phase 2 where the hop rule
 * charges one chunk's decode and encode (decode of one chunk: under 1 ms for a 25 MiB
 * bucket at a V100's memory bandwidth).
 */
#include "bagua_leader.h"
#include "leader_flows.h"

#include <stdlib.h>

/* The chain of node m: GPU m i + l hands to m i + l - 1 (reduce), or m i + l - 1 to
 * m i + l (broadcast), for l = 1 .. the node's GPUs - 1; in sender order. */
static int chain(const gcsim_topology *t, bool towards_leader, gcsim_flow **out, int *n)
{
    int i = t->gpus_per_node, gpus = t->gpus;
    gcsim_flow *v = malloc(sizeof *v * (size_t)(gpus > 1 ? gpus : 1));
    if (!v)
        return -1;
    int c = 0;
    for (int m = 0; m < t->nodes; m++) {
        int first = m * i, last = first + i - 1 < gpus - 1 ? first + i - 1 : gpus - 1;
        for (int g = first; g <= last; g++) {
            /* sender g: towards the leader it sends to g - 1 (not the leader itself);
             * away from it, to g + 1 (not the node's last) */
            if (towards_leader && g > first)
                v[c++] = (gcsim_flow){g, g - 1, 1.0, 1, 0, 0};
            if (!towards_leader && g < last)
                v[c++] = (gcsim_flow){g, g + 1, 1.0, 1, 0, 0};
        }
    }
    *out = v;
    *n = c;
    return 0;
}

int gcsim_bagua_leader_phase(const gcsim_topology *t, int k, gcsim_bagua_phase *ph,
                             gcsim_flow **flows, int *n)
{
    static const gcsim_bagua_phase phases[GCSIM_BAGUA_LEADER_PHASES] = {
        {"node reduce", true, true},
        {"leader all-to-all", true, false},
        {"leader all-gather", false, false},
        {"node broadcast", false, true}};
    *flows = NULL;
    *n = 0;
    if (k < 0 || k >= GCSIM_BAGUA_LEADER_PHASES)
        return 0;
    *ph = phases[k];
    if (k == 1 || k == 2) /* one node: no leader exchange */
        return t->nodes > 1 ? gcsim_leader_all_to_all_flows(t, flows, n) : 0;
    return chain(t, k == 0, flows, n);
}

double gcsim_bagua_leader_flows(const gcsim_topology *t)
{
    double j = t->nodes;
    return 2.0 * t->gpus + 2.0 * j * (j - 1);
}
