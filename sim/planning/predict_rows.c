/* gcsim predict's rows; see predict_rows.h. */
#include "predict_rows.h"

#include <stdio.h>

#include "case_build.h"
#include "engine.h"

int predict_rows_split(sweep_case *base, const int *listed, int n_listed, int *counts,
                       int *n_counts, predict_skip *skips, int *n_skips, gcsim_error *err)
{
    *n_counts = *n_skips = 0;
    for (int k = 0; k < n_listed; k++) {
        base->gpus = listed[k];
        /* a count above the platform's size is that row's reason, as in sweep (issue 46) */
        gcsim_placement placed;
        int feasible = gcsim_platform_place(base->platform, listed[k], &placed, err) ? 1
                       : case_build_feasible(base, err);
        if (feasible < 0)
            return -1;
        if (feasible > 0) {
            skips[*n_skips].gpus = listed[k];
            snprintf(skips[*n_skips].why, sizeof skips[*n_skips].why, "%s", err->message);
            (*n_skips)++;
        } else {
            counts[(*n_counts)++] = listed[k];
        }
    }
    base->gpus = 1;
    return 0;
}

int predict_rows_run(const sweep_case *base, const gcsim_stack_setup *ss, const int *counts,
                     int n_counts, bool both, const exchange_search_count *search,
                     const char *timeline, predict_row *rows, gcsim_stack_setup *last_setup,
                     bool *last_won, gcsim_error *err)
{
    int per_count = both ? 2 : 1;
    if (last_won)
        *last_won = false;
    for (int e = 0; e < per_count; e++) {
        gcsim_engine engine = both ? (e == 0 ? ENGINE_ANALYTIC : ENGINE_DES) : base->engine;
        /* Speedup is over one GPU with the same engine, batch and compressor. */
        gcsim_prediction one;
        gcsim_scenario s1;
        sweep_case c_one = *base;
        c_one.gpus = 1;
        if (case_build_scenario(&c_one, ss, &s1, err) || engine_run(engine, &s1, &one, err))
            return -1;
        for (int k = 0; k < n_counts; k++) {
            /* with --exchange best, this count's winner: the case its search ran, with its
             * own setup, so the row is what predict --exchange <winner> prints */
            const sweep_case *won = search ? exchange_search_winner(&search[k]) : NULL;
            sweep_case ck = won ? *won : *base;
            ck.gpus = counts[k];
            gcsim_stack_setup ss_k;
            const gcsim_stack_setup *used = ss;
            if (won) {
                if (case_build_setup(&ck, &ss_k, err))
                    return -1;
                used = &ss_k;
            }
            gcsim_scenario s_k;
            if (case_build_scenario(&ck, used, &s_k, err))
                return -1;
            s_k.timeline_path = engine == ENGINE_DES ? timeline : NULL;
            predict_row *row = &rows[both ? 2 * k + e : k];
            s_k.variability_stats = &row->var;
            row->gpus = counts[k];
            row->placement = s_k.placement;
            row->engine = engine;
            row->exchange = used->cs.exchange.exchange;
            if (engine_run(engine, &s_k, &row->p, err))
                return -1;
            if (k == n_counts - 1 && used == &ss_k) {
                if (last_setup)
                    *last_setup = ss_k;
                if (last_won)
                    *last_won = true;
            }
            /* A winner is over one GPU of its own case, as predict --exchange <winner>
             * computes it: where the stack's own exchange is a paper's pattern (a platform
             * that names terngrad), its one-GPU run charges a gradient copy to the host
             * that the other exchanges do not (issue 45: efficiencies above 100%). */
            double one_tput = one.throughput_samples_per_s;
            if (won) {
                sweep_case c1 = ck;
                c1.gpus = 1;
                gcsim_scenario s1_k;
                gcsim_prediction one_k;
                if (case_build_scenario(&c1, used, &s1_k, err) ||
                    engine_run(engine, &s1_k, &one_k, err))
                    return -1;
                one_tput = one_k.throughput_samples_per_s;
            }
            row->speedup = row->p.throughput_samples_per_s / one_tput;
        }
    }
    return 0;
}
