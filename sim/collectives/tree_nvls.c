/*
 * sim/collectives/tree_nvls.c: NCCL's NVLS-tree all-reduce across NVSwitch nodes as gcsim
 * runs it (COLLECTIVE_NVLS_TREE): one concept for `gcsim collective` (protocol.c, the
 * tuner) and training calls (nccl_call.c), run by both engines as a schedule.
 *
 * NCCL's NVLS-tree all-reduce (src/device/all_reduce.h lines 527-620, RunWorkColl<...,
 * NCCL_ALGO_NVLS_TREE, NCCL_PROTO_SIMPLE>, NVIDIA/nccl commit 5067397) has no chain inside
 * the node: every GPU scatters its buffer into the NVSwitch, which reduces it onto the
 * node's NVLS heads (one share each); the heads run NCCL's double binary tree across nodes
 * (treeUp / treeDown; src/graph/connect.cc, ncclGetDtree over the nodes: tree_nodes.h);
 * the sum comes back through the switch's multicast (gather). Each GPU port moves the
 * buffer once each way at the switch's reducing rate: the node's part takes
 * S / nvls_bandwidth, as a one-node NVLS all-reduce (platform.h: nvls_Bps is what a port
 * moves each way then). NCCL's own model of it (src/graph/tuning.cc, same commit, lines
 * 306-322) takes the same intra-node figure (bwIntra x NVLS efficiency) and charges no
 * chain.
 *
 * gcsim's schedule for it is its railed double tree (the trees across nodes are NCCL's,
 * one pair per rail) whose flows inside a node run at the switch's rate: the double tree's
 * chains put 2 (i-1)/i x S through each GPU port (i GPUs per node: the reduce up and the
 * broadcast down of the 2 R chains of S / (2R) each, less the heads' hop), so a chain at
 * nvls x 2 (i-1)/i takes the switch's S / nvls. A schedule carries it as it carries NVLS
 * on one node (schedule.c build_nvls): every flow between two GPUs of one node moves its
 * share x gpu_to_gpu / that rate over the node's ports (the DES runs these flows); the
 * tree template (tree_cost.c) gives the same time by scaling the capacity of the links
 * those flows cross instead (on an NVSwitch node only they cross the GPUs' switch ports;
 * a flow to the NIC goes through PCIe). The chain hops keep the platform's intra-node
 * latency. Derived, nothing fitted.
 */
#include "protocol.h"
#include "tuner_model.h"

#include <math.h>

/*
 * NVLS-tree's pipeline (issue 42: gcsim charged the railed double tree's 512 KiB pipeline
 * chunks per tree, GCSIM_PIPELINE_CHUNK_BYTES, where NCCL moves far larger units).
 * Derived from NCCL v2.26.2-1 and v2.27.3-1 (the releases the H100 IB platforms name; the
 * lines are the same code in both):
 *   - channels: NVLS-tree runs comm->nvlsChannels channels (src/enqueue.cc v2.26.2-1 line
 *     1750), 16 on compute capability 9.x and 32 on 10.0+ (src/transport/nvls.cc v2.26.2-1
 *     lines 144-145, 176), clamped to NCCL_MIN_CTAS / NCCL_MAX_CTAS (line 178);
 *   - heads: each channel carries nvls.nHeads pipelines, one per NVLS head (a node's NIC
 *     rail): gcsim's rails, nic.per_node (at most the node's GPUs);
 *   - chunk: NCCL_NVLS_CHUNKSIZE, 128 KiB (nvls.cc line 149), at most 64 KiB on 4+ nodes
 *     (NCCL_NVLSTREE_MAX_CHUNKSIZE's default, enqueue.cc lines 1813, 1895), then halved
 *     for small calls by concurrentOps = channels x heads (enqueue.cc lines 1892-1899);
 *   - one loop moves channels x heads x chunk (nchunksPerLoop = nHeads, enqueue.cc line
 *     1945), each (channel, head) pipeline one chunk of it through the tree.
 * gcsim's NVLS-tree schedule (the railed double tree, 2 trees x R rails) moves S / (2 R C)
 * per flow per chunk step; NCCL's step per rail and tree (half the channels on each tree)
 * moves (channels / 2) x chunk, so C = S / (channels x heads x chunk): NCCL's loop count.
 * The tree's fill and drain then cost what NCCL's do. Nothing fitted.
 */
#define NVLS_CHUNK_BYTES (128.0 * 1024)      /* NCCL_NVLS_CHUNKSIZE default */
#define NVLS_TREE_MAX_CHUNK_4NODES (65536.0) /* NCCL_NVLSTREE_MAX_CHUNKSIZE default, 4+ nodes */

int gcsim_nvls_tree_chunks(const gcsim_platform *p, int gpus, double bytes)
{
    int per_node = p->gpus_per_node > 0 ? p->gpus_per_node : 1;
    int nodes = (gpus + per_node - 1) / per_node;
    if (nodes < 2 || gcsim_nvls_tree_chain_Bps(p->intra.nvls_Bps, per_node) <= 0)
        return 0;
    int channels = gcsim_nccl_blackwell_plus(p->gpu.type) ? 32 : 16;
    channels = gcsim_nccl_env_channels(channels, p->nccl_env.min_channels,
                                       p->nccl_env.max_channels);
    int heads = p->nic.per_node > 0 ? p->nic.per_node : 1;
    if (heads > per_node)
        heads = per_node;
    double ops = (double)channels * heads;
    double chunk = NVLS_CHUNK_BYTES;
    if (nodes >= 4 && chunk > NVLS_TREE_MAX_CHUNK_4NODES)
        chunk = NVLS_TREE_MAX_CHUNK_4NODES;
    if (bytes < 32 * ops * chunk && chunk > 262144)
        chunk = 262144;
    if (bytes < 16 * ops * chunk && chunk > 131072)
        chunk = 131072;
    if (bytes < 4 * ops * chunk && chunk > 65536)
        chunk = 65536;
    if (bytes < 1 * ops * chunk && chunk > 32768)
        chunk = 32768;
    double k = ceil(bytes / (ops * chunk));
    if (!(k >= 1))
        return 1;
    return k > GCSIM_PIPELINE_MAX_CHUNKS ? GCSIM_PIPELINE_MAX_CHUNKS : (int)k;
}

double gcsim_nvls_tree_chain_Bps(double nvls_Bps, int gpus_per_node)
{
    if (!(nvls_Bps > 0) || gpus_per_node < 2)
        return 0;
    return nvls_Bps * 2.0 * (gpus_per_node - 1) / gpus_per_node;
}

double gcsim_nvls_tree_port_scale(const gcsim_platform *p)
{
    double chain_Bps = gcsim_nvls_tree_chain_Bps(p->intra.nvls_Bps, p->gpus_per_node);
    return chain_Bps > 0 && p->intra.gpu_to_gpu_Bps > 0 ? chain_Bps / p->intra.gpu_to_gpu_Bps
                                                         : 1.0;
}
