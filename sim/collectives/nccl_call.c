/* sim/collectives/nccl_call.c: NCCL's per-call latency for a training call (nccl_call.h). */
#include <math.h>
#include <stdbool.h>

#include "nccl_call.h"
#include "protocol.h"
#include "schedule_memo.h"
#include "tuner_model.h"
#include "tuner_release.h"

int gcsim_nccl_call_algo(gcsim_collective c)
{
    switch (c) {
    case COLLECTIVE_ALLGATHER:
    case COLLECTIVE_REDUCE_SCATTER: return GCSIM_NCCL_RING;
    default: return gcsim_nccl_algo_of(c);
    }
}

static gcsim_op op_of(gcsim_collective c)
{
    switch (c) {
    case COLLECTIVE_ALLGATHER: return GCSIM_OP_ALLGATHER;
    case COLLECTIVE_REDUCE_SCATTER: return GCSIM_OP_REDUCESCATTER;
    default: return GCSIM_OP_ALLREDUCE;
    }
}

double gcsim_nccl_call_overhead_s(const gcsim_platform *p, int gpus, gcsim_collective c,
                                  int algo)
{
    if (gpus < 2)
        return 0;
    if (algo < 0)
        algo = gcsim_nccl_call_algo(c);
    /* the figure `gcsim collective` spreads over a Simple call's steps (protocol.c) */
    return gcsim_protocol_overhead_s(p, op_of(c), algo, gpus, GCSIM_PROTO_SIMPLE);
}

/* The node's GPUs talk over NVLink (else PCIe), as protocol.c decides it. Only the hops
 * inside a node depend on it, and those are not charged here: the figures below do not
 * move with it; it is passed for NCCL's shape all the same. */
static bool nvlink_node(const gcsim_platform *p)
{
    return p->intra.kind == INTRA_NVLINK || p->intra.kind == INTRA_NVSWITCH;
}

double gcsim_nccl_ranks_overhead_s(const gcsim_platform *p, int ranks, int nodes,
                                   gcsim_collective c, int algo)
{
    if (ranks < 2)
        return 0;
    if (algo < 0)
        algo = gcsim_nccl_call_algo(c);
    /* what NCCL does not run, and NVLS (its figures hold its latency): as
     * gcsim_protocol_overhead_s */
    if (algo < 0 || algo >= GCSIM_NCCL_ALGO_COUNT || algo == GCSIM_NCCL_NVLS)
        return 0;
    gcsim_nccl_latency l;
    gcsim_nccl_latency_of_release(p->nccl_version, (gcsim_nccl_algo)algo, GCSIM_PROTO_SIMPLE,
                                  op_of(c), nvlink_node(p), ranks, nodes < 1 ? 1 : nodes, &l);
    return l.base_s + l.inter_hops * l.inter_hop_s;
}

double gcsim_nccl_alltoall_overhead_s(const gcsim_platform *p, int ranks, int nodes)
{
    if (ranks < 2)
        return 0;
    if (nodes < 1)
        nodes = 1;
    gcsim_nccl_latency l;
    gcsim_nccl_latency_of_release(p->nccl_version, GCSIM_NCCL_RING, GCSIM_PROTO_SIMPLE,
                                  GCSIM_OP_ALLGATHER, nvlink_node(p), ranks, nodes, &l);
    return l.base_s + (nodes > 1 ? l.inter_hop_s : 0);
}

/* ---- the tuner's protocol for a training call, by NCCL's closed-form model ----
 *
 * A candidate (algorithm x protocol) is costed from the schedule the engines run for its
 * algorithm on the platform as written (schedule memo: one prepared schedule, or one tree
 * template, per collective, shared by every call and candidate) and NCCL's alpha-beta
 * model of what the protocol changes (tuner_model.c):
 *   extra = NCCL's Simple charge (base + network hops, what the call paid before)
 *         + the protocol's latency less Simple's (protocol_latency_delta_s: NCCL's base and
 *           network hops, the platform's intra-node hop at NCCL's ratio)
 *         + the schedule's bandwidth time x (Simple's bandwidth / the protocol's - 1)
 * where the bandwidth time is the schedule at the call's bytes less the schedule at 8
 * bytes, and a protocol's bandwidth is NCCL's efficiency for the algorithm (ring LL 0.5,
 * LL128 0.92; tree LL 1/3.8, LL128 7/9 or 120/128, with its tree correction at the size).
 * The candidate's time is schedule + extra; it is ranked as gcsim_tuner_rank_s ranks
 * (a tree by its latency, the schedule at 8 bytes + extra less the bandwidth part, and
 * the ring's bandwidth time). For Simple extra is the charge the calls paid before, so
 * every call that stays Simple costs what it cost, to the bit.
 *
 * `gcsim collective` costs each candidate through its schedule on the protocol's own
 * platform (protocol.c): a new platform per protocol, size and step count, hence a new
 * tree template per candidate, which at 65,536 GPUs took seconds per call (issue 42, the
 * revert 7ab770c). The two agree on Simple and on the bandwidth terms; they differ where
 * gcsim's schedule and NCCL's hop count see a protocol's intra-node hop differently
 * (docs/collectives.md, "The tuner's protocol in training calls"). */

typedef struct {
    gcsim_collective coll;
    int algo, protocol;
    double sched_s, extra_s, rank_s;
} candidate;

/* What protocol pr changes in a call's latency against Simple, as `gcsim collective`'s
 * protocol platform changes it (protocol.c): NCCL's per-call base and network per-hop
 * overheads of pr less Simple's, and the platform's intra-node hop (a Simple hop) scaled
 * by NCCL's ratio of pr's hop to Simple's (a ring across nodes: at least NCCL's net
 * overhead) on the intra-node hops a byte makes in sequence. Their count is NCCL's (a
 * ring's 2(N-1) less its network hops, a tree's 2(ppn-1) chain), at most the intra-node
 * latencies the schedule at 8 bytes (lat_s) holds: gcsim's schedules move a step's hops
 * together and a step costs its slowest, which NCCL's count does not see (its 14 chain
 * hops of a 2 x 8 tree are fewer steps in gcsim's double tree). Across nodes a tree's
 * intra-node hops set a step's pace only where the platform's intra-node latency is above
 * the network's (nic.latency); elsewhere they are left out. A ring's are all on its route
 * (a pipelined ring pays one chunk's route, gcsim_ring_route_s: 2(N - j) intra-node hops
 * of an all-reduce on j nodes, NCCL's count), so they count across nodes too. 0 for NVLS
 * and NVLS-tree, which run Simple only. */
static double protocol_latency_delta_s(const gcsim_platform *p, int algo, gcsim_protocol pr,
                                       gcsim_op op, int ranks, int nodes, double lat_s)
{
    if (pr == GCSIM_PROTO_SIMPLE || (algo != GCSIM_NCCL_RING && algo != GCSIM_NCCL_TREE))
        return 0;
    gcsim_nccl_latency simple, this;
    gcsim_nccl_latency_of_release(p->nccl_version, (gcsim_nccl_algo)algo, GCSIM_PROTO_SIMPLE, op,
                                  nvlink_node(p), ranks, nodes, &simple);
    gcsim_nccl_latency_of_release(p->nccl_version, (gcsim_nccl_algo)algo, pr, op, nvlink_node(p),
                                  ranks, nodes, &this);
    double d = (this.base_s + this.inter_hops * this.inter_hop_s) -
               (simple.base_s + simple.inter_hops * simple.inter_hop_s);
    double hop_s = p->intra.latency_s;
    if (hop_s > 0 && (nodes == 1 || algo == GCSIM_NCCL_RING || hop_s > p->nic.latency_s)) {
        double units = fmin((double)(this.hops - this.inter_hops), floor(lat_s / hop_s));
        double new_hop_s = fmax(hop_s * this.intra_hop_s / simple.intra_hop_s,
                                this.intra_floor_s);
        d += units * (new_hop_s - hop_s);
    }
    return d;
}

/* Simple's bandwidth over protocol pr's for algorithm algo at `bytes` (>= 1). */
static double bandwidth_ratio(int v, int algo, gcsim_protocol pr, gcsim_op op, int ranks,
                              int nodes, double bytes)
{
    if (pr == GCSIM_PROTO_SIMPLE)
        return 1;
    if (algo == GCSIM_NCCL_TREE)
        return gcsim_nccl_tree_bw_factor_release(v, GCSIM_PROTO_SIMPLE, nodes) *
               gcsim_nccl_tree_correction_release(v, GCSIM_PROTO_SIMPLE, bytes) /
               (gcsim_nccl_tree_bw_factor_release(v, pr, nodes) *
                gcsim_nccl_tree_correction_release(v, pr, bytes));
    return 1.0 / gcsim_nccl_ring_bw_factor_release(v, pr, op, nodes,
                                                   nodes > 0 ? ranks / nodes : ranks);
}

/* c->extra_s for a call of `bytes` whose schedule takes sched_s (lat_s at 8 bytes); the
 * Simple charge simple_s. */
static void cost_candidate(const gcsim_platform *p, candidate *c, gcsim_op op, int ranks,
                           int nodes, double bytes, double simple_s, double lat_s)
{
    double bw_s = fmax(0.0, c->sched_s - lat_s);
    /* NCCL's ring plateau at this size (a ring Simple all-reduce across nodes, protocol.h),
     * as `gcsim collective` charges it */
    c->extra_s = simple_s + gcsim_protocol_plateau_s(p, op, c->algo, ranks,
                                                     (gcsim_protocol)c->protocol, bytes);
    if (c->protocol != GCSIM_PROTO_SIMPLE)
        c->extra_s += protocol_latency_delta_s(p, c->algo, (gcsim_protocol)c->protocol, op,
                                               ranks, nodes, lat_s) +
                      bw_s * (bandwidth_ratio(p->nccl_version, c->algo,
                                              (gcsim_protocol)c->protocol, op, ranks, nodes,
                                              bytes) - 1);
}

/* The pick among n candidates: the least rank (ties: the earlier); where its time is below
 * its schedule's (a protocol's shorter hop, which the engines cannot run: they charge at
 * least the schedule), the least of schedule + max(0, extra), ties keeping the first pick:
 * the tightest upper bound of NCCL's model the engines can charge. */
static const candidate *pick(const candidate *c, int n)
{
    const candidate *best = &c[0];
    for (int k = 1; k < n; k++)
        if (c[k].rank_s < best->rank_s)
            best = &c[k];
    if (best->extra_s >= 0)
        return best;
    double best_s = best->sched_s;
    for (int k = 0; k < n; k++)
        if (c[k].sched_s + fmax(0.0, c[k].extra_s) < best_s) {
            best_s = c[k].sched_s + fmax(0.0, c[k].extra_s);
            best = &c[k];
        }
    return best;
}

static void tuned_of(const candidate *c, gcsim_nccl_tuned_call *out)
{
    *out = (gcsim_nccl_tuned_call){.collective = c->coll, .algo = c->algo,
                                   .protocol = c->protocol, .time_s = c->sched_s + c->extra_s,
                                   .schedule_s = c->sched_s, .fixed_s = fmax(0.0, c->extra_s)};
}

/* The call's schedule time on the platform as written (the engines' cost without a fixed
 * cost): gcsim_call_pipeline_chunks of a dense call. */
static int schedule_s(const gcsim_platform *p, int gpus, gcsim_collective c, double bytes,
                      double *out, gcsim_error *err)
{
    gcsim_bucket_bytes b = {.dense_bytes = bytes, .payload_bytes = bytes,
                            .aggregation = PAYLOAD_DENSE_SUMMABLE};
    return gcsim_schedule_memo_time_s(p, gpus, c, 0, gcsim_pipeline_chunks_on(p, gpus, c, bytes), 0,
                                      &b, out,
                                      err);
}

int gcsim_nccl_call_tune(const gcsim_platform *p, int gpus, double bytes,
                         gcsim_nccl_tuned_call *out, gcsim_error *err)
{
    int per_node = p->gpus_per_node > 0 ? p->gpus_per_node : 1;
    int nodes = (gpus + per_node - 1) / per_node;
    bool nvls = p->intra.nvls_Bps > 0;
    /* NCCL's ring, tree (the double tree), NVLS on one node and NVLS-tree across nodes
     * where the platform has NVLS (its own schedule, as `gcsim collective` runs it:
     * tree_nvls.c); ties go to the earlier */
    static const struct {
        int algo;
        gcsim_collective coll;
    } algos[] = {{GCSIM_NCCL_RING, COLLECTIVE_RING},
                 {GCSIM_NCCL_TREE, COLLECTIVE_DOUBLE_TREE},
                 {GCSIM_NCCL_NVLS, COLLECTIVE_NVLS},
                 {GCSIM_NCCL_NVLS_TREE, COLLECTIVE_NVLS_TREE}};
    candidate c[3 * GCSIM_PROTO_COUNT + 1];
    int n = 0;
    /* NCCL's caps on its modelled bus bandwidths, as gcsim_tuner_choose takes them */
    gcsim_nccl_caps caps;
    gcsim_tuner_caps(p, nodes, &caps);
    double ring_bw_s = 0;
    for (size_t k = 0; k < sizeof algos / sizeof algos[0]; k++) {
        int a = algos[k].algo;
        if ((a == GCSIM_NCCL_NVLS && !(nvls && nodes == 1)) ||
            (a == GCSIM_NCCL_NVLS_TREE && !(nvls && nodes > 1)))
            continue;
        double sched, lat = 0;
        if (schedule_s(p, gpus, algos[k].coll, bytes, &sched, err) ||
            (a != GCSIM_NCCL_NVLS && schedule_s(p, gpus, algos[k].coll, 8, &lat, err)))
            return -1;
        if (a == GCSIM_NCCL_RING)
            ring_bw_s = sched - lat;
        double simple_s = gcsim_nccl_call_overhead_s(p, gpus, algos[k].coll, a);
        for (int pr = 0; pr < GCSIM_PROTO_COUNT; pr++) {
            if (!gcsim_protocol_available(p, (gcsim_protocol)pr, gpus) ||
                ((a == GCSIM_NCCL_NVLS || a == GCSIM_NCCL_NVLS_TREE) && pr != GCSIM_PROTO_SIMPLE))
                continue;
            candidate *x = &c[n++];
            *x = (candidate){.coll = algos[k].coll, .algo = a, .protocol = pr, .sched_s = sched};
            cost_candidate(p, x, GCSIM_OP_ALLREDUCE, gpus, nodes, bytes, simple_s, lat);
            x->rank_s = x->sched_s + x->extra_s;
            if (a == GCSIM_NCCL_RING) /* LL's and LL128's caps (gcsim_tuner_rank_capped_s) */
                x->rank_s = gcsim_tuner_rank_capped_s(a, (gcsim_protocol)pr, gpus, nodes, bytes,
                                                      x->rank_s, 0, ring_bw_s, &caps);
            if (a == GCSIM_NCCL_TREE || a == GCSIM_NCCL_NVLS_TREE) {
                /* its latency: the schedule at 8 bytes with the call's latency terms (the
                 * bandwidth part of extra left out) */
                double lat_extra = simple_s + protocol_latency_delta_s(p, a, (gcsim_protocol)pr,
                                                                       GCSIM_OP_ALLREDUCE,
                                                                       gpus, nodes, lat);
                x->rank_s = gcsim_tuner_rank_capped_s(a, (gcsim_protocol)pr, gpus, nodes, bytes,
                                                      x->rank_s, lat + lat_extra, ring_bw_s,
                                                      &caps);
            }
        }
    }
    tuned_of(pick(c, n), out);
    return 0;
}

int gcsim_nccl_group_call_tune(const gcsim_platform *p, int gpus, int group, gcsim_collective c,
                               const gcsim_bucket_bytes *b, gcsim_nccl_tuned_call *out,
                               gcsim_error *err)
{
    int g = group > 0 ? group : gpus;
    int per_node = p->gpus_per_node > 0 ? p->gpus_per_node : 1;
    int nodes = (g + per_node - 1) / per_node;
    bool gather = c == COLLECTIVE_ALLGATHER;
    /* the groups' schedule on all GPUs, as the engines run it, and at 8 bytes of payload */
    gcsim_bucket_bytes small = *b;
    double scale = b->payload_bytes > 0 ? 8.0 / b->payload_bytes : 0;
    small.dense_bytes *= scale;
    small.payload_bytes *= scale;
    small.fixed_bytes *= scale;
    double sched, lat;
    if (gcsim_schedule_memo_time_s(p, gpus, c, 0,
                                   gcsim_pipeline_chunks_on(p, gpus, c, gcsim_hop_bytes(b, gpus)),
                                   group, b, &sched, err) ||
        gcsim_schedule_memo_time_s(p, gpus, c, 0,
                                   gcsim_pipeline_chunks_on(p, gpus, c, gcsim_hop_bytes(&small, gpus)),
                                   group, &small, &lat, err))
        return -1;
    double simple_s = gcsim_nccl_call_overhead_s(p, g, c, -1);
    /* NCCL's ring, at nccl-tests' size (the gathered result: the payload x group; the
     * buffer scattered: the payload) for the tree correction, which a ring does not use */
    double size = gather ? b->payload_bytes * g : b->payload_bytes;
    candidate x[GCSIM_PROTO_COUNT];
    int n = 0;
    for (int pr = 0; pr < GCSIM_PROTO_COUNT; pr++) {
        if (!gcsim_protocol_available(p, (gcsim_protocol)pr, g))
            continue;
        x[n] = (candidate){.coll = c, .algo = GCSIM_NCCL_RING, .protocol = pr, .sched_s = sched};
        cost_candidate(p, &x[n], gather ? GCSIM_OP_ALLGATHER : GCSIM_OP_REDUCESCATTER, g, nodes,
                       size, simple_s, lat);
        x[n].rank_s = x[n].sched_s + x[n].extra_s;
        n++;
    }
    tuned_of(pick(x, n), out);
    return 0;
}
