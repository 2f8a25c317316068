/*
 * sim/analytic/analytic_fabric.c: the analytic engine on a fabric with ECMP collisions or
 * network jitter (issue 41): their expectations (fabric_expect.h) around the engine's own
 * closed form (analytic.c): jitter added to every call of an iteration, ECMP as the
 * expectation of the whole prediction, or of a bare collective, over the most loaded spine
 * link's law.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analytic.h"
#include "analytic_internal.h"
#include "variability.h"

/* Network jitter (fabric_expect.h): each call's schedule waits, step by step, for the
 * largest of its messages' Exp(M) delays, M H(messages) expected per step. The schedule
 * of each distinct (collective, chunks, group) is built once, with its flows. */
enum { JITTER_KINDS = 16 };
int gcsim_analytic_add_jitter(const gcsim_platform *p, int ps_shards, const gcsim_iteration *it,
                              const gcsim_topology *topo, double *call_s, gcsim_error *err)
{
    int kind_c[JITTER_KINDS], kind_chunks[JITTER_KINDS], kind_group[JITTER_KINDS], nk = 0;
    double kind_h[JITTER_KINDS];
    double mean_s = p->jitter.mean_s;
    for (int k = 0; k < it->n_calls; k++) {
        const gcsim_call *c = &it->calls[k];
        int chunks = gcsim_call_pipeline_chunks(c, topo->gpus);
        int j = 0;
        while (j < nk && !(kind_c[j] == (int)c->collective && kind_chunks[j] == chunks &&
                           kind_group[j] == c->group))
            j++;
        double h;
        if (j < nk) {
            h = kind_h[j];
        } else {
            gcsim_schedule sch;
            if (gcsim_schedule_build_for_cost(&sch, c->collective, topo, ps_shards, chunks,
                                              c->group, err) != 0)
                return -1;
            h = gcsim_jitter_harmonic_steps(&sch);
            gcsim_schedule_free(&sch);
            if (!isfinite(h))
                return gcsim_fail(err, "out of memory counting the messages of a schedule");
            if (nk < JITTER_KINDS) {
                kind_c[nk] = (int)c->collective;
                kind_chunks[nk] = chunks;
                kind_group[nk] = c->group;
                kind_h[nk++] = h;
            }
        }
        call_s[k] += mean_s * h;
    }
    return 0;
}


/* ECMP collisions (fabric_expect.h): the prediction's expectation over K, the most loaded
 * spine link's flows, each field (and the variable-compute statistics) weighted by P(K). */
typedef struct {
    const gcsim_resolved_step *st;
    gcsim_prediction sum;
    gcsim_var_stats var;
} ecmp_predict_ctx;

static int ecmp_predict_at(const gcsim_platform *q, double w, void *ctx, gcsim_error *err)
{
    ecmp_predict_ctx *c = ctx;
    gcsim_var_stats vs = {0};
    gcsim_resolved_step on; /* the step on this fabric: NCCL's tuner may pick otherwise */
    if (gcsim_step_resolve_on(c->st, q, c->st->variability_stats ? &vs : NULL, &on, err) != 0)
        return -1;
    gcsim_prediction p;
    int rc = gcsim_analytic_predict_one(&on, &p, err);
    gcsim_step_release(&on);
    if (rc != 0)
        return -1;
    c->sum.compute_s += w * p.compute_s;
    c->sum.comm_s += w * p.comm_s;
    c->sum.encode_s += w * p.encode_s;
    c->sum.decode_s += w * p.decode_s;
    c->sum.compress_s += w * p.compress_s;
    c->sum.iteration_s += w * p.iteration_s;
    c->sum.samples_per_iteration = p.samples_per_iteration;
    c->var.iterations = vs.iterations;
    c->var.mean_s += w * vs.mean_s;
    c->var.p50_s += w * vs.p50_s;
    c->var.p99_s += w * vs.p99_s;
    c->var.ci95_low_s += w * vs.ci95_low_s;
    c->var.ci95_high_s += w * vs.ci95_high_s;
    c->var.max_factor_mean = vs.max_factor_mean; /* does not depend on the fabric */
    c->var.max_factor_p99 = vs.max_factor_p99;
    return 0;
}

int gcsim_analytic_ecmp_predict(const gcsim_resolved_step *st, gcsim_prediction *out,
                                gcsim_error *err)
{
    const gcsim_iteration *it = &st->it;
    gcsim_topology topo;
    if (gcsim_topology_init(&topo, st->platform, st->placement.gpus, err) != 0)
        return -1;
    /* the flows per leaf link: the largest call's schedule */
    int big = 0;
    for (int k = 1; k < it->n_calls; k++)
        if (it->calls[k].bytes.dense_bytes > it->calls[big].bytes.dense_bytes)
            big = k;
    gcsim_schedule sch;
    int rc = -1;
    if (it->n_calls == 0) {
        gcsim_platform q = *st->platform;
        memset(&q.ecmp, 0, sizeof q.ecmp);
        ecmp_predict_ctx c = {.st = st};
        rc = ecmp_predict_at(&q, 1.0, &c, err);
        *out = c.sum;
        if (rc == 0 && st->variability_stats)
            *st->variability_stats = c.var;
    } else if (gcsim_schedule_build_for_cost(
                   &sch, it->calls[big].collective, &topo, st->ps_shards,
                   gcsim_call_pipeline_chunks(&it->calls[big], topo.gpus), it->calls[big].group,
                   err) == 0) {
        ecmp_predict_ctx c = {.st = st};
        rc = gcsim_ecmp_expect(st->platform, &sch, &topo, ecmp_predict_at, &c, err);
        gcsim_schedule_free(&sch);
        *out = c.sum;
        if (rc == 0 && st->variability_stats)
            *st->variability_stats = c.var;
    }
    gcsim_topology_free(&topo);
    return rc;
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
    int rc = b->is_op ? gcsim_analytic_op_time_one(q, b->gpus, b->op, b->c, b->bytes, &t, err)
                      : gcsim_analytic_collective_time_one(q, b->gpus, b->c, b->bytes, b->ps_shards, &t, err);
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
        return gcsim_analytic_collective_time_one(p, gpus, c, bytes, ps_shards, time_s, err);
    bare_ctx b = {.gpus = gpus, .ps_shards = ps_shards, .c = c, .bytes = bytes};
    return bare_fabric(p, &b, time_s, err);
}

int gcsim_analytic_op_time(const gcsim_platform *p, int gpus, gcsim_op op, gcsim_collective c,
                           double bytes, double *time_s, gcsim_error *err)
{
    if (!fabric_on(p) || !(bytes >= 0) || (unsigned)c >= COLLECTIVE_COUNT ||
        (unsigned)op >= GCSIM_OP_COUNT)
        return gcsim_analytic_op_time_one(p, gpus, op, c, bytes, time_s, err);
    bare_ctx b = {.gpus = gpus, .op = op, .is_op = true, .c = c, .bytes = bytes};
    return bare_fabric(p, &b, time_s, err);
}
