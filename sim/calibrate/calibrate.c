/* Fitting a platform to nccl-tests logs; see calibrate.h for the rules. */
#include "calibrate.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
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

static void note(calib_result *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void note(calib_result *r, const char *fmt, ...)
{
    if (r->n_notes >= CALIB_MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->notes[r->n_notes++], sizeof r->notes[0], fmt, ap);
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
    double mib = bytes / (1024.0 * 1024.0), gib = mib / 1024.0;
    if (bytes > 0 && gib == (double)(long long)gib)
        snprintf(buf, len, "%.0f GiB", gib);
    else if (bytes > 0 && mib == (double)(long long)mib)
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

/* The tables of the log, the one fitted, and what the reader skipped or dropped. */
static void describe_tables(const calib_options *opt, int k, const nccl_log *log,
                            calib_log_fit *lf, calib_result *r)
{
    const char *path = opt->log_paths[k];
    const nccl_table_info *t = &log->tables[log->table - 1];
    lf->table = log->table;
    lf->n_tables = log->n_tables;
    lf->table_first_line = t->first_line;
    lf->table_last_line = t->last_line;
    if (log->n_tables > 1 && opt->table[k] == 0) {
        char list[400] = "";
        size_t used = 0;
        for (int i = 0; i < log->n_tables && used < sizeof list - 80; i++) {
            const nccl_table_info *ti = &log->tables[i];
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%d: lines %d-%d, %d rows",
                                     i ? "; " : "", i + 1, ti->first_line, ti->last_line, ti->rows);
            if (ti->ranks && used < sizeof list)
                used += (size_t)snprintf(list + used, sizeof list - used, ", %d ranks on %d host%s",
                                         ti->ranks, ti->hosts, ti->hosts == 1 ? "" : "s");
        }
        warn(r, "%s: %d tables (%s); the first is fitted: give --table K after this --log to "
                "pick another",
             path, log->n_tables, list);
    }
    if (t->dropped_line)
        warn(r, "%s: line %d: %s; the row is dropped", path, t->dropped_line, t->dropped_why);
    if (log->skipped_lines) {
        char debug[64] = "";
        if (log->skipped_debug_lines)
            snprintf(debug, sizeof debug, ", %d of them NCCL INFO/WARN output",
                     log->skipped_debug_lines);
        note(r, "%s: skipped %d line%s not part of a table%s; the first, line %d: \"%s\"", path,
             log->skipped_lines, log->skipped_lines == 1 ? "" : "s", debug,
             log->first_skipped_line, log->first_skipped);
    }
    if (log->zero_size_rows)
        note(r, "%s: left out %d row%s of 0 B (0 elements: nothing reduced)", path,
             log->zero_size_rows, log->zero_size_rows == 1 ? "" : "s");
    if (log->prefixed_lines)
        note(r, "%s: removed an mpirun or Slurm prefix from %d line%s", path, log->prefixed_lines,
             log->prefixed_lines == 1 ? "" : "s");
}

static int compare_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The held-out check: the rows used (size >= min_size, sizes increasing) are split by size;
 * the fit repeated on the smaller half (ceil(m/2) rows) predicts the larger half. A line
 * that only interpolates shows a large error there. */
static void held_out_check(const calib_options *opt, calib_log_fit *lf, const double *size,
                           const double *time, int n, double base_alpha_s, calib_result *r)
{
    calib_held_out *h = &lf->held_out;
    memset(h, 0, sizeof *h);
    int first = 0;
    while (first < n && size[first] < opt->min_size_bytes)
        first++;
    int m = n - first;
    if (m < 3) {
        snprintf(h->why_not, sizeof h->why_not,
                 "not possible: %d row%s used, and it takes at least 3 (2 to fit, 1 to predict)",
                 m, m == 1 ? "" : "s");
        return;
    }
    int k = (m + 1) / 2;
    ring_fit half;
    gcsim_error e = {{0}, 0, 0};
    if (ring_fit_allreduce(lf->path, lf->gpus, size + first, time + first, k, 0.0, base_alpha_s,
                           &half, &e)) {
        snprintf(h->why_not, sizeof h->why_not, "no fit to the smaller half: %.200s", e.message);
        warn(r, "%s: held-out check: %s", lf->path, h->why_not);
        return;
    }
    double errors[NCCL_LOG_MAX_ROWS];
    int held = 0;
    for (int i = first + k; i < n; i++) {
        double fit = ring_allreduce_time_s(lf->gpus, size[i], half.alpha_s, half.B_Bps);
        errors[held++] = fabs(fit - time[i]) / time[i];
    }
    qsort(errors, (size_t)held, sizeof errors[0], compare_double);
    h->done = true;
    h->fit_rows = k;
    h->test_rows = held;
    h->fit_min_size = size[first];
    h->fit_max_size = size[first + k - 1];
    h->test_min_size = size[first + k];
    h->test_max_size = size[n - 1];
    h->alpha_s = half.alpha_s;
    h->B_Bps = half.B_Bps;
    h->median_abs_rel_error = held % 2 ? errors[held / 2]
                                       : 0.5 * (errors[held / 2 - 1] + errors[held / 2]);
    h->max_abs_rel_error = errors[held - 1];
    if (h->median_abs_rel_error > CALIB_HELD_OUT_WARN)
        warn(r, "%s: held-out check: fitted to the %d smaller sizes, the line misses the %d "
                "larger ones by a median %.3g%% (above %.0f%%): it does not extrapolate, and the "
                "full fit is driven by the sizes it spans",
             lf->path, k, held, 100 * h->median_abs_rel_error, 100 * CALIB_HELD_OUT_WARN);
}

static void size_range_text(double lo, double hi, char *buf, size_t len)
{
    char a[32], b[32];
    size_text(lo, a, sizeof a);
    size_text(hi, b, sizeof b);
    if (lo == hi)
        snprintf(buf, len, "%s", a);
    else
        snprintf(buf, len, "%s to %s", a, b);
}

/* "fitted to the N smaller sizes used (A to B): ...; predicts the M larger (...) with
 * median |error| x%, max y%" */
void calib_held_out_text(const calib_held_out *h, char *buf, size_t len)
{
    if (!h->done) {
        snprintf(buf, len, "%s", h->why_not);
        return;
    }
    char fit[80], test[80];
    size_range_text(h->fit_min_size, h->fit_max_size, fit, sizeof fit);
    size_range_text(h->test_min_size, h->test_max_size, test, sizeof test);
    snprintf(buf, len,
             "fitted to the %d smaller sizes used (%s): alpha = %.6g us, B = %.6g GB/s; "
             "predicts the %d larger (%s) with median |error| %.3g%%, max %.3g%%",
             h->fit_rows, fit, h->alpha_s * 1e6, h->B_Bps / 1e9, h->test_rows, test,
             100 * h->median_abs_rel_error, 100 * h->max_abs_rel_error);
}

/* Loads, checks and fits one log; fills lf (rows owned by it). */
static int fit_log(const calib_options *opt, int k, const gcsim_platform *base,
                   calib_log_fit *lf, calib_result *r, gcsim_error *err)
{
    const char *path = opt->log_paths[k];
    nccl_log log;
    if (nccl_log_load_table(path, opt->table[k], &log, err))
        return -1;
    int rc = -1;
    double *size = NULL, *time = NULL;
    snprintf(lf->path, sizeof lf->path, "%s", path);
    describe_tables(opt, k, &log, lf, r);
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
    if (lf->fit.rows_used > 2 && lf->fit.rms_rel_error > CALIB_RMS_WARN)
        warn(r, "%s: the fit's RMS relative time error over the %d rows used is %.3g%%, above "
                "%.0f%%: one alpha-beta line does not describe this log well (protocol changes, "
                "noise, another algorithm); read the per-row errors before using the platform",
             path, lf->fit.rows_used, 100 * lf->fit.rms_rel_error, 100 * CALIB_RMS_WARN);
    held_out_check(opt, lf, size, time, log.n_rows, base_alpha_s, r);
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
    char table[96] = "";
    if (lf->n_tables > 1)
        snprintf(table, sizeof table, " table %d of %d (lines %d-%d)", lf->table, lf->n_tables,
                 lf->table_first_line, lf->table_last_line);
    char held[512];
    calib_held_out_text(&lf->held_out, held, sizeof held);
    snprintf(buf, len,
             "fitted by gcsim calibrate to %s%s (nccl-tests %s, %d GPUs on %d node%s, %s times, "
             "%d rows with size >= %s; weighted least squares on relative time error of "
             "t = 2(n-1) alpha + 2(n-1)/n S / B): %s, B = %.6g GB/s; residuals of time over "
             "those rows: max %.3g%%, RMS %.3g%%%s; held-out check: %s",
             lf->path, table, lf->op, lf->gpus, lf->nodes, lf->nodes == 1 ? "" : "s",
             opt->out_of_place ? "out-of-place" : "in-place", f->rows_used, min_size, alpha,
             f->B_Bps / 1e9, 100 * f->max_abs_rel_error, 100 * f->rms_rel_error,
             f->rows_used == 2 && f->alpha_fitted && !f->alpha_clamped
                 ? " (two rows, two parameters: zero by construction, no check of the model)"
                 : "",
             held);
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

/* Whether a base $.sources entry says the value is a measured or fitted busbw rather than a
 * line rate: it starts with "fitted" or "measured" (any case). */
static bool source_is_measured(const char *source)
{
    static const char *const words[] = {"fitted", "measured"};
    if (!source)
        return false;
    while (*source == ' ')
        source++;
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
        size_t i = 0;
        while (words[w][i] && tolower((unsigned char)source[i]) == words[w][i])
            i++;
        if (!words[w][i])
            return true;
    }
    return false;
}

static const char *base_source(const cJSON *base_json, const char *path)
{
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(base_json, "sources"), path);
    return cJSON_IsString(s) ? s->valuestring : NULL;
}

/* A fitted bandwidth for `field` against the base's value there. Above it: refused unless
 * opt->force when the base value is a line rate; a warning when the base's sources say it
 * is already a measured busbw. `extra` receives text for $.sources. */
static int check_line_rate(const calib_options *opt, const gcsim_platform *base,
                           const cJSON *base_json, const calib_log_fit *lf, const char *field,
                           double fitted_Bps, double base_Bps, char *extra, size_t extra_len,
                           calib_result *r, gcsim_error *err)
{
    extra[0] = '\0';
    /* Beyond the 9 significant digits rate_text writes: a platform calibrated from this
     * very log holds B rounded, and a fit equal to it is no reason to stop. */
    if (!(fitted_Bps > base_Bps * (1.0 + 1e-8)))
        return 0;
    const char *source = base_source(base_json, field);
    if (source_is_measured(source)) {
        warn(r, "%s: %s = %.6g GB/s fitted exceeds %s's %.6g GB/s; that value's source says "
                "it was fitted or measured, so it is no line rate and the fit is written (the log "
                "may come from another algorithm, NVLS or in-switch reduction, or the base "
                "figure is low)",
             lf->path, field, fitted_Bps / 1e9, base->source_path, base_Bps / 1e9);
        return 0;
    }
    if (!opt->force)
        return gcsim_fail(err,
                          "%s: %s = %.6g GB/s fitted, above the line rate %.6g GB/s (%s's %s, "
                          "the nominal figure a platform engineer knows for this link: a "
                          "calibration measures what it delivers and cannot exceed it): check "
                          "the GPU and node counts, nic.per_node and the base platform, or give "
                          "--force to write it anyway",
                          lf->path, field, fitted_Bps / 1e9, base_Bps / 1e9, base->source_path,
                          field);
    warn(r, "%s: %s = %.6g GB/s fitted, above the line rate %.6g GB/s of %s; written because "
            "of --force",
         lf->path, field, fitted_Bps / 1e9, base_Bps / 1e9, base->source_path);
    snprintf(extra, extra_len, "; above the base's line rate %.9g GB/s, written because of "
                               "--force", base_Bps / 1e9);
    return 0;
}

static int intra_changes(const calib_options *opt, const gcsim_platform *base,
                         const cJSON *base_json, const calib_log_fit *lf, calib_result *r,
                         gcsim_error *err)
{
    char fit[2048], old_v[64], new_v[64], extra[160];
    describe_fit(opt, lf, fit, sizeof fit);
    bool nvlink = base->intra.kind == INTRA_NVLINK;
    const char *field = nvlink ? "intra_node.link_bandwidth" : "intra_node.gpu_to_gpu";
    double fitted_Bps = nvlink ? lf->fit.B_Bps / base->intra.nvlink_links_per_pair
                               : lf->fit.B_Bps;
    double base_Bps = nvlink ? base->intra.nvlink_link_Bps : base->intra.gpu_to_gpu_Bps;
    if (check_line_rate(opt, base, base_json, lf, field, fitted_Bps, base_Bps, extra,
                        sizeof extra, r, err))
        return -1;
    time_text(base->intra.latency_s, old_v, sizeof old_v);
    if (!lf->fit.alpha_fitted) {
        calib_change *c = add_change(r, "intra_node.latency", old_v, NULL);
        snprintf(c->source, sizeof c->source, "base value kept: %s; alpha was not fitted", fit);
    } else if (lf->fit.alpha_s > 0) {
        time_text(lf->fit.alpha_s, new_v, sizeof new_v);
        calib_change *c = add_change(r, "intra_node.latency", old_v, new_v);
        snprintf(c->source, sizeof c->source, "%s; intra_node.latency = alpha", fit);
    } else {
        /* The fit says 0; a platform latency must be positive: the smallest written. */
        time_text(CALIB_MIN_LATENCY_S, new_v, sizeof new_v);
        calib_change *c = add_change(r, "intra_node.latency", old_v, new_v);
        snprintf(c->source, sizeof c->source,
                 "%s; intra_node.latency = alpha, clamped to 0 by the fit and written as %s "
                 "(a latency must be positive)",
                 fit, new_v);
        warn(r, "%s: the fitted alpha is 0 (clamped); intra_node.latency is written as %s, "
                "not the base's %s",
             lf->path, new_v, old_v);
    }
    rate_text(base_Bps, old_v, sizeof old_v);
    rate_text(fitted_Bps, new_v, sizeof new_v);
    calib_change *c = add_change(r, field, old_v, new_v);
    if (nvlink)
        snprintf(c->source, sizeof c->source, "%s; link_bandwidth = B / links_per_pair (%d)%s",
                 fit, base->intra.nvlink_links_per_pair, extra);
    else
        snprintf(c->source, sizeof c->source, "%s; gpu_to_gpu = B%s", fit, extra);
    return 0;
}

static int inter_changes(const calib_options *opt, const gcsim_platform *base,
                         const cJSON *base_json, const calib_log_fit *lf,
                         double gpu_to_gpu_Bps, const char *gpu_to_gpu_from, calib_result *r,
                         gcsim_error *err)
{
    char fit[2048], old_v[64], new_v[64], extra[160];
    describe_fit(opt, lf, fit, sizeof fit);
    int per_node = base->nic.per_node;
    rate_text(base->nic.bandwidth_Bps, old_v, sizeof old_v);
    if (lf->fit.B_Bps < gpu_to_gpu_Bps) {
        double nic_Bps = lf->fit.B_Bps / per_node;
        if (check_line_rate(opt, base, base_json, lf, "nic.bandwidth", nic_Bps,
                            base->nic.bandwidth_Bps, extra, sizeof extra, r, err))
            return -1;
        rate_text(nic_Bps, new_v, sizeof new_v);
        calib_change *c = add_change(r, "nic.bandwidth", old_v, new_v);
        snprintf(c->source, sizeof c->source,
                 "%s; B is below gpu_to_gpu (%.6g GB/s, %s), so the network is the "
                 "bottleneck: nic.bandwidth = B / nic.per_node (%d)%s",
                 fit, gpu_to_gpu_Bps / 1e9, gpu_to_gpu_from, per_node, extra);
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
    double sw_s = base->fabric.switch_latency_s;
    double latency_s = lf->fit.alpha_s - 2.0 * sw_s;
    time_text(base->nic.latency_s, old_v, sizeof old_v);
    if (!lf->fit.alpha_fitted) {
        calib_change *c = add_change(r, "nic.latency", old_v, NULL);
        snprintf(c->source, sizeof c->source, "base value kept: %s; alpha was not fitted", fit);
    } else if (latency_s > 0) {
        time_text(latency_s, new_v, sizeof new_v);
        calib_change *c = add_change(r, "nic.latency", old_v, new_v);
        snprintf(c->source, sizeof c->source,
                 "%s; nic.latency = alpha - 2 x fabric.switch_latency (%.6g us)", fit,
                 sw_s * 1e6);
    } else {
        /* nic.latency would be <= 0: both latencies are scaled down by one factor, keeping
         * their ratio, so that nic.latency + 2 switch_latency is the fitted alpha (or the
         * smallest latency written, when the fit clamped alpha to 0). */
        double alpha_s = lf->fit.alpha_s > CALIB_MIN_LATENCY_S ? lf->fit.alpha_s
                                                                : CALIB_MIN_LATENCY_S;
        double scale = alpha_s / (base->nic.latency_s + 2.0 * sw_s);
        char old_sw[64], new_sw[64], how[640];
        time_text(base->nic.latency_s * scale, new_v, sizeof new_v);
        time_text(sw_s, old_sw, sizeof old_sw);
        time_text(sw_s * scale, new_sw, sizeof new_sw);
        snprintf(how, sizeof how,
                 "alpha = %.6g us%s is below 2 x fabric.switch_latency (%.6g us), so "
                 "nic.latency = alpha - 2 switch latencies would not be positive: "
                 "nic.latency (%s) and fabric.switch_latency (%s) are both scaled by "
                 "alpha / (nic.latency + 2 x switch_latency) = %.6g, to %s and %s, which add "
                 "up to alpha",
                 alpha_s * 1e6, lf->fit.alpha_clamped ? " (clamped to 0 by the fit, written as "
                                                       "the smallest latency)"
                                                     : "",
                 2.0 * sw_s * 1e6, old_v, old_sw, scale, new_v, new_sw);
        calib_change *c = add_change(r, "nic.latency", old_v, new_v);
        snprintf(c->source, sizeof c->source, "%s; %s", fit, how);
        c = add_change(r, "fabric.switch_latency", old_sw, new_sw);
        snprintf(c->source, sizeof c->source, "%s; %s", fit, how);
        warn(r, "%s: %s (switch latency also applies to paths through more switches)",
             lf->path, how);
    }
    return 0;
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
    cJSON *base_json = cJSON_Parse(base_text);
    if (!base_json) {
        gcsim_fail_internal(err, "%s: out of memory reading the sources", opt->platform_path);
        goto out;
    }
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
            if (intra_changes(opt, &base, base_json, lf, r, err))
                goto out;
            gpu_to_gpu_Bps = lf->fit.B_Bps;
            snprintf(gpu_to_gpu_from, sizeof gpu_to_gpu_from, "fitted to %s", lf->path);
            continue;
        }
        if (inter_changes(opt, &base, base_json, lf, gpu_to_gpu_Bps, gpu_to_gpu_from, r, err))
            goto out;
    }
    platform_patch patches[sizeof r->changes / sizeof r->changes[0]];
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
    cJSON_Delete(base_json);
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
