/*
 * sim/report/predict_variability.h: gcsim predict's report under variable per-GPU compute
 * (issue 41): the iteration's distribution per row (mean in the usual iteration column,
 * p50, p99, the mean's 95% interval, the largest compute factor over the job) and notes
 * naming the distribution and what only the DES includes.
 */
#ifndef GCSIM_PREDICT_VARIABILITY_H
#define GCSIM_PREDICT_VARIABILITY_H

#include <stdbool.h>

#include "report.h"
#include "variability.h"

typedef struct {
    int p50, p99, ci_low, ci_high, tput_low, tput_high, max_mean, max_p99, iterations;
} predict_var_columns;

/* A named slow rank must exist in the largest job listed: 0, or -1 after a message. */
int predict_variability_check(const gcsim_variability *v, const int *counts, int n_counts);
void predict_variability_columns(report *r, const gcsim_variability *v, bool both,
                                 predict_var_columns *c);
void predict_variability_row(report *r, const predict_var_columns *c, const gcsim_var_stats *st,
                             bool des, double samples_per_iteration);

#endif
