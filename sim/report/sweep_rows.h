/*
 * sim/report/sweep_rows.h: `gcsim sweep`'s rows: the columns of a case (docs/schema.md) and
 * where sweep_run (sim/planning/sweep_run.h) hands each finished case: written as a row,
 * counted on the progress bar, a what-if warned about once.
 */
#ifndef GCSIM_REPORT_SWEEP_ROWS_H
#define GCSIM_REPORT_SWEEP_ROWS_H

#include <stdbool.h>
#include <stdio.h>

#include "gcsim_error.h"
#include "sweep_output.h"
#include "sweep_progress.h"
#include "sweep_run.h"

enum { SWEEP_ROWS_COLUMNS = 36 };
/* The column names of a sweep row, in order (scripts read them by position). */
extern const char *const sweep_rows_columns[SWEEP_ROWS_COLUMNS];

/* Where finished cases go: written as rows, counted on the progress bar. */
typedef struct {
    sweep_writer *w;
    FILE *out;
    sweep_progress *bar;
    long long done;
    gcsim_error limit; /* a case a limit of this machine kept from being costed */
    bool limited;
    /* what-ifs already warned about (a named exchange the stack does not implement): once
     * each, the first SWEEP_WHATIF_WARNINGS of them */
#define SWEEP_WHATIF_WARNINGS 16
    char whatif[SWEEP_WHATIF_WARNINGS][384];
    int n_whatif;
    /* the text of the cells a group of cases shares (sweep_rows.c), NULL: none kept */
    struct sweep_row_cache *cache;
} sweep_sink;

/* sweep_run's callback (ctx: a sweep_sink): the case's row, or -1 to stop when the machine
 * could not cost it (the size guard, out of memory; in k->limit) or the output cannot be
 * written. */
int sweep_sink_outcome(void *ctx, const sweep_outcome *oc);

/* Runs the sweep (sweep_run) and writes its rows to out in format, drawing the progress
 * bar on stderr when show_progress. 0 written; -1 the output cannot be written (errno); -2 a
 * case hit a limit of the machine, said on stderr. */
int sweep_rows_write(const sweep_space *s, const sweep_run_options *ro, sweep_format format,
                     bool show_progress, FILE *out);

#endif
