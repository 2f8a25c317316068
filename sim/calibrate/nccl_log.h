/*
 * sim/calibrate/nccl_log.h: the text output of nccl-tests' all_reduce_perf, read strictly.
 *
 * A log is lines; '#' starts a header or comment line. Of those, three are read:
 *   "# Collective test starting: all_reduce_perf"  the operation (absent in older versions)
 *   "#  Rank  0 Group  0 Pid 1234 on host device  0 [0x07] NVIDIA A100-SXM4-80GB"
 *        one per rank ("Group g" absent in older versions): ranks and distinct hosts
 *   "# Avg bus bandwidth    : 74.56"
 * Every other line is a data row: size (B), count (elements), type, redop, [root], then
 * out-of-place time (us), algbw (GB/s), busbw (GB/s), #wrong, then the same four in place.
 * Current nccl-tests print the root column (13 columns), older ones do not (12); #wrong
 * may be "N/A" (validation off), and older versions print the largest error as a real
 * ("0e+00") in its place. Lines of NCCL's own debug output ("NCCL INFO",
 * "NCCL WARN") are skipped and counted. GB/s are 1e9 bytes per second.
 *
 * Anything else is an error naming the file, the line and the reason: a truncated row or
 * a column count unlike the first row's, a non-numeric, NaN, infinite or negative value, a
 * zero time, sizes that do not increase, a row whose algbw is not size / time (2% plus the
 * printed rounding), a test that reported wrong results, no rows, another operation.
 * Limits: NCCL_LOG_MAX_BYTES per file, NCCL_LOG_MAX_ROWS rows, NCCL_LOG_MAX_RANKS ranks.
 */
#ifndef GCSIM_CALIBRATE_NCCL_LOG_H
#define GCSIM_CALIBRATE_NCCL_LOG_H

#include <stdbool.h>
#include <stddef.h>

#include "gcsim_error.h"

#define NCCL_LOG_MAX_BYTES (16L << 20)
#define NCCL_LOG_MAX_ROWS 10000
#define NCCL_LOG_MAX_RANKS 65536
#define NCCL_LOG_MAX_LINE 4096

/* One half of a row (out-of-place or in-place). The decimals are how many digits the log
 * printed after the point: the rounding a consistency check must allow for. */
typedef struct {
    double time_s;
    double algbw_Bps;
    double busbw_Bps;
    long long wrong;       /* -1 for "N/A" or an older version's error value */
    int time_decimals, algbw_decimals, busbw_decimals;
} nccl_timing;

typedef struct {
    int line;              /* 1-based line number in the log */
    double size_bytes;
    long long count;
    char type[24];
    char redop[24];
    bool has_root;
    long long root;
    nccl_timing out_of_place;
    nccl_timing in_place;
} nccl_row;

typedef struct {
    char origin[512];      /* the path, for messages */
    char op[64];           /* "all_reduce_perf"; empty when the log does not say */
    int columns;           /* 12 (no root column) or 13 */
    int ranks;             /* Rank lines; 0 when there are none */
    int hosts;             /* distinct host names among them */
    char device[128];      /* device name on rank 0's line, if any */
    bool has_avg_busbw;
    double avg_busbw_Bps;
    int skipped_debug_lines;
    int lines;             /* lines in the file */
    nccl_row *rows;
    int n_rows;
} nccl_log;

/* Parses a log held in memory (len bytes, NUL bytes rejected); origin names it in
 * messages. On success *out owns its rows (nccl_log_free); on failure nothing is held. */
int nccl_log_parse(const char *text, size_t len, const char *origin, nccl_log *out,
                   gcsim_error *err);
/* Reads and parses a file of at most NCCL_LOG_MAX_BYTES. */
int nccl_log_load(const char *path, nccl_log *out, gcsim_error *err);
void nccl_log_free(nccl_log *log);

/* nccl-tests' all-reduce bus bandwidth factor 2(n-1)/n. */
double nccl_allreduce_bus_factor(int gpus);

/* Every row, both halves, must have busbw = algbw * 2(n-1)/n within 2% plus the printed
 * rounding; a mismatch means the GPU count is not the one the log was run with, or the
 * log is corrupt. The message names the file and the line. */
int nccl_log_check_busbw(const nccl_log *log, int gpus, gcsim_error *err);

#endif
