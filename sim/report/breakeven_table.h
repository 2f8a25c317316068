/*
 * sim/report/breakeven_table.h: `gcsim breakeven`'s table: per model, platform, GPU count
 * and compressor, the answer under the chosen stack, under the ideal fused stack and on
 * time to accuracy (sim/planning/breakeven_row.h), or why the row cannot run; and the
 * reasons of such rows for standard error when none could run.
 */
#ifndef GCSIM_REPORT_BREAKEVEN_TABLE_H
#define GCSIM_REPORT_BREAKEVEN_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "breakeven_row.h"
#include "convergence.h"
#include "report.h"
#include "sweep_case.h"

/* The columns of one stack's answer (the chosen stack's, or fused's with a "fused"
 * prefix). */
typedef struct {
    int ex, none, tput, codec, be, st, why;
} breakeven_answer_columns;

typedef struct {
    int model, platform, gpus, compressor, own_Bps, stack, conv, conv_src, acc_be, acc_st,
        acc_why;
    breakeven_answer_columns own, fused;
    /* issue 46: what predict has for the row's case, after every other column */
    int tokens, mfu, mem, sharding, ckpt, csrc;
} breakeven_table;

/* A new report with breakeven's columns (NULL: out of memory). */
report *breakeven_table_new(breakeven_table *t);

/* The keys of a row: model, platform, GPU count, the compressor (its full spec in CSV and
 * JSON, `given` in the text table) and the stack. */
void breakeven_table_keys(report *r, const breakeven_table *t, const char *model,
                          const char *platform, int gpus, const char *spec, const char *given,
                          const char *stack);
/* An answered row: own_Bps is the platform's NIC bandwidth; cf the compressor's
 * convergence factor at the row's count, conv_source its label. */
void breakeven_table_answer(report *r, const breakeven_table *t, const breakeven_row *a,
                            const conv_factor *cf, const char *conv_source);
/* predict's fields for the row's case c (sim/planning/row_fields.h): its sharding,
 * activation checkpointing policy and compute source always; with a (an answered row), the
 * memory per GPU, and tokens/s and MFU of the compressor's samples/s under the chosen stack
 * (none where the stack refused the compressor). a NULL: a row that cannot run. */
void breakeven_table_case(report *r, const breakeven_table *t, const sweep_case *c,
                          const breakeven_row *a);
/* A row that cannot run: every status says so and every reason why. */
void breakeven_table_infeasible(report *r, const breakeven_table *t, double nic_Bps,
                                const char *why);

/* The notes and meta after the rows: the infeasible note (when n_infeasible), the engine,
 * scaling, the stacks (shared: every row's, or NULL when the platforms chose different
 * ones; stack_given: --stack was given), the fused stack. */
void breakeven_table_finish(report *r, int n_infeasible, const gcsim_stack *shared,
                            bool stack_given, const gcsim_stack *ideal);

/* The reasons of the rows that could not run, for standard error when none could. */
typedef struct {
    char *text;
    size_t len;
    int n;
} breakeven_infeasible_log;

int breakeven_infeasible_add(breakeven_infeasible_log *log, const char *spec, int gpus,
                             const char *model, const char *platform, const char *why,
                             gcsim_error *err);

#endif
