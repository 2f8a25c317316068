/*
 * sim/report/trace_table.h: `gcsim trace info`'s table: what gradient trace files hold
 * (traces/), tensor by tensor: kind, dtype, shape, elements, bytes and statistics (mean,
 * std, max |g|, rms, kurtosis, near-zero and zero fractions); each file's metadata as notes.
 */
#ifndef GCSIM_REPORT_TRACE_TABLE_H
#define GCSIM_REPORT_TRACE_TABLE_H

#include "report.h"
#include "traces.h"

enum { TRACE_TABLE_COLUMNS = 14 };

/* A report with the table's columns (their ids in col). */
report *trace_table_new(int *col);

/* Adds one file's tensors to r; returns 0 or -1 with "gcsim trace info: ..." on stderr. */
int trace_table_add(report *r, const int *col, const char *path);

#endif
