/*
 * sim/collectives/protocol.h: NCCL's protocols and its tuner, as gcsim models them.
 *
 * Offers:
 *   - gcsim_protocol: NCCL's three protocols. Simple moves data in large chunks behind a
 *     memory fence and a flag (full bandwidth, the highest latency per hop); LL128 sends
 *     128-byte lines of which 120 are data, with a flag in each (NVLink only by default);
 *     LL sends 8-byte words of 4 data bytes and a 4-byte flag (half the bandwidth or less,
 *     the lowest latency). A protocol is a change of the platform's link figures: the
 *     intra-node latency scaled by NCCL's own ratio of that protocol's hop latency to
 *     Simple's for the link class (NVLink, PCIe) and algorithm, every bandwidth by NCCL's
 *     efficiency of the protocol for the algorithm, and, for every protocol Simple
 *     included, NCCL's per-call base latency and per-hop network overheads spread over its
 *     hops (protocol.c, tuner_model.c). Both engines run a protocol the same way: on the
 *     changed platform (gcsim_protocol_platform).
 *   - gcsim_tuner_choose: what NCCL's tuner does for one operation and size: the
 *     algorithm (ring, tree, NVLS, NVLS-tree) and protocol of lowest cost in NCCL's model
 *     at the platform's depth, among those the caller allows.
 * docs/collectives.md ("Protocols and the tuner") gives the figures and their sources.
 */
#ifndef GCSIM_PROTOCOL_H
#define GCSIM_PROTOCOL_H

#include <stdbool.h>

#include "collectives.h"

typedef enum { GCSIM_PROTO_SIMPLE, GCSIM_PROTO_LL128, GCSIM_PROTO_LL, GCSIM_PROTO_COUNT } gcsim_protocol;

const char *gcsim_protocol_name(gcsim_protocol p);
/* "simple", "ll128", "ll" (any case); -1 when unknown. */
int gcsim_protocol_parse(const char *text, gcsim_protocol *out);

/* Whether NCCL enables protocol p by default for a communicator of `gpus` GPUs of this
 * platform: LL128 only where the GPUs of a node are joined by NVLink (NVLink mesh or
 * NVSwitch), and across nodes not where the NIC is reached over C2C under a release before
 * 2.27.3 (gcsim_nccl_ll128_over_c2c_release); Simple and LL everywhere. */
bool gcsim_protocol_available(const gcsim_platform *p, gcsim_protocol pr, int gpus);

/* The NCCL algorithm (gcsim_nccl_algo, tuner_model.h) a gcsim collective stands for when the
 * tuner does not choose: ring, tree (single or double), nvls; -1 for gcsim's patterns. */
int gcsim_nccl_algo_of(gcsim_collective c);

/* NCCL's latency that gcsim's links do not carry, for NCCL algorithm algo running op on
 * `gpus` GPUs with protocol pr: its per-call base plus its network hops' per-hop
 * overheads (tuner_model.h); 0 for a gcsim pattern (algo -1), NVLS and broadcast. */
double gcsim_protocol_overhead_s(const gcsim_platform *in, gcsim_op op, int algo, int gpus,
                                 gcsim_protocol pr);

/* NCCL's ring plateau that a ring (algo GCSIM_NCCL_RING) running op with protocol pr on
 * `gpus` GPUs adds at `bytes`: (factor - 1) x NCCL's ring latency for the shape
 * (gcsim_nccl_ring_plateau_factor, gcsim_nccl_latency_of); 0 where the factor is 1 (not a
 * ring Simple all-reduce across nodes, or below 64 bytes per channel and rank). The
 * tuner's platform (gcsim_tuner_choose) and a training call's fixed cost
 * (gcsim_nccl_call_tune) carry it. */
double gcsim_protocol_plateau_s(const gcsim_platform *in, gcsim_op op, int algo, int gpus,
                                gcsim_protocol pr, double bytes);

/* The platform as protocol pr sees it when NCCL algorithm algo (gcsim_nccl_algo, or -1
 * for a gcsim pattern: the protocol's ratios only) runs operation op on `gpus` GPUs, with
 * gcsim_protocol_overhead_s spread over `steps` steps (added to every hop's latency;
 * steps <= 0: not added). The tuner passes the step count of the schedule it runs. */
/* What NCCL's proxy thread lets one GPU move across nodes (both directions together) in
 * a tree all-reduce of `bytes` with protocol pr on `gpus` GPUs: a chunk of NCCL's (at its
 * run-time channel count) per net overhead (tuner_model.c), B/s; 0 where no cap is
 * modelled (one node, another algorithm or operation). */
double gcsim_protocol_proxy_cap_Bps(const gcsim_platform *in, gcsim_op op, int algo, int gpus,
                                     gcsim_protocol pr, double bytes);

void gcsim_protocol_platform(const gcsim_platform *in, gcsim_op op, int algo, int gpus,
                             gcsim_protocol pr, int steps, gcsim_platform *out);

typedef struct {
    gcsim_collective collective;
    int algo;                  /* the NCCL algorithm ranked (gcsim_nccl_algo), or -1 */
    gcsim_protocol protocol;
    double time_s;             /* the closed form's, on the protocol's platform */
    double rank_s;             /* what the tuner ranked it by (gcsim_tuner_rank_s) */
    gcsim_platform platform;   /* the protocol's platform: both engines run on it */
} gcsim_tuned;

/* How NCCL's tuner ranks an all-reduce candidate (tuner_model.c): the ring, NVLS and
 * gcsim's patterns at their time (gcsim's schedule on the protocol's platform, which
 * carries NCCL's latencies); a tree (algo GCSIM_NCCL_TREE) at its latency (its time at 8
 * bytes: NCCL's hops at depth log2(nodes)) plus the ring's Simple bandwidth time
 * (ring_bandwidth_s: its time less its time at 8 bytes) x N/(2(N-1)) / (0.46 x the
 * protocol's tree efficiency x NCCL's tree correction at `bytes`), whatever gcsim's tree
 * achieves; NVLS-tree at its latency plus the ring's bandwidth time, halved on 2 nodes.
 * A tree with LL has that bus bandwidth (the ring's x 0.92/3.8) capped at NCCL's
 * llMaxBw, ll_max_busbw_Bps (gcsim_nccl_ll_max_busbw_Bps; <= 0: no cap), before the
 * conversion to algorithm bandwidth and the correction, as NCCL's model does. A ring
 * with LL is ranked at its time plus what the same cap adds: max(0, bytes x 2(N-1)/N /
 * ll_max_busbw_Bps - ring_bandwidth_s / 0.5) (NCCL's ring LL bus bandwidth, min(llMaxBw,
 * half the ring's), across nodes: not on one node yet, protocol.c says why); every other
 * ring at its time.
 * Both tuners (gcsim_tuner_choose, the stacks' per-call choice) rank with it and then
 * cost the pick with gcsim's own schedule. */
double gcsim_tuner_rank_s(int algo, gcsim_protocol pr, int gpus, int nodes, double bytes,
                          double time_s, double latency_s, double ring_bandwidth_s,
                          double ll_max_busbw_Bps);
struct gcsim_nccl_caps; /* tuner_model.h */
/* gcsim_tuner_rank_s with all of NCCL's caps (tuner_model.c, gcsim_nccl_caps): the tree's
 * bus bandwidth also at most caps->tree_busbw_Bps (every protocol) and, with LL128,
 * caps->tree_ll128_busbw_Bps; a ring with LL128 across nodes ranked at its time plus
 * max(0, bytes x 2(N-1)/N / caps->ring_ll128_busbw_Bps - ring_bandwidth_s / 0.92). A cap
 * <= 0 is none. On two nodes with caps->tree_two_node_bw_Bps > 0 a tree (algo
 * GCSIM_NCCL_TREE) starts from min(2 x the ring's bus bandwidth, that ceiling) instead of
 * the ring's (NCCL's bwIntra on <= 2 nodes, tuner_model.h). The tuners pass the caps of
 * gcsim_tuner_caps (gcsim_topology_net_channels channels). */
double gcsim_tuner_rank_capped_s(int algo, gcsim_protocol pr, int gpus, int nodes, double bytes,
                                 double time_s, double latency_s, double ring_bandwidth_s,
                                 const struct gcsim_nccl_caps *caps);

/* NCCL's caps as both tuners rank with them on platform p over `nodes` nodes: the
 * release's per-channel caps at gcsim_topology_net_channels channels
 * (gcsim_nccl_release_caps) and, on two nodes, the ceiling of the tree's raised bwIntra
 * (gcsim_nccl_two_node_tree_bw_Bps, the node's per-GPU rate intra_node.gpu_to_gpu). */
void gcsim_tuner_caps(const gcsim_platform *p, int nodes, struct gcsim_nccl_caps *out);

/* NCCL's NVLS-tree across nodes (tree_nvls.c): the intra-node rate at which gcsim's
 * NVLS-tree schedule (COLLECTIVE_NVLS_TREE, the railed double tree) runs its chains so that
 * a node's part takes the switch's S / nvls_Bps (NCCL moves it through the NVSwitch, not a
 * chain): nvls_Bps x 2 (i-1)/i for i GPUs per node; 0 with no NVLS (nvls_Bps <= 0) or fewer
 * than 2 GPUs per node. */
double gcsim_nvls_tree_chain_Bps(double nvls_Bps, int gpus_per_node);
/* That rate over the platform's gpu_to_gpu: how much faster the NVLS-tree schedule's flows
 * inside a node run than the double tree's (1 where there is no such rate). */
double gcsim_nvls_tree_port_scale(const gcsim_platform *p);
/* NCCL's NVLS-tree pipeline across nodes (tree_nvls.c): the chunk count gcsim's
 * NVLS-tree schedule runs an all-reduce of `bytes` on `gpus` GPUs with, NCCL's loop count
 * bytes / (channels x heads x chunk); 0 where NVLS-tree does not run (one node, no NVLS). */
int gcsim_nvls_tree_chunks(const gcsim_platform *p, int gpus, double bytes);


/* The tuner's choice for operation op of `bytes` on `gpus` GPUs: the candidate of lowest
 * rank (gcsim_tuner_rank_s). collective: the one to use, or COLLECTIVE_COUNT to let the
 * tuner choose (all-reduce: ring, tree (the double tree), and NVLS on one node or
 * NVLS-tree (the double tree, Simple) across nodes of a platform with NVLS; the other
 * operations NCCL's ring); a forced double tree on an NVLS platform across nodes is
 * ranked as tree and as NVLS-tree. protocol: the one to use, or GCSIM_PROTO_COUNT to
 * choose among those available. Ties go to the earlier candidate (ring, tree, NVLS or
 * NVLS-tree; Simple before LL128 before LL). */
int gcsim_tuner_choose(const gcsim_platform *p, int gpus, gcsim_op op, double bytes,
                       gcsim_collective collective, gcsim_protocol protocol,
                       gcsim_tuned *out, gcsim_error *err);

#endif
