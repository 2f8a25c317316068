/* The roofline compute model (roofline.h); models/fit_roofline.py computes the same. */
#include "roofline.h"

#include <stdio.h>
#include <string.h>

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

const gcsim_profile *gcsim_compute_profile(const gcsim_model *m, const gcsim_platform *pf,
                                           int batch, gcsim_profile *scratch,
                                           gcsim_error *err)
{
    const gcsim_profile *p = gcsim_model_profile(m, pf->gpu.type);
    if (p)
        return p;
    double t;
    if (gcsim_roofline_time_s(m, pf, batch, &t, err))
        return NULL;
    memset(scratch, 0, sizeof *scratch);
    snprintf(scratch->gpu, sizeof scratch->gpu, "%s", pf->gpu.type);
    scratch->precision = m->precision;
    snprintf(scratch->framework, sizeof scratch->framework, "none (no profile for this GPU)");
    snprintf(scratch->source, sizeof scratch->source,
             "roofline: per-layer FLOPs at %s peak %.4g TFLOP/s%s, efficiency conv %.4f, "
             "matmul %.4f fitted to %d measured points (models/fit_roofline.py)",
             gcsim_precision_name(m->precision),
             (gcsim_precision_grad_elem_bytes(m->precision) == 4 ? pf->gpu.speed_flops
                                                                 : pf->gpu.speed_16bit_flops) /
                 1e12,
             pf->gpu.memory_Bps > 0.0 ? " and parameter bytes at gpu.memory_bandwidth" : "",
             GCSIM_ROOFLINE_EFF_CONV, GCSIM_ROOFLINE_EFF_MATMUL, GCSIM_ROOFLINE_FIT_POINTS);
    scratch->n_points = 1;
    scratch->points[0].batch = batch;
    scratch->points[0].time_s = t;
    scratch->backward_fraction = 2.0 / 3.0;
    return scratch;
}
