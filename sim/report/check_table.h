/*
 * sim/report/check_table.h: `gcsim check`'s table: each evaluated baseline case with its
 * expected and predicted samples/s, drift, tolerance and verdict, then the check's typed
 * facts and its result line (sim/planning/baseline_check.h evaluates the cases).
 */
#ifndef GCSIM_REPORT_CHECK_TABLE_H
#define GCSIM_REPORT_CHECK_TABLE_H

#include <stdbool.h>

#include "baseline_file.h"
#include "baseline_run.h"
#include "report.h"
#include "stack.h"

/* What a check found, per case (indexed as the baseline's cases) and in all. */
typedef struct {
    const double *predicted, *drift_pct, *tolerance;
    const unsigned char *evaluated;
    const gcsim_stack *const *stacks;
    const char (*why)[BASELINE_WHY_LEN]; /* a case that could not run: why ("": it ran) */
    int n_evaluated, n_drifted, n_new, n_infeasible;
    int n_pinned, n_changed;      /* set before check_table_finish */
    int engine_filter;            /* --engine, or -1 */
    double tolerance_pct;         /* --tolerance, or < 0 */
    double default_tolerance_pct; /* what a case without any tolerance is held to */
    bool update;                  /* --update */
} check_outcome;

/* The rows, one per evaluated case (before --update rewrites the baseline). */
report *check_table_rows(const baseline *b, const check_outcome *o);

/* The meta (docs/schema.md) and the notes "baseline" and "result". */
void check_table_finish(report *r, const baseline *b, const check_outcome *o);

#endif
