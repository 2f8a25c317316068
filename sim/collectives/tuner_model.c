/*
 * sim/collectives/tuner_model.c: NCCL's tuning model, restated (tuner_model.h).
 *
 * Source of every figure and rule: NVIDIA/nccl src/graph/tuning.cc at commit
 * 5067397c2676d5aed50042fc39e5c8ee96eb0027 (master, 11 Jun 2026); "line N" below is a
 * line of that file. The tables are NCCL's values (facts, not fitted here), in gcsim's
 * protocol order (Simple, LL128, LL; NCCL's own order is LL, LL128, Simple). Left out:
 * CollNet (no gcsim platform describes a SHARP fabric), PAT (all-gather and reduce-scatter
 * with one GPU per node only), the CPU vendor (the net overhead is
 * NCCL's Intel/default 1 us; AMD's is 2 us) and the graph's extra network latency
 * (latencyInter, 0 unless a net plugin reports one). The ring's plateau factor
 * (gcsim_nccl_ring_plateau_factor) is NCCL's ncclTopoGetAlgoTime, lines 646-650. The
 * per-channel bandwidth caps (gcsim_nccl_caps_of) take NCCL's search channels as
 * gcsim_topology_net_channels counts them; they rank, they do not time (the schedules do).
 * Beyond tuning.cc, what NCCL does at run time that its model does not see: its run-time
 * channel count (connect.cc), a tree's chunk (enqueue.cc) and the proxy's cost per posted
 * chunk (gcsim_nccl_proxy_post_Bps), docs/collectives.md "Run time".
 */
#include <math.h>
#include <string.h>

#include "tuner_model.h"

static const char *const algo_names[GCSIM_NCCL_ALGO_COUNT] = {"ring", "tree", "nvls", "nvls-tree"};

const char *gcsim_nccl_algo_name(gcsim_nccl_algo a)
{
    return (unsigned)a < GCSIM_NCCL_ALGO_COUNT ? algo_names[a] : "?";
}

/* Per-call base latency, us (baseLatencies, lines 151-153): tree {LL 6.8, LL128 14.0,
 * Simple 8.4}, ring {6.6, 14.0, 8.4}, NVLS and NVLS-tree 0. */
static const double base_us[GCSIM_NCCL_ALGO_COUNT][GCSIM_PROTO_COUNT] = {
    [GCSIM_NCCL_RING] = {8.4, 14.0, 6.6},
    [GCSIM_NCCL_TREE] = {8.4, 14.0, 6.8},
    [GCSIM_NCCL_NVLS] = {0, 0, 0},
    [GCSIM_NCCL_NVLS_TREE] = {0, 0, 0},
};

enum { HW_NVLINK, HW_PCI, HW_NET, HW_COUNT };

/* Per-hop latency, us (hwLatencies): NVLink lines 159-161, PCIe 165-167, network 171-173.
 * NVLS and NVLS-tree run Simple only (line 301); their PCIe entries are 0 (no NVLS there). */
static const double hop_us[HW_COUNT][GCSIM_NCCL_ALGO_COUNT][GCSIM_PROTO_COUNT] = {
    [HW_NVLINK] = {[GCSIM_NCCL_RING] = {3.4, 1.9, 0.6},
                   [GCSIM_NCCL_TREE] = {4.0, 1.25, 0.6},
                   [GCSIM_NCCL_NVLS] = {25, 0, 0},
                   [GCSIM_NCCL_NVLS_TREE] = {25, 0, 0}},
    [HW_PCI] = {[GCSIM_NCCL_RING] = {5.7, 2.5, 1.0},
                [GCSIM_NCCL_TREE] = {4.0, 1.9, 1.0},
                [GCSIM_NCCL_NVLS] = {0, 0, 0},
                [GCSIM_NCCL_NVLS_TREE] = {0, 0, 0}},
    [HW_NET] = {[GCSIM_NCCL_RING] = {14.0, 4.0, 2.7},
                [GCSIM_NCCL_TREE] = {14.0, 8.5, 5.0},
                [GCSIM_NCCL_NVLS] = {18, 0, 0},
                [GCSIM_NCCL_NVLS_TREE] = {20.9, 0, 0}},
};

/* getNetOverhead (lines 228-233): 1 us per posted network operation on Intel x86 and
 * other CPUs (2 us on AMD x86; gcsim's platforms do not name the CPU), x3 for Simple
 * (line 408). A ring across nodes charges every one of its nsteps hops at least this
 * (lines 404-410: "inter-node rings still have to launch nsteps * net overhead"). */
#define NET_OVERHEAD_US 1.0
#define NET_OVERHEAD_SIMPLE_FACTOR 3.0

int gcsim_nccl_log2i(int n)
{
    int l = 0;
    while (n >= 2) {
        n >>= 1;
        l++;
    }
    return l;
}

void gcsim_nccl_latency_of(gcsim_nccl_algo a, gcsim_protocol pr, gcsim_op op, bool nvlink_node,
                           int gpus, int nodes, gcsim_nccl_latency *out)
{
    if (nodes < 1)
        nodes = 1;
    if (gpus < nodes)
        gpus = nodes;
    int ppn = gpus / nodes; /* NCCL's nRanks / nNodes (integer where it divides) */
    int intra_hw = nvlink_node ? HW_NVLINK : HW_PCI;
    *out = (gcsim_nccl_latency){0};
    out->base_s = base_us[a][pr] * 1e-6;
    out->intra_hop_s = hop_us[intra_hw][a][pr] * 1e-6;
    /* One GPU per node exposes the network's latency whole: NCCL charges the tree's
     * network figure to every algorithm then (lines 386-388). */
    gcsim_nccl_algo net_algo = ppn == 1 ? GCSIM_NCCL_TREE : a;
    out->inter_hop_s = nodes > 1 ? hop_us[HW_NET][net_algo][pr] * 1e-6 : 0;
    if (nodes > 1 && (a == GCSIM_NCCL_NVLS || a == GCSIM_NCCL_NVLS_TREE))
        out->inter_hop_s = hop_us[HW_NET][a][pr] * 1e-6; /* Simple only: no LL entry */
    switch (a) {
    case GCSIM_NCCL_RING: {
        /* lines 288-291: nsteps 2(N-1) for all-reduce, N-1 for all-gather and
         * reduce-scatter, N for broadcast; line 411: 2(nodes-1) network hops for an
         * all-reduce, nodes-1 otherwise */
        int n = gpus;
        out->hops = op == GCSIM_OP_ALLREDUCE ? 2 * (n - 1) : op == GCSIM_OP_BROADCAST ? n : n - 1;
        out->inter_hops = nodes == 1 ? 0 : op == GCSIM_OP_ALLREDUCE ? 2 * (nodes - 1) : nodes - 1;
        if (nodes > 1)
            out->intra_floor_s = NET_OVERHEAD_US * 1e-6 *
                                 (pr == GCSIM_PROTO_SIMPLE ? NET_OVERHEAD_SIMPLE_FACTOR : 1.0);
        break;
    }
    case GCSIM_NCCL_TREE:
        /* line 416: up and down the tree, ppn - 1 hops in the node's chain and log2(nodes)
         * across nodes each way */
        out->hops = 2 * ((ppn - 1) + gcsim_nccl_log2i(nodes));
        out->inter_hops = 2 * gcsim_nccl_log2i(nodes);
        break;
    case GCSIM_NCCL_NVLS:
        /* lines 424-426: one in-switch operation, plus one network hop across nodes */
        out->hops = 1 + (nodes > 1);
        out->inter_hops = nodes > 1;
        break;
    case GCSIM_NCCL_NVLS_TREE:
        /* lines 427-428: one in-switch operation, the tree's 2 log2(nodes) network hops */
        out->hops = 1 + 2 * gcsim_nccl_log2i(nodes);
        out->inter_hops = 2 * gcsim_nccl_log2i(nodes);
        break;
    default: break;
    }
    if (out->hops < 1)
        out->hops = 1;
    double intra = fmax(out->intra_hop_s, out->intra_floor_s);
    out->latency_s = out->base_s + (out->hops - out->inter_hops) * intra +
                     out->inter_hops * out->inter_hop_s;
}

/* treeCorrectionFactor (lines 623-627), NCCL's rows LL, LL128, Simple, indexed by
 * floor(log2(bytes / 64)) from 0 to 23; applied to tree all-reduces below index 23
 * (line 640). "Trees are not perfectly sticking to the model for medium sizes." */
static const double tree_correction[GCSIM_PROTO_COUNT][24] = {
    [GCSIM_PROTO_SIMPLE] = {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5,
                            .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
    [GCSIM_PROTO_LL128] = {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6,
                           .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
    [GCSIM_PROTO_LL] = {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5,
                        .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
};

double gcsim_nccl_tree_correction(gcsim_protocol pr, double bytes)
{
    if ((unsigned)pr >= GCSIM_PROTO_COUNT || !(bytes >= 64))
        return 1.0;
    int l = gcsim_nccl_log2i((int)fmin(bytes / 64, 1 << 30));
    return l < 23 ? tree_correction[pr][l] : 1.0;
}

double gcsim_nccl_tree_bw_factor(gcsim_protocol pr, int nodes)
{
    /* line 331: a tree all-reduce at 0.92 of the per-channel bandwidth; lines 332-335:
     * LL x 1/3.8, LL128 x 7/9 on one node and 120/128 across nodes */
    double f = 0.92;
    if (pr == GCSIM_PROTO_LL)
        f *= 1.0 / 3.8;
    else if (pr == GCSIM_PROTO_LL128)
        f *= nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0;
    return f;
}

double gcsim_nccl_ring_bw_factor(gcsim_protocol pr)
{
    /* lines 327-329: ring LL x 0.5, LL128 x 0.92 */
    return pr == GCSIM_PROTO_LL ? 0.5 : pr == GCSIM_PROTO_LL128 ? 0.92 : 1.0;
}

/* NCCL's "plateau effect of ring" (ncclTopoGetAlgoTime, tuning.cc lines 646-650 at commit
 * 5067397; present since commit 5949d96, June 2020, NCCL 2.7): a ring all-reduce with the
 * Simple protocol across nodes whose bytes per channel and rank, nBytes / (nChannels x
 * nRanks), are at least 64 has its latency multiplied by 1.9 on GPUs below compute
 * capability 8.0 and by 1.4 from 8.0 on. gcsim has no channel count: it takes NCCL's
 * largest (MAXCHANNELS, src/include/device.h line 91: 64), so the factor is applied only
 * where it holds whatever channel count NCCL settled on (64 x 64 x gpus bytes and up:
 * 64 KiB on 16 GPUs, 4 MiB on 1,024); below that it is left out. */
#define NCCL_MAX_CHANNELS 64
#define PLATEAU_MIN_BYTES_PER_CHANNEL_RANK 64.0

double gcsim_nccl_ring_plateau_factor(gcsim_nccl_algo a, gcsim_protocol pr, gcsim_op op,
                                      bool pre_ampere, int gpus, int nodes, double bytes)
{
    if (a != GCSIM_NCCL_RING || pr != GCSIM_PROTO_SIMPLE || op != GCSIM_OP_ALLREDUCE ||
        nodes < 2 || gpus < 2 ||
        !(bytes / ((double)NCCL_MAX_CHANNELS * gpus) >= PLATEAU_MIN_BYTES_PER_CHANNEL_RANK))
        return 1.0;
    return pre_ampere ? 1.9 : 1.4;
}

/* GPU types of compute capability below 8.0 (Pascal, Volta, Turing), by the names gcsim's
 * catalog and platforms use (sim/codec/gpu_params.c; NVIDIA's CUDA GPUs table: P100 6.0,
 * P40/Titan Xp/GTX 1080 6.1, V100 7.0, T4/RTX 2080 Ti 7.5). Every other name (A100, A40,
 * RTX 3090: 8.x; H100, H200, GH200: 9.0; GB200: 10.0; or a type gcsim does not know) is
 * taken as 8.0 or later. */
bool gcsim_nccl_pre_ampere(const char *gpu_type)
{
    static const char *const older[] = {"p100", "p40", "titan-xp", "gtx1080", "v100",
                                        "t4", "rtx2080ti", "k80"};
    for (size_t k = 0; gpu_type && k < sizeof older / sizeof older[0]; k++)
        if (strcmp(gpu_type, older[k]) == 0)
            return true;
    return false;
}

/* NCCL's llMaxBws (tuning.cc lines 178-183 at commit 5067397, indexed at lines 263-272):
 * LL's modelled bus bandwidth is min(llMaxBw, ring x 0.5 | tree x 1/3.8) (lines 327 and
 * 332). On one node the row is the GPU's generation (minimum compute capability: < 8.0
 * Volta, 8.x Ampere, 9.x Hopper, >= 10.0 Blackwell), column 0; across nodes the row is the
 * CPU vendor (0: Intel and others, 1: AMD; gcsim's platforms do not name the CPU, so the
 * Intel/default row, as NET_OVERHEAD_US), column 1 on 2 nodes and 2 on 3 or more. GB/s. */
static const double ll_max_GBps[4][3] = {
    {39.0, 39.0, 20.4},         /* Volta (one node) / Intel (across nodes) */
    {87.7, 22.5, 19.0},         /* Ampere / AMD */
    {141.0, 45.0, 35.0},        /* Hopper */
    {2 * 141.0, 2 * 45.0, 2 * 35.0}, /* Blackwell */
};

/* GPU types of compute capability 9.x and 10.x by the names gcsim's platforms use
 * (NVIDIA's CUDA GPUs table: H100, H200, GH200 9.0; B200, GB200 10.0). */
static bool type_in(const char *gpu_type, const char *const *names, size_t n)
{
    for (size_t k = 0; gpu_type && k < n; k++)
        if (strcmp(gpu_type, names[k]) == 0)
            return true;
    return false;
}

/* NCCL's tuning tables' GPU rows: Volta and older, Ampere (and unknown types), Hopper,
 * Blackwell. */
static int generation_row(const char *gpu_type)
{
    static const char *const hopper[] = {"h100", "h200", "gh200", "h800", "h20"};
    static const char *const blackwell[] = {"b200", "gb200", "b100", "b300", "gb300"};
    if (gcsim_nccl_pre_ampere(gpu_type))
        return 0;
    if (type_in(gpu_type, blackwell, sizeof blackwell / sizeof blackwell[0]))
        return 3;
    if (type_in(gpu_type, hopper, sizeof hopper / sizeof hopper[0]))
        return 2;
    return 1;
}

double gcsim_nccl_ll_max_busbw_Bps(const char *gpu_type, int nodes)
{
    int row = nodes > 1 ? 0 /* Intel/default CPU */ : generation_row(gpu_type);
    int col = nodes <= 1 ? 0 : nodes == 2 ? 1 : 2;
    return ll_max_GBps[row][col] * 1e9;
}

/* NCCL's per-channel caps on its modelled bus bandwidth (tunerConstants perChMaxRingLL128Bws,
 * perChMaxTreeLL128Bws, perChMaxTreeBws: tuning.cc lines 184-203 at commit 5067397;
 * indexed at lines 263-275 by the GPU generation and nNodes: column 0 one node, 1 two, 2
 * three or more), GB/s per channel, applied at lines 328-335 as
 *   ring LL128: busBw = min(0.92 busBw, nChannels x ringLL128)
 *   tree (all-reduce, every protocol): busBw = min(0.92 busBw, nChannels x tree)
 *   tree LL128: then min(busBw x (7/9 | 120/128), nChannels x treeLL128).
 * They are NCCL's own figures of what one channel of each algorithm reaches (set by NVIDIA,
 * not fitted here); they decide NCCL's choice where the links would let a tree channel run
 * faster than its pipeline does: on Blackwell across 3+ nodes a tree LL128 channel is
 * counted at 20 GB/s, a ring LL128 one at 40. Rows: Volta and older, Ampere, Hopper,
 * Blackwell (as llMaxBws's one-node rows). */
static const double per_ch_ring_ll128_GBps[4][3] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0}};
static const double per_ch_tree_ll128_GBps[4][3] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
static const double per_ch_tree_GBps[4][3] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};

/* The Blackwell rows of those three tables by NCCL release (only that row changed between
 * releases: the Volta, Ampere and Hopper rows above are the same in every release listed
 * here, checked in each tag's src/graph/tuning.cc). A job on release V takes the row of the
 * newest release listed at or before V; a platform that names no release (0) takes the
 * rows above (commit 5067397), as does any release from 2.30.3 on. Each row is NCCL's own
 * figure for that release (facts, not fitted here):
 *   2.25.1: v2.25.1-1 src/graph/tuning.cc lines 162, 168, 174 (2 x Hopper's: ring LL128
 *           2 x 36.7; tree LL128 2 x {36.7, 36.7, 29.0}; tree 2 x {38.7, 41.4, 36.0});
 *           the same in v2.26.2-1 lines 162, 168, 174, v2.26.6-1 and v2.27.3-1 lines
 *           176, 182, 188;
 *   2.28.3: v2.28.3-1 lines 179, 185, 191 (ring LL128 2 x 36.7; tree LL128 {55.6, 31.67,
 *           20.0}; tree {70.0, 42.8, 24.0});
 *   2.28.7: v2.28.7-1 (and v2.28.9-1) lines 179, 185, 191: ring LL128 {73.4, 34.6, 73.4};
 *   2.29.2: v2.29.2-1 (and v2.29.3-1) lines 179, 185, 191: ring LL128 {34.5, 34.6, 34.5};
 *   2.29.7: v2.29.7-1 lines 180, 186, 192, as 5067397 (lines 189, 196, 203): ring LL128 40;
 *   2.30.3: the same three rows (v2.30.3-1 lines 184, 191, 198); only its NVLS-tree cap
 *           differs from 2.29.7 (per_ch_nvls_tree_GBps, below).
 * Releases before 2.25.1 take 2.25.1's row. The fourth column of each row is NVLS-tree's
 * cap (per_ch_nvls_tree_GBps, below: none before 2.28.3). */
typedef struct {
    int release; /* NCCL_VERSION_CODE */
    double ring_ll128[3], tree_ll128[3], tree[3], nvls_tree[3];
} blackwell_row;

static const blackwell_row blackwell_rows[] = {
    {22501, {73.4, 73.4, 73.4}, {73.4, 73.4, 58.0}, {77.4, 82.8, 72.0}, {0, 0, 0}},
    {22803, {73.4, 73.4, 73.4}, {55.6, 31.67, 20.0}, {70.0, 42.8, 24.0}, {0, 96.0, 43.1}},
    {22807, {73.4, 34.6, 73.4}, {55.6, 31.67, 20.0}, {70.0, 42.8, 24.0}, {0, 96.0, 43.1}},
    {22902, {34.5, 34.6, 34.5}, {55.6, 31.67, 20.0}, {70.0, 42.8, 24.0}, {0, 96.0, 43.8}},
    {22907, {40.0, 40.0, 40.0}, {55.6, 31.67, 20.0}, {70.0, 42.8, 24.0}, {0, 96.0, 43.8}},
    {23003, {40.0, 40.0, 40.0}, {55.6, 31.67, 20.0}, {70.0, 42.8, 24.0}, {0, 96.0, 80.0}},
};

/* NCCL's per-channel cap on NVLS-tree's modelled bandwidth (tunerConstants
 * perChMaxNVLSTreeBws, new in 2.28.3: v2.28.3-1 src/graph/tuning.cc lines 193-198, the
 * same rows in v2.28.7-1 and v2.29.2-1 but Blackwell 3+ nodes 43.8 in 2.29.2 (v2.29.2-1
 * lines 193-198, v2.29.7-1 194-199); Blackwell {0, 96.0, 80.0} from 2.30.3 (v2.30.3-1
 * lines 200-206, v2.30.7-1 205-211, commit 5067397 205-211: the 2.30.3 row of
 * blackwell_rows), applied at 5067397 lines 307-322: NVLS-tree's per-channel bandwidth is
 * the least of the switch's, the network's (x2 on two nodes) and this figure, so busBw <=
 * channels x it. 0 on one node (NVLS-tree runs across nodes only). Releases before 2.28.3 have no such
 * cap (none in v2.25.1-1 to v2.27.7-1). Hopper's row {0, 57.7, 45.5} is the same in every
 * release that has the table. NCCL's Volta and Ampere rows (26.5/18.5/10.0, 24.0/23.6/17.8)
 * are kept as NCCL has them, though NCCL never runs NVLS below compute capability 9.0: they
 * apply only to a made-up platform that gives such a GPU nvls_bandwidth (the tests' R). */
static const double per_ch_nvls_tree_GBps[4][3] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}};
#define NVLS_TREE_CAP_FIRST_RELEASE 22803

void gcsim_nccl_caps_of_release(const char *gpu_type, int nccl_version, int nodes, int channels,
                                gcsim_nccl_caps *out)
{
    int row = generation_row(gpu_type), col = nodes <= 1 ? 0 : nodes == 2 ? 1 : 2;
    double ch = channels > 0 ? channels : 0;
    double ring_ll128 = per_ch_ring_ll128_GBps[row][col];
    double tree_ll128 = per_ch_tree_ll128_GBps[row][col];
    double tree = per_ch_tree_GBps[row][col];
    double nvls_tree = nccl_version > 0 && nccl_version < NVLS_TREE_CAP_FIRST_RELEASE
                           ? 0
                           : per_ch_nvls_tree_GBps[row][col];
    if (row == 3 && nccl_version > 0) {
        size_t n = sizeof blackwell_rows / sizeof blackwell_rows[0], k = 0;
        while (k + 1 < n && blackwell_rows[k + 1].release <= nccl_version)
            k++;
        ring_ll128 = blackwell_rows[k].ring_ll128[col];
        tree_ll128 = blackwell_rows[k].tree_ll128[col];
        tree = blackwell_rows[k].tree[col];
        nvls_tree = blackwell_rows[k].nvls_tree[col];
    }
    out->ll_max_busbw_Bps = gcsim_nccl_ll_max_busbw_Bps(gpu_type, nodes);
    out->ring_ll128_busbw_Bps = ch * ring_ll128 * 1e9;
    out->tree_busbw_Bps = ch * tree * 1e9;
    out->tree_ll128_busbw_Bps = ch * tree_ll128 * 1e9;
    out->nvls_tree_busbw_Bps = ch * nvls_tree * 1e9;
    out->tree_two_node_bw_Bps = 0; /* set by the tuners, which know the node (protocol.c) */
    out->release = nccl_version;
}

double gcsim_nccl_two_node_tree_bw_Bps(const char *gpu_type, int channels, int gpus_per_node,
                                       double node_gpu_Bps)
{
    if (channels < 1)
        return 0;
    /* the speed array's top, per channel (search.cc: speedArrayInter and
     * sm90SpeedArrayInter start at 48.0, sm100SpeedArrayInter at 96.0) */
    double top_Bps = (gcsim_nccl_blackwell_plus(gpu_type) ? 96.0 : 48.0) * 1e9;
    double bw = channels * top_Bps;
    if (gpus_per_node > 1 && node_gpu_Bps > 0)
        bw = fmin(bw, node_gpu_Bps);
    return bw;
}

void gcsim_nccl_caps_of(const char *gpu_type, int nodes, int channels, gcsim_nccl_caps *out)
{
    gcsim_nccl_caps_of_release(gpu_type, 0, nodes, channels, out);
}

/* NCCL's channels at run time (src/graph/connect.cc at commit 5067397): the search's
 * channels doubled (line 460: nChannels = min(MAXCHANNELS, 2 x nChannels)), and doubled
 * again across nodes on compute capability 9.0 and up while fewer than 16 where a search
 * channel carries more than 45 GB/s inside the node (lines 480-482, "4 compute channels
 * per search channel"). MAXCHANNELS: src/include/device.h line 91, 64. NCCL_MIN_CTAS /
 * NCCL_MAX_CTAS: gcsim_nccl_env_channels below. Not modelled: the unpack (TCPXO-class)
 * doubling (lines 486-489). */
int gcsim_nccl_runtime_channels(int search_channels, int nodes, bool hopper_plus,
                                double bw_intra_per_channel_Bps)
{
    int c = search_channels > 0 ? search_channels : 1;
    c = c * 2 > NCCL_MAX_CHANNELS ? NCCL_MAX_CHANNELS : c * 2;
    if (hopper_plus && nodes > 1 && bw_intra_per_channel_Bps > 45e9 && c < 16)
        c *= 2;
    return c;
}

/* The user's channel settings (src/graph/connect.cc at commit 5067397, after the doublings
 * above, "Honor NCCL_MIN_NRINGS/NCCL_MAX_NRINGS": nChannels = min(nChannels,
 * NCCL_MAX_NCHANNELS, maxCTAs), then copyChannels up to max(NCCL_MIN_NCHANNELS, minCTAs),
 * the first channels duplicated; init.cc takes minCTAs / maxCTAs from NCCL_MIN_CTAS /
 * NCCL_MAX_CTAS, at most MAXCHANNELS). A copied channel runs the same ring and trees on the
 * same NIC as the one it copies, so the NICs and the tuner's model are unchanged: tuning.cc
 * caps with the search's graph->nChannels, not comm->nChannels. What changes is the run:
 * the data splits over more channels, so NCCL's chunks (calcCollChunking) are smaller. */
int gcsim_nccl_env_channels(int runtime_channels, int min_channels, int max_channels)
{
    int c = runtime_channels > 0 ? runtime_channels : 1;
    if (max_channels > 0 && c > max_channels)
        c = max_channels;
    if (min_channels > c)
        c = min_channels;
    return c > NCCL_MAX_CHANNELS ? NCCL_MAX_CHANNELS : c;
}

bool gcsim_nccl_hopper_plus(const char *gpu_type)
{
    return generation_row(gpu_type) >= 2;
}

bool gcsim_nccl_blackwell_plus(const char *gpu_type)
{
    return generation_row(gpu_type) >= 3;
}

/* NCCL's chunk for a tree all-reduce (src/enqueue.cc calcCollChunking at commit 5067397):
 * a step of the protocol's buffer (line 2222: buffSizes / NCCL_STEPS; a tree runs one step a
 * chunk, line 2223), LL carrying half of it (line 2226) and LL128 15 of every 16 words
 * (line 2227; device.h lines 110-112). Buffers (src/init.cc lines 810-813, device.h lines
 * 26, 97-98, 114-115): Simple 4 MiB, LL 8 lines x 512 threads x 8 steps x 16 B = 512 KiB,
 * LL128 120 x 640 x 8 x 8 B = 4,915,200 B; NCCL_STEPS 8. So Simple 512 KiB, LL 32 KiB,
 * LL128 576,000 B, the LL128 one then halved while the bytes per channel are fewer than
 * nsteps x 64 / ppn chunks (and it is above 128 KiB), then while fewer than nsteps x 16 /
 * ppn (above 32 KiB), nsteps = 1 + log2(nodes) + 0.1 ppn (lines 2287-2294; integer
 * division on the left, as NCCL's). */
#define NCCL_STEPS 8
#define SIMPLE_BUFF_BYTES 4194304.0
#define LL_BUFF_BYTES (8.0 * 512 * NCCL_STEPS * 16)
#define LL128_BUFF_BYTES (120.0 * 640 * NCCL_STEPS * 8)

double gcsim_nccl_tree_chunk_bytes(gcsim_protocol pr, double bytes, int channels, int nodes,
                                   int ppn)
{
    if (channels < 1)
        channels = 1;
    if (nodes < 1)
        nodes = 1;
    if (ppn < 1)
        ppn = 1;
    switch (pr) {
    case GCSIM_PROTO_SIMPLE: return SIMPLE_BUFF_BYTES / NCCL_STEPS;
    case GCSIM_PROTO_LL: return LL_BUFF_BYTES / NCCL_STEPS / 2;
    case GCSIM_PROTO_LL128: {
        long long chunk = (long long)(LL128_BUFF_BYTES / NCCL_STEPS) / 16 * 15;
        double nsteps = 1 + gcsim_nccl_log2i(nodes) + 0.1 * ppn;
        long long n = bytes > 0 ? (long long)bytes : 0;
        while ((double)(n / (channels * chunk)) < nsteps * 64 / ppn && chunk > 131072)
            chunk /= 2;
        while ((double)(n / (channels * chunk)) < nsteps * 16 / ppn && chunk > 32768)
            chunk /= 2;
        return (double)chunk;
    }
    default: return 0;
    }
}

/* NCCL's proxy thread (one per GPU, src/proxy.cc) posts every network send and receive of
 * the GPU's channels, one chunk each (src/transport/net.cc: a posted isend / irecv per
 * step). NCCL's model prices a posted network operation at its net overhead (tuning.cc
 * lines 225-233, "Network post overhead": 1 us on Intel and other CPUs) but charges it
 * only to a ring's per-step latency (lines 404-410); at run time every post takes the
 * proxy's time, so one GPU's network traffic, both directions together, moves at most a
 * chunk per net overhead. */
double gcsim_nccl_proxy_post_Bps(double chunk_bytes)
{
    return chunk_bytes > 0 ? chunk_bytes / (NET_OVERHEAD_US * 1e-6) : 0;
}
