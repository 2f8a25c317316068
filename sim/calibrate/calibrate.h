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
 * A fitted latency that is not positive (the fit clamped alpha to 0, or alpha is below two
 * switch latencies) cannot be written, as platform quantities are positive: the base value
 * is kept, with a warning. Every field looked at gets a $.sources entry naming the log, the
 * fit and its residuals.
 */
#ifndef GCSIM_CALIBRATE_H
#define GCSIM_CALIBRATE_H

#include <stdbool.h>

#include "gcsim_error.h"
#include "nccl_log.h"
#include "ring_fit.h"

#define CALIB_MAX_LOGS 2
#define CALIB_MAX_WARNINGS 16
#define CALIB_DEFAULT_MIN_SIZE_BYTES (1024.0 * 1024.0)

typedef struct {
    const char *platform_path;
    const char *output_path;          /* names the new file in messages */
    const char *log_paths[CALIB_MAX_LOGS];
    int gpus[CALIB_MAX_LOGS];         /* 0: count the log's Rank lines */
    int nodes[CALIB_MAX_LOGS];        /* 0: count the distinct hosts on them */
    int n_logs;
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

typedef struct {
    char path[512];
    char op[64];
    char device[128];
    int gpus, nodes;
    bool counts_from_log;
    bool multi_node;
    ring_fit fit;
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
    calib_change changes[6];
    int n_changes;
    char warnings[CALIB_MAX_WARNINGS][512];
    int n_warnings;
    char *platform_json;              /* the new platform file's text */
} calib_result;

/* Runs the whole calibration. Bad input (a log, the platform, the options) fails with a
 * message naming the file and line or JSON path; nothing is written by this function. */
int calib_run(const calib_options *opt, calib_result *out, gcsim_error *err);
void calib_result_free(calib_result *r);

#endif
