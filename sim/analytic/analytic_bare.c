/*
 * sim/analytic/analytic_bare.c: the analytic engine's entry points for questions that have
 * no step: one bare collective of given bytes and one operation as nccl-tests runs it (with
 * ECMP collisions and jitter, fabric_expect.h). Each is handed the topology it runs on
 * (built by the caller, gcsim_topology_init), as a step's prediction is (analytic.h): no
 * source of sim/analytic builds one (tests/layering, rule 9).
 */
#include <math.h>
#include <stdlib.h>

#include "analytic.h"
#include "analytic_internal.h"
#include "fabric_expect.h"
#include "schedule_memo.h"
#include "platform.h"

static int collective_time_one(const gcsim_topology *topo, gcsim_collective c, double bytes,
                               int ps_shards, double *time_s, gcsim_error *err)
{
    if (!(bytes >= 0) || !gcsim_collective_runs_bare(c))
        return gcsim_fail(err, "invalid collective or size");
    gcsim_schedule sch;
    int chunks = gcsim_pipeline_chunks_on(topo->platform, topo->gpus, c, bytes);
    if (gcsim_schedule_build(&sch, c, topo, ps_shards, chunks, err))
        return -1;
    gcsim_bucket_bytes b = {.dense_bytes = bytes, .payload_bytes = bytes,
                            .aggregation = PAYLOAD_DENSE_SUMMABLE};
    *time_s = gcsim_schedule_time_s(&sch, topo, &b);
    gcsim_schedule_free(&sch);
    return isfinite(*time_s) ? 0 : gcsim_fail(err, "out of memory costing the %s schedule",
                                              gcsim_collective_name(c));
}

static int op_time_one(const gcsim_topology *topo, gcsim_op op, gcsim_collective c,
                       double bytes, double *time_s, gcsim_error *err)
{
    if (!(bytes >= 0) || !gcsim_collective_runs_bare(c) || (unsigned)op >= GCSIM_OP_COUNT)
        return gcsim_fail(err, "invalid collective, operation or size");
    if (op == GCSIM_OP_ALLREDUCE) {
        /* the memo's schedule: the same number, and the one tree template the tuner made
         * for this pick (gcsim_tuner_choose) rather than a listed schedule beside it */
        gcsim_bucket_bytes b = {.dense_bytes = bytes, .payload_bytes = bytes,
                                .aggregation = PAYLOAD_DENSE_SUMMABLE};
        int chunks = gcsim_pipeline_chunks_on(topo->platform, topo->gpus, c, bytes);
        if (gcsim_schedule_memo_time_s(topo->platform, topo->gpus, c, 0, chunks, 0, &b, time_s,
                                       err))
            return -1;
        return isfinite(*time_s) ? 0 : gcsim_fail(err, "out of memory costing the %s schedule",
                                                  gcsim_collective_name(c));
    }
    gcsim_schedule sch;
    double payload;
    if (gcsim_op_schedule_build(&sch, op, c, topo, bytes, &payload, err))
        return -1;
    gcsim_bucket_bytes b = {.dense_bytes = payload, .payload_bytes = payload,
                            .aggregation = PAYLOAD_DENSE_SUMMABLE};
    *time_s = gcsim_schedule_time_s(&sch, topo, &b);
    gcsim_schedule_free(&sch);
    return isfinite(*time_s) ? 0 : gcsim_fail(err, "out of memory costing the %s schedule",
                                              gcsim_op_name(op));
}

/* ---- a bare collective with ECMP collisions or network jitter (fabric_expect.h) ---- */

typedef struct {
    int ps_shards;
    gcsim_op op;
    bool is_op;
    gcsim_collective c;
    double bytes, sum_s;
} bare_ctx;

static int bare_at(const gcsim_topology *tq, double w, void *ctx, gcsim_error *err)
{
    bare_ctx *b = ctx;
    double t;
    int rc = b->is_op ? op_time_one(tq, b->op, b->c, b->bytes, &t, err)
                      : collective_time_one(tq, b->c, b->bytes, b->ps_shards, &t, err);
    b->sum_s += w * t;
    return rc;
}

static int bare_fabric(const gcsim_topology *topo, bare_ctx *b, double *time_s,
                       gcsim_error *err)
{
    const gcsim_platform *p = topo->platform;
    gcsim_schedule sch;
    double payload;
    int chunks = gcsim_pipeline_chunks_on(p, topo->gpus, b->c, b->bytes);
    int rc = b->is_op ? gcsim_op_schedule_build(&sch, b->op, b->c, topo, b->bytes, &payload, err)
                      : gcsim_schedule_build(&sch, b->c, topo, b->ps_shards, chunks, err);
    if (rc != 0)
        return -1;
    double h = p->jitter.mean_s > 0 ? gcsim_jitter_harmonic_steps(&sch) : 0;
    /* the cost on the platform as it is, its jitter included (the schedule's rings are
     * lock-step under jitter, gcsim_ring_pipelined); the cost adds no jitter: its
     * expectation is added below, once */
    gcsim_platform q = *p;
    rc = gcsim_ecmp_expect(&q, &sch, topo, bare_at, b, err);
    gcsim_schedule_free(&sch);
    if (rc != 0)
        return -1;
    if (!isfinite(h))
        return gcsim_fail(err, "out of memory counting the messages of a schedule");
    *time_s = b->sum_s + p->jitter.mean_s * h;
    return 0;
}

static bool fabric_on(const gcsim_platform *p)
{
    return p->ecmp.spines > 1 || p->jitter.mean_s > 0;
}

int gcsim_analytic_collective_time(const gcsim_topology *topo, gcsim_collective c,
                                   double bytes, int ps_shards, double *time_s,
                                   gcsim_error *err)
{
    if (!fabric_on(topo->platform) || !(bytes >= 0) || !gcsim_collective_runs_bare(c))
        return collective_time_one(topo, c, bytes, ps_shards, time_s, err);
    bare_ctx b = {.ps_shards = ps_shards, .c = c, .bytes = bytes};
    return bare_fabric(topo, &b, time_s, err);
}

static int op_time_modelled(const gcsim_topology *topo, gcsim_op op, gcsim_collective c,
                            double bytes, double *time_s, gcsim_error *err)
{
    if (!fabric_on(topo->platform) || !(bytes >= 0) || !gcsim_collective_runs_bare(c) ||
        (unsigned)op >= GCSIM_OP_COUNT)
        return op_time_one(topo, op, c, bytes, time_s, err);
    bare_ctx b = {.op = op, .is_op = true, .c = c, .bytes = bytes};
    return bare_fabric(topo, &b, time_s, err);
}

int gcsim_analytic_op_time(const gcsim_topology *topo, gcsim_op op, gcsim_collective c,
                           double bytes, double *time_s, gcsim_error *err)
{
    if (op_time_modelled(topo, op, c, bytes, time_s, err))
        return -1;
    /* a platform's fitted busbw factors (platform_busbw_correction.h; none: unchanged) */
    *time_s = gcsim_busbw_corrected_time_s(topo->platform, (int)op, topo->gpus, bytes, *time_s);
    return 0;
}
