/*
 * sim/collectives/tuner_model.h: NCCL's tuning model as gcsim restates it: the latency
 * NCCL's tuner charges an algorithm x protocol (a per-call base, a per-hop cost inside a
 * node and a per-hop cost across nodes, with the hop counts of a ring of N ranks, a tree
 * of depth log2(nodes), NVLS and NVLS-tree), and the bandwidth relations it assumes
 * between its algorithms (a tree at 0.92 of the ring's per-channel bandwidth, counted at
 * half of it as algorithm bandwidth; NVLS-tree at twice the ring's on two nodes; its
 * tree correction per size).
 *
 * Offers:
 *   - gcsim_nccl_algo: the NCCL algorithm a gcsim candidate stands for. gcsim runs each
 *     with its own schedule: ring the ring, tree and NVLS-tree the railed double tree,
 *     NVLS the one-node in-switch reduction.
 *   - gcsim_nccl_latency_of: NCCL's latency terms for one algorithm, protocol, operation
 *     and shape (gpus, nodes).
 *   - gcsim_nccl_tree_correction: NCCL's per-size factor on a tree's bandwidth.
 * Every figure's source (file, commit, line of NVIDIA/nccl) is in tuner_model.c. gcsim's
 * code, not NCCL's: the rules are restated, the table values are facts.
 */
#ifndef GCSIM_TUNER_MODEL_H
#define GCSIM_TUNER_MODEL_H

#include <stdbool.h>

#include "collectives.h"
#include "protocol.h"

typedef enum {
    GCSIM_NCCL_RING,
    GCSIM_NCCL_TREE,
    GCSIM_NCCL_NVLS,
    GCSIM_NCCL_NVLS_TREE,
    GCSIM_NCCL_ALGO_COUNT
} gcsim_nccl_algo;

const char *gcsim_nccl_algo_name(gcsim_nccl_algo a);

typedef struct {
    double base_s;        /* per call */
    double intra_hop_s;   /* one hop inside a node (NVLink or PCIe figure) */
    double inter_hop_s;   /* one hop across nodes: NCCL's network per-hop overhead */
    double intra_floor_s; /* a ring across nodes: every hop at least the net overhead */
    int hops;             /* hops one byte makes in sequence (>= 1) */
    int inter_hops;       /* of which across nodes */
    double latency_s;     /* base + (hops - inter) x max(intra, floor) + inter x inter_hop */
} gcsim_nccl_latency;

/* NCCL's latency terms for algorithm a, protocol pr, operation op on `gpus` GPUs over
 * `nodes` nodes (gpus / nodes per node, as NCCL's ppn); nvlink_node: the node's GPUs talk
 * over NVLink (else PCIe). Broadcast is counted as NCCL's ring broadcast (N hops). */
void gcsim_nccl_latency_of(gcsim_nccl_algo a, gcsim_protocol pr, gcsim_op op, bool nvlink_node,
                           int gpus, int nodes, gcsim_nccl_latency *out);

/* NCCL's correction of a tree's all-reduce bandwidth at `bytes` (1 outside its table). */
double gcsim_nccl_tree_correction(gcsim_protocol pr, double bytes);

/* NCCL's tree bus bandwidth over its ring's (same per-channel figure): 0.92, and the
 * protocol's efficiency on a tree (LL 1/3.8, LL128 7/9 on one node, 120/128 across). */
double gcsim_nccl_tree_bw_factor(gcsim_protocol pr, int nodes);
/* The ring's: Simple 1, LL128 0.92, LL 0.5. */
double gcsim_nccl_ring_bw_factor(gcsim_protocol pr);

/* NCCL's ring plateau factor on its latency (tuner_model.c): 1.4 (1.9 where pre_ampere,
 * compute capability below 8.0) for a ring Simple all-reduce across nodes of at least
 * 64 x 64 x gpus bytes (64 bytes per channel and rank at NCCL's most channels, 64); 1
 * otherwise. */
double gcsim_nccl_ring_plateau_factor(gcsim_nccl_algo a, gcsim_protocol pr, gcsim_op op,
                                      bool pre_ampere, int gpus, int nodes, double bytes);
/* Whether platform GPU type gpu_type (gpu.type) is of compute capability below 8.0. */
bool gcsim_nccl_pre_ampere(const char *gpu_type);

/* floor(log2(n)) for n >= 1, as NCCL's log2i (tree depth over nodes, size classes). */
int gcsim_nccl_log2i(int n);

/* NCCL's cap on the LL protocol's modelled bus bandwidth (llMaxBws, tuner_model.c), B/s:
 * on one node by GPU generation (gpu_type: Volta and older 39, Ampere 87.7, Hopper 141,
 * Blackwell 282 GB/s), across nodes by CPU (Intel/default: 39 GB/s on 2 nodes, 20.4 on 3
 * or more). A whole-communicator cap, not per channel. */
double gcsim_nccl_ll_max_busbw_Bps(const char *gpu_type, int nodes);

/* NCCL's caps on the modelled bus bandwidth of each algorithm x protocol (tuner_model.c),
 * B/s; 0: no cap. The per-channel ones are channels x NCCL's per-channel figure. */
typedef struct gcsim_nccl_caps {
    double ll_max_busbw_Bps;     /* LL, ring and tree: llMaxBws (whole communicator) */
    double ring_ll128_busbw_Bps; /* ring LL128: channels x perChMaxRingLL128Bws */
    double tree_busbw_Bps;       /* tree all-reduce, every protocol: x perChMaxTreeBws */
    double tree_ll128_busbw_Bps; /* tree LL128: channels x perChMaxTreeLL128Bws */
    double nvls_tree_busbw_Bps;  /* NVLS-tree: channels x perChMaxNVLSTreeBws (2.28.3 on) */
    /* Two nodes: the most NCCL's tree search can raise its channels x bwIntra to
     * (gcsim_nccl_two_node_tree_bw_Bps); > 0: the tree is ranked from min(2 x the ring's
     * bus bandwidth, this), as NCCL's model takes bwIntra on <= 2 nodes; 0: not two
     * nodes, or not given (the ring's bus bandwidth, as on more nodes) */
    double tree_two_node_bw_Bps;
    int release; /* the NCCL release whose efficiencies rank (tuner_release.h); 0: current */
} gcsim_nccl_caps;

/* NCCL's tree on two nodes (every release from 2.8 to commit 5067397): its model takes a
 * tree's per-channel bandwidth as the graph's bwIntra where nNodes <= 2, bwInter beyond
 * (v2.21.5-1 src/graph/tuning.cc line 174; v2.22.3-1 line 172; 5067397 line 306; v2.8.4-1
 * line 120, speedIntra), and the search, once it has channels at the network's speed,
 * raises a tree's bwIntra step by step while it is below twice bwInter and the node's
 * links still carry every channel ("increase bwIntra for trees (2 nodes or collnet)":
 * v2.21.5-1 src/graph/search.cc lines 1025-1027, v2.22.3-1 line 1086, 5067397 lines
 * 1279-1282). A ring's bwIntra stays its bwInter. So on two nodes NCCL ranks its tree
 * from up to twice the ring's per-channel figure. This returns the ceiling on that
 * raise, channels x bwIntra, B/s: channels x the top of the search's speed array (48 GB/s;
 * 96 from Blackwell: 5067397 search.cc lines 1052-1064, sm100SpeedArrayInter) and, with
 * more than one GPU in a node, what one GPU's links inside the node carry
 * (node_gpu_Bps: each channel enters and leaves every GPU of the node's chain once); 0
 * for no channels. Not modelled: the speed array's steps (bwIntra is one of its values,
 * e.g. 45 where 2 x 24 = 48 does not fit). */
double gcsim_nccl_two_node_tree_bw_Bps(const char *gpu_type, int channels, int gpus_per_node,
                                       double node_gpu_Bps);

/* *out = NCCL's caps for GPU type gpu_type on `nodes` nodes with `channels` channels (the
 * graph's: gcsim_topology_net_channels). */
void gcsim_nccl_caps_of(const char *gpu_type, int nodes, int channels, gcsim_nccl_caps *out);
/* The same with the tables of NCCL release nccl_version (NCCL_VERSION_CODE, 2.26.2 ->
 * 22602; 0: the current ones, as gcsim_nccl_caps_of): NCCL changed its Blackwell figures
 * between releases (tuner_model.c lists them with their tags and lines). */
void gcsim_nccl_caps_of_release(const char *gpu_type, int nccl_version, int nodes, int channels,
                                gcsim_nccl_caps *out);

/* NCCL's channel count at run time from its search's (tuner_model.c: x2, and x2 again on
 * compute capability 9.0+ across nodes while below 16 with more than 45 GB/s a search
 * channel inside the node), at most 64. */
int gcsim_nccl_runtime_channels(int search_channels, int nodes, bool hopper_plus,
                                double bw_intra_per_channel_Bps);
/* The run-time channels after the user's NCCL_MIN_CTAS / NCCL_MIN_NCHANNELS (min_channels)
 * and NCCL_MAX_CTAS / NCCL_MAX_NCHANNELS (max_channels), <= 0 each: not set (tuner_model.c:
 * at most the maximum, then channels copied up to the minimum, at most 64). */
int gcsim_nccl_env_channels(int runtime_channels, int min_channels, int max_channels);
/* Whether gpu_type is of compute capability 9.0 or later (Hopper, Blackwell). */
bool gcsim_nccl_hopper_plus(const char *gpu_type);
/* Blackwell and later (NCCL's compute capability 10.0+ rows) */
bool gcsim_nccl_blackwell_plus(const char *gpu_type);
/* The bytes of one chunk (one network message) of NCCL's tree all-reduce of `bytes` with
 * protocol pr on `channels` channels, `nodes` nodes of ppn GPUs (tuner_model.c): Simple
 * 524,288, LL 32,768, LL128 576,000 halved by NCCL's rule down to 18,000. */
double gcsim_nccl_tree_chunk_bytes(gcsim_protocol pr, double bytes, int channels, int nodes,
                                   int ppn);
/* What one GPU's proxy thread moves across nodes, both directions together, with chunks of
 * chunk_bytes: a chunk per NCCL net overhead (1 us), B/s; 0 for no chunk. */
double gcsim_nccl_proxy_post_Bps(double chunk_bytes);

#endif
