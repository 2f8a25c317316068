/* gcsim check's evaluation; see baseline_run.h. */
#include "baseline_run.h"

#include <stdio.h>

#include "baseline_check.h"
#include "engine.h"

int baseline_run(const baseline *b, sweep_cache *cache, int engine, double tolerance_pct,
                 double default_pct, baseline_results *out, int *failed,
                 gcsim_error *err)
{
    for (int k = 0; k < b->n_cases; k++) {
        const baseline_case *bc = &b->cases[k];
        if (engine >= 0 && (int)bc->engine != engine)
            continue;
        *failed = k;
        if (bc->engine == ENGINE_DES && !engine_des_available())
            return gcsim_fail(err, "engine des is not in this build (use --engine analytic to "
                                   "check the other cases)");
        out->tolerance[k] = baseline_tolerance_pct(b, bc, tolerance_pct, default_pct);
        int ran = baseline_case_predict(bc, cache, &out->predicted[k], &out->stacks[k], err);
        if (ran) {
            if (ran < 0 || !out->why)
                return -1; /* err->internal kept: 3 when the simulation itself failed */
            snprintf(out->why[k], BASELINE_WHY_LEN, "%s", err->message);
            out->n_infeasible++;
            continue;
        }
        out->evaluated[k] = 1;
        out->n_evaluated++;
        if (!bc->has_expected) { /* only with --update: recorded by the caller */
            out->n_new++;
            continue;
        }
        out->drift_pct[k] = baseline_drift_pct(out->predicted[k], bc->expected_samples_per_s);
        if (!baseline_within_tolerance(out->drift_pct[k], out->tolerance[k]))
            out->n_drifted++;
    }
    return 0;
}
