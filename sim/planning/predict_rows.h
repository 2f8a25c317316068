/*
 * sim/planning/predict_rows.h: the rows of `gcsim predict`: which listed GPU counts can run
 * the case, and each count's prediction per engine with its speedup over one GPU. Every
 * row's scenario comes from the one option record (case_build.h): the case predict parsed,
 * or with --exchange best the case that won the count's search (exchange_search.h).
 */
#ifndef GCSIM_PLANNING_PREDICT_ROWS_H
#define GCSIM_PLANNING_PREDICT_ROWS_H

#include <stdbool.h>

#include "exchange_search.h"
#include "gcsim_error.h"
#include "scenario.h"
#include "stack.h"
#include "sweep_case.h"
#include "variability.h"

typedef struct {
    int gpus;
    gcsim_placement placement;
    gcsim_engine engine;
    gcsim_prediction p;
    double speedup;
    gcsim_exchange exchange;      /* what ran (per count with --exchange best) */
    gcsim_var_stats var;          /* with variable compute: the iteration's distribution */
} predict_row;

/* A listed GPU count that cannot run the inputs (case_build_feasible): its row says why. */
typedef struct {
    int gpus;
    char why[1024];
} predict_skip;

/* Splits the n_listed counts into those that run (counts, *n_counts) and those that alone
 * cannot (skips, *n_skips: memory, a sharding's refusal; issue 46). -1 with err when the
 * inputs are bad at any count. base->gpus is left at 1. */
int predict_rows_split(sweep_case *base, const int *listed, int n_listed, int *counts,
                       int *n_counts, predict_skip *skips, int *n_skips, gcsim_error *err);

/* The rows of counts under `engines` (1: base->engine; 2: analytic then DES, two rows per
 * count), into rows (n_counts x n_engines). search: the exchange search per count when
 * --exchange best ran it (its winner's case and setup run), else NULL. timeline: the DES's
 * Chrome trace (NULL: none). *last_setup (may be NULL) receives the setup that ran the last
 * count with its winner's exchange, and *last_won whether one did. */
int predict_rows_run(const sweep_case *base, const gcsim_stack_setup *ss, const int *counts,
                     int n_counts, bool both, const exchange_search_count *search,
                     const char *timeline, predict_row *rows, gcsim_stack_setup *last_setup,
                     bool *last_won, gcsim_error *err);

#endif
