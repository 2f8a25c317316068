/*
 * sim/cli/report.h: one result table, printed as an aligned text table, CSV or JSON.
 *
 * Every subcommand builds a report and writes it in the format the user chose, so the
 * three formats always carry the same rows. Numbers keep full precision in CSV and JSON
 * (%.17g); the text table rounds to each column's precision.
 */
#ifndef GCSIM_CLI_REPORT_H
#define GCSIM_CLI_REPORT_H

#include <stdio.h>

typedef enum { REPORT_TABLE, REPORT_JSON, REPORT_CSV } report_format;

/* Parses "table", "json" or "csv"; returns -1 otherwise. */
int report_format_parse(const char *text, report_format *out);

typedef struct report report;

report *report_new(void);
void report_free(report *r);

/* Adds a column; returns its index. key is the CSV header and JSON member name; header
 * is the text-table heading; precision is the digits after the point in the text table
 * (-1: %g). */
int report_column(report *r, const char *key, const char *header, int precision);

/* Starts a new row; cells not set are empty (null in JSON). */
void report_row(report *r);
void report_num(report *r, int column, double value);
void report_int(report *r, int column, long long value);
void report_str(report *r, int column, const char *value);

/* Lines printed above the table (text format only) and as "meta" in JSON. */
void report_note(report *r, const char *key, const char *value);

int report_write(const report *r, report_format format, FILE *out);

#endif
