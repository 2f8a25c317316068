/* gcsim predict's columns and notes under variable compute (predict_variability.h). */
#include "predict_variability.h"

#include <stdio.h>

int predict_variability_check(const gcsim_variability *v, const int *counts, int n_counts)
{
    int most = 0;
    for (int k = 0; k < n_counts; k++)
        most = counts[k] > most ? counts[k] : most;
    if (v->slow_rank >= most) {
        fprintf(stderr, "gcsim predict: --slow-rank %d:%g: the largest job listed has %d GPUs "
                        "(ranks 0 to %d)\n", v->slow_rank, v->slow_rank_factor, most, most - 1);
        return -1;
    }
    return 0;
}

void predict_variability_columns(report *r, const gcsim_variability *v, bool both,
                                 predict_var_columns *c)
{
    c->p50 = report_column_scaled(r, "iteration_p50_s", "p50 ms", 3, 1e3);
    c->p99 = report_column_scaled(r, "iteration_p99_s", "p99 ms", 3, 1e3);
    c->ci_low = report_column_scaled(r, "iteration_ci95_low_s", "mean 95% lo ms", 3, 1e3);
    c->ci_high = report_column_scaled(r, "iteration_ci95_high_s", "mean 95% hi ms", 3, 1e3);
    c->tput_low = report_column(r, "throughput_ci95_low", "samples/s 95% lo", 1);
    c->tput_high = report_column(r, "throughput_ci95_high", "samples/s 95% hi", 1);
    c->max_mean = report_column(r, "max_compute_factor_mean", "E[max factor]", 4);
    c->max_p99 = report_column(r, "max_compute_factor_p99", "max factor p99", 4);
    c->iterations = report_column(r, "iterations", "iters", 0);
    char buf[512];
    int len = snprintf(buf, sizeof buf, "per-GPU, per-iteration compute factor: %s, mean 1, CV %g",
                       gcsim_var_family_name(v->family), v->cv);
    if (v->slow_fraction > 0)
        len += snprintf(buf + len, sizeof buf - (size_t)len,
                        "; a fraction %g of the GPUs persistently %gx slower", v->slow_fraction,
                        v->slow_factor);
    if (v->slow_rank >= 0)
        len += snprintf(buf + len, sizeof buf - (size_t)len, "; rank %d %gx slower",
                        v->slow_rank, v->slow_rank_factor);
    snprintf(buf + len, sizeof buf - (size_t)len, "; seed %lu. The iteration column is the mean",
             v->seed);
    report_note(r, "variable compute", buf);
    if (v->preset) {
        /* a named preset: which numbers it set and where they come from (docs/des.md) */
        char src[1024];
        snprintf(src, sizeof src, "--variability %s: %s, CV %g (%s). Source: %s",
                 v->preset->name, gcsim_var_family_name(v->preset->family), v->preset->cv,
                 v->preset->kind, v->preset->source);
        report_note(r, "variability preset", src);
        report_meta_str(r, "variability.preset", v->preset->name);
        report_meta_str(r, "variability.preset_source", v->preset->source);
    }
    report_note(r, "analytic under variable compute",
                "the expected largest factor over the job's GPUs (order statistics of the "
                "stated distribution) scales every GPU's compute in the shared iteration, "
                "which buckets, overlap and gated blocks then expose: mean, p50 and p99 are "
                "exact integrals over that maximum (iters: none)");
    (void)both; /* named with or without the DES's rows: what the analytic rows leave out */
    report_note(r, "only the DES includes",
                    "per-GPU draws in each simulated iteration (a sample of the maximum, "
                    "not its expectation: the mean has a 95% interval), collectives progressing "
                    "before their slowest member arrives (a ring's other links, a tree's other "
                    "subtrees; above 4,096 GPUs every GPU takes the iteration's largest draw, so "
                    "not this), and link contention; the DES's p99 is a sample quantile of its "
                    "iterations");
    report_meta_str(r, "variability.family", gcsim_var_family_name(v->family));
    report_meta_num(r, "variability.cv", v->cv);
    report_meta_num(r, "variability.slow_fraction", v->slow_fraction);
    report_meta_num(r, "variability.slow_factor", v->slow_factor);
    report_meta_int(r, "variability.slow_rank", v->slow_rank);
    report_meta_num(r, "variability.slow_rank_factor", v->slow_rank_factor);
    report_meta_int(r, "variability.seed", (long long)v->seed);
    report_meta_str(r, "variability.des_only",
                    "sampled per-GPU draws; collectives progressing before their slowest member; "
                    "link contention");
}

void predict_variability_row(report *r, const predict_var_columns *c, const gcsim_var_stats *st,
                             bool des, double samples_per_iteration)
{
    report_num(r, c->p50, st->p50_s);
    report_num(r, c->p99, st->p99_s);
    report_num(r, c->ci_low, st->ci95_low_s);
    report_num(r, c->ci_high, st->ci95_high_s);
    report_num(r, c->tput_low, samples_per_iteration / st->ci95_high_s);
    report_num(r, c->tput_high, samples_per_iteration / st->ci95_low_s);
    report_num(r, c->max_mean, st->max_factor_mean);
    report_num(r, c->max_p99, st->max_factor_p99);
    if (des)
        report_int(r, c->iterations, st->iterations);
}
