/*
 * sim/planning/baseline_run.h: `gcsim check`'s evaluation: every baseline case (of one
 * engine, or all) predicted before anything is printed or rewritten, with its tolerance and
 * its drift from the expected value (baseline_check.h for one case).
 */
#ifndef GCSIM_PLANNING_BASELINE_RUN_H
#define GCSIM_PLANNING_BASELINE_RUN_H

#include "baseline_file.h"
#include "gcsim_error.h"
#include "stack.h"
#include "sweep_case.h"

#define BASELINE_WHY_LEN 1024

/* Per case (indexed as b's cases, each array of b->n_cases entries, zeroed) and in all. */
typedef struct {
    double *predicted, *drift_pct, *tolerance;
    unsigned char *evaluated;
    const gcsim_stack **stacks;
    /* A case its inputs cannot run (a GPU count its platform cannot hold, a refusal of the
     * sharding...): why[k] says why, the others are evaluated (issue 46). NULL: such a case
     * fails the run as any other failure. */
    char (*why)[BASELINE_WHY_LEN];
    int n_evaluated, n_drifted, n_new, n_infeasible;
} baseline_results;

/* Evaluates the cases of engine `engine` (-1: every case); tolerance_pct: --tolerance (< 0:
 * the baseline's or the case's, else default_pct). Returns 0, or -1 with *failed the index
 * of the case that could not be evaluated and err why (err->internal when the simulation
 * itself failed). */
int baseline_run(const baseline *b, sweep_cache *cache, int engine, double tolerance_pct,
                 double default_pct, baseline_results *out, int *failed, gcsim_error *err);

#endif
