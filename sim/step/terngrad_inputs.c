/*
 * sim/step/terngrad_inputs.c: what the TernGrad paper's model (Appendix B, eq. 27-30) takes
 * from a scenario, resolved here so that the analytic engine reads no profile, precision or
 * payload plan of sim/config itself (step.h).
 */
#include "roofline.h"
#include "step.h"

int gcsim_terngrad_inputs_build(const gcsim_scenario *s, gcsim_terngrad_inputs *in,
                                gcsim_error *err)
{
    const gcsim_model *m = s->model;
    gcsim_profile roofline; /* used when the model has no profile for this GPU */
    const gcsim_profile *prof = gcsim_compute_profile(m, s->platform, s->batch, &roofline, err);
    if (!prof)
        return -1;
    if (gcsim_profile_time_s(prof, s->batch, &in->T1_s, err))
        return -1;
    in->compressed = gcsim_scenario_compresses(s);
    in->strong_scaling = s->scaling == SCALING_STRONG;
    in->g_dense_bytes = s->payload->dense_bytes;
    /* uncompressed, the gradient travels at the model's gradient precision */
    in->g_wire_bytes = in->compressed ? s->payload->total_bytes
                                      : in->g_dense_bytes *
                                            gcsim_precision_grad_elem_bytes(m->precision) / 4.0;
    /* T(1,1,K) includes one host copy of the gradient at C_cwd (eq. 27) */
    if (in->T1_s - in->g_dense_bytes / s->platform->intra.gpu_to_host_Bps <= 0.0)
        return gcsim_fail(err, "%s: profiled time %g s for batch %d is shorter than copying the "
                               "%g-byte gradient to the host at C_cwd, which the TernGrad model "
                               "assumes it includes",
                          m->source_path, in->T1_s, s->batch, in->g_dense_bytes);
    return 0;
}
