/*
 * sim/analytic/analytic_fabric.c: the analytic engine on a fabric with ECMP collisions
 * (issue 41): the expectation of the whole prediction over the most loaded spine link's
 * law (fabric_expect.h), around the engine's closed form of one fabric (predict_one.c).
 * Network jitter, added to every call's time, is in call_times.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analytic.h"
#include "analytic_internal.h"
#include "variability.h"

/* ECMP collisions (fabric_expect.h): the prediction's expectation over K, the most loaded
 * spine link's flows, each field (and the variable-compute statistics) weighted by P(K):
 * the step was resolved on each fabric with its law (st->fabrics, sim/step/step_fabrics.c),
 * since NCCL's tuner may pick otherwise there; this costs each and weighs them. */
int gcsim_analytic_ecmp_predict(const gcsim_resolved_step *st, gcsim_prediction *out,
                                gcsim_error *err)
{
    if (st->fabrics_error) { /* why they could not be resolved with the step */
        *err = *st->fabrics_error;
        return -1;
    }
    if (st->n_fabrics < 1)
        return gcsim_fail(err, "analytic: a step on a fabric with ECMP collisions was "
                               "resolved without its fabrics (gcsim_step_resolve)");
    gcsim_prediction sum = {0};
    gcsim_var_stats var = {0};
    int rc = 0;
    for (int k = 0; k < st->n_fabrics && rc == 0; k++) {
        const gcsim_step_fabric *f = &st->fabrics[k];
        double w = f->weight;
        gcsim_var_stats vs = {0};
        gcsim_resolved_step on = f->step; /* read only; its statistics go to vs */
        on.variability_stats = st->variability_stats ? &vs : NULL;
        gcsim_prediction p;
        rc = gcsim_analytic_predict_one(&on, &f->topology, &p, err);
        if (rc != 0)
            break;
        sum.compute_s += w * p.compute_s;
        sum.comm_s += w * p.comm_s;
        sum.encode_s += w * p.encode_s;
        sum.decode_s += w * p.decode_s;
        sum.compress_s += w * p.compress_s;
        sum.iteration_s += w * p.iteration_s;
        sum.samples_per_iteration = p.samples_per_iteration;
        var.iterations = vs.iterations;
        var.mean_s += w * vs.mean_s;
        var.p50_s += w * vs.p50_s;
        var.p99_s += w * vs.p99_s;
        var.ci95_low_s += w * vs.ci95_low_s;
        var.ci95_high_s += w * vs.ci95_high_s;
        var.max_factor_mean = vs.max_factor_mean; /* does not depend on the fabric */
        var.max_factor_p99 = vs.max_factor_p99;
    }
    *out = sum;
    if (rc == 0 && st->variability_stats)
        *st->variability_stats = var;
    return rc == 0 ? 0 : -1;
}
