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
