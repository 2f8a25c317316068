/*
 * sim/report/breakeven_report.h: what `gcsim breakeven` computes and prints: for every model,
 * platform, GPU count and compressor, the break-even NIC bandwidth under the stack and under
 * fused (breakeven_row.h), with the convergence factor's answer, each row built from the
 * command line's one option record (case_options.h); a row that cannot run says why.
 */
#ifndef GCSIM_REPORT_BREAKEVEN_REPORT_H
#define GCSIM_REPORT_BREAKEVEN_REPORT_H

#include "breakeven_table.h"
#include "case_options.h"
#include "convergence.h"
#include "sweep_lists.h"

typedef struct {
    const sweep_list *platforms, *models; /* empty: the embedded defaults */
    const sweep_list *compressors;        /* at least one */
    const char *stack;                    /* --stack, or NULL: each platform's choice */
    const case_options *run;
    const int *counts;
    int n_counts;
    conv_source convergence;
} breakeven_request;

/* The table (its notes and meta when a row was answered) with *n_answered; the reasons of
 * the rows that could not run in log (err then holds the last one's). NULL with err: a bad
 * input (a model, platform, stack or compressor spec, the convergence evidence) or out of
 * memory. */
report *breakeven_report(const breakeven_request *q, sweep_cache *cache,
                         breakeven_infeasible_log *log, int *n_answered, gcsim_error *err);

#endif
