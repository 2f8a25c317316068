/* sim/collectives/nccl_call.c: NCCL's per-call latency for a training call (nccl_call.h). */
#include <math.h>
#include <stdbool.h>

#include "nccl_call.h"
#include "protocol.h"
#include "schedule_memo.h"
#include "tuner_model.h"

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
    gcsim_nccl_latency_of((gcsim_nccl_algo)algo, GCSIM_PROTO_SIMPLE, op_of(c), nvlink_node(p),
                          ranks, nodes < 1 ? 1 : nodes, &l);
    return l.base_s + l.inter_hops * l.inter_hop_s;
}

double gcsim_nccl_alltoall_overhead_s(const gcsim_platform *p, int ranks, int nodes)
{
    if (ranks < 2)
        return 0;
    if (nodes < 1)
        nodes = 1;
    gcsim_nccl_latency l;
    gcsim_nccl_latency_of(GCSIM_NCCL_RING, GCSIM_PROTO_SIMPLE, GCSIM_OP_ALLGATHER,
                          nvlink_node(p), ranks, nodes, &l);
    return l.base_s + (nodes > 1 ? l.inter_hop_s : 0);
}

/* max(0, time_s - sched_s), or NCCL's Simple overhead whole (simple_s) where the
 * difference is that figure but for rounding: `gcsim collective` spreads it over the
 * schedule's steps and the sum comes back a few ulps off, which would move a Simple call's
 * charge in its last digits for nothing. */
static double fixed_cost_s(int protocol, double time_s, double sched_s, double simple_s)
{
    double d = time_s - sched_s;
    if (protocol == GCSIM_PROTO_SIMPLE && fabs(d - simple_s) <= 1e-9 * time_s)
        return simple_s;
    return fmax(0.0, d);
}

/* The call's schedule time on the platform as written (the engines' cost without a fixed
 * cost): gcsim_call_pipeline_chunks of a dense call. */
static int schedule_s(const gcsim_platform *p, int gpus, gcsim_collective c, double bytes,
                      double *out, gcsim_error *err)
{
    gcsim_bucket_bytes b = {.dense_bytes = bytes, .payload_bytes = bytes,
                            .aggregation = PAYLOAD_DENSE_SUMMABLE};
    return gcsim_schedule_memo_time_s(p, gpus, c, 0, gcsim_pipeline_chunks(c, bytes), 0, &b, out,
                                      err);
}

static void tuned_of(const gcsim_platform *p, int gpus, const gcsim_tuned *t, double sched_s,
                     gcsim_nccl_tuned_call *out)
{
    *out = (gcsim_nccl_tuned_call){
        .collective = t->collective, .algo = t->algo, .protocol = (int)t->protocol,
        .time_s = t->time_s, .schedule_s = sched_s,
        .fixed_s = fixed_cost_s(t->protocol, t->time_s, sched_s,
                                gcsim_nccl_call_overhead_s(p, gpus, t->collective, t->algo))};
}

int gcsim_nccl_call_tune(const gcsim_platform *p, int gpus, double bytes,
                         gcsim_nccl_tuned_call *out, gcsim_error *err)
{
    gcsim_tuned t;
    double sched_s;
    if (gcsim_tuner_choose(p, gpus, GCSIM_OP_ALLREDUCE, bytes, COLLECTIVE_COUNT,
                           GCSIM_PROTO_COUNT, &t, err) ||
        schedule_s(p, gpus, t.collective, bytes, &sched_s, err))
        return -1;
    tuned_of(p, gpus, &t, sched_s, out);
    if (t.time_s >= sched_s)
        return 0; /* the engines charge collective's time whole */
    /* Collective's time is below its schedule's on the platform as written (a protocol's
     * shorter hop, which the engines cannot run): every candidate then costs the larger of
     * its collective time and its schedule's, and the one of least cost is the tightest
     * upper bound of collective's time the engines can charge; ties keep the tuner's. */
    double best_s = sched_s;
    int per_node = p->gpus_per_node > 0 ? p->gpus_per_node : 1;
    bool one_node = gpus <= per_node;
    const gcsim_collective colls[] = {COLLECTIVE_RING, COLLECTIVE_DOUBLE_TREE, COLLECTIVE_NVLS};
    for (size_t k = 0; k < sizeof colls / sizeof colls[0]; k++) {
        if (colls[k] == COLLECTIVE_NVLS && !(p->intra.nvls_Bps > 0 && one_node))
            continue;
        double cs;
        if (schedule_s(p, gpus, colls[k], bytes, &cs, err))
            return -1;
        for (int pr = 0; pr < GCSIM_PROTO_COUNT; pr++) {
            if (!gcsim_protocol_available(p, (gcsim_protocol)pr) ||
                (colls[k] == COLLECTIVE_NVLS && pr != GCSIM_PROTO_SIMPLE))
                continue;
            gcsim_tuned c;
            if (gcsim_tuner_choose(p, gpus, GCSIM_OP_ALLREDUCE, bytes, colls[k],
                                   (gcsim_protocol)pr, &c, err))
                return -1;
            if (fmax(c.time_s, cs) < best_s) {
                best_s = fmax(c.time_s, cs);
                tuned_of(p, gpus, &c, cs, out);
            }
        }
    }
    return 0;
}

int gcsim_nccl_group_call_tune(const gcsim_platform *p, int gpus, int group, gcsim_collective c,
                               const gcsim_bucket_bytes *b, gcsim_nccl_tuned_call *out,
                               gcsim_error *err)
{
    int g = group > 0 ? group : gpus;
    bool gather = c == COLLECTIVE_ALLGATHER;
    double size = gather ? b->payload_bytes * g : b->payload_bytes;
    gcsim_tuned t;
    if (gcsim_tuner_choose(p, g, gather ? GCSIM_OP_ALLGATHER : GCSIM_OP_REDUCESCATTER, size,
                           COLLECTIVE_COUNT, GCSIM_PROTO_COUNT, &t, err))
        return -1;
    double sched_s;
    if (gcsim_schedule_memo_time_s(p, gpus, c, 0, gcsim_pipeline_chunks(c, gcsim_hop_bytes(b, gpus)),
                                   group, b, &sched_s, err))
        return -1;
    *out = (gcsim_nccl_tuned_call){.collective = c, .algo = t.algo, .protocol = (int)t.protocol,
                                   .time_s = t.time_s, .schedule_s = sched_s,
                                   .fixed_s = fixed_cost_s(t.protocol, t.time_s, sched_s,
                                                           gcsim_nccl_call_overhead_s(
                                                               p, g, c, -1))};
    return 0;
}
