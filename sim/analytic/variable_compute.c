/*
 * sim/analytic/variable_compute.c: the analytic engine under variable per-GPU compute
 * (issue 41, sim/config/variability.h).
 *
 * Every barrier of the iteration (a bucket's synchronous collective, a gated block's
 * parameter all-gather) waits for the slowest member of its group. A GPU's factor holds
 * for the whole iteration, so the slowest GPU is the same at every barrier: each bucket
 * is ready everywhere when the slowest GPU has produced it, at M x its nominal ready time,
 * M the largest factor over the job's N GPUs. The iteration is therefore the shared
 * iteration description (gcsim_iteration) with its compute blocks scaled by M, run through
 * the same timeline as the deterministic case: buckets overlap part of the wait, FSDP's
 * gated blocks expose it unit by unit, codec work is not scaled. T(M) is non-decreasing
 * in M, so its quantiles are T at M's quantiles (order statistics of the stated
 * distribution), and its mean is the integral of T(Q_M(u)) over u in (0, 1) (GSL QAGS).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>

#include "analytic.h"
#include "analytic_internal.h"
#include "timeline.h"
#include "variability.h"

typedef struct {
    const gcsim_variability *v;
    int gpus;
    gcsim_iteration *it;     /* the step's, with blocks of its own (scaled here) */
    const double *nominal_s; /* the blocks' own seconds */
    const double *call_s;
    const double *hop_s;
    int failed;
    gcsim_error *err;
} var_ctx;

/* The iteration with every GPU's compute scaled by m. */
static double iteration_at(var_ctx *c, double m)
{
    for (int k = 0; k < c->it->n_blocks; k++)
        c->it->blocks[k].seconds = c->nominal_s[k] * m;
    gcsim_timeline tl;
    if (gcsim_timeline_run(c->it, c->call_s, c->hop_s, &tl, c->err) != 0) {
        c->failed = 1;
        return 0;
    }
    return tl.iteration_s;
}

static double iteration_at_quantile(double u, void *ctx)
{
    var_ctx *c = ctx;
    return iteration_at(c, gcsim_var_max_quantile(c->v, c->gpus, u));
}

int gcsim_analytic_variable(const gcsim_resolved_step *step, const gcsim_topology *topo,
                            gcsim_var_stats *st, gcsim_error *err)
{
    const gcsim_variability *v = step->variability;
    memset(st, 0, sizeof *st);
    if (gcsim_analytic_check_topology(step, topo, err) != 0)
        return -1;
    if (step->costing == GCSIM_COST_TERNGRAD_FORM)
        return gcsim_fail(err, "variable compute (--compute-cv, --slow-fraction, --slow-rank): "
                               "the TernGrad pattern's closed form (its paper's eq. 27-30) has "
                               "no per-GPU compute; choose another --collective");
    int n = step->placement.gpus;
    if (gcsim_var_check(v, n, err))
        return -1;
    /* the step's iteration with its own blocks: the step handed in stays as it is */
    gcsim_iteration it = step->it;
    size_t nb = (size_t)(it.n_blocks > 0 ? it.n_blocks : 1);
    it.blocks = malloc(sizeof *it.blocks * nb);
    size_t ncalls = (size_t)(it.n_calls > 0 ? it.n_calls : 1);
    double *call_s = calloc(2 * ncalls, sizeof *call_s); /* durations, then codec parts */
    double *hop_s = call_s ? call_s + ncalls : NULL;
    double *nominal = calloc(nb, sizeof *nominal);
    int rc = 0;
    if (!call_s || !nominal || !it.blocks)
        rc = gcsim_fail(err, "out of memory for %d calls and %d blocks", it.n_calls, it.n_blocks);
    else
        rc = gcsim_analytic_call_times(topo, step->ps_shards, &it, call_s, hop_s, err);
    if (rc == 0) {
        if (it.n_blocks > 0)
            memcpy(it.blocks, step->it.blocks, sizeof *it.blocks * (size_t)it.n_blocks);
        for (int k = 0; k < it.n_blocks; k++)
            nominal[k] = it.blocks[k].seconds;
        var_ctx c = {.v = v, .gpus = n, .it = &it, .nominal_s = nominal, .call_s = call_s,
                     .hop_s = hop_s, .err = err};
        rc = gcsim_var_max_mean(v, n, &st->max_factor_mean, err);
        st->max_factor_p99 = gcsim_var_max_quantile(v, n, 0.99);
        st->p50_s = iteration_at(&c, gcsim_var_max_quantile(v, n, 0.5));
        st->p99_s = iteration_at(&c, st->max_factor_p99);
        if (rc == 0 && !(v->cv > 0)) {
            st->mean_s = st->p50_s; /* fixed factors: one iteration time */
        } else if (rc == 0) {
            gsl_integration_workspace *w = gsl_integration_workspace_alloc(200);
            gsl_function f = {.function = iteration_at_quantile, .params = &c};
            double abserr = 0;
            gsl_error_handler_t *old = gsl_set_error_handler_off();
            int q = w ? gsl_integration_qags(&f, 0.0, 1.0, 0.0, 1e-7, 200, w, &st->mean_s, &abserr)
                      : GSL_ENOMEM;
            gsl_set_error_handler(old);
            gsl_integration_workspace_free(w);
            if (q != 0 && q != GSL_EROUND)
                rc = gcsim_fail(err, "expected iteration time: GSL quadrature failed (%s)",
                                gsl_strerror(q));
        }
        if (c.failed)
            rc = -1;
        st->ci95_low_s = st->ci95_high_s = st->mean_s;
    }
    free(call_s);
    free(nominal);
    free(it.blocks);
    return rc;
}
