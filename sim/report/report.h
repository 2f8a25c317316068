/*
 * sim/report/report.h: one result table, printed as an aligned text table, CSV or JSON.
 *
 * Every subcommand builds a report and writes it in the format the user chose, so the
 * three formats always carry the same rows. Numbers keep full precision in CSV and JSON
 * (%.17g); the text table rounds to each column's precision.
 *
 * The machine formats follow docs/schema.md (version REPORT_SCHEMA_VERSION): JSON is
 * {"schema_version", "command", "gcsim_version", "meta", "notes", "rows"}; "meta" holds
 * typed facts (report_meta_*), "notes" the free-text lines the text table prints above the
 * rows. CSV is the header line and the rows: its header names are the schema. Column keys
 * carry their unit (_s, _bytes, _Bps, _pct); the text table may show another unit
 * (report_column_scaled), its headers are for people.
 */
#ifndef GCSIM_REPORT_REPORT_H
#define GCSIM_REPORT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "schema_version.h" /* sim/planning: shared with the sweep rows */

#define REPORT_SCHEMA_VERSION GCSIM_SCHEMA_VERSION

typedef enum { REPORT_TABLE, REPORT_JSON, REPORT_CSV } report_format;

/* Parses "table", "json" or "csv"; returns -1 otherwise. */
int report_format_parse(const char *text, report_format *out);

typedef struct report report;

/* The command is the subcommand the calling file implements: sim/cli/cmd_NAME.c gives
 * "NAME" (so every command's JSON names itself without each one saying so). A table built
 * in sim/report for a command names it: report_new_for_file("predict"). */
#define report_new() report_new_for_file(__FILE__)
report *report_new_for_file(const char *source_file);
void report_free(report *r);

/* Adds a column; returns its index. key is the CSV header and JSON member name; header
 * is the text-table heading; precision is the digits after the point in the text table
 * (-1: %g). */
int report_column(report *r, const char *key, const char *header, int precision);
/* The same, the text table showing value x table_scale (e.g. a _s column in ms: 1e3). */
int report_column_scaled(report *r, const char *key, const char *header, int precision,
                         double table_scale);

/* The text table's short header for column, used when the table does not fit the line; a
 * legend after the table names the full header. */
void report_column_brief(report *r, int column, const char *brief);

/* The text table's reading order when it does not fit the line: columns[0..n) first (the
 * ones a reader needs first), the rest in the CSV's order; the first n_keys of them name a
 * row and repeat in each of the stacked tables the columns are split into. CSV and JSON keep
 * their order. */
void report_table_lead(report *r, int n_keys, const int *columns, int n);

/* Issue 46: every text table fits REPORT_TABLE_COLUMNS by default (short headers, stacked
 * tables, long texts listed after them, notes wrapped: sim/report/report_fit.h); --wide (every
 * command, main.c) prints the plain layout: one line per row, every column in CSV order. */
#define REPORT_TABLE_COLUMNS 100
void report_table_set_wide(bool wide);
/* The width text tables fit, 0 under --wide (commands that cut their own text use it). */
int report_table_limit(void);

/* Starts a new row; cells not set are empty (null in JSON). */
void report_row(report *r);
void report_num(report *r, int column, double value);
void report_int(report *r, int column, long long value);
void report_str(report *r, int column, const char *value);
/* value in CSV and JSON, table_value in the text table: a short form where the full one
 * (a 120-character compressor spec) would make every row of the table too wide. */
void report_str_table(report *r, int column, const char *value, const char *table_value);

/* Lines printed above the table (text format) and as "notes" in JSON: for people. */
void report_note(report *r, const char *key, const char *value);

/* Typed facts for programs: JSON "meta" members (not printed in the text table). A dotted
 * key "platform.name" makes a nested object. NULL string or non-finite number: null. */
void report_meta_str(report *r, const char *key, const char *value);
void report_meta_num(report *r, const char *key, double value);
void report_meta_int(report *r, const char *key, long long value);
void report_meta_bool(report *r, const char *key, int value);

int report_write(const report *r, report_format format, FILE *out);

#endif
