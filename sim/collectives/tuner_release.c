/*
 * sim/collectives/tuner_release.c: NCCL 2.8's tuning model where it differs from the
 * current one (tuner_release.h).
 *
 * Source of every figure and rule: NVIDIA/nccl src/graph/tuning.cc at tag v2.8.4-1 (commit
 * of the tag in the NVIDIA/nccl mirror); "line N" below is a line of that file. The file is
 * byte-identical at v2.8.3-1 (git diff v2.8.3-1 v2.8.4-1 -- src/graph/tuning.cc is empty),
 * so the rows hold for 2.8.3 and 2.8.4. The 2.9 series keeps them (issue 42, h-p4d): git
 * diff v2.8.4-1 v2.9.9-1 -- src/graph/tuning.cc changes only CollNet (its Simple thread
 * count, its LL/LL128 bandwidth set to 0) and CollNet's thread threshold, none of which
 * gcsim models, and the file is byte-identical at v2.9.6-1, v2.9.8-1 and v2.9.9-1 (the
 * public 2.9 tags); v2.10.3-1 (the first 2.10 tag) changes the figures (ll128MaxBwPerCh
 * 20.0 on every collective, perChMaxTreeBws Ampere {24.0, 23.6, 17.8}, the LL128 tree
 * correction row, the per-call pipelining of the latency). 2.7.8 differs (tree Simple
 * network hop 50 us, LL128 all-reduce cap 16.7 GB/s). So 2.8.3 <= release < 2.10.0 takes
 * these rows; the line numbers below are v2.8.4-1's (v2.9.9-1's are one or two further
 * on past line 80). The figures are NCCL's (facts, not fitted here), in
 * gcsim's protocol order (Simple, LL128, LL; NCCL's is LL, LL128, Simple).
 *
 * What differs from tuner_model.c (the current tables), each a rule of v2.8.4-1:
 *   - per-call base latency (line 56) and per-hop latencies (lines 63-70): tree Simple 28
 *     us a hop on every link ("the latency a 256kB chunk", line 62), ring Simple 9.6 us a
 *     network hop, tree Simple base 0;
 *   - LL's intra-node hop x 1.8 across nodes (line 141);
 *   - a ring's hops: (nsteps - nInterSteps) intra + nInterSteps network (line 152): no net
 *     overhead floor per hop, and no "one GPU per node takes the tree's network figure";
 *   - efficiencies (lines 125-129): ring LL x 1/4 (1/3 for a one-node all-gather,
 *     reduce-scatter or broadcast), ring LL128 x 0.92 (0.7 with fewer than 2 GPUs per node),
 *     tree x 0.92, tree LL x 1/3.8, tree LL128 x 7/9 on one node and x 0.915 across nodes;
 *   - caps (lines 74-76, 96-100, 125-129): LL128's per channel 16.9 GB/s for an all-reduce
 *     on ring and tree alike (ll128MaxBwPerCh), the tree's per channel perChMaxTreeBws
 *     (Volta {26.5, 18.5, 10.0}, Ampere {24.0, 22.5, 16.0}; the Ampere row only where every
 *     GPU is of compute capability 8.0, compCap80 at line 93, every other GPU the Volta
 *     row), llMaxBws one node by compCap80 (39.0, or 87.7 on 8.0), across nodes Intel/default
 *     {39.0, 20.4} as today;
 *   - the tree correction (lines 263-269): 23 entries per protocol, the LL128 row differing;
 *   - the ring plateau (lines 280-281): x 1.9 on every GPU from nRanks / 16 x 65,536 bytes
 *     (4,096 x nRanks: the threshold tuner_model.c uses, its 64 x 64 x gpus);
 *   - LL128 on by default (lines 192-195) only where the NIC is at most a PCIe switch away
 *     from the GPU (PATH_PXB: gcsim's GPUDirect platforms, assumed), the node's GPUs talk over
 *     NVLink (as today) and every GPU is of compute capability 7.0 or every one 8.0.
 * Left out: A100's min(busBw, 235 GB/s) on every algorithm (line 124; the one A100
 * platform naming such a release, tests/validation/nccl_logs/platforms/a100-efa-p4d.json,
 * 2.9.9, models at most 4 x 24 = 96 GB/s there, far below), CollNet, and the run-time channels (v2.8.4-1 src/graph/connect.cc line
 * 267 doubles the search's channels up to MAXCHANNELS 32, src/include/devcomm.h line 49,
 * where tuner_model.c takes 64: the same below 32), and 2.8's tree Simple chunk, halved
 * while a channel's bytes are fewer than 8, 4 and 1 chunks per tree level (v2.8.4-1
 * src/enqueue.cc lines 382-387; tuner_model.c's proxy cap takes the fixed 512 KiB chunk of
 * today's release; the tree LL128 chunk rule, lines 404-409, is today's).
 */
#include <math.h>
#include <string.h>

#include "tuner_release.h"

bool gcsim_nccl_release_2_8(int nccl_version)
{
    /* 2.8.3 to 2.9.9: the same tuning.cc in what gcsim models (the header above) */
    return nccl_version >= 20803 && nccl_version < 21000;
}

/* baseLat (line 56): tree {LL 4.4, LL128 4.4, Simple 0}, ring {3.6, 10.0, 8.4}. */
static const double base_us[2][GCSIM_PROTO_COUNT] = {
    [GCSIM_NCCL_RING] = {8.4, 10.0, 3.6},
    [GCSIM_NCCL_TREE] = {0.0, 4.4, 4.4},
};

enum { HW_NVLINK, HW_PCI, HW_NET, HW_COUNT };

/* hwLat (lines 63-70): NVLink line 65, PCIe line 67, network line 69. */
static const double hop_us[HW_COUNT][2][GCSIM_PROTO_COUNT] = {
    [HW_NVLINK] = {[GCSIM_NCCL_RING] = {3.4, 1.9, 0.47}, [GCSIM_NCCL_TREE] = {28, 1.25, 0.52}},
    [HW_PCI] = {[GCSIM_NCCL_RING] = {5.7, 2.5, 1.0}, [GCSIM_NCCL_TREE] = {28, 1.9, 1.0}},
    [HW_NET] = {[GCSIM_NCCL_RING] = {9.6, 4.0, 2.7}, [GCSIM_NCCL_TREE] = {28, 8.5, 5.0}},
};

/* line 141: across nodes an LL intra-node hop is counted 1.8 times */
#define LL_INTRA_FACTOR_ACROSS_NODES 1.8

void gcsim_nccl_latency_of_release(int nccl_version, gcsim_nccl_algo a, gcsim_protocol pr,
                                   gcsim_op op, bool nvlink_node, int gpus, int nodes,
                                   gcsim_nccl_latency *out)
{
    /* NVLS did not exist in 2.8: those take the current figures */
    if (!gcsim_nccl_release_2_8(nccl_version) || (a != GCSIM_NCCL_RING && a != GCSIM_NCCL_TREE) ||
        (unsigned)pr >= GCSIM_PROTO_COUNT) {
        gcsim_nccl_latency_of(a, pr, op, nvlink_node, gpus, nodes, out);
        return;
    }
    if (nodes < 1)
        nodes = 1;
    if (gpus < nodes)
        gpus = nodes;
    int ppn = gpus / nodes;
    *out = (gcsim_nccl_latency){0};
    out->base_s = base_us[a][pr] * 1e-6;
    double intra_us = hop_us[nvlink_node ? HW_NVLINK : HW_PCI][a][pr];
    if (nodes > 1 && pr == GCSIM_PROTO_LL)
        intra_us *= LL_INTRA_FACTOR_ACROSS_NODES;
    out->intra_hop_s = intra_us * 1e-6;
    out->inter_hop_s = nodes > 1 ? hop_us[HW_NET][a][pr] * 1e-6 : 0;
    if (a == GCSIM_NCCL_RING) {
        /* lines 109-114, 152; a broadcast as N hops (lines 144-150 charge a reduce or
         * broadcast ring otherwise; gcsim charges no NCCL overhead to a broadcast) */
        int n = gpus;
        out->hops = op == GCSIM_OP_ALLREDUCE ? 2 * (n - 1) : op == GCSIM_OP_BROADCAST ? n : n - 1;
        out->inter_hops = nodes == 1 ? 0 : op == GCSIM_OP_ALLREDUCE ? 2 * (nodes - 1) : nodes - 1;
    } else {
        /* lines 155-156 */
        out->hops = 2 * ((ppn - 1) + gcsim_nccl_log2i(nodes));
        out->inter_hops = 2 * gcsim_nccl_log2i(nodes);
    }
    if (out->hops < 1)
        out->hops = 1;
    out->latency_s = out->base_s + (out->hops - out->inter_hops) * out->intra_hop_s +
                     out->inter_hops * out->inter_hop_s;
}

/* treeCorrectionFactor (lines 265-269), rows LL, LL128, Simple; index floor(log2(bytes /
 * 64)) below 23 (line 278). */
static const double tree_correction[GCSIM_PROTO_COUNT][23] = {
    [GCSIM_PROTO_SIMPLE] = {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
                            .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
    [GCSIM_PROTO_LL128] = {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6,
                           .6, .5, .6, .6, .7, .7, .8, .9, .9, .92, .92},
    [GCSIM_PROTO_LL] = {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5,
                        .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
};

double gcsim_nccl_tree_correction_release(int nccl_version, gcsim_protocol pr, double bytes)
{
    if (!gcsim_nccl_release_2_8(nccl_version))
        return gcsim_nccl_tree_correction(pr, bytes);
    if ((unsigned)pr >= GCSIM_PROTO_COUNT || !(bytes >= 64))
        return 1.0;
    int l = gcsim_nccl_log2i((int)fmin(bytes / 64, 1 << 30));
    return l < 23 ? tree_correction[pr][l] : 1.0;
}

double gcsim_nccl_tree_bw_factor_release(int nccl_version, gcsim_protocol pr, int nodes)
{
    if (!gcsim_nccl_release_2_8(nccl_version))
        return gcsim_nccl_tree_bw_factor(pr, nodes);
    /* line 127: x 0.92; line 128: LL x 1/3.8; line 129: LL128 x 7/9 or 0.915 */
    double f = 0.92;
    if (pr == GCSIM_PROTO_LL)
        f *= 1.0 / 3.8;
    else if (pr == GCSIM_PROTO_LL128)
        f *= nodes == 1 ? 7.0 / 9.0 : 0.915;
    return f;
}

double gcsim_nccl_ring_bw_factor_release(int nccl_version, gcsim_protocol pr, gcsim_op op,
                                         int nodes, int ppn)
{
    if (!gcsim_nccl_release_2_8(nccl_version))
        return gcsim_nccl_ring_bw_factor(pr);
    /* line 125: LL x 1/4 across nodes or for an all-reduce (or reduce), else 1/3; line 126:
     * LL128 x 0.92, 0.7 where ppn < 2 */
    if (pr == GCSIM_PROTO_LL)
        return nodes > 1 || op == GCSIM_OP_ALLREDUCE ? 0.25 : 1.0 / 3.0;
    if (pr == GCSIM_PROTO_LL128)
        return ppn < 2 ? 0.7 : 0.92;
    return 1.0;
}

double gcsim_nccl_ring_plateau_factor_release(int nccl_version, gcsim_nccl_algo a,
                                              gcsim_protocol pr, gcsim_op op, bool pre_ampere,
                                              int gpus, int nodes, double bytes)
{
    /* lines 280-281: 1.9 on every GPU, from nRanks / 16 x 65,536 bytes = 4,096 x nRanks, the
     * same threshold as the current one (64 x 64 x gpus) */
    double f = gcsim_nccl_ring_plateau_factor(a, pr, op, pre_ampere, gpus, nodes, bytes);
    return gcsim_nccl_release_2_8(nccl_version) && f > 1.0 ? 1.9 : f;
}

/* Compute capability 8.0 exactly (NVIDIA's CUDA GPUs table: A100, A30, A800), by the names
 * gcsim's platforms use; 8.6 (A40, RTX 3090) is not. */
static bool cc_8_0(const char *gpu_type)
{
    static const char *const names[] = {"a100", "a30", "a800"};
    for (size_t k = 0; gpu_type && k < sizeof names / sizeof names[0]; k++)
        if (strcmp(gpu_type, names[k]) == 0)
            return true;
    return false;
}

/* Compute capability 7.0 exactly (V100, Titan V). */
static bool cc_7_0(const char *gpu_type)
{
    return gpu_type && (strcmp(gpu_type, "v100") == 0 || strcmp(gpu_type, "titan-v") == 0);
}

bool gcsim_nccl_ll128_default_release(int nccl_version, const char *gpu_type)
{
    if (!gcsim_nccl_release_2_8(nccl_version))
        return true;
    return cc_7_0(gpu_type) || cc_8_0(gpu_type); /* lines 192-195 */
}

/* LL128 across nodes where the NIC hangs off the CPU and the GPU reaches the CPU over
 * NVLink-C2C (GB200, GH200; nic.attach "cpu-c2c"). NCCL enables LL128 by default only where
 * the network graph's path type from GPU to NIC (typeInter) is close enough:
 *   - v2.26.2-1 src/graph/tuning.cc line 429: typeInter <= PATH_PXB, or PATH_PXN on compute
 *     capability 9.0 and up; in that release such a NIC's path is PATH_PHB (the C2C link's
 *     PATH_C2C then the CPU's PCIe root, src/graph/topo.h lines 68-80: PHB 7 > PXN 6), and
 *     NCCL_NET_GDR_C2C only changes the GPUDirect decision (src/graph/paths.cc lines
 *     433-436), not the path type the search and this rule read. A PHB path fails the
 *     test in 2.8 too (v2.8.4-1 line 194: PXB only) and in every release up to v2.26.6-1
 *     (no PATH_P2C and no NCCL_LL128_C2C in v2.26.6-1's topo.h and tuning.cc);
 *   - v2.27.3-1 (release notes: "Improve support for platforms with C2C connectivity (e.g.,
 *     GB200) ... Add support for P2C (PXN over C2C) and the LL128 protocol"): src/graph/
 *     topo.h line 83 PATH_P2C, tuning.cc line 460 typeInter <= PATH_P2C while NCCL_LL128_C2C
 *     (default 1, line 211); from v2.28.3-1 (lines 482-484) typeInter <= PATH_PXN with P2C
 *     below it; commit 5067397 the same (lines 520-522).
 * On one node NCCL removes the NICs from its topology (v2.26.2-1 src/graph/paths.cc
 * ncclTopoTrimSystem, lines 741-744: all ranks' GPUs local), so typeInter stays PATH_PIX and
 * LL128 stays on: the caller asks only across nodes. */
bool gcsim_nccl_ll128_over_c2c_release(int nccl_version)
{
    return nccl_version == 0 || nccl_version >= 22703; /* NCCL_VERSION(2, 27, 3) */
}

/* ll128MaxBwPerCh (line 74), all-reduce's entry (ncclFuncAllReduce, the fifth): 16.9 GB/s a
 * channel, ring (line 126) and tree (line 129) alike. */
#define LL128_ALLREDUCE_PER_CH_GBPS 16.9
/* perChMaxTreeBws (line 76), rows Volta (every GPU but compute capability 8.0) and Ampere
 * (8.0), columns one node, two, three or more (index2, line 96). */
static const double per_ch_tree_GBps[2][3] = {{26.5, 18.5, 10.0}, {24.0, 22.5, 16.0}};
/* llMaxBws (line 75): one node by compCap80 (column 0), across nodes the CPU's row (0:
 * Intel and default, as tuner_model.c), columns as above. */
static const double ll_max_GBps[2][3] = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}};

void gcsim_nccl_release_caps(const char *gpu_type, int nccl_version, int nodes, int channels,
                             gcsim_nccl_caps *out)
{
    if (!gcsim_nccl_release_2_8(nccl_version)) {
        gcsim_nccl_caps_of_release(gpu_type, nccl_version, nodes, channels, out);
        return;
    }
    int col = nodes <= 1 ? 0 : nodes == 2 ? 1 : 2;
    int ampere = cc_8_0(gpu_type) ? 1 : 0;
    double ch = channels > 0 ? channels : 0;
    out->ll_max_busbw_Bps = ll_max_GBps[nodes > 1 ? 0 : ampere][col] * 1e9;
    out->ring_ll128_busbw_Bps = ch * LL128_ALLREDUCE_PER_CH_GBPS * 1e9;
    out->tree_busbw_Bps = ch * per_ch_tree_GBps[ampere][col] * 1e9;
    out->tree_ll128_busbw_Bps = ch * LL128_ALLREDUCE_PER_CH_GBPS * 1e9;
    out->nvls_tree_busbw_Bps = 0; /* 2.8 has no NVLS (no cap to apply) */
    out->tree_two_node_bw_Bps = 0; /* set by the tuners (protocol.c) */
    out->release = nccl_version;
}
