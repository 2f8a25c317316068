/*
 * sim/calibrate/nccl_log.h: the text output of nccl-tests' all_reduce_perf, as people paste it.
 *
 * A log is lines. Before anything else, a line loses an mpirun/Open MPI tag
 * ("[1,0]<stdout>:", "[1,0]<stderr>:") and a Slurm label ("0: ", srun --label) at its start.
 * Then '#' (after blanks) starts a header or comment line. Of those, these are read:
 *   "# Collective test starting: all_reduce_perf"  the operation (absent in older versions);
 *        starts a new run
 *   "# nThread 1 nGpus 1 minBytes ..."  starts a new run (the first line of older versions)
 *   "#  Rank  0 Group  0 Pid 1234 on host device  0 [0x07] NVIDIA A100-SXM4-80GB"
 *        one per rank ("Group g" absent in older versions): ranks and distinct hosts
 *   "#       size         count      type   redop    root     time ..."  a table's column
 *        header: 13 columns (with root) or 12 (older, without)
 *   "# Avg bus bandwidth    : 74.56"  ends a table
 * A data row is a line whose first two words are numbers (size, count), or whose third word
 * is an nccl-tests type name: size (B), count (elements), type, redop, [root], then
 * out-of-place time (us), algbw (GB/s), busbw (GB/s), #wrong, then the same four in place.
 * #wrong may be "N/A" (validation off), and older versions print the largest error as a
 * real ("0e+00") in its place. Every other non-blank line (environment lines such as
 * "NCCL_CROSS_NIC=0", NCCL's "NCCL INFO"/"NCCL WARN" debug output, shell prompts, the job's
 * other output) is not part of a table: it is skipped and counted; blank lines are ignored.
 *
 * Tables: a log may hold several (runs concatenated, or runs at different GPU counts). A
 * table begins at its column header (or at its first row) and ends at "# Avg bus bandwidth",
 * at the next run's first line or Rank line, at the next column header, or at the end of the
 * file; its Rank lines and operation are those printed since the previous table ended. Every
 * table is read strictly; one is kept (nccl_log_parse_table's `table`, 1-based; 0: the first).
 *
 * A truncated last row (fewer columns than the table's) is dropped and its line recorded;
 * so is the file's last line when it does not end with a newline and is not a valid row (a
 * paste cut mid-number). Anything else is an error naming the file, the line and the
 * reason: a short row that other rows follow, a column count unlike the table's, a
 * non-numeric, NaN, infinite or negative value, a zero time, an absurd value (size above
 * NCCL_LOG_MAX_SIZE_BYTES, time above NCCL_LOG_MAX_TIME_US, a bandwidth above
 * NCCL_LOG_MAX_GBPS), sizes that do not increase within a table, a row whose algbw is not
 * size / time (2% plus the printed rounding), a test that reported wrong results, a control
 * character or invalid UTF-8 (binary data), no rows, another operation.
 * Limits: NCCL_LOG_MAX_BYTES per file, NCCL_LOG_MAX_ROWS rows (all tables),
 * NCCL_LOG_MAX_RANKS ranks, NCCL_LOG_MAX_TABLES tables, NCCL_LOG_MAX_LINE bytes per header
 * or row (longer lines are skipped unless they start like a row).
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
#define NCCL_LOG_MAX_TABLES 64
#define NCCL_LOG_MAX_SIZE_BYTES (1LL << 40) /* 1 TiB: more than any GPU holds */
#define NCCL_LOG_MAX_TIME_US 1e10          /* about 3 hours for one operation */
#define NCCL_LOG_MAX_GBPS 1e5              /* 100 TB/s algbw or busbw */

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
    int ranks_in_size;     /* size / (count x element size): 1 for an all-reduce, the
                              ranks for all-gather and reduce-scatter (count per rank) */
    nccl_timing out_of_place;
    nccl_timing in_place;
} nccl_row;

/* Where one table of a log is. */
typedef struct {
    int header_line;       /* its column header; 0: none (rows without one) */
    int first_line, last_line; /* its first and last data rows */
    int rows;
    int ranks, hosts;      /* its Rank lines and their distinct hosts (0: none) */
    int dropped_line;      /* a truncated last row dropped; 0: none */
    char dropped_why[200]; /* why, for the warning */
} nccl_table_info;

typedef struct {
    char origin[512];      /* the path, for messages */
    /* The table kept (rows and the fields below up to n_rows are its own). */
    int table;             /* 1-based */
    char op[64];           /* "all_reduce_perf"; empty when the log does not say */
    int columns;           /* 12 (no root column) or 13 */
    int ranks;             /* Rank lines; 0 when there are none */
    int max_rank;          /* the highest rank listed (-1: none); above ranks - 1 when the
                              listing is partial (vendor logs print only some Rank lines):
                              the caller then needs the GPU count from elsewhere */
    int first_rank_line;
    int hosts;             /* distinct host names among them */
    char device[128];      /* device name on rank 0's line, if any */
    bool has_avg_busbw;
    double avg_busbw_Bps;
    nccl_row *rows;
    int n_rows;
    /* The whole file. */
    int n_tables;
    nccl_table_info tables[NCCL_LOG_MAX_TABLES];
    int skipped_lines;       /* non-blank lines not part of a table, debug lines included */
    int skipped_debug_lines; /* of those, NCCL INFO / NCCL WARN lines */
    int first_skipped_line;  /* 0: none */
    char first_skipped[64];  /* its start, for the note */
    int prefixed_lines;      /* lines that lost an mpirun or Slurm prefix */
    int zero_size_rows;      /* rows of 0 B and 0 elements, left out (nothing reduced) */
    int lines;               /* lines in the file */
} nccl_log;

/* Parses a log held in memory (len bytes, NUL bytes rejected); origin names it in
 * messages. table: which table to keep, 1-based (0: the first); a table beyond the log's
 * count is an error listing the tables. On success *out owns its rows (nccl_log_free); on
 * failure nothing is held. */
int nccl_log_parse_table(const char *text, size_t len, const char *origin, int table,
                         nccl_log *out, gcsim_error *err);
/* nccl_log_parse_table keeping the first table. */
int nccl_log_parse(const char *text, size_t len, const char *origin, nccl_log *out,
                   gcsim_error *err);
/* Reads and parses a file of at most NCCL_LOG_MAX_BYTES. */
int nccl_log_load_table(const char *path, int table, nccl_log *out, gcsim_error *err);
int nccl_log_load(const char *path, nccl_log *out, gcsim_error *err);
void nccl_log_free(nccl_log *log);

/* nccl-tests' all-reduce bus bandwidth factor 2(n-1)/n. */
double nccl_allreduce_bus_factor(int gpus);

typedef enum { NCCL_TEST_ALL_REDUCE, NCCL_TEST_ALL_GATHER, NCCL_TEST_REDUCE_SCATTER } nccl_test;
/* busbw / algbw: 2(n-1)/n for all-reduce, (n-1)/n for all-gather and reduce-scatter. */
double nccl_test_bus_factor(nccl_test test, int gpus);
const char *nccl_test_name(nccl_test test); /* "all_reduce_perf", ... */
/* The test of the kept table: named by its "Collective test starting" line, else told by
 * its rows (redop "none": all-gather; size = count x element size: all-reduce; size a
 * multiple of it: reduce-scatter). *named says whether the log named it. */
nccl_test nccl_log_test(const nccl_log *log, bool *named);

/* Every row, both halves, must have busbw = algbw x the test's factor within 2% plus the
 * printed rounding, and (all-gather, reduce-scatter) size = count x element size x gpus; a
 * mismatch means the GPU count is not the one the log was run with, or the log is
 * corrupt. The message names the file and the line. */
int nccl_log_check_busbw(const nccl_log *log, int gpus, gcsim_error *err);
int nccl_log_check_test(const nccl_log *log, nccl_test test, int gpus, gcsim_error *err);

#endif
