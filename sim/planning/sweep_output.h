/*
 * sim/planning/sweep_output.h: rows streamed as CSV or JSON lines, one case per line.
 *
 * A sweep can have millions of cases, so rows are written as they are computed instead of
 * being held in a report (sim/cli/report.h), with the same conventions: numbers with full
 * precision (%.17g; integers as integers), empty CSV cells and JSON nulls for missing
 * values, CSV quoting when a cell holds a comma or a quote. Line breaks inside strings are
 * written as spaces, so one line is always one row (which `gcsim merge` relies on). A JSON
 * line starts with "schema_version" (docs/schema.md); the CSV header is the schema.
 */
#ifndef GCSIM_PLANNING_SWEEP_OUTPUT_H
#define GCSIM_PLANNING_SWEEP_OUTPUT_H

#include <stdio.h>

typedef enum { SWEEP_CSV, SWEEP_JSONL } sweep_format;

/* Bytes of a row held before they go to the FILE: a sweep row is about 450 (36 cells);
 * a longer one (a long error message) is passed on in pieces, the same bytes. */
#define SWEEP_ROW_BUFFER 2048

typedef struct {
    sweep_format format;
    FILE *out;
    int n_cols;
    const char *const *keys;
    int col; /* next cell of the current row */
    /* The row so far, not yet in out: cells are copied here and the row goes to out in
     * one fwrite at its end (a sweep writes ~40 cells per case: one stdio call per cell
     * cost more than the copy). */
    size_t len;
    char row[SWEEP_ROW_BUFFER];
} sweep_writer;

/* Starts the output; CSV writes its header line. A row reaches out at sweep_row_end (or
 * in pieces when it is longer than SWEEP_ROW_BUFFER), never cell by cell. */
void sweep_writer_begin(sweep_writer *w, sweep_format format, FILE *out,
                        const char *const *keys, int n_cols);
void sweep_row_begin(sweep_writer *w);
/* Cells, in column order. */
void sweep_cell_int(sweep_writer *w, long long v);
void sweep_cell_num(sweep_writer *w, double v); /* non-finite: empty / null */
void sweep_cell_str(sweep_writer *w, const char *s);
void sweep_cell_empty(sweep_writer *w);
void sweep_row_end(sweep_writer *w);

/* Cells written once and put again: sweep_cells_capture runs fill(w', arg) on a writer w'
 * like w whose row stands at column `col`, and returns the text its cells wrote (malloc'd,
 * *len bytes, *n cells; NULL when out of memory); sweep_cells_put writes such a text into
 * w's row at that column (w->col == col) and moves on by its n cells. A sweep's rows share
 * most of their text within a group of GPU counts (sim/report/sweep_rows.c). */
char *sweep_cells_capture(const sweep_writer *w, int col,
                          void (*fill)(sweep_writer *, const void *), const void *arg,
                          size_t *len, int *n);
void sweep_cells_put(sweep_writer *w, const char *text, size_t len, int n);

/* Splits one CSV line in place into fields (quotes removed, "" unescaped). Returns the
 * number of fields, or -1 when the line is malformed or has more than max fields. */
int sweep_csv_split(char *line, char **fields, int max);

#endif
