/* The roofline compute model (roofline.h); models/fit_roofline.py computes the same. */
#include "roofline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llm_efficiency_fit.h"
#include "roofline_fit.h"

int gcsim_roofline_time_s(const gcsim_model *m, const gcsim_platform *pf, int batch,
                          double *time_s, gcsim_error *err)
{
    int elem = gcsim_precision_grad_elem_bytes(m->precision);
    double peak = elem == 4 ? pf->gpu.speed_flops : pf->gpu.speed_16bit_flops;
    if (!(peak > 0.0))
        return gcsim_fail(err, "%s: no compute profile for GPU type \"%s\" at %s, and no "
                               "$.gpu.speed_16bit in %s for the roofline model",
                          m->source_path, pf->gpu.type, gcsim_precision_name(m->precision),
                          pf->source_path);
    double t = 0.0;
    for (int i = 0; i < m->n_layers; i++) {
        const gcsim_layer *l = &m->layers[i];
        /* backward is twice forward; weights read forward and backward, gradient written */
        double layer_s = 3.0 * l->fwd_flops * (double)batch / peak;
        if (pf->gpu.memory_Bps > 0.0) {
            double bytes_s = 3.0 * (double)gcsim_layer_params(l) * elem / pf->gpu.memory_Bps;
            if (bytes_s > layer_s)
                layer_s = bytes_s;
        }
        double eff = strcmp(l->kind, "conv") == 0 ? GCSIM_ROOFLINE_EFF_CONV
                                                  : GCSIM_ROOFLINE_EFF_MATMUL;
        t += layer_s / eff;
    }
    if (!(t > 0.0))
        return gcsim_fail(err, "%s: the roofline gives no time (no FLOPs, no parameters)",
                          m->source_path);
    *time_s = t;
    return 0;
}

/* A one-point profile of the model on the platform's GPU: `time_s` for `batch`, the usual
 * backward share; the caller writes its source. */
static void one_point_profile(gcsim_profile *p, const gcsim_model *m, const gcsim_platform *pf,
                              int batch, double time_s, const char *framework)
{
    memset(p, 0, sizeof *p);
    snprintf(p->gpu, sizeof p->gpu, "%s", pf->gpu.type);
    p->precision = m->precision;
    snprintf(p->framework, sizeof p->framework, "%s", framework);
    p->n_points = 1;
    p->points[0].batch = batch;
    p->points[0].time_s = time_s;
    p->backward_fraction = 2.0 / 3.0;
}

bool gcsim_model_is_transformer(const gcsim_model *m)
{
    if (m->tokens_per_sample <= 0)
        return false;
    for (int l = 0; l < m->n_layers; l++)
        if (strcmp(m->layers[l].kind, "attention") == 0)
            return true;
    return false;
}

/* The model's hidden size: the rows of its first attention layer's weight matrices (d
 * for a d x d projection), else the square root of a quarter of its weights. */
static double model_hidden(const gcsim_model *m)
{
    for (int l = 0; l < m->n_layers; l++) {
        const gcsim_layer *ly = &m->layers[l];
        if (strcmp(ly->kind, "attention") != 0)
            continue;
        if (ly->rows > 0)
            return (double)ly->rows;
        return sqrt((double)ly->weights / 4.0);
    }
    return 0.0;
}

/* The fit's efficiency for GPU type `gpu` at hidden size h; 0 when it has none. */
static double fitted_efficiency(const char *gpu, double h)
{
    for (size_t k = 0; k < sizeof gcsim_transformer_fit / sizeof *gcsim_transformer_fit; k++)
        if (gcsim_transformer_fit[k].gpu[0] && strcmp(gcsim_transformer_fit[k].gpu, gpu) == 0) {
            double e = gcsim_transformer_fit[k].efficiency *
                       pow(h / GCSIM_TRANSFORMER_FIT_REFERENCE_HIDDEN, GCSIM_TRANSFORMER_FIT_BETA);
            return e < 1.0 ? e : 1.0;
        }
    return 0.0;
}

double gcsim_transformer_efficiency(const gcsim_model *m, const gcsim_platform *pf)
{
    double h = model_hidden(m);
    if (!(h > 0))
        return 0.0;
    double e = fitted_efficiency(pf->gpu.type, h);
    if (e == 0.0 && pf->gpu.profile_as[0])
        e = fitted_efficiency(pf->gpu.profile_as, h);
    return e;
}

const gcsim_profile *gcsim_platform_profile(const gcsim_model *m, const gcsim_platform *pf)
{
    const gcsim_profile *p = gcsim_model_profile(m, pf->gpu.type);
    if (!p && pf->gpu.profile_as[0])
        p = gcsim_model_profile(m, pf->gpu.profile_as);
    return p;
}

static double precision_peak(const gcsim_model *m, const gcsim_platform *pf)
{
    return gcsim_precision_grad_elem_bytes(m->precision) == 4 ? pf->gpu.speed_flops
                                                              : pf->gpu.speed_16bit_flops;
}

int gcsim_compute_override(gcsim_model *m, const gcsim_platform *pf, int batch, double mfu,
                           double step_time_s, gcsim_error *err)
{
    double t = step_time_s;
    double peak = precision_peak(m, pf);
    if (!(t > 0)) {
        if (!(peak > 0))
            return gcsim_fail(err, "--mfu: %s gives no peak for %s (gpu.speed_16bit)",
                              pf->source_path, gcsim_precision_name(m->precision));
        t = gcsim_model_train_flops_per_sample(m) * batch / (peak * mfu);
        /* --mfu 1e-300 gave a 300-digit iteration time: the time it implies is held to the
         * cap on any compute time, as a profile point's is */
        if (!(t <= GCSIM_MAX_COMPUTE_S))
            return gcsim_fail(err, "--mfu %g: %g training FLOPs for batch %d at %g of %s's "
                                   "%g TFLOP/s %s peak take %g s, more than the %g s gcsim "
                                   "accepts for one iteration",
                              mfu, gcsim_model_train_flops_per_sample(m) * batch, batch, mfu,
                              pf->source_path, peak / 1e12,
                              gcsim_precision_name(m->precision), t, GCSIM_MAX_COMPUTE_S);
    }
    /* replace the profile for this GPU and precision class, or take the spare slot the
     * loader leaves (model.c allocates n_profiles + 1) */
    gcsim_profile *p = (gcsim_profile *)gcsim_model_profile(m, pf->gpu.type);
    if (!p)
        p = &m->profiles[m->n_profiles++];
    free(p->layer_forward_s);
    free(p->layer_backward_s);
    one_point_profile(p, m, pf, batch, t, "none (given on the command line)");
    if (step_time_s > 0)
        snprintf(p->source, sizeof p->source, "given: --step-time %.6g s for batch %d",
                 step_time_s, batch);
    else
        snprintf(p->source, sizeof p->source, "given: --mfu %.4g of %.4g TFLOP/s (%s peak)",
                 mfu, peak / 1e12, gcsim_precision_name(m->precision));
    return 0;
}

const char *gcsim_compute_source(const gcsim_model *m, const gcsim_platform *pf)
{
    const gcsim_profile *p = gcsim_platform_profile(m, pf);
    if (!p)
        return gcsim_model_is_transformer(m) && gcsim_transformer_efficiency(m, pf) > 0 &&
                       gcsim_precision_grad_elem_bytes(m->precision) == 2 &&
                       precision_peak(m, pf) > 0
                   ? "transformer-model"
                   : "roofline-model";
    static const char *kinds[] = {"measured", "derived", "fitted", "given"};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        if (strncmp(p->source, kinds[k], strlen(kinds[k])) == 0)
            return kinds[k];
    /* a profile whose points come from both (a measured batch, a derived one) */
    if (strstr(p->source, "measured") && strstr(p->source, "derived"))
        return "measured+derived";
    return "profile";
}

const gcsim_profile *gcsim_compute_profile(const gcsim_model *m, const gcsim_platform *pf,
                                           int batch, gcsim_profile *scratch,
                                           gcsim_error *err)
{
    const gcsim_profile *p = gcsim_platform_profile(m, pf);
    if (p)
        return p;
    /* fitted on bf16 training only: fp32/tf32 keep the roofline */
    bool half = gcsim_precision_grad_elem_bytes(m->precision) == 2;
    double eff = half && gcsim_model_is_transformer(m) ? gcsim_transformer_efficiency(m, pf) : 0.0;
    double peak = precision_peak(m, pf);
    if (eff > 0 && peak > 0) {
        one_point_profile(scratch, m, pf, batch,
                          gcsim_model_train_flops_per_sample(m) * batch / (peak * eff),
                          "none (no profile for this GPU)");
        snprintf(scratch->source, sizeof scratch->source,
                 "modelled: training FLOPs (3 x forward) at %.4f of the %s peak %.4g TFLOP/s "
                 "(hidden %.0f), fitted (%s)", eff, gcsim_precision_name(m->precision), peak / 1e12,
                 model_hidden(m), GCSIM_TRANSFORMER_FIT_SOURCE);
        return scratch;
    }
    double t;
    if (gcsim_roofline_time_s(m, pf, batch, &t, err))
        return NULL;
    one_point_profile(scratch, m, pf, batch, t, "none (no profile for this GPU)");
    snprintf(scratch->source, sizeof scratch->source,
             "roofline: per-layer FLOPs at %s peak %.4g TFLOP/s%s, efficiency conv %.4f, "
             "matmul %.4f fitted to %d measured points (models/fit_roofline.py)",
             gcsim_precision_name(m->precision),
             (gcsim_precision_grad_elem_bytes(m->precision) == 4 ? pf->gpu.speed_flops
                                                                 : pf->gpu.speed_16bit_flops) /
                 1e12,
             pf->gpu.memory_Bps > 0.0 ? " and parameter bytes at gpu.memory_bandwidth" : "",
             GCSIM_ROOFLINE_EFF_CONV, GCSIM_ROOFLINE_EFF_MATMUL, GCSIM_ROOFLINE_FIT_POINTS);
    return scratch;
}
