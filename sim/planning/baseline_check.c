/* One baseline case predicted and compared (baseline_check.h). */
#include "baseline_check.h"

#include <math.h>
#include <string.h>

const char *baseline_case_stack(const baseline_case *bc, const gcsim_platform *pf)
{
    return bc->stack[0] ? bc->stack : gcsim_stack_choice(NULL, pf);
}

const char *baseline_stack_to_pin(const baseline_case *bc, const gcsim_platform *pf)
{
    if (bc->stack[0])
        return NULL;
    const char *choice = gcsim_stack_choice(NULL, pf);
    /* the rule of gcsim_stack_load and the platform reader: a path has '/' or ".json" */
    return strchr(choice, '/') || strstr(choice, ".json") ? NULL : choice;
}

int baseline_case_predict(const baseline_case *bc, sweep_cache *cache,
                          double *predicted_samples_per_s, const gcsim_stack **stack,
                          gcsim_error *err)
{
    const gcsim_platform *pf = sweep_cache_platform(cache, bc->platform, err);
    const gcsim_model *m =
        pf ? sweep_cache_model_as(cache, bc->model, bc->precision, bc->optimizer, err) : NULL;
    const gcsim_payload_plan *pl = m ? sweep_cache_payload(cache, m, bc->compressor, err) : NULL;
    const gcsim_stack *st = pl ? sweep_cache_stack(cache, baseline_case_stack(bc, pf), err) : NULL;
    if (!st)
        return -1;
    if (stack)
        *stack = st;
    /* The case names its collective, so the platform's choice does not apply. */
    sweep_case c = {.platform = pf, .model = m, .payload = pl, .stack = st,
                    .collective = bc->collective, .collective_given = true,
                    .scaling = bc->scaling,
                    .engine = bc->engine, .batch = bc->batch, .gpus = bc->gpus,
                    .overlap = true, .sharding = bc->sharding, .grad_accum = bc->grad_accum,
                    .act_ckpt = bc->act_ckpt,
                    .act_ckpt_policy = bc->act_ckpt_policy};
    sweep_result res;
    if (sweep_case_run(&c, &res, err))
        return -1;
    *predicted_samples_per_s = res.p.throughput_samples_per_s;
    return 0;
}

double baseline_drift_pct(double predicted_samples_per_s, double expected_samples_per_s)
{
    return 100.0 * (predicted_samples_per_s - expected_samples_per_s) / expected_samples_per_s;
}

bool baseline_within_tolerance(double drift_pct, double tolerance_pct)
{
    return fabs(drift_pct) <= tolerance_pct;
}

double baseline_tolerance_pct(const baseline *b, const baseline_case *bc, double command_pct,
                              double fallback_pct)
{
    if (bc->tolerance_pct >= 0)
        return bc->tolerance_pct;
    if (command_pct >= 0)
        return command_pct;
    return b->tolerance_pct >= 0 ? b->tolerance_pct : fallback_pct;
}
