/*
 * sim/des/des_variability.c: the DES under variable per-GPU compute (issue 41,
 * sim/config/variability.h).
 *
 * Every GPU is simulated (no representative sampling): iteration k draws one compute
 * factor per GPU (gcsim_var_draw: seeded, the same draws the analytic engine's order
 * statistics describe), and the iteration is simulated with GPU g's forward and backward
 * scaled by its factor. Each synchronous collective then waits, step by step, for the
 * messages of its slowest member: the straggler's delay propagates through the schedule
 * as it would (a ring's neighbours progress until they need its data; a tree's subtree
 * waits for it). Iterations are simulated one after another, each in its own child: every
 * iteration ends with the last GPU's last exchange (the optimizer step needs every
 * bucket), so iteration k + 1 starts on all GPUs at once and the times are independent
 * given the draws.
 *
 * Above GCSIM_VAR_DES_PER_GPU_MAX GPUs every GPU computes with the iteration's largest
 * factor (the maximum of the same N draws): the collective then waits for the slowest
 * member as in the per-GPU run, but no GPU starts early, so the partial progress before
 * the straggler arrives is left out (it moved the mean by under 1% at 1,024 GPUs, docs/des.md).
 *
 * Iterations: the scenario's count, or automatically at least GCSIM_VAR_MIN_ITERATIONS and
 * more, up to GCSIM_VAR_AUTO_MAX_ITERATIONS, until the 95% confidence interval of the mean
 * is within GCSIM_VAR_AUTO_REL_CI of it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "des_internal.h"
#include "variability.h"

/* Iteration k's straggler from its simulation; above GCSIM_VAR_DES_PER_GPU_MAX every GPU
 * computed at the largest factor, so the straggler is the draw's largest (lowest rank on a
 * tie) and no wait was simulated. */
static des_straggler straggler_of(const des_result_header *hdr, int n, const double *factors,
                                  int k)
{
    des_straggler s = {k, hdr->straggler, 0, hdr->straggler_end_s, hdr->straggler_max_wait_s};
    if (n > GCSIM_VAR_DES_PER_GPU_MAX) {
        s.rank = 0;
        for (int g = 1; g < n; g++)
            if (factors[g] > factors[s.rank])
                s.rank = g;
        s.max_wait_s = -1;
    }
    s.factor = s.rank >= 0 ? factors[s.rank] : 0;
    return s;
}

/* Iteration k simulated again with the timeline (its draws again: gcsim_var_draw is a
 * function of the seed, the GPU and k), its header and costs discarded. */
static int rerun_with_timeline(des_plan *plan, const gcsim_variability *v, int k, double *factors,
                               const char *timeline, const des_straggler *strag, int n_strag,
                               gcsim_error *err)
{
    int n = plan->gpus;
    if (gcsim_var_draw(v, n, k, factors) != 0)
        return gcsim_fail(err, "des: out of memory drawing compute factors");
    if (n > GCSIM_VAR_DES_PER_GPU_MAX) {
        double m = 0;
        for (int g = 0; g < n; g++)
            m = fmax(m, factors[g]);
        plan->compute_factor = NULL;
        plan->compute_scale = m;
    } else {
        plan->compute_factor = factors;
    }
    plan->timeline_path = timeline;
    plan->timeline_iteration = k;
    plan->iteration_index = k;
    plan->stragglers = strag;
    plan->n_stragglers = n_strag;
    des_result_header hdr;
    gcsim_des_details d;
    int rc = des_run_plan(plan, &hdr, &d, err);
    if (rc == 0)
        gcsim_des_details_free(&d);
    plan->stragglers = NULL;
    plan->n_stragglers = 0;
    return rc;
}

int des_run_variable(des_plan *plan, const gcsim_variability *v, des_result_header *hdr,
                     gcsim_des_details *details, gcsim_var_stats *st, gcsim_error *err)
{
    int n = plan->gpus;
    memset(st, 0, sizeof *st);
    if (gcsim_var_check(v, n, err))
        return -1;
    bool automatic = v->iterations <= 0;
    int cap = automatic ? GCSIM_VAR_AUTO_MAX_ITERATIONS : v->iterations;
    double *factors = malloc(sizeof(double) * (size_t)n);
    double *times = malloc(sizeof(double) * (size_t)cap);
    double *sorted = malloc(sizeof(double) * (size_t)cap);
    double *maxima = malloc(sizeof(double) * (size_t)cap);
    des_straggler *strag = malloc(sizeof *strag * (size_t)cap);
    if (!factors || !times || !sorted || !maxima || !strag) {
        free(factors), free(times), free(sorted), free(maxima), free(strag);
        return gcsim_fail(err, "des: out of memory for %d GPUs' compute factors", n);
    }
    double cpu_s = 0, wall_s = 0;
    long peak_kib = 0;
    int done = 0, rc = 0;
    /* The timeline, if any, is the last iteration's, simulated again once the count is
     * known (the same draws), with every iteration's straggler (des_timeline.h). */
    const char *timeline = plan->timeline_path;
    plan->timeline_path = NULL;
    plan->compute_factor = factors;
    while (done < cap) {
        if (gcsim_var_draw(v, n, done, factors) != 0) {
            rc = gcsim_fail(err, "des: out of memory drawing compute factors");
            break;
        }
        double m = 0;
        for (int g = 0; g < n; g++)
            m = fmax(m, factors[g]);
        maxima[done] = m;
        if (n > GCSIM_VAR_DES_PER_GPU_MAX) { /* the group's maximum for every GPU */
            plan->compute_factor = NULL;
            plan->compute_scale = m;
        }
        if (done > 0)
            gcsim_des_details_free(details);
        plan->iteration_index = done; /* network jitter's draws (des_fabric.h) */
        if ((rc = des_run_plan(plan, hdr, details, err)) != 0)
            break;
        cpu_s += details->cpu_s;
        wall_s += details->wall_s;
        if (details->peak_rss_kib > peak_kib)
            peak_kib = details->peak_rss_kib;
        strag[done] = straggler_of(hdr, n, factors, done);
        times[done++] = hdr->iteration_s;
        if (automatic && done >= GCSIM_VAR_MIN_ITERATIONS) {
            memcpy(sorted, times, sizeof(double) * (size_t)done);
            gcsim_var_sample_stats(sorted, done, st);
            if (st->ci95_high_s - st->mean_s <= GCSIM_VAR_AUTO_REL_CI * st->mean_s)
                break;
        }
    }
    if (rc == 0 && timeline)
        rc = rerun_with_timeline(plan, v, done - 1, factors, timeline, strag, done, err);
    plan->timeline_path = timeline;
    plan->iteration_index = 0;
    plan->compute_factor = NULL;
    plan->compute_scale = 0;
    if (rc == 0) {
        memcpy(sorted, times, sizeof(double) * (size_t)done);
        gcsim_var_sample_stats(sorted, done, st);
        double sum = 0;
        for (int k = 0; k < done; k++)
            sum += maxima[k];
        st->max_factor_mean = sum / done;
        memcpy(sorted, maxima, sizeof(double) * (size_t)done);
        gcsim_var_stats ms;
        gcsim_var_sample_stats(sorted, done, &ms);
        st->max_factor_p99 = ms.p99_s;
        details->cpu_s = cpu_s;
        details->wall_s = wall_s;
        details->peak_rss_kib = peak_kib;
    }
    free(factors), free(times), free(sorted), free(maxima), free(strag);
    return rc;
}

int gcsim_des_variable(const gcsim_resolved_step *s, const gcsim_topology *topo,
                       const gcsim_des_options *opts, gcsim_var_stats *st,
                       gcsim_des_details *details, gcsim_error *err)
{
    if (!s->variability || !s->variability->on)
        return gcsim_fail(err, "des: no variable compute in the step");
    des_plan plan;
    if (des_plan_build(&plan, s, topo, opts, err) != 0)
        return -1;
    des_result_header hdr;
    gcsim_des_details local;
    int rc = des_run_variable(&plan, s->variability, &hdr, details ? details : &local, st, err);
    if (rc == 0 && !details)
        gcsim_des_details_free(&local);
    des_plan_free(&plan);
    return rc;
}
