/*
 * sim/calibrate/calibrate.h: a platform file fitted to nccl-tests all-reduce logs.
 *
 * One or two logs of all_reduce_perf (nccl_log.h) are fitted to gcsim's ring all-reduce
 * cost (ring_fit.h), and the fitted figures replace the base platform's:
 *  - a single-node log (j = 1): alpha -> intra_node.latency, B -> intra_node.gpu_to_gpu
 *    (for kind "nvlink": link_bandwidth = B / links_per_pair);
 *  - a multi-node log (j > 1): the ring runs nic.per_node channels in parallel and each step
 *    costs the slower of its intra-node and inter-node hop, so B = min(gpu_to_gpu,
 *    per_node x nic.bandwidth). When B is below gpu_to_gpu (the single-node log's fit when
 *    there is one, else the base's), nic.bandwidth = B / per_node; otherwise the network is
 *    not the bottleneck, only a lower bound is known and the base value is kept.
 *    nic.latency = alpha - 2 fabric.switch_latency, as gcsim's node-to-node latency is
 *    nic.latency plus two switch traversals;
 *  - two logs: one of each, both fitted.
 * The written platform gives the fitted alpha back (to the 9 digits written):
 *  - a clamped alpha of 0 is written as CALIB_MIN_LATENCY_S, as platform quantities are
 *    positive;
 *  - when alpha is below two switch latencies (nic.latency would be <= 0), nic.latency and
 *    fabric.switch_latency are both scaled by alpha / (nic.latency + 2 switch_latency) of the
 *    base, so that they keep their ratio and add up to alpha; a warning and $.sources say so.
 * Line rates: a fitted bandwidth above the base platform's value of that field
 * (nic.bandwidth; intra_node.gpu_to_gpu, or link_bandwidth for "nvlink") is refused unless
 * `force`, as that value is the line rate a platform engineer already knows. When the
 * base's $.sources entry for the field starts with "fitted" or "measured", the value is no
 * line rate (it is a busbw already) and only a warning is given.
 * Every field looked at gets a $.sources entry naming the log, the fit, its residuals and
 * the held-out check: the fit repeated on the smaller half of the rows used (by size),
 * predicting the larger half, which tells whether the line extrapolates to large messages.
 */
#ifndef GCSIM_CALIBRATE_H
#define GCSIM_CALIBRATE_H

#include <stdbool.h>

#include "gcsim_error.h"
#include "nccl_log.h"
#include "ring_fit.h"

#define CALIB_MAX_LOGS 2
#define CALIB_MAX_WARNINGS 16
#define CALIB_MAX_NOTES 8
#define CALIB_DEFAULT_MIN_SIZE_BYTES (1024.0 * 1024.0)
#define CALIB_MIN_LATENCY_S 1e-9      /* a clamped alpha of 0 is written as 1 ns */
#define CALIB_RMS_WARN 0.10           /* warn above 10% RMS relative time error */
#define CALIB_HELD_OUT_WARN 0.10      /* warn above 10% median held-out error */

typedef struct {
    const char *platform_path;
    const char *output_path;          /* names the new file in messages */
    const char *log_paths[CALIB_MAX_LOGS];
    int gpus[CALIB_MAX_LOGS];         /* 0: count the log's Rank lines */
    int nodes[CALIB_MAX_LOGS];        /* 0: count the distinct hosts on them */
    int table[CALIB_MAX_LOGS];        /* 1-based table of the log; 0: the first (a warning
                                         when the log holds more than one) */
    int n_logs;
    bool force;                       /* write a bandwidth above the line rate (a warning) */
    bool out_of_place;                /* default: in-place times */
    double min_size_bytes;            /* rows below take no part in the fit */
} calib_options;

typedef struct {
    int line;
    double size_bytes;
    bool used;                        /* size >= min_size: in the fit */
    double time_s, busbw_Bps;         /* measured */
    double fit_time_s, fit_busbw_Bps;
    double rel_error;                 /* (fit - measured) / measured time */
} calib_row;

/* The held-out check: the fit repeated on the smaller half of the rows used, its error on
 * the larger half. */
typedef struct {
    bool done;                        /* false: too few rows (why_not says) */
    char why_not[256];
    int fit_rows, test_rows;
    double fit_min_size, fit_max_size, test_min_size, test_max_size;
    double alpha_s, B_Bps;            /* of the half fit */
    double median_abs_rel_error, max_abs_rel_error; /* over the larger half */
} calib_held_out;

typedef struct {
    char path[512];
    int table, n_tables;              /* the table fitted (1-based) of how many */
    int table_first_line, table_last_line;
    char op[64];
    char device[128];
    int gpus, nodes;
    bool counts_from_log;
    bool multi_node;
    ring_fit fit;
    calib_held_out held_out;
    calib_row *rows;
    int n_rows;
} calib_log_fit;

typedef struct {
    char path[64];                    /* dotted, e.g. "nic.bandwidth" */
    char old_value[64];
    char new_value[64];               /* empty when the base value was kept */
    char source[3072];
} calib_change;

typedef struct {
    calib_log_fit logs[CALIB_MAX_LOGS];
    int n_logs;
    calib_change changes[8];
    int n_changes;
    char warnings[CALIB_MAX_WARNINGS][512];
    int n_warnings;
    char notes[CALIB_MAX_NOTES][512];  /* facts that are no problem: lines skipped, ... */
    int n_notes;
    char *platform_json;              /* the new platform file's text */
} calib_result;

/* Runs the whole calibration. Bad input (a log, the platform, the options, a fit above a
 * line rate without force) fails with a message naming the file and line or JSON path;
 * a failure of gcsim itself is marked err->internal. Nothing is written by this function. */
int calib_run(const calib_options *opt, calib_result *out, gcsim_error *err);
void calib_result_free(calib_result *r);

/* The held-out check in words, for the summary and $.sources. */
void calib_held_out_text(const calib_held_out *h, char *buf, size_t len);

#endif
