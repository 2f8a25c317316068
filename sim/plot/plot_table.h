/*
 * sim/plot/plot_table.h: the machine-readable output of `gcsim sweep` (CSV or JSON lines),
 * `gcsim plan` (JSON or CSV) or `gcsim predict` (JSON or CSV), read back as a table of text
 * cells for `gcsim plot`.
 *
 * What the file is comes from its content, never from its name: a JSON document names its
 * command ("command": "plan"), JSON lines are sweep rows (each starts with schema_version
 * and has a case), and a CSV header is recognised by its columns (sweep: case and cases;
 * plan: rank first; predict: gpus first, with iteration_s). Anything else - an empty file,
 * another command's output, a row with the wrong number of fields - is refused with the
 * file and line (or JSON path) in the message. Cells keep the input's text; JSON numbers
 * are written back with the fewest digits that read back as the same double.
 */
#ifndef GCSIM_PLOT_PLOT_TABLE_H
#define GCSIM_PLOT_PLOT_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "gcsim_error.h"

/* A file larger than this is not an output worth one picture (a sweep of a million rows
 * is read by scripts, not drawn): refused instead of read into memory. */
#define PLOT_MAX_INPUT_BYTES (256L << 20)
/* Rows at most: more points than a figure can show apart. */
#define PLOT_MAX_ROWS 100000

typedef enum { PLOT_SWEEP, PLOT_PLAN, PLOT_PREDICT } plot_kind;

typedef enum { PLOT_CSV, PLOT_JSONL, PLOT_JSON } plot_format;

typedef struct {
    const char *file; /* as given (messages name it) */
    plot_kind kind;
    plot_format format;
    int n_cols;
    char **cols;
    int n_rows, cap_rows;
    char **cells; /* n_rows x n_cols, row-major; NULL: empty CSV cell or JSON null */
    long *line;   /* CSV, JSON lines: the row's line in the file; JSON: its index in rows */
    /* From a JSON document's meta (plan, predict); NaN, -1 or NULL when absent. */
    double target_samples_per_s; /* plan: meta.target.throughput_samples_per_s */
    int feasible;                /* plan: meta.feasible */
    char *model, *platform;      /* meta.model.name (plan, predict), meta.platform.name */
    char *rank_by;               /* plan: meta.rank_by */
    char *context;               /* predict: the settings of its meta, in words */
} plot_table;

/* Reads file into t (zeroed first). Returns 0, or -1 with the reason in err naming the
 * file and line or JSON path (err->internal set only when memory ran out). */
int plot_table_read(const char *file, plot_table *t, gcsim_error *err);
void plot_table_free(plot_table *t);

/* The column's index, or -1. */
int plot_table_col(const plot_table *t, const char *name);
/* The cell (NULL when empty or null, or col < 0). */
const char *plot_table_cell(const plot_table *t, int row, int col);
/* Where a cell is, for messages: "FILE:LINE: column NAME" (CSV), "FILE:LINE: $.NAME" (JSON
 * lines) or "FILE: $.rows[K].NAME" (JSON). */
void plot_table_where(const plot_table *t, int row, const char *col, char *buf, size_t size);
/* The cell as a finite number. Returns 0, or -1 with "WHERE: expected a number, got ..."
 * (or "...: missing" when the cell is empty) in err. */
int plot_table_number(const plot_table *t, int row, int col, double *out, gcsim_error *err);
/* Fails naming the file when a column the picture needs is not in it. */
int plot_table_require(const plot_table *t, const char *col, gcsim_error *err);

/* v with the fewest digits that read back as the same double, without an exponent where
 * the integer part's digits suffice (100, not 1e+02). */
void plot_number_text(double v, char *buf, size_t size);

/* "gcsim sweep", "gcsim plan", "gcsim predict". */
const char *plot_kind_command(plot_kind kind);
/* "CSV", "JSON lines", "JSON". */
const char *plot_format_name(plot_format format);

#endif
