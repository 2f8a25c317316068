/* Fitting a platform to nccl-tests logs; see calibrate.h for the rules. */
#include "calibrate.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_strict.h"
#include "platform.h"
#include "platform_patch.h"

#define PLATFORM_MAX_BYTES (1L << 20)

static void warn(calib_result *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void warn(calib_result *r, const char *fmt, ...)
{
    if (r->n_warnings >= CALIB_MAX_WARNINGS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->warnings[r->n_warnings++], sizeof r->warnings[0], fmt, ap);
    va_end(ap);
}

static void rate_text(double Bps, char *buf, size_t len)
{
    snprintf(buf, len, "%.9gGBps", Bps / 1e9);
}

static void time_text(double s, char *buf, size_t len)
{
    snprintf(buf, len, "%.9gus", s * 1e6);
}

static void size_text(double bytes, char *buf, size_t len)
{
    double mib = bytes / (1024.0 * 1024.0);
    if (bytes > 0 && mib == (double)(long long)mib)
        snprintf(buf, len, "%.0f MiB", mib);
    else
        snprintf(buf, len, "%.0f bytes", bytes);
}

/* GPU and node counts of one log: the options first, else its Rank lines. */
static int log_counts(const calib_options *opt, int k, const nccl_log *log, calib_log_fit *lf,
                      calib_result *r, gcsim_error *err)
{
    const char *path = opt->log_paths[k];
    int gpus = opt->gpus[k], nodes = opt->nodes[k];
    if ((gpus == 0 || nodes == 0) && log->ranks == 0)
        return gcsim_fail(err, "%s: line %d (end of file): no Rank lines to count GPUs and nodes "
                               "from; give --gpus N --nodes J after this --log",
                          path, log->lines);
    if (gpus && log->ranks && gpus != log->ranks)
        warn(r, "%s: --gpus %d overrides the log's %d Rank lines", path, gpus, log->ranks);
    if (nodes && log->ranks && nodes != log->hosts)
        warn(r, "%s: --nodes %d overrides the log's %d distinct hosts", path, nodes, log->hosts);
    lf->counts_from_log = gpus == 0 && nodes == 0;
    lf->gpus = gpus ? gpus : log->ranks;
    lf->nodes = nodes ? nodes : log->hosts;
    if (lf->gpus < 2)
        return gcsim_fail(err, "%s: %d GPU: an all-reduce needs at least 2", path, lf->gpus);
    if (lf->nodes > lf->gpus || lf->gpus % lf->nodes != 0)
        return gcsim_fail(err, "%s: %d GPUs on %d nodes: gcsim calibrates equal nodes (N a "
                               "multiple of J)",
                          path, lf->gpus, lf->nodes);
    lf->multi_node = lf->nodes > 1;
    return 0;
}

/* Loads, checks and fits one log; fills lf (rows owned by it). */
static int fit_log(const calib_options *opt, int k, const gcsim_platform *base,
                   calib_log_fit *lf, calib_result *r, gcsim_error *err)
{
    const char *path = opt->log_paths[k];
    nccl_log log;
    if (nccl_log_load(path, &log, err))
        return -1;
    int rc = -1;
    double *size = NULL, *time = NULL;
    snprintf(lf->path, sizeof lf->path, "%s", path);
    snprintf(lf->op, sizeof lf->op, "%s", log.op[0] ? log.op : "all_reduce_perf (assumed)");
    snprintf(lf->device, sizeof lf->device, "%s", log.device);
    if (log_counts(opt, k, &log, lf, r, err) || nccl_log_check_busbw(&log, lf->gpus, err))
        goto out;
    if (!log.op[0])
        warn(r, "%s: the log does not name its test (older nccl-tests); taken as "
                "all_reduce_perf, as its busbw/algbw ratios are 2(n-1)/n",
             path);
    int per_node = lf->gpus / lf->nodes;
    if (per_node != base->gpus_per_node)
        warn(r, "%s: %d GPUs per node where %s has %d: the fit describes the nodes measured",
             path, per_node, base->source_path, base->gpus_per_node);
    if (lf->nodes > base->nodes)
        warn(r, "%s: %d nodes, more than the %d of %s", path, lf->nodes, base->nodes,
             base->source_path);
    size = malloc((size_t)log.n_rows * sizeof *size);
    time = malloc((size_t)log.n_rows * sizeof *time);
    lf->rows = calloc((size_t)log.n_rows, sizeof *lf->rows);
    if (!size || !time || !lf->rows) {
        gcsim_fail(err, "%s: out of memory", path);
        goto out;
    }
    for (int i = 0; i < log.n_rows; i++) {
        const nccl_timing *t = opt->out_of_place ? &log.rows[i].out_of_place
                                                 : &log.rows[i].in_place;
        size[i] = log.rows[i].size_bytes;
        time[i] = t->time_s;
        lf->rows[i].line = log.rows[i].line;
        lf->rows[i].size_bytes = size[i];
        lf->rows[i].time_s = t->time_s;
        lf->rows[i].busbw_Bps = t->busbw_Bps;
    }
    lf->n_rows = log.n_rows;
    /* Rows of one size cannot separate alpha from B: alpha is then the base's, intra-node
     * or node to node (nic.latency plus two switch traversals). */
    double base_alpha_s = lf->multi_node
                              ? base->nic.latency_s + 2.0 * base->fabric.switch_latency_s
                              : base->intra.latency_s;
    if (ring_fit_allreduce(path, lf->gpus, size, time, log.n_rows, opt->min_size_bytes,
                           base_alpha_s, &lf->fit, err))
        goto out;
    double factor = nccl_allreduce_bus_factor(lf->gpus);
    for (int i = 0; i < lf->n_rows; i++) {
        calib_row *row = &lf->rows[i];
        row->used = row->size_bytes >= opt->min_size_bytes;
        row->fit_time_s = ring_allreduce_time_s(lf->gpus, row->size_bytes, lf->fit.alpha_s,
                                                lf->fit.B_Bps);
        row->fit_busbw_Bps = row->size_bytes / row->fit_time_s * factor;
        row->rel_error = (row->fit_time_s - row->time_s) / row->time_s;
    }
    rc = 0;
out:
    free(size);
    free(time);
    nccl_log_free(&log);
    return rc;
}

/* "fitted by gcsim calibrate to LOG (...): alpha = ..., B = ...; residuals ..." */
static void describe_fit(const calib_options *opt, const calib_log_fit *lf, char *buf,
                         size_t len)
{
    char min_size[64];
    size_text(opt->min_size_bytes, min_size, sizeof min_size);
    const ring_fit *f = &lf->fit;
    char alpha[160];
    if (!f->alpha_fitted)
        snprintf(alpha, sizeof alpha, "alpha fixed at the base platform's %.6g us (the rows "
                 "used have one size)", f->alpha_s * 1e6);
    else if (f->alpha_clamped)
        snprintf(alpha, sizeof alpha, "alpha = 0 (least squares gave %.6g us, clamped)",
                 f->alpha_unclamped_s * 1e6);
    else
        snprintf(alpha, sizeof alpha, "alpha = %.6g us", f->alpha_s * 1e6);
    snprintf(buf, len,
             "fitted by gcsim calibrate to %s (nccl-tests %s, %d GPUs on %d node%s, %s times, "
             "%d rows with size >= %s; weighted least squares on relative time error of "
             "t = 2(n-1) alpha + 2(n-1)/n S / B): %s, B = %.6g GB/s; residuals of time over "
             "those rows: max %.3g%%, RMS %.3g%%%s",
             lf->path, lf->op, lf->gpus, lf->nodes, lf->nodes == 1 ? "" : "s",
             opt->out_of_place ? "out-of-place" : "in-place", f->rows_used, min_size, alpha,
             f->B_Bps / 1e9, 100 * f->max_abs_rel_error, 100 * f->rms_rel_error,
             f->rows_used == 2 && f->alpha_fitted && !f->alpha_clamped
                 ? " (two rows, two parameters: zero by construction, no check of the model)"
                 : "");
}

static calib_change *add_change(calib_result *r, const char *path, const char *old_value,
                                const char *new_value)
{
    calib_change *c = &r->changes[r->n_changes++];
    snprintf(c->path, sizeof c->path, "%s", path);
    snprintf(c->old_value, sizeof c->old_value, "%s", old_value);
    snprintf(c->new_value, sizeof c->new_value, "%s", new_value ? new_value : "");
    return c;
}

static void intra_changes(const calib_options *opt, const gcsim_platform *base,
                          const calib_log_fit *lf, calib_result *r)
{
    char fit[1536], old_v[64], new_v[64];
    describe_fit(opt, lf, fit, sizeof fit);
    time_text(base->intra.latency_s, old_v, sizeof old_v);
    if (lf->fit.alpha_fitted && lf->fit.alpha_s > 0) {
        time_text(lf->fit.alpha_s, new_v, sizeof new_v);
        calib_change *c = add_change(r, "intra_node.latency", old_v, new_v);
        snprintf(c->source, sizeof c->source, "%s; intra_node.latency = alpha", fit);
    } else {
        calib_change *c = add_change(r, "intra_node.latency", old_v, NULL);
        snprintf(c->source, sizeof c->source, "base value kept: %s; a latency must be positive",
                 fit);
        if (lf->fit.alpha_fitted)
            warn(r, "%s: the fitted alpha is 0 (clamped); intra_node.latency keeps %s",
                 lf->path, old_v);
    }
    /* Beyond the 9 significant digits rate_text writes: a platform calibrated from this
     * very log holds B rounded, and a fit equal to it is no reason to warn. */
    if (lf->fit.B_Bps > base->intra.gpu_to_gpu_Bps * (1.0 + 1e-8))
        warn(r, "%s: B = %.6g GB/s exceeds %s's gpu_to_gpu %.6g GB/s, which a ring cannot "
                "beat: the log may come from another algorithm (NVLS, in-switch reduction) or "
                "the base figure is low",
             lf->path, lf->fit.B_Bps / 1e9, base->source_path, base->intra.gpu_to_gpu_Bps / 1e9);
    if (base->intra.kind == INTRA_NVLINK) {
        rate_text(base->intra.nvlink_link_Bps, old_v, sizeof old_v);
        rate_text(lf->fit.B_Bps / base->intra.nvlink_links_per_pair, new_v, sizeof new_v);
        calib_change *c = add_change(r, "intra_node.link_bandwidth", old_v, new_v);
        snprintf(c->source, sizeof c->source, "%s; link_bandwidth = B / links_per_pair (%d)",
                 fit, base->intra.nvlink_links_per_pair);
    } else {
        rate_text(base->intra.gpu_to_gpu_Bps, old_v, sizeof old_v);
        rate_text(lf->fit.B_Bps, new_v, sizeof new_v);
        calib_change *c = add_change(r, "intra_node.gpu_to_gpu", old_v, new_v);
        snprintf(c->source, sizeof c->source, "%s; gpu_to_gpu = B", fit);
    }
}

static void inter_changes(const calib_options *opt, const gcsim_platform *base,
                          const calib_log_fit *lf, double gpu_to_gpu_Bps,
                          const char *gpu_to_gpu_from, calib_result *r)
{
    char fit[1536], old_v[64], new_v[64];
    describe_fit(opt, lf, fit, sizeof fit);
    int per_node = base->nic.per_node;
    rate_text(base->nic.bandwidth_Bps, old_v, sizeof old_v);
    if (lf->fit.B_Bps < gpu_to_gpu_Bps) {
        rate_text(lf->fit.B_Bps / per_node, new_v, sizeof new_v);
        calib_change *c = add_change(r, "nic.bandwidth", old_v, new_v);
        snprintf(c->source, sizeof c->source,
                 "%s; B is below gpu_to_gpu (%.6g GB/s, %s), so the network is the "
                 "bottleneck: nic.bandwidth = B / nic.per_node (%d)",
                 fit, gpu_to_gpu_Bps / 1e9, gpu_to_gpu_from, per_node);
    } else {
        calib_change *c = add_change(r, "nic.bandwidth", old_v, NULL);
        snprintf(c->source, sizeof c->source,
                 "base value kept: %s; B is not below gpu_to_gpu (%.6g GB/s, %s), so the network "
                 "was not the bottleneck and only a lower bound is known: nic.per_node x "
                 "nic.bandwidth >= %.6g GB/s",
                 fit, gpu_to_gpu_Bps / 1e9, gpu_to_gpu_from, lf->fit.B_Bps / 1e9);
        warn(r, "%s: B = %.6g GB/s is not below gpu_to_gpu = %.6g GB/s: the network was not "
                "the bottleneck; nic.bandwidth keeps %s (a lower bound: per_node x bandwidth "
                ">= %.6g GB/s)",
             lf->path, lf->fit.B_Bps / 1e9, gpu_to_gpu_Bps / 1e9, old_v, lf->fit.B_Bps / 1e9);
    }
    double switches_s = 2.0 * base->fabric.switch_latency_s;
    double latency_s = lf->fit.alpha_s - switches_s;
    time_text(base->nic.latency_s, old_v, sizeof old_v);
    if (lf->fit.alpha_fitted && latency_s > 0) {
        time_text(latency_s, new_v, sizeof new_v);
        calib_change *c = add_change(r, "nic.latency", old_v, new_v);
        snprintf(c->source, sizeof c->source,
                 "%s; nic.latency = alpha - 2 x fabric.switch_latency (%.6g us)", fit,
                 base->fabric.switch_latency_s * 1e6);
    } else {
        calib_change *c = add_change(r, "nic.latency", old_v, NULL);
        snprintf(c->source, sizeof c->source, "base value kept: %s; %s", fit,
                 lf->fit.alpha_fitted ? "alpha - 2 x fabric.switch_latency is not positive "
                                        "and a latency must be"
                                      : "alpha was not fitted");
        if (lf->fit.alpha_fitted)
            warn(r, "%s: alpha = %.6g us minus 2 switch latencies (%.6g us) is not positive "
                    "(clamped at 0); nic.latency keeps %s",
                 lf->path, lf->fit.alpha_s * 1e6, switches_s * 1e6, old_v);
    }
}

int calib_run(const calib_options *opt, calib_result *r, gcsim_error *err)
{
    memset(r, 0, sizeof *r);
    if (opt->n_logs < 1 || opt->n_logs > CALIB_MAX_LOGS)
        return gcsim_fail(err, "give one or two --log files (a single-node and a multi-node "
                               "one)");
    char *base_text = NULL;
    gcsim_platform base;
    if (json_read_file(opt->platform_path, PLATFORM_MAX_BYTES, &base_text, err) ||
        gcsim_platform_parse(base_text, opt->platform_path, &base, err)) {
        free(base_text);
        return -1;
    }
    int rc = -1;
    r->n_logs = opt->n_logs;
    /* Fit a single-node log first: its B is the gpu_to_gpu a multi-node fit compares with. */
    int order[CALIB_MAX_LOGS] = {0, 1};
    for (int k = 0; k < opt->n_logs; k++)
        if (fit_log(opt, k, &base, &r->logs[k], r, err))
            goto out;
    if (opt->n_logs == 2) {
        if (r->logs[0].multi_node == r->logs[1].multi_node) {
            gcsim_fail(err, "%s and %s: both are %s logs; give one single-node and one "
                            "multi-node log",
                       opt->log_paths[0], opt->log_paths[1],
                       r->logs[0].multi_node ? "multi-node" : "single-node");
            goto out;
        }
        if (r->logs[0].multi_node) {
            order[0] = 1;
            order[1] = 0;
        }
    }
    double gpu_to_gpu_Bps = base.intra.gpu_to_gpu_Bps;
    char gpu_to_gpu_from[600];
    snprintf(gpu_to_gpu_from, sizeof gpu_to_gpu_from, "from %s", opt->platform_path);
    for (int k = 0; k < opt->n_logs; k++) {
        calib_log_fit *lf = &r->logs[order[k]];
        if (!lf->multi_node) {
            intra_changes(opt, &base, lf, r);
            gpu_to_gpu_Bps = lf->fit.B_Bps;
            snprintf(gpu_to_gpu_from, sizeof gpu_to_gpu_from, "fitted to %s", lf->path);
            continue;
        }
        inter_changes(opt, &base, lf, gpu_to_gpu_Bps, gpu_to_gpu_from, r);
    }
    platform_patch patches[6];
    for (int i = 0; i < r->n_changes; i++) {
        patches[i].path = r->changes[i].path;
        patches[i].value = r->changes[i].new_value[0] ? r->changes[i].new_value : NULL;
        patches[i].source = r->changes[i].source;
    }
    if (platform_patch_apply(base_text, opt->platform_path, patches, r->n_changes,
                             opt->output_path, &r->platform_json, err))
        goto out;
    rc = 0;
out:
    free(base_text);
    if (rc)
        calib_result_free(r);
    return rc;
}

void calib_result_free(calib_result *r)
{
    for (int k = 0; k < CALIB_MAX_LOGS; k++) {
        free(r->logs[k].rows);
        r->logs[k].rows = NULL;
    }
    free(r->platform_json);
    r->platform_json = NULL;
}
