/*
 * sim/analytic/analytic_bare.c: the analytic engine's entry points for questions that have
 * no step: one bare collective of given bytes, one operation as nccl-tests runs it (with
 * ECMP collisions and jitter, fabric_expect.h), and the closed-form call times of an
 * iteration on a platform's first GPUs (for reports that list them). Each takes a platform
 * and a GPU count and builds its own topology: the only file of sim/analytic that does
 * (tests/layering, rule 9); a step's prediction is handed its topology (analytic.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analytic.h"
#include "analytic_internal.h"
#include "schedule_memo.h"

int gcsim_analytic_call_times(const gcsim_platform *p, int gpus, int ps_shards,
                              const gcsim_iteration *it, double *call_s, gcsim_error *err)
{
    gcsim_topology topo;
    if (gcsim_topology_init(&topo, p, gpus, err) != 0)
        return -1;
    int rc = gcsim_analytic_call_times_on(&topo, ps_shards, it, call_s, err);
    gcsim_topology_free(&topo);
    return rc;
}

static int collective_time_one(const gcsim_platform *p, int gpus, gcsim_collective c,
                                       double bytes, int ps_shards, double *time_s,
                                       gcsim_error *err)
{
    if (!(bytes >= 0) || (unsigned)c >= COLLECTIVE_COUNT)
        return gcsim_fail(err, "invalid collective or size");
    gcsim_topology topo;
    if (gcsim_topology_init(&topo, p, gpus, err) != 0)
        return -1;
    gcsim_schedule sch;
    if (gcsim_schedule_build(&sch, c, &topo, ps_shards, gcsim_pipeline_chunks(c, bytes), err)) {
        gcsim_topology_free(&topo);
        return -1;
    }
    gcsim_bucket_bytes b = {.dense_bytes = bytes, .payload_bytes = bytes,
                            .aggregation = PAYLOAD_DENSE_SUMMABLE};
    *time_s = gcsim_schedule_time_s(&sch, &topo, &b);
    gcsim_schedule_free(&sch);
    gcsim_topology_free(&topo);
    return isfinite(*time_s) ? 0 : gcsim_fail(err, "out of memory costing the %s schedule",
                                              gcsim_collective_name(c));
}

static int op_time_one(const gcsim_platform *p, int gpus, gcsim_op op,
                               gcsim_collective c, double bytes, double *time_s,
                               gcsim_error *err)
{
    if (!(bytes >= 0) || (unsigned)c >= COLLECTIVE_COUNT || (unsigned)op >= GCSIM_OP_COUNT)
        return gcsim_fail(err, "invalid collective, operation or size");
    if (op == GCSIM_OP_ALLREDUCE) {
        /* the memo's schedule: the same number, and the one tree template the tuner made
         * for this pick (gcsim_tuner_choose) rather than a listed schedule beside it */
        gcsim_bucket_bytes b = {.dense_bytes = bytes, .payload_bytes = bytes,
                                .aggregation = PAYLOAD_DENSE_SUMMABLE};
        if (gcsim_schedule_memo_time_s(p, gpus, c, 0, gcsim_pipeline_chunks(c, bytes), 0, &b,
                                       time_s, err))
            return -1;
        return isfinite(*time_s) ? 0 : gcsim_fail(err, "out of memory costing the %s schedule",
                                                  gcsim_collective_name(c));
    }
    gcsim_topology topo;
    if (gcsim_topology_init(&topo, p, gpus, err) != 0)
        return -1;
    gcsim_schedule sch;
    double payload;
    if (gcsim_op_schedule_build(&sch, op, c, &topo, bytes, &payload, err)) {
        gcsim_topology_free(&topo);
        return -1;
    }
    gcsim_bucket_bytes b = {.dense_bytes = payload, .payload_bytes = payload,
                            .aggregation = PAYLOAD_DENSE_SUMMABLE};
    *time_s = gcsim_schedule_time_s(&sch, &topo, &b);
    gcsim_schedule_free(&sch);
    gcsim_topology_free(&topo);
    return isfinite(*time_s) ? 0 : gcsim_fail(err, "out of memory costing the %s schedule",
                                              gcsim_op_name(op));
}

/* ---- a bare collective with ECMP collisions or network jitter (fabric_expect.h) ---- */

typedef struct {
    int gpus, ps_shards;
    gcsim_op op;
    bool is_op;
    gcsim_collective c;
    double bytes, sum_s;
} bare_ctx;

static int bare_at(const gcsim_platform *q, double w, void *ctx, gcsim_error *err)
{
    bare_ctx *b = ctx;
    double t;
    int rc = b->is_op ? op_time_one(q, b->gpus, b->op, b->c, b->bytes, &t, err)
                      : collective_time_one(q, b->gpus, b->c, b->bytes, b->ps_shards, &t, err);
    b->sum_s += w * t;
    return rc;
}

static int bare_fabric(const gcsim_platform *p, bare_ctx *b, double *time_s, gcsim_error *err)
{
    gcsim_topology topo;
    if (gcsim_topology_init(&topo, p, b->gpus, err) != 0)
        return -1;
    gcsim_schedule sch;
    double payload;
    int rc = b->is_op ? gcsim_op_schedule_build(&sch, b->op, b->c, &topo, b->bytes, &payload, err)
                      : gcsim_schedule_build(&sch, b->c, &topo, b->ps_shards,
                                             gcsim_pipeline_chunks(b->c, b->bytes), err);
    if (rc != 0) {
        gcsim_topology_free(&topo);
        return -1;
    }
    double h = p->jitter.mean_s > 0 ? gcsim_jitter_harmonic_steps(&sch) : 0;
    gcsim_platform q = *p;
    memset(&q.jitter, 0, sizeof q.jitter); /* added below, once */
    rc = gcsim_ecmp_expect(&q, &sch, &topo, bare_at, b, err);
    gcsim_schedule_free(&sch);
    gcsim_topology_free(&topo);
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

int gcsim_analytic_collective_time(const gcsim_platform *p, int gpus, gcsim_collective c,
                                   double bytes, int ps_shards, double *time_s,
                                   gcsim_error *err)
{
    if (!fabric_on(p) || !(bytes >= 0) || (unsigned)c >= COLLECTIVE_COUNT)
        return collective_time_one(p, gpus, c, bytes, ps_shards, time_s, err);
    bare_ctx b = {.gpus = gpus, .ps_shards = ps_shards, .c = c, .bytes = bytes};
    return bare_fabric(p, &b, time_s, err);
}

int gcsim_analytic_op_time(const gcsim_platform *p, int gpus, gcsim_op op, gcsim_collective c,
                           double bytes, double *time_s, gcsim_error *err)
{
    if (!fabric_on(p) || !(bytes >= 0) || (unsigned)c >= COLLECTIVE_COUNT ||
        (unsigned)op >= GCSIM_OP_COUNT)
        return op_time_one(p, gpus, op, c, bytes, time_s, err);
    bare_ctx b = {.gpus = gpus, .op = op, .is_op = true, .c = c, .bytes = bytes};
    return bare_fabric(p, &b, time_s, err);
}
