/*
 * sim/collectives/protocol.c: NCCL's protocols as changes of a platform's link figures, and
 * the tuner that picks an algorithm and protocol per operation and size (protocol.h).
 *
 * NCCL's figures and rules come from tuner_model.c (NVIDIA/nccl src/graph/tuning.cc at
 * commit 5067397, with file lines there). What this file does with them:
 *   - bandwidth: every link scaled by NCCL's efficiency of the protocol for the algorithm
 *     (ring LL x0.5, LL128 x0.92; tree LL x1/3.8, LL128 x7/9 on one node, x120/128 across
 *     nodes; Simple x1), so a platform's figures stay what a user measured with Simple;
 *   - latency: the platform's intra-node latency is one Simple hop there (a100-hdr's is
 *     fitted to an nccl-tests log; the others are of the order of a copy's launch), scaled
 *     by NCCL's ratio of the protocol's hop to Simple's for the link class (NVLink, PCIe)
 *     and algorithm; a ring across nodes keeps every hop at least NCCL's net overhead (1
 *     us, x3 for Simple). Then NCCL's per-call base latency and its per-hop network
 *     overheads (ring Simple 14 us, tree LL 5 us, ...; hops: the ring's 2(nodes-1) of its
 *     2(N-1), the tree's 2 log2(nodes)) are added once per call: spread over the steps
 *     of the schedule gcsim runs (counted by a probe, overhead_platform) and added to
 *     every hop's latency, inside the node and on the NIC alike. gcsim's schedules move
 *     all hops of a step together and a step costs its slowest hop, so each step pays
 *     its part once and the call pays NCCL's whole, however many chunk steps a pipelined
 *     tree has; a ring's phases pay one chunk's route instead (gcsim_ring_route_s), whose
 *     hops the probe counts, so the route carries NCCL's whole once too. Network latencies
 *     (nic.latency, the switches') are the wire's and stay beside it;
 *   - a tree all-reduce's bandwidths also carry NCCL's tree correction for the size (0.4 to
 *     1: NCCL's own estimate of how far a tree falls short of its bandwidth at medium sizes);
 *   - a ring Simple all-reduce across nodes also carries NCCL's ring plateau: its latency
 *     x 1.4 (x 1.9 below compute capability 8.0) from 64 bytes per channel and rank on
 *     (tuner_model.c), i.e. 0.4 (0.9) x NCCL's ring latency added, spread as the rest.
 * Both engines run the collective on the changed platform (gcsim collective), so both
 * charge the same overheads (engine agreement). The gcsim patterns that are no NCCL
 * algorithm (halving-doubling, parameter server, ...) keep the protocol's ratios only.
 */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "protocol.h"
#include "schedule_memo.h"
#include "tuner_memo.h"
#include "tuner_model.h"
#include "tuner_release.h"

static const char *const names[GCSIM_PROTO_COUNT] = {"simple", "ll128", "ll"};

const char *gcsim_protocol_name(gcsim_protocol p)
{
    return (unsigned)p < GCSIM_PROTO_COUNT ? names[p] : "?";
}

int gcsim_protocol_parse(const char *text, gcsim_protocol *out)
{
    for (int k = 0; k < GCSIM_PROTO_COUNT; k++) {
        size_t n = strlen(names[k]), i = 0;
        while (i < n && text[i] && tolower((unsigned char)text[i]) == names[k][i])
            i++;
        if (i == n && text[i] == '\0') {
            *out = (gcsim_protocol)k;
            return 0;
        }
    }
    return -1;
}

static bool nvlink_node(const gcsim_platform *p)
{
    return p->intra.kind == INTRA_NVLINK || p->intra.kind == INTRA_NVSWITCH;
}

bool gcsim_protocol_available(const gcsim_platform *p, gcsim_protocol pr, int gpus)
{
    if (pr != GCSIM_PROTO_LL128)
        return (unsigned)pr < GCSIM_PROTO_COUNT;
    /* NCCL 2.8 also wants every GPU of compute capability 7.0 or every one 8.0
     * (tuner_release.c) */
    if (!nvlink_node(p) || !gcsim_nccl_ll128_default_release(p->nccl_version, p->gpu.type))
        return false;
    /* across nodes, the NIC's path from the GPU (typeInter) must be close enough: a NIC on
     * the CPU reached over C2C is not, before 2.27.3 (tuner_release.c) */
    int per_node = p->gpus_per_node > 0 ? p->gpus_per_node : 1;
    return !(gpus > per_node && p->nic.cpu_c2c &&
             !gcsim_nccl_ll128_over_c2c_release(p->nccl_version));
}

int gcsim_nccl_algo_of(gcsim_collective c)
{
    switch (c) {
    case COLLECTIVE_RING: return GCSIM_NCCL_RING;
    case COLLECTIVE_TREE:
    case COLLECTIVE_DOUBLE_TREE: return GCSIM_NCCL_TREE;
    case COLLECTIVE_NVLS: return GCSIM_NCCL_NVLS;
    case COLLECTIVE_NVLS_TREE: return GCSIM_NCCL_NVLS_TREE;
    default: return -1;
    }
}

static bool tree_like(int a)
{
    return a == GCSIM_NCCL_TREE || a == GCSIM_NCCL_NVLS_TREE;
}

/* The overheads of NCCL's model that gcsim's links do not carry: the per-call base and the
 * network hops' per-hop overheads (tuner_model.c); 0 for what NCCL does not run (a gcsim
 * pattern; NVLS on one node, whose latency a platform's NVLS figures already hold) and for
 * broadcast (gcsim's pipelined chain and tree, not NCCL's ring broadcast). */
double gcsim_protocol_overhead_s(const gcsim_platform *in, gcsim_op op, int algo, int gpus,
                                 gcsim_protocol pr)
{
    if (algo < 0 || algo >= GCSIM_NCCL_ALGO_COUNT || algo == GCSIM_NCCL_NVLS ||
        op == GCSIM_OP_BROADCAST || (unsigned)pr >= GCSIM_PROTO_COUNT)
        return 0;
    int per_node = in->gpus_per_node > 0 ? in->gpus_per_node : 1;
    int nodes = (gpus + per_node - 1) / per_node;
    gcsim_nccl_latency l;
    gcsim_nccl_latency_of_release(in->nccl_version, (gcsim_nccl_algo)algo, pr, op,
                                  nvlink_node(in), gpus, nodes, &l);
    return l.base_s + l.inter_hops * l.inter_hop_s;
}

double gcsim_protocol_plateau_s(const gcsim_platform *in, gcsim_op op, int algo, int gpus,
                                gcsim_protocol pr, double bytes)
{
    if (algo != GCSIM_NCCL_RING || (unsigned)pr >= GCSIM_PROTO_COUNT)
        return 0;
    int per_node = in->gpus_per_node > 0 ? in->gpus_per_node : 1;
    int nodes = (gpus + per_node - 1) / per_node;
    double f = gcsim_nccl_ring_plateau_factor_release(in->nccl_version, GCSIM_NCCL_RING, pr, op,
                                                      gcsim_nccl_pre_ampere(in->gpu.type), gpus,
                                                      nodes, bytes);
    if (f == 1.0)
        return 0;
    gcsim_nccl_latency l;
    gcsim_nccl_latency_of_release(in->nccl_version, GCSIM_NCCL_RING, pr, op, nvlink_node(in),
                                  gpus, nodes, &l);
    return (f - 1.0) * l.latency_s;
}

double gcsim_protocol_proxy_cap_Bps(const gcsim_platform *in, gcsim_op op, int algo, int gpus,
                                     gcsim_protocol pr, double bytes)
{
    int per_node = in->gpus_per_node > 0 ? in->gpus_per_node : 1;
    int nodes = (gpus + per_node - 1) / per_node;
    if (op != GCSIM_OP_ALLREDUCE || algo != GCSIM_NCCL_TREE || nodes < 2 ||
        (unsigned)pr >= GCSIM_PROTO_COUNT)
        return 0;
    /* NCCL's search channels (gcsim_topology_net_channels), doubled as NCCL runs them */
    int search = gcsim_topology_net_channels(in);
    if (search < 1)
        search = 1;
    int channels = gcsim_nccl_runtime_channels(search, nodes, gcsim_nccl_hopper_plus(in->gpu.type),
                                               in->intra.gpu_to_gpu_Bps / search);
    /* and as the job's NCCL_MIN_CTAS / NCCL_MAX_CTAS set them (more channels: smaller
     * chunks, more posts for the same bytes) */
    channels = gcsim_nccl_env_channels(channels, in->nccl_env.min_channels,
                                       in->nccl_env.max_channels);
    double chunk = gcsim_nccl_tree_chunk_bytes(pr, bytes, channels, nodes, per_node);
    return gcsim_nccl_proxy_post_Bps(chunk);
}

void gcsim_protocol_platform(const gcsim_platform *in, gcsim_op op, int algo, int gpus,
                             gcsim_protocol pr, int steps, gcsim_platform *out)
{
    *out = *in;
    if ((unsigned)pr >= GCSIM_PROTO_COUNT)
        return;
    int per_node = in->gpus_per_node > 0 ? in->gpus_per_node : 1;
    int nodes = (gpus + per_node - 1) / per_node;
    bool nvlink = nvlink_node(in);
    /* the hop ratio and bandwidth of the algorithm NCCL runs (a gcsim pattern: the ring's
     * ratios, as before; NVLS-tree is Simple only) */
    gcsim_nccl_algo ratio_algo = tree_like(algo) ? GCSIM_NCCL_TREE : GCSIM_NCCL_RING;
    if (pr != GCSIM_PROTO_SIMPLE) {
        gcsim_nccl_latency simple, this;
        gcsim_nccl_latency_of_release(in->nccl_version, ratio_algo, GCSIM_PROTO_SIMPLE, op, nvlink,
                                      gpus, nodes, &simple);
        gcsim_nccl_latency_of_release(in->nccl_version, ratio_algo, pr, op, nvlink, gpus, nodes,
                                      &this);
        out->intra.latency_s *= this.intra_hop_s / simple.intra_hop_s;
        double bw = tree_like(algo)
                        ? gcsim_nccl_tree_bw_factor_release(in->nccl_version, pr, nodes) / 0.92
                        : gcsim_nccl_ring_bw_factor_release(in->nccl_version, pr, op, nodes,
                                                            gpus / nodes);
        out->intra.gpu_to_gpu_Bps *= bw;
        out->intra.gpu_to_host_Bps *= bw;
        out->intra.nvlink_link_Bps *= bw;
        out->nic.bandwidth_Bps *= bw;
        /* transports and PCIe topology (topology.c): the protocol's efficiency on every link */
        out->nic.connection_Bps *= bw;
        out->nic.proxy_Bps *= bw;
        out->intra.host_memory_Bps *= bw;
        out->intra.socket_link_Bps *= bw;
        out->intra.switch_uplink_Bps *= bw;
        out->intra.h2d_bidirectional_Bps *= bw;
        out->intra.shm_bandwidth_Bps *= bw;
    }
    /* NVLS-tree across nodes moves a node's data through the switch, not a chain: its
     * schedule does that (COLLECTIVE_NVLS_TREE, tree_nvls.c: the chains' flows at the
     * switch's rate), in `gcsim collective` and in training calls alike. What a schedule
     * cannot carry is the latency: here the chain's 2 (i-1) hops take the switch's
     * GCSIM_NVLS_STEPS intra-node latencies together, as gcsim's NVLS on one node
     * (schedule.c: NCCL's 25 us NVLS hop against its 3.4 us ring hop); a training call
     * runs on the platform as written, its hops at the platform's latency
     * (docs/collectives.md) */
    if (algo == GCSIM_NCCL_NVLS_TREE && op == GCSIM_OP_ALLREDUCE && nodes > 1 &&
        gcsim_nvls_tree_chain_Bps(in->intra.nvls_Bps, per_node) > 0)
        out->intra.latency_s *= GCSIM_NVLS_STEPS / (2.0 * (per_node - 1));
    /* A ring across nodes launches every hop's network operation: each hop at least
     * NCCL's net overhead (tuner_model.c). */
    if (algo == GCSIM_NCCL_RING && op != GCSIM_OP_BROADCAST) {
        gcsim_nccl_latency l;
        gcsim_nccl_latency_of_release(in->nccl_version, GCSIM_NCCL_RING, pr, op, nvlink, gpus,
                                      nodes, &l);
        out->intra.latency_s = fmax(out->intra.latency_s, l.intra_floor_s);
    }
    /* The rest of NCCL's latency, spread over the schedule's steps: every flow of a step
     * waits it, so each step costs it once and the call the whole. */
    if (steps > 0) {
        double per_step_s = gcsim_protocol_overhead_s(in, op, algo, gpus, pr) / steps;
        out->intra.latency_s += per_step_s;
        out->nic.latency_s += per_step_s;
    }
}

static double closed_form_s(const gcsim_platform *p, int gpus, gcsim_op op, gcsim_collective c,
                            double bytes, gcsim_error *err)
{
    if (op == GCSIM_OP_ALLREDUCE) {
        /* Through the process's schedule memo: the same number as the schedule built here
         * (analytic.schedule_memo), from the ring's closed form and one tree template per
         * protocol platform, where each size and protocol built a listed schedule (issue
         * 45: 47 CPU-s at 2^20 GPUs before the DES's own guard could answer). */
        gcsim_bucket_bytes b = {.dense_bytes = bytes, .payload_bytes = bytes,
                                .aggregation = PAYLOAD_DENSE_SUMMABLE};
        double time_s;
        int chunks = gcsim_pipeline_chunks_on(p, gpus, c, bytes);
        if (gcsim_schedule_memo_time_s(p, gpus, c, 0, chunks, 0, &b, &time_s, err))
            return NAN;
        if (!isfinite(time_s))
            gcsim_fail(err, "out of memory costing the %s schedule", gcsim_collective_name(c));
        return time_s;
    }
    gcsim_topology t;
    if (gcsim_topology_init(&t, p, gpus, err))
        return NAN;
    gcsim_schedule s;
    double payload = bytes;
    if (gcsim_op_schedule_build(&s, op, c, &t, bytes, &payload, err)) {
        gcsim_topology_free(&t);
        return NAN;
    }
    gcsim_bucket_bytes b = {.dense_bytes = payload, .payload_bytes = payload,
                            .aggregation = PAYLOAD_DENSE_SUMMABLE};
    double time_s = gcsim_schedule_time_s(&s, &t, &b);
    gcsim_schedule_free(&s);
    gcsim_topology_free(&t);
    if (!isfinite(time_s))
        gcsim_fail(err, "out of memory costing the %s schedule", gcsim_collective_name(c));
    return time_s;
}

/* *q = the platform protocol pr runs NCCL algorithm algo on (gcsim schedule coll) for an
 * operation of `bytes`, with NCCL's overheads spread over the schedule's steps (and, for a
 * tree all-reduce, NCCL's tree correction at `bytes` on its bandwidths), and *t its
 * closed-form time. The steps are counted by the schedule itself: a probe that adds 1 ms
 * to every flow's latency adds 1 ms per step (a step lasts as long as its slowest flow),
 * so a pipelined tree's chunk steps share the overheads rather than each paying them. */
static int overhead_platform(const gcsim_platform *p, int gpus, gcsim_op op, int algo,
                             gcsim_collective coll, gcsim_protocol pr, double bytes,
                             gcsim_platform *q, double *t, gcsim_error *err)
{
    gcsim_protocol_platform(p, op, algo, gpus, pr, 0, q);
    /* NCCL's tree correction at this size (tuner_model.c: "trees are not perfectly sticking
     * to the model for medium sizes"), on the tree's bandwidth as NCCL's time estimate
     * applies it, so the engines charge what the ranking assumed */
    if (op == GCSIM_OP_ALLREDUCE && algo == GCSIM_NCCL_TREE) {
        double c = gcsim_nccl_tree_correction_release(p->nccl_version, pr, bytes);
        q->intra.gpu_to_gpu_Bps *= c;
        q->intra.gpu_to_host_Bps *= c;
        q->intra.nvlink_link_Bps *= c;
        q->nic.bandwidth_Bps *= c;
    }
    /* NCCL's proxy at this size: a tree all-reduce across nodes posts one network message
     * per chunk, and each GPU's proxy thread takes NCCL's net overhead per post
     * (tuner_model.c); its traffic to and from other nodes moves at most a chunk per
     * overhead (the topology's proxy link per GPU, both directions) */
    double proxy_Bps = gcsim_protocol_proxy_cap_Bps(p, op, algo, gpus, pr, bytes);
    if (proxy_Bps > 0)
        q->nic.proxy_Bps = q->nic.proxy_Bps > 0 ? fmin(q->nic.proxy_Bps, proxy_Bps) : proxy_Bps;
    *t = closed_form_s(q, gpus, op, coll, bytes, err);
    if (isnan(*t))
        return -1;
    if (gcsim_protocol_overhead_s(p, op, algo, gpus, pr) <= 0)
        return 0; /* no network hop: no plateau either (it needs nodes > 1) */
    const double probe_s = 1e-3;
    gcsim_platform probe = *q;
    probe.intra.latency_s += probe_s;
    probe.nic.latency_s += probe_s;
    double tp = closed_form_s(&probe, gpus, op, coll, bytes, err);
    if (isnan(tp))
        return -1;
    long steps = lround((tp - *t) / probe_s);
    if (steps < 1)
        return 0;
    gcsim_platform base = *q;
    gcsim_protocol_platform(p, op, algo, gpus, pr, (int)steps, q);
    /* NCCL's ring plateau at this size (tuner_model.c), spread over the same steps */
    double plateau_s = gcsim_protocol_plateau_s(p, op, algo, gpus, pr, bytes);
    q->intra.latency_s += plateau_s / (double)steps;
    q->nic.latency_s += plateau_s / (double)steps;
    q->intra.gpu_to_gpu_Bps = base.intra.gpu_to_gpu_Bps;
    q->intra.gpu_to_host_Bps = base.intra.gpu_to_host_Bps;
    q->intra.nvlink_link_Bps = base.intra.nvlink_link_Bps;
    q->nic.bandwidth_Bps = base.nic.bandwidth_Bps;
    q->nic.proxy_Bps = base.nic.proxy_Bps;
    *t = closed_form_s(q, gpus, op, coll, bytes, err);
    return isnan(*t) ? -1 : 0;
}

double gcsim_tuner_rank_s(int algo, gcsim_protocol pr, int gpus, int nodes, double bytes,
                          double time_s, double latency_s, double ring_bandwidth_s,
                          double ll_max_busbw_Bps)
{
    gcsim_nccl_caps caps = {.ll_max_busbw_Bps = ll_max_busbw_Bps};
    return gcsim_tuner_rank_capped_s(algo, pr, gpus, nodes, bytes, time_s, latency_s,
                                     ring_bandwidth_s, &caps);
}

/* min(a, cap), cap <= 0 meaning none */
static double capped(double a, double cap)
{
    return cap > 0 ? fmin(a, cap) : a;
}

double gcsim_tuner_rank_capped_s(int algo, gcsim_protocol pr, int gpus, int nodes, double bytes,
                                 double time_s, double latency_s, double ring_bandwidth_s,
                                 const struct gcsim_nccl_caps *caps)
{
    if (gpus < 2)
        return time_s;
    double ring_bw_s = fmax(0, ring_bandwidth_s);
    /* the ring's Simple bus bandwidth, NCCL's per-channel figure x channels (B/s; infinite
     * when the ring moves no bytes in time) */
    double ring_busbw_Bps = ring_bw_s > 0 ? bytes * (2.0 * (gpus - 1) / gpus) / ring_bw_s
                                          : INFINITY;
    if (algo == GCSIM_NCCL_TREE) {
        /* NCCL's tree (tuning.cc lines 330-335): 0.92 of the ring's per-channel bandwidth
         * as bus bandwidth, at most channels x perChMaxTreeBw; then with LL x 1/3.8, at
         * most llMaxBw; with LL128 x 7/9 (one node) or 120/128, at most channels x
         * perChMaxTreeLL128Bw; then counted at half of it as algorithm bandwidth and
         * corrected per size (tuner_model.c). On two nodes the per-channel figure is the
         * tree graph's bwIntra, which NCCL's search raises up to twice the network's
         * (gcsim_nccl_two_node_tree_bw_Bps): twice the ring's, at most that ceiling. */
        double tree_Bps = ring_busbw_Bps;
        if (nodes == 2 && caps->tree_two_node_bw_Bps > 0)
            tree_Bps = fmin(2.0 * ring_busbw_Bps, caps->tree_two_node_bw_Bps);
        double busbw = capped(0.92 * tree_Bps, caps->tree_busbw_Bps);
        if (pr == GCSIM_PROTO_LL)
            busbw = capped(busbw / 3.8, caps->ll_max_busbw_Bps);
        else if (pr == GCSIM_PROTO_LL128)
            busbw = capped(busbw * gcsim_nccl_tree_bw_factor_release(caps->release, pr, nodes) /
                               0.92,
                           caps->tree_ll128_busbw_Bps);
        if (!(busbw > 0))
            return INFINITY;
        return latency_s +
               bytes / (0.5 * gcsim_nccl_tree_correction_release(caps->release, pr, bytes) * busbw);
    }
    if (algo == GCSIM_NCCL_NVLS_TREE) {
        /* NCCL's NVLS-tree: the ring's per-channel network bandwidth, twice it on two nodes
         * (tuning.cc line 316), at most channels x perChMaxNVLSTreeBw (lines 307-322, from
         * 2.28.3; tuner_model.c), converted as the ring's (line 379) */
        double nvls_bw_s = ring_bw_s / (nodes <= 2 ? 2.0 : 1.0);
        if (caps->nvls_tree_busbw_Bps > 0)
            nvls_bw_s = fmax(nvls_bw_s, bytes * (2.0 * (gpus - 1) / gpus) /
                                            caps->nvls_tree_busbw_Bps);
        return latency_s + nvls_bw_s;
    }
    if (algo == GCSIM_NCCL_RING && pr == GCSIM_PROTO_LL && caps->ll_max_busbw_Bps > 0) {
        /* NCCL's ring with LL: its bus bandwidth half the ring's, at most llMaxBw (tuning.cc
         * line 327, the same cap as the tree's at line 332), converted to algorithm
         * bandwidth x N/(2(N-1)) (line 379). gcsim's ring LL already moves its bytes at
         * half the links' rates (ring_bw_s / 0.5); where the cap is slower, the rank carries
         * the difference, bytes x 2(N-1)/N / llMaxBw less that bandwidth time. On one node
         * too (llMaxBws[arch][0]). */
        double ll_bw_s = ring_bw_s / gcsim_nccl_ring_bw_factor_release(
                                         caps->release, GCSIM_PROTO_LL, GCSIM_OP_ALLREDUCE,
                                         nodes, nodes > 0 ? gpus / nodes : gpus);
        double capped_s = bytes * (2.0 * (gpus - 1) / gpus) / caps->ll_max_busbw_Bps;
        return time_s + fmax(0, capped_s - ll_bw_s);
    }
    if (algo == GCSIM_NCCL_RING && pr == GCSIM_PROTO_LL128 && caps->ring_ll128_busbw_Bps > 0 &&
        nodes > 1) {
        /* NCCL's ring with LL128: 0.92 of the ring's bus bandwidth, at most channels x
         * perChMaxRingLL128Bw (tuning.cc lines 328-329); gcsim's ring LL128 moves its bytes
         * at 0.92 of the links' rates already, so the rank carries what the cap adds, as
         * LL's above. Across nodes only: calibrate's regime split has learnt LL's cap
         * (calib_classify), not this one, so a one-node LL128 cap could again push a
         * calibrated one-node log into the latency regime. */
        double ll128_bw_s = ring_bw_s / gcsim_nccl_ring_bw_factor_release(
                                            caps->release, GCSIM_PROTO_LL128, GCSIM_OP_ALLREDUCE,
                                            nodes, nodes > 0 ? gpus / nodes : gpus);
        double capped_s = bytes * (2.0 * (gpus - 1) / gpus) / caps->ring_ll128_busbw_Bps;
        return time_s + fmax(0, capped_s - ll128_bw_s);
    }
    return time_s;
}

void gcsim_tuner_caps(const gcsim_platform *p, int nodes, gcsim_nccl_caps *out)
{
    int channels = gcsim_topology_net_channels(p);
    gcsim_nccl_release_caps(p->gpu.type, p->nccl_version, nodes, channels, out);
    if (nodes == 2)
        out->tree_two_node_bw_Bps = gcsim_nccl_two_node_tree_bw_Bps(
            p->gpu.type, channels, p->gpus_per_node, p->intra.gpu_to_gpu_Bps);
}

typedef struct {
    int algo;               /* gcsim_nccl_algo, or -1: a gcsim pattern */
    gcsim_collective coll;  /* the schedule gcsim runs for it */
} candidate;

static int tuner_choose(const gcsim_platform *p, int gpus, gcsim_op op, double bytes,
                        gcsim_collective collective, gcsim_protocol protocol,
                        gcsim_tuned *out, gcsim_error *err)
{
    int nodes = (gpus + p->gpus_per_node - 1) / p->gpus_per_node;
    bool nvls = p->intra.nvls_Bps > 0;
    /* NCCL's algorithms for the operation, each with the gcsim schedule that stands for
     * it: ring; tree (the railed double tree); NVLS on one node with NVLink SHARP;
     * NVLS-tree across nodes with it (its own schedule, tree_nvls.c: the railed double
     * tree with each node's part at the switch's rate). The other operations run one
     * schedule each, NCCL's ring. */
    candidate all[4] = {{GCSIM_NCCL_RING, COLLECTIVE_RING}, {GCSIM_NCCL_TREE, COLLECTIVE_DOUBLE_TREE}};
    int n_all = 2;
    if (nvls && nodes == 1)
        all[n_all++] = (candidate){GCSIM_NCCL_NVLS, COLLECTIVE_NVLS};
    if (nvls && nodes > 1)
        all[n_all++] = (candidate){GCSIM_NCCL_NVLS_TREE, COLLECTIVE_NVLS_TREE};
    if (op != GCSIM_OP_ALLREDUCE)
        n_all = 1;
    candidate cand[4];
    int n_cand = 0;
    if (collective == COLLECTIVE_COUNT) {
        for (int k = 0; k < n_all; k++)
            cand[n_cand++] = all[k];
    } else {
        /* a forced tree runs as NCCL's tree; a forced double tree also as NVLS-tree (its
         * trees across nodes), each on its own schedule */
        for (int k = 0; k < n_all; k++)
            if (all[k].coll == collective ||
                (collective == COLLECTIVE_TREE && all[k].algo == GCSIM_NCCL_TREE))
                cand[n_cand++] = (candidate){all[k].algo, collective};
            else if (collective == COLLECTIVE_DOUBLE_TREE && all[k].algo == GCSIM_NCCL_NVLS_TREE)
                cand[n_cand++] = all[k];
        if (n_cand == 0) /* a gcsim pattern, or an algorithm this platform lacks */
            cand[n_cand++] = (candidate){op == GCSIM_OP_ALLREDUCE ? gcsim_nccl_algo_of(collective)
                                                                  : GCSIM_NCCL_RING,
                                         collective};
    }
    /* NCCL turns LL128 on only where the GPUs of a node talk over NVLink (tuning.cc, commit
     * 5067397: pEnable &= typeIntra <= PATH_NVB, "other cases are not tested and may cause
     * silent data corruption"); its tuner here never picks it on PCIe either. Forcing it
     * there (NCCL_PROTO=LL128) runs an untested protocol: refused rather than timed. */
    if (protocol == GCSIM_PROTO_LL128 && !nvlink_node(p))
        return gcsim_fail(err, "--protocol %s: %s: $.intra_node.kind is pcie-switch, and NCCL "
                               "enables LL128 only where a node's GPUs talk over NVLink (on "
                               "PCIe it is untested and may corrupt data, NCCL's tuning.cc); "
                               "give simple or ll",
                          gcsim_protocol_name(protocol), p->source_path);
    if (collective == COLLECTIVE_NVLS && protocol != GCSIM_PROTO_COUNT &&
        protocol != GCSIM_PROTO_SIMPLE)
        return gcsim_fail(err, "collective nvls runs the Simple protocol only (as NCCL's)");
    /* The ring's Simple bandwidth time (its time less its time at 8 bytes): NCCL's model
     * gives every algorithm's bandwidth from the same per-channel figure. */
    double ring_bw_s = 0;
    if (op == GCSIM_OP_ALLREDUCE) {
        gcsim_platform r;
        gcsim_protocol_platform(p, op, GCSIM_NCCL_RING, gpus, GCSIM_PROTO_SIMPLE, 0, &r);
        double full = closed_form_s(&r, gpus, op, COLLECTIVE_RING, bytes, err);
        double lat = closed_form_s(&r, gpus, op, COLLECTIVE_RING, 8, err);
        if (isnan(full) || isnan(lat))
            return -1;
        ring_bw_s = full - lat;
    }
    /* NCCL's caps on its modelled bus bandwidths, at the graph's channel count */
    gcsim_nccl_caps caps;
    gcsim_tuner_caps(p, nodes, &caps);
    bool found = false;
    for (int a = 0; a < n_cand; a++)
        for (int pr = 0; pr < GCSIM_PROTO_COUNT; pr++) {
            if (protocol != GCSIM_PROTO_COUNT ? pr != (int)protocol
                                              : !gcsim_protocol_available(p, (gcsim_protocol)pr,
                                                                          gpus))
                continue;
            bool simple_only = cand[a].coll == COLLECTIVE_NVLS ||
                               cand[a].algo == GCSIM_NCCL_NVLS || cand[a].algo == GCSIM_NCCL_NVLS_TREE;
            if (simple_only && pr != GCSIM_PROTO_SIMPLE)
                continue;
            gcsim_platform q;
            double t, rank;
            if (overhead_platform(p, gpus, op, cand[a].algo, cand[a].coll, (gcsim_protocol)pr,
                                  bytes, &q, &t, err))
                return -1;
            rank = t;
            if (op == GCSIM_OP_ALLREDUCE && cand[a].algo == GCSIM_NCCL_RING)
                rank = gcsim_tuner_rank_capped_s(cand[a].algo, (gcsim_protocol)pr, gpus, nodes,
                                                 bytes, t, 0, ring_bw_s, &caps);
            if (op == GCSIM_OP_ALLREDUCE && tree_like(cand[a].algo)) {
                /* its latency: its time at 8 bytes with NCCL's overheads at its depth */
                gcsim_platform q8;
                double lat;
                if (overhead_platform(p, gpus, op, cand[a].algo, cand[a].coll,
                                      (gcsim_protocol)pr, 8, &q8, &lat, err))
                    return -1;
                rank = gcsim_tuner_rank_capped_s(cand[a].algo, (gcsim_protocol)pr, gpus, nodes,
                                                 bytes, t, lat, ring_bw_s, &caps);
            }
            if (!found || rank < out->rank_s) {
                out->collective = cand[a].coll;
                out->algo = cand[a].algo;
                out->protocol = (gcsim_protocol)pr;
                out->time_s = t;
                out->rank_s = rank;
                out->platform = q;
                found = true;
            }
        }
    return found ? 0 : gcsim_fail(err, "unknown protocol");
}

/* The choice asked once per process for each platform and question (tuner_memo.h): a
 * pure function of them; failures are asked again. */
int gcsim_tuner_choose(const gcsim_platform *p, int gpus, gcsim_op op, double bytes,
                       gcsim_collective collective, gcsim_protocol protocol,
                       gcsim_tuned *out, gcsim_error *err)
{
    gcsim_tuner_memo_key key = {.kind = GCSIM_TUNER_MEMO_CHOOSE, .gpus = gpus, .nodes = -1,
                                .op = (int)op, .collective = (int)collective,
                                .protocol = (int)protocol, .bytes = bytes};
    if (gcsim_tuner_memo_get(p, &key, out, sizeof *out))
        return 0;
    if (tuner_choose(p, gpus, op, bytes, collective, protocol, out, err))
        return -1;
    gcsim_tuner_memo_put(p, &key, out, sizeof *out);
    return 0;
}
