/*
 * sim/report/report_fit.h: a text table laid out to fit a width (issue 46: every default table
 * fits 100 columns; `--wide` prints the full one-line-per-row table instead).
 *
 * report.c formats the cells; this file only places them. When the rows do not fit:
 *   1. columns with a short header (report_column_brief) use it, and a legend after the table
 *      names the full header;
 *   2. the columns a reader needs first (report_table_lead) come first, the rest in the
 *      CSV's order;
 *   3. the columns still too wide split into stacked tables, each repeating the key columns
 *      that name the row (the first columns of the lead; without a lead, the first column)
 *      (a key wider than half the line, such as a full compressor spec: a row number
 *      instead, the key listed as in 4.);
 *   4. a text column too long for any table (a reason, a description) is printed after the
 *      tables as a list, one paragraph per row named by its keys, wrapped.
 * Notes ("key: value" lines above the table) longer than the width are wrapped at spaces
 * (a word longer than a line: after a comma or slash, else where the line ends).
 */
#ifndef GCSIM_REPORT_REPORT_FIT_H
#define GCSIM_REPORT_REPORT_FIT_H

#include <stdbool.h>
#include <stdio.h>

typedef struct {
    int n_cols, n_rows;          /* the shown columns only */
    const char *const *headers;  /* n_cols full headers */
    const char *const *briefs;   /* n_cols short headers, NULL entries: none */
    const char *const *cells;    /* n_rows x n_cols, row-major; "" for an empty cell */
    const bool *left;            /* n_rows x n_cols: the cell is text (left-aligned) */
    const int *lead;             /* columns (indexes into the shown ones) first, in order */
    int n_lead, n_keys;          /* n_keys <= n_lead of them repeat in every stacked table */
    bool numbered;               /* internal: rows already numbered (report_fit.c) */
} fit_table;

/* The printed width of a UTF-8 string: its characters, not its bytes. */
int fit_text_width(const char *s);

/* Prints t in at most width columns as described above. Returns -1 on a write error. */
int fit_table_write(const fit_table *t, int width, FILE *out);

/* Prints "lead" then text, broken at spaces into lines of at most width columns; lines after
 * the first start with indent spaces. A word longer than a line is broken inside. */
void fit_wrap(FILE *out, const char *lead, const char *text, int indent, int width);

#endif
