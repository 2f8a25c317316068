/* Source (c): a factor from the compressor's measured variance and bias on real gradient
 * traces (convergence.h). */
#include "convergence.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compressor.h"
#include "metrics.h"
#include "traces.h"

/* omega and bias of one trace file (all tensors together). */
static int measure_file(gc_compressor *probe, const char *path, int repeats, double *omega,
                        double *bias, char *err, size_t err_len)
{
    gc_trace_file tf;
    if (gc_trace_open(path, &tf, err, err_len) != 0)
        return -1;
    gc_bias_metrics total;
    gc_bias_init(&total);
    int rc = 0;
    for (size_t t = 0; t < tf.n_tensors && rc == 0; t++) {
        gc_compressor_set_vector(probe, (int)t, tf.tensors[t].ndim <= 1);
        float *g = NULL;
        if (gc_trace_load_f32(&tf, t, &g, err, err_len) != 0) {
            rc = -1;
            break;
        }
        gc_bias_metrics b;
        rc = gc_metrics_bias(probe, (int)t, g, tf.tensors[t].n_elements, repeats, 1, &b, err,
                             err_len);
        if (rc == 0)
            gc_bias_add(&total, &b);
        free(g);
    }
    gc_trace_close(&tf);
    if (rc)
        return -1;
    /* The totals are sums over tensors: mse of the concatenated gradient over its squared
     * norm is the relative variance omega (E||Q(g) - g||^2 <= omega ||g||^2). */
    *omega = total.sq_g > 0 ? total.mse / total.sq_g : 0.0;
    *bias = total.sq_g > 0 ? sqrt(total.sq_bias / total.sq_g) : 0.0;
    return 0;
}

int conv_bound_factor(const char *spec, const char *const *trace_files, int n_files,
                      int repeats, conv_factor *out, char *err, size_t err_len)
{
    conv_factor f = {.factor = NAN, .lo = NAN, .hi = NAN, .source = CONV_SOURCE_BOUND,
                     .omega = -1, .omega_lo = -1, .omega_hi = -1};
    gc_compressor *probe = NULL;
    if (gc_compressor_create(spec, &probe, err, err_len) != 0)
        return -1;
    if (strcmp(gc_compressor_name(probe), "described") == 0) {
        /* known only by its payload (a description file): nothing to run on the traces */
        gc_compressor_free(probe);
        snprintf(f.how, sizeof f.how, "bound: a described compressor has no encoder to "
                 "measure (no accuracy proxy)");
        *out = f;
        return 0;
    }
    bool unbiased = gc_compressor_is_unbiased(probe);
    /* Error feedback: the ef+ wrapper, or a compressor that keeps its own residual
     * (dgc's momentum correction, ecq, onebit, powersgd: stateful and biased). */
    bool feedback = !unbiased && gc_compressor_is_stateful(probe);
    double om_lo = INFINITY, om_hi = -INFINITY, om_sum = 0, bias_max = 0;
    for (int i = 0; i < n_files; i++) {
        double om, bias;
        if (measure_file(probe, trace_files[i], repeats, &om, &bias, err, err_len)) {
            gc_compressor_free(probe);
            return -1;
        }
        om_sum += om;
        om_lo = fmin(om_lo, om);
        om_hi = fmax(om_hi, om);
        bias_max = fmax(bias_max, bias);
    }
    gc_compressor_free(probe);
    double omega = n_files ? om_sum / n_files : NAN;
    if (unbiased) {
        f.omega = omega;
        f.omega_lo = om_lo;
        f.omega_hi = om_hi;
        /* at one worker; conv_factor_at divides by N */
        f.factor = conv_bound_at(omega, 1);
        f.lo = conv_bound_at(om_lo, 1);
        f.hi = 1.0 + om_hi; /* share 1: the noise-dominated bound */
        snprintf(f.how, sizeof f.how, "bound: unbiased, omega %.3g (%.3g..%.3g over %d trace "
                 "file%s), factor 1 + %.3g omega/N for omega up to %.3g, in full beyond "
                 "(fitted share; at most 1 + omega/N)", omega, om_lo, om_hi, n_files,
                 n_files == 1 ? "" : "s", CONV_BOUND_SHARE, CONV_BOUND_FIT_MAX);
    } else if (feedback) {
        f.factor = f.lo = 1.0;
        f.hi = NAN; /* the rate's constant is not bounded by this measurement */
        snprintf(f.how, sizeof f.how, "bound: biased (bias %.3g) with error feedback: SGD's "
                 "rate (Karimireddy et al. 2019), constant not bounded", bias_max);
    } else {
        f.no_guarantee = true;
        snprintf(f.how, sizeof f.how, "bound: biased (bias %.3g) without error feedback: no "
                 "guarantee", bias_max);
    }
    *out = f;
    return 0;
}

double conv_bound_at(double omega, int workers)
{
    double n = workers > 0 ? workers : 1;
    return 1.0 + (CONV_BOUND_SHARE * fmin(omega, CONV_BOUND_FIT_MAX) +
                  fmax(0.0, omega - CONV_BOUND_FIT_MAX)) / n;
}

conv_factor conv_factor_at(const conv_factor *f, int workers)
{
    conv_factor g = *f;
    if (f->source == CONV_SOURCE_BOUND && f->omega >= 0 && workers > 0) {
        g.factor = conv_bound_at(f->omega, workers);
        g.lo = conv_bound_at(f->omega_lo, workers);
        g.hi = 1.0 + f->omega_hi / workers;
    }
    return g;
}
