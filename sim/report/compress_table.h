/*
 * sim/report/compress_table.h: `gcsim compress`'s table: compressors run over a series of
 * gradient trace files (traces/, compressors/), in the order of their step metadata so that
 * stateful compressors see the real sequence; per compressor, step and tensor (or the
 * step's total, and the series' total) the exact payload bytes, ratio, normalized error,
 * cosine, density and, with seeds, the bias and its noise floor.
 */
#ifndef GCSIM_REPORT_COMPRESS_TABLE_H
#define GCSIM_REPORT_COMPRESS_TABLE_H

#include <stddef.h>

#include "report.h"
#include "traces.h"

typedef struct {
    gc_trace_file file;
    long long step; /* -1: no step metadata */
} compress_series_file;

/* Opens the series, orders it by step and checks that every file holds the same tensors
 * (names, element counts) as the first. 0, or -1 with err filled. */
int compress_series_open(const char *const *files, int n_files, compress_series_file *s,
                         char *err, size_t err_len);

/* What the run asked: files in the series, compressors, bias seeds (0: no bias columns),
 * the seed, one row per tensor (per_layer), no progress lines on stderr (quiet). */
typedef struct {
    int n_files, n_specs, seeds;
    long long seed;
    int per_layer, quiet;
} compress_run;

enum { C_COMP, C_STEP, C_TENSOR, C_N, C_BYTES, C_BITS, C_RATIO, C_ERR, C_COS, C_DENS, C_BIAS,
       C_NOISE, C_BOUND, COMPRESS_COLUMNS };

/* A report with the table's columns (their ids in col) and the run's notes. */
report *compress_table_new(const compress_run *o, int *col);

/* Seconds on a monotonic clock (the progress lines' elapsed time). */
double compress_now_s(void);

/* One compressor (the spec_index-th) over the whole series: its rows added to r. Returns 0
 * or -1 with err filled (the file and tensor where it failed). */
int compress_table_run(const compress_run *o, compress_series_file *s, const char *spec,
                       int spec_index, report *r, const int *col, double t0, char *err,
                       size_t err_len);

#endif
