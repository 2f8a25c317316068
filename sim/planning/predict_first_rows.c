/* The numbers of predict's first screen; see predict_first_rows.h. */
#include "predict_first_rows.h"

#include "case_build.h"
#include "engine.h"
#include "roofline.h"

int predict_first_run(const char *spec, const gcsim_platform *pf, const gcsim_model *m,
                      const gcsim_stack *st, int batch, const int *counts, int n,
                      double peak_flops, predict_first_config *cfg, gcsim_error *err)
{
    gcsim_payload_plan plan = {0};
    gcsim_stack_setup ss;
    gcsim_scenario s;
    int rc = -1;
    /* built as predict builds its case (sim/planning/case_build.h) */
    sweep_case c = {.platform = pf, .model = m, .payload = &plan, .stack = st,
                    .scaling = SCALING_WEAK, .batch = batch, .gpus = 1, .overlap = true};
    if (gcsim_payload_plan_build(spec, m, &plan, err) || case_build_setup(&c, &ss, err))
        goto out;
    gcsim_prediction one, p;
    if (case_build_scenario(&c, &ss, &s, err) || engine_run(ENGINE_ANALYTIC, &s, &one, err))
        goto out;
    double flops = gcsim_model_train_flops_per_sample(m);
    cfg->payload_bytes = plan.total_bytes;
    for (int k = 0; k < n; k++) {
        c.gpus = counts[k];
        if (case_build_scenario(&c, &ss, &s, err) || engine_run(ENGINE_ANALYTIC, &s, &p, err))
            goto out;
        predict_first_row *r = &cfg->rows[k];
        r->gpus = counts[k];
        r->machines = s.placement.machines;
        r->comm_s = p.comm_s;
        r->tput = p.throughput_samples_per_s;
        r->speedup = p.throughput_samples_per_s / one.throughput_samples_per_s;
        r->mfu_pct = 100.0 * flops * r->tput / ((double)counts[k] * peak_flops);
    }
    rc = 0;
out:
    gcsim_payload_plan_free(&plan);
    return rc;
}

