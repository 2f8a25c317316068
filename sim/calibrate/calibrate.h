/*
 * sim/calibrate/calibrate.h: a platform file fitted to nccl-tests logs (all_reduce_perf,
 * all_gather_perf, reduce_scatter_perf).
 *
 * The fit is of the model the platform will be run with: every row is costed as
 * `gcsim collective` costs it (platform_cost.h: the platform's algorithm or the tuner's
 * pick of algorithm and protocol per size, analytic engine), and platform fields are
 * searched (platform_fit.h) so that the platform's own busbw error is small in each size
 * regime: the latency knob over the latency-bound rows, a bandwidth knob over the
 * bandwidth-bound ones.
 *  - a single-node log: intra_node.latency, and the intra-node bandwidth that fits best
 *    (intra_node.gpu_to_gpu, link_bandwidth for "nvlink", or nvls_bandwidth where the base
 *    has NVLS);
 *  - a multi-node log: nic.latency, and nic.bandwidth, or, where the log is bound by the
 *    node rather than the network, the intra-node bandwidth that fits best (not when a
 *    single-node log is given too: that one sets the node);
 *  - two logs: one single-node, fitted first, and one multi-node.
 * The written file is then loaded back and every row of every log is costed on it: the
 * per-row and per-regime errors printed are the written platform's own.
 * Held-out check: the whole fit repeated on every other size used (the 1st, 3rd, ... by
 * size), its error on the sizes in between.
 * Line rates: a fitted bandwidth above the base platform's value of that field is refused
 * unless `force` (then a warning), as that value is the line rate a platform engineer
 * knows; when the base's $.sources entry for the field starts with "fitted" or "measured"
 * the value is no line rate and only a warning is given. A fitted bandwidth below half the
 * base's value is written with a warning (a slow link, or a model that misses the log).
 * Every field written gets a $.sources entry naming the log, the fit and its error.
 */
#ifndef GCSIM_CALIBRATE_H
#define GCSIM_CALIBRATE_H

#include <stdbool.h>

#include "busbw_bands.h"
#include "gcsim_error.h"
#include "nccl_log.h"
#include "platform_fit.h"

#define CALIB_MAX_LOGS 2
#define CALIB_MAX_WARNINGS 16
#define CALIB_MAX_NOTES 8
#define CALIB_DEFAULT_MIN_SIZE_BYTES 0.0  /* every row: the tuner models small sizes */
#define CALIB_REGIME_WARN 0.05        /* warn above 5% median |error| in a regime */
#define CALIB_HELD_OUT_WARN 0.10      /* warn above 10% median held-out error */
#define CALIB_LOW_RATE 0.5            /* warn below half the base's line rate */
#define CALIB_RATE_SLACK 0.01         /* a fit up to 1% above a rate: the rate (resolution) */

typedef struct {
    const char *platform_path;
    const char *output_path;          /* names the new file in messages */
    const char *log_paths[CALIB_MAX_LOGS];
    int gpus[CALIB_MAX_LOGS];         /* 0: count the log's Rank lines */
    int nodes[CALIB_MAX_LOGS];        /* 0: count the distinct hosts on them */
    int table[CALIB_MAX_LOGS];        /* 1-based table of the log; 0: the first (a warning
                                         when the log holds more than one) */
    const char *collective[CALIB_MAX_LOGS]; /* NCCL_ALGO of the log's run, as `gcsim
                                               collective --collective`; NULL: the tuner's */
    const char *protocol[CALIB_MAX_LOGS];   /* NCCL_PROTO of its run; NULL: the tuner's */
    int n_logs;
    bool force;                       /* write a bandwidth above the line rate (a warning) */
    bool out_of_place;                /* default: in-place times */
    double min_size_bytes;            /* rows below take no part in the fit */
    /* NCCL_MIN_CTAS / NCCL_MAX_CTAS (and _NCHANNELS) of the logs' runs, as `gcsim
     * collective --nccl-min-channels / --nccl-max-channels`: the platform is fitted and
     * scored with them (a job setting, not written to the file); 0: not set */
    int nccl_min_channels, nccl_max_channels;
} calib_options;

typedef struct {
    int line;
    double size_bytes;
    bool used;                        /* size >= min_size: in the fit */
    bool held_out;                    /* left out of the held-out check's fit */
    calib_regime regime;              /* on the written platform */
    double time_s, busbw_Bps;         /* measured */
    double pred_time_s, pred_busbw_Bps; /* the written platform's */
    double rel_error;                 /* pred / measured busbw - 1 */
    char algorithm[48];               /* "double-tree/ll128": what the written platform runs */
} calib_row;

/* The held-out check: the fit repeated on every other size used, its error on the others. */
typedef struct {
    bool done;                        /* false: too few rows (why_not says) */
    char why_not[256];
    int fit_rows, test_rows;
    double median_abs_rel_error, max_abs_rel_error; /* over the rows held out */
} calib_held_out;

typedef struct {
    char path[512];
    int table, n_tables;              /* the table fitted (1-based) of how many */
    int table_first_line, table_last_line;
    char op[64];
    gcsim_op gop;
    char device[128];
    int gpus, nodes;
    bool counts_from_log;
    bool multi_node;
    gcsim_collective collective;      /* forced (--collective), or COLLECTIVE_COUNT */
    gcsim_protocol protocol;          /* forced (--protocol), or GCSIM_PROTO_COUNT */
    calib_fit_result fit;             /* on the platform before rounding */
    char bw_field[48], lat_field[48]; /* the knobs' JSON paths ("nic.bandwidth", ...) */
    char lat2_field[48];              /* the second latency polished ("" for none) */
    double bw_value_Bps, lat_value_s; /* their values in the written platform */
    int n_latency, n_bandwidth;       /* rows used per regime, on the written platform */
    double median_latency, median_bandwidth; /* the written platform's median |error| */
    double max_abs_error;
    calib_held_out held_out;
    /* Steps no field explains (docs/calibrate.md): when the fitted fields leave a regime
     * above 5%, per-size-band busbw factors written as $.busbw_correction ("fitted to" this
     * log); the medians above are then the corrected platform's, these the fields' alone. */
    bool corrected;
    calib_bands bands;
    double model_median_latency, model_median_bandwidth;
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
