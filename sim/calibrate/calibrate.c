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
#include "scenario.h"
#include "platform_patch.h"
#include "tuner_model.h"

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
    bool partial = log->ranks > 0 && log->max_rank + 1 != log->ranks;
    if (partial && (gpus == 0 || nodes == 0))
        return gcsim_fail(err, "%s: line %d: %d Rank lines but the highest rank is %d: a partial "
                               "listing (vendor logs often print only some ranks), from which "
                               "GPUs and nodes cannot be counted; give --gpus N --nodes J after "
                               "this --log",
                          path, log->first_rank_line, log->ranks, log->max_rank);
    if (partial && gpus <= log->max_rank)
        return gcsim_fail(err, "%s: line %d: --gpus %d, but the log lists rank %d", path,
                          log->first_rank_line, gpus, log->max_rank);
    if (partial)
        note(r, "%s: %d of the %d ranks listed (a partial listing, highest rank %d): GPUs and "
                "nodes from --gpus and --nodes",
             path, log->ranks, gpus, log->max_rank);
    else if (gpus && log->ranks && gpus != log->ranks)
        warn(r, "%s: --gpus %d overrides the log's %d Rank lines", path, gpus, log->ranks);
    if (!partial && nodes && log->ranks && nodes != log->hosts)
        warn(r, "%s: --nodes %d overrides the log's %d distinct hosts", path, nodes, log->hosts);
    lf->counts_from_log = gpus == 0 && nodes == 0;
    lf->gpus = gpus ? gpus : log->ranks;
    lf->nodes = nodes ? nodes : log->hosts;
    if (lf->gpus < 2)
        return gcsim_fail(err, "%s: %d GPU: a collective needs at least 2", path, lf->gpus);
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

/* The platform a log is costed on: p as `gcsim collective --gpus N` runs it (its first N
 * GPUs, p's GPUs per node), with nodes enough for N. A log whose nodes hold another count
 * is warned about when loaded. */
static void log_platform(const gcsim_platform *p, const calib_log_fit *lf, gcsim_platform *out)
{
    *out = *p;
    int need = (lf->gpus + p->gpus_per_node - 1) / p->gpus_per_node;
    if (out->nodes < need)
        out->nodes = need;
}

static gcsim_op test_op(nccl_test t)
{
    return t == NCCL_TEST_ALL_GATHER       ? GCSIM_OP_ALLGATHER
           : t == NCCL_TEST_REDUCE_SCATTER ? GCSIM_OP_REDUCESCATTER
                                           : GCSIM_OP_ALLREDUCE;
}

/* Loads and checks one log; fills lf (its measured rows, owned by it). */
static int load_log(const calib_options *opt, int k, const gcsim_platform *base,
                    calib_log_fit *lf, calib_result *r, gcsim_error *err)
{
    const char *path = opt->log_paths[k];
    nccl_log log;
    if (nccl_log_load_table(path, opt->table[k], &log, err))
        return -1;
    int rc = -1;
    snprintf(lf->path, sizeof lf->path, "%s", path);
    describe_tables(opt, k, &log, lf, r);
    bool named;
    nccl_test test = nccl_log_test(&log, &named);
    lf->gop = test_op(test);
    /* what the log's run forced (NCCL_ALGO / NCCL_PROTO): the rows are costed with it, as
     * `gcsim collective --collective C --protocol P` would run them */
    lf->collective = COLLECTIVE_COUNT;
    lf->protocol = GCSIM_PROTO_COUNT;
    if (opt->collective[k] &&
        gcsim_collective_parse_algorithm(opt->collective[k], &lf->collective)) {
        gcsim_fail(err, "%s: --collective: expected ring, halving-doubling, tree, double-tree, "
                        "hierarchical, nvls, ps or allgather, got \"%s\"",
                   path, opt->collective[k]);
        goto out;
    }
    if (lf->gop != GCSIM_OP_ALLREDUCE)
        lf->collective = COLLECTIVE_COUNT; /* as `gcsim collective`: one schedule each */
    if (opt->protocol[k] && gcsim_protocol_parse(opt->protocol[k], &lf->protocol)) {
        gcsim_fail(err, "%s: --protocol: expected simple, ll128 or ll, got \"%s\"", path,
                   opt->protocol[k]);
        goto out;
    }
    snprintf(lf->op, sizeof lf->op, "%s%s", nccl_test_name(test), named ? "" : " (assumed)");
    snprintf(lf->device, sizeof lf->device, "%s", log.device);
    if (log_counts(opt, k, &log, lf, r, err) || nccl_log_check_test(&log, test, lf->gpus, err))
        goto out;
    if (!named)
        warn(r, "%s: the log does not name its test (older nccl-tests); taken as %s, as its "
                "redop, counts and busbw/algbw ratios say",
             path, nccl_test_name(test));
    int per_node = lf->gpus / lf->nodes;
    if (per_node != base->gpus_per_node)
        warn(r, "%s: %d GPUs per node where %s has %d: the fit and its errors are those of "
                "`gcsim collective --gpus %d` on the platform, which places the GPUs %d per "
                "node, not as measured",
             path, per_node, base->source_path, base->gpus_per_node, lf->gpus,
             base->gpus_per_node);
    if (lf->nodes > base->nodes)
        warn(r, "%s: %d nodes, more than the %d of %s", path, lf->nodes, base->nodes,
             base->source_path);
    lf->rows = calloc((size_t)log.n_rows, sizeof *lf->rows);
    if (!lf->rows) {
        gcsim_fail_internal(err, "%s: out of memory", path);
        goto out;
    }
    int used = 0;
    for (int i = 0; i < log.n_rows; i++) {
        const nccl_timing *t = opt->out_of_place ? &log.rows[i].out_of_place
                                                 : &log.rows[i].in_place;
        calib_row *row = &lf->rows[i];
        row->line = log.rows[i].line;
        row->size_bytes = log.rows[i].size_bytes;
        row->time_s = t->time_s;
        row->busbw_Bps = t->busbw_Bps;
        row->used = row->size_bytes >= opt->min_size_bytes;
        /* the held-out check fits the 1st, 3rd, ... size used and predicts the others */
        row->held_out = row->used && used++ % 2 == 1;
    }
    lf->n_rows = log.n_rows;
    {
        double *busbw = malloc((size_t)log.n_rows * sizeof *busbw);
        bool *use = malloc((size_t)log.n_rows * sizeof *use);
        calib_regime *g = malloc((size_t)log.n_rows * sizeof *g);
        if (busbw && use && g) {
            for (int i = 0; i < log.n_rows; i++) {
                busbw[i] = lf->rows[i].busbw_Bps;
                use[i] = lf->rows[i].used;
            }
            /* the LL cap of the nodes gcsim places the GPUs on (as `gcsim collective`),
             * unless the run forced another protocol */
            int nodes = (lf->gpus + base->gpus_per_node - 1) / base->gpus_per_node;
            double ll_cap_Bps =
                lf->protocol == GCSIM_PROTO_COUNT || lf->protocol == GCSIM_PROTO_LL
                    ? gcsim_nccl_ll_max_busbw_Bps(base->gpu.type, nodes)
                    : 0;
            calib_classify(busbw, use, log.n_rows, ll_cap_Bps, g);
            for (int i = 0; i < log.n_rows; i++)
                lf->rows[i].regime = g[i];
        }
        free(busbw);
        free(use);
        free(g);
        if (!busbw || !use || !g) {
            gcsim_fail_internal(err, "%s: out of memory", path);
            goto out;
        }
    }
    if (used == 0) {
        char min_size[64];
        size_text(opt->min_size_bytes, min_size, sizeof min_size);
        gcsim_fail(err, "%s: no row of --min-size %s or more to fit", path, min_size);
        goto out;
    }
    rc = 0;
out:
    nccl_log_free(&log);
    return rc;
}

/* The fit data of a log; `which`: 0 every row used, 1 the held-out check's fit rows. */
typedef struct {
    double *size, *time;
    bool *use;
    calib_regime *regime;
    calib_fit_data d;
} fit_arrays;

static int fit_arrays_make(const calib_log_fit *lf, int which, fit_arrays *a, gcsim_error *err)
{
    int n = lf->n_rows;
    a->size = malloc((size_t)n * sizeof *a->size);
    a->time = malloc((size_t)n * sizeof *a->time);
    a->use = malloc((size_t)n * sizeof *a->use);
    a->regime = malloc((size_t)n * sizeof *a->regime);
    if (!a->size || !a->time || !a->use || !a->regime)
        return gcsim_fail_internal(err, "%s: out of memory", lf->path);
    for (int i = 0; i < n; i++) {
        a->size[i] = lf->rows[i].size_bytes;
        a->time[i] = lf->rows[i].time_s;
        a->use[i] = lf->rows[i].used && (which == 0 || !lf->rows[i].held_out);
        a->regime[i] = lf->rows[i].regime;
    }
    a->d = (calib_fit_data){.gpus = lf->gpus, .op = lf->gop, .size_bytes = a->size,
                            .time_s = a->time, .use = a->use, .regime = a->regime, .n = n,
                            .collective = lf->collective, .protocol = lf->protocol};
    return 0;
}

static void fit_arrays_free(fit_arrays *a)
{
    free(a->size);
    free(a->time);
    free(a->use);
    free(a->regime);
}

/* The knobs a log may set: a single-node log the node's; a multi-node one the network's, and
 * the node's bandwidth too unless a single-node log sets it. */
static int bandwidth_candidates(const gcsim_platform *p, const calib_log_fit *lf,
                                bool node_set, calib_knob *c)
{
    int n = 0;
    if (lf->multi_node)
        c[n++] = CALIB_KNOB_NIC_BW;
    if (!lf->multi_node || !node_set) {
        c[n++] = CALIB_KNOB_INTRA_BW;
        if (calib_knob_present(p, CALIB_KNOB_NVLS_BW))
            c[n++] = CALIB_KNOB_NVLS_BW;
    }
    return n;
}

/* Per-size-band factors on the rows where use[i] (sizes ascending), from their errors e[i]:
 * fitted only when a regime's, a size band's or all rows' median |error| there is above 5%
 * (busbw_bands.h: issue 42's "within 5% median at every size"). Returns
 * whether bands were fitted. */
static bool bands_for(const calib_log_fit *lf, const bool *use, const double *e,
                      calib_bands *out)
{
    int n = lf->n_rows, m = 0;
    double *sz = calloc((size_t)n + 1, sizeof *sz), *er = calloc((size_t)n + 1, sizeof *er);
    int *rg = calloc((size_t)n + 1, sizeof *rg);
    bool done = false;
    if (sz && er && rg) {
        for (int i = 0; i < n; i++)
            if (use[i]) {
                sz[m] = lf->rows[i].size_bytes;
                er[m] = e[i];
                rg[m] = (int)lf->rows[i].regime;
                m++;
            }
        calib_bands none = {.n_bands = 1, .below_bytes = {INFINITY}, .factor = {1}};
        if (m > 0 && calib_bands_worst(&none, sz, er, rg, m) > CALIB_REGIME_WARN)
            done = calib_bands_fit(sz, er, rg, m, CALIB_BANDS_TARGET, out) == 0;
    }
    free(sz);
    free(er);
    free(rg);
    return done;
}

/* Fits the knobs of log lf on *w (the platform so far, in the base's shape) and runs the
 * held-out check. */
static int fit_log(calib_log_fit *lf, gcsim_platform *w, bool node_set, calib_result *r,
                   gcsim_error *err)
{
    calib_knob cands[3];
    int n_c = bandwidth_candidates(w, lf, node_set, cands);
    calib_knob lat = lf->multi_node ? CALIB_KNOB_NIC_LAT : CALIB_KNOB_INTRA_LAT;
    /* the node's latency too, as its bandwidth, unless a single-node log sets it
     * (platform_fit.h: a multi-node log's floor) */
    calib_knob lat2 = lf->multi_node && !node_set ? CALIB_KNOB_INTRA_LAT : CALIB_KNOB_COUNT;
    gcsim_platform q, h;
    log_platform(w, lf, &q);
    h = q;
    fit_arrays all = {0}, half = {0};
    int rc = -1;
    if (fit_arrays_make(lf, 0, &all, err) || fit_arrays_make(lf, 1, &half, err) ||
        calib_platform_fit(&q, &all.d, cands, n_c, lat, lat2, &lf->fit, err))
        goto out;
    snprintf(lf->bw_field, sizeof lf->bw_field, "%s", calib_knob_path(w, lf->fit.bw_knob));
    snprintf(lf->lat_field, sizeof lf->lat_field, "%s", calib_knob_path(w, lat));
    calib_knob_set(w, lf->fit.bw_knob, calib_knob_get(&q, lf->fit.bw_knob));
    calib_knob_set(w, lat, calib_knob_get(&q, lat));
    lf->lat2_field[0] = '\0';
    if (lat2 != CALIB_KNOB_COUNT) {
        snprintf(lf->lat2_field, sizeof lf->lat2_field, "%s", calib_knob_path(w, lat2));
        calib_knob_set(w, lat2, calib_knob_get(&q, lat2));
    }
    /* held-out check: the same fit on every other size, its error on the sizes between */
    calib_held_out *ho = &lf->held_out;
    int n_fit = 0, n_test = 0;
    for (int i = 0; i < lf->n_rows; i++) {
        n_fit += half.use[i];
        n_test += lf->rows[i].held_out;
    }
    if (n_fit < 2 || n_test < 1) {
        snprintf(ho->why_not, sizeof ho->why_not,
                 "not possible: %d row%s used, and it takes at least 3 (2 to fit, 1 to predict)",
                 n_fit + n_test, n_fit + n_test == 1 ? "" : "s");
        rc = 0;
        goto out;
    }
    calib_fit_result hr;
    double *e = malloc((size_t)lf->n_rows * sizeof *e);
    if (!e) {
        gcsim_fail_internal(err, "%s: out of memory", lf->path);
        goto out;
    }
    if (calib_platform_fit(&h, &half.d, cands, n_c, lat, lat2, &hr, err) ||
        calib_fit_errors(&h, &all.d, e, NULL, err)) {
        free(e);
        goto out;
    }
    /* as the whole fit: where the fields miss the fit rows, bands fitted on them */
    calib_bands hb;
    if (bands_for(lf, half.use, e, &hb))
        for (int i = 0; i < lf->n_rows; i++)
            e[i] = (1 + e[i]) * calib_bands_factor(&hb, lf->rows[i].size_bytes) - 1;
    int m = 0;
    for (int i = 0; i < lf->n_rows; i++)
        if (lf->rows[i].held_out)
            e[m++] = fabs(e[i]);
    ho->done = true;
    ho->fit_rows = n_fit;
    ho->test_rows = m;
    ho->median_abs_rel_error = calib_median(e, m);
    ho->max_abs_rel_error = e[m - 1];
    free(e);
    if (ho->median_abs_rel_error > CALIB_HELD_OUT_WARN)
        warn(r, "%s: held-out check: fitted to every other size, the platform misses the %d "
                "sizes between by a median %.3g%% (above %.0f%%)",
             lf->path, m, 100 * ho->median_abs_rel_error, 100 * CALIB_HELD_OUT_WARN);
    rc = 0;
out:
    fit_arrays_free(&all);
    fit_arrays_free(&half);
    return rc;
}

/* Every row of lf costed on the written platform: its own error, per row and per regime. */
static int score_written(calib_log_fit *lf, const gcsim_platform *written, calib_result *r,
                         gcsim_error *err)
{
    gcsim_platform q;
    log_platform(written, lf, &q);
    fit_arrays all = {0};
    int n = lf->n_rows, rc = -1;
    double *e = malloc((size_t)n * sizeof *e);
    calib_cost *c = malloc((size_t)n * sizeof *c);
    double *v = malloc((size_t)n * sizeof *v);
    if (!e || !c || !v) {
        gcsim_fail_internal(err, "%s: out of memory", lf->path);
        goto out;
    }
    if (fit_arrays_make(lf, 0, &all, err) ||
        calib_fit_errors(&q, &all.d, e, c, err))
        goto out;
    double factor = gcsim_op_busbw_factor(lf->gop, lf->gpus);
    lf->bw_value_Bps = calib_knob_get(written, lf->fit.bw_knob);
    lf->lat_value_s = calib_knob_get(written, lf->fit.lat_knob);
    lf->max_abs_error = 0;
    for (int i = 0; i < n; i++) {
        calib_row *row = &lf->rows[i];
        row->rel_error = e[i];
        row->pred_time_s = c[i].time_s;
        row->pred_busbw_Bps = row->size_bytes / c[i].time_s * factor;
        calib_cost_text(lf->gop, &c[i], row->algorithm, sizeof row->algorithm);
        if (row->used && fabs(e[i]) > lf->max_abs_error)
            lf->max_abs_error = fabs(e[i]);
    }
    for (int k = 0; k < 2; k++) {
        int m = 0;
        for (int i = 0; i < n; i++)
            if (lf->rows[i].used && (int)lf->rows[i].regime == k)
                v[m++] = fabs(e[i]);
        double med = m ? calib_median(v, m) : 0;
        if (k == CALIB_REGIME_LATENCY)
            lf->n_latency = m, lf->median_latency = med;
        else
            lf->n_bandwidth = m, lf->median_bandwidth = med;
        if (m && med > CALIB_REGIME_WARN)
            warn(r, "%s: the written platform misses its own log by a median %.3g%% over the "
                    "%d %s-bound rows (above %.0f%%): the model (the tuner's algorithms and "
                    "protocols on this platform) does not follow this log's shape there; read "
                    "the per-row errors",
                 lf->path, 100 * med, m, k == CALIB_REGIME_LATENCY ? "latency" : "bandwidth",
                 100 * CALIB_REGIME_WARN);
    }
    rc = 0;
out:
    fit_arrays_free(&all);
    free(e);
    free(c);
    free(v);
    return rc;
}

/* "fitted to the N sizes ...: median |error| x%, max y% over the M sizes between" */
void calib_held_out_text(const calib_held_out *h, char *buf, size_t len)
{
    if (!h->done) {
        snprintf(buf, len, "%s", h->why_not);
        return;
    }
    snprintf(buf, len,
             "the fit repeated on %d of the sizes used (the 1st, 3rd, ... by size) predicts "
             "the %d size%s between with median |busbw error| %.3g%%, max %.3g%%",
             h->fit_rows, h->test_rows, h->test_rows == 1 ? "" : "s", 100 * h->median_abs_rel_error,
             100 * h->max_abs_rel_error);
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

/* A fitted bandwidth for `field` against the base's value there (its line rate). Above it:
 * refused unless opt->force (then a warning), or only a warning when the base's sources say
 * it is already a measured busbw. Below half of it: a warning. `extra` receives text for
 * $.sources. */
static int check_line_rate(const calib_options *opt, const gcsim_platform *base,
                           const cJSON *base_json, const calib_log_fit *lf, const char *field,
                           double fitted_Bps, double base_Bps, char *extra, size_t extra_len,
                           calib_result *r, gcsim_error *err)
{
    extra[0] = '\0';
    if (fitted_Bps < CALIB_LOW_RATE * base_Bps) {
        warn(r, "%s: %s = %.6g GB/s fitted, %.3g%% of the line rate %.6g GB/s of %s (below "
                "%.0f%%): either this link delivers far less than its rate, or the link that "
                "bounds the log is another one or the model misses it; check before using the "
                "platform",
             lf->path, field, fitted_Bps / 1e9, 100 * fitted_Bps / base_Bps, base_Bps / 1e9,
             base->source_path, 100 * CALIB_LOW_RATE);
        snprintf(extra, extra_len, "; %.3g%% of the base's line rate %.9g GB/s (a warning)",
                 100 * fitted_Bps / base_Bps, base_Bps / 1e9);
        return 0;
    }
    /* Beyond the 9 significant digits rate_text writes: a platform calibrated from this
     * very log holds the rate rounded, and a fit equal to it is no reason to stop. */
    if (!(fitted_Bps > base_Bps * (1.0 + 1e-8)))
        return 0;
    const char *source = base_source(base_json, field);
    if (source_is_measured(source)) {
        warn(r, "%s: %s = %.6g GB/s fitted exceeds %s's %.6g GB/s; that value's source says "
                "it was fitted or measured, so it is no line rate and the fit is written",
             lf->path, field, fitted_Bps / 1e9, base->source_path, base_Bps / 1e9);
        snprintf(extra, extra_len, "; above the base's %.9g GB/s, itself fitted or measured",
                 base_Bps / 1e9);
        return 0;
    }
    if (!opt->force)
        return gcsim_fail(err,
                          "%s: %s = %.6g GB/s fitted, above the line rate %.6g GB/s (%s's %s, "
                          "the nominal figure a platform engineer knows for this link: a link "
                          "cannot deliver more): check the GPU and node counts, nic.per_node "
                          "and the base platform, or give --force to write it anyway",
                          lf->path, field, fitted_Bps / 1e9, base_Bps / 1e9, base->source_path,
                          field);
    warn(r, "%s: %s = %.6g GB/s fitted, above the line rate %.6g GB/s of %s; written because "
            "of --force",
         lf->path, field, fitted_Bps / 1e9, base_Bps / 1e9, base->source_path);
    snprintf(extra, extra_len, "; above the base's line rate %.9g GB/s, written because of "
                               "--force", base_Bps / 1e9);
    return 0;
}

/* "fitted by gcsim calibrate to LOG (...): how; the written platform's error" */
static void describe_fit(const calib_options *opt, const calib_log_fit *lf, char *buf,
                         size_t len)
{
    char min_size[64] = "", table[96] = "", held[512];
    if (opt->min_size_bytes > 0) {
        char s[48];
        size_text(opt->min_size_bytes, s, sizeof s);
        snprintf(min_size, sizeof min_size, " with size >= %s", s);
    }
    if (lf->n_tables > 1)
        snprintf(table, sizeof table, " table %d of %d (lines %d-%d)", lf->table, lf->n_tables,
                 lf->table_first_line, lf->table_last_line);
    calib_held_out_text(&lf->held_out, held, sizeof held);
    char lat2[160] = "", forced[128] = "";
    if (lf->collective != COLLECTIVE_COUNT || lf->protocol != GCSIM_PROTO_COUNT)
        snprintf(forced, sizeof forced, ", with %s%s%s%s as the log's run forced them",
                 lf->collective != COLLECTIVE_COUNT ? "--collective " : "",
                 lf->collective != COLLECTIVE_COUNT ? gcsim_collective_name(lf->collective) : "",
                 lf->protocol != GCSIM_PROTO_COUNT ? " --protocol " : "",
                 lf->protocol != GCSIM_PROTO_COUNT ? gcsim_protocol_name(lf->protocol) : "");
    if (lf->fit.lat2_fitted)
        snprintf(lat2, sizeof lat2, " (%s polished with them: the node's hop latency, paid "
                                    "in the log's floor)", lf->lat2_field);
    int used = lf->n_latency + lf->n_bandwidth;
    char bands[200] = "";
    if (lf->corrected)
        snprintf(bands, sizeof bands, " (with $.busbw_correction's %d band%s fitted to this log; "
                 "the fields alone: %.3g%% and %.3g%%)", lf->bands.n_bands,
                 lf->bands.n_bands == 1 ? "" : "s", 100 * lf->model_median_latency,
                 100 * lf->model_median_bandwidth);
    snprintf(buf, len,
             "fitted by gcsim calibrate to %s%s (nccl-tests %s, %d GPUs on %d node%s, %s "
             "times, %d rows%s): every row costed as `gcsim collective` runs this platform (its "
             "algorithm or the tuner's pick of algorithm and protocol per size, analytic "
             "engine%s); %s set so that the median busbw error over the latency-bound rows is "
             "0, %s over the bandwidth-bound rows%s; the written platform's median |busbw "
             "error|: %.3g%% over %d latency-bound rows, %.3g%% over %d bandwidth-bound rows, "
             "max %.3g%%%s; held-out check: %s",
             lf->path, table, lf->op, lf->gpus, lf->nodes, lf->nodes == 1 ? "" : "s",
             opt->out_of_place ? "out-of-place" : "in-place", used, min_size, forced,
             lf->lat_field, lf->bw_field, lat2,
             100 * lf->median_latency, lf->n_latency, 100 * lf->median_bandwidth,
             lf->n_bandwidth, 100 * lf->max_abs_error, bands, held);
}

static void knob_text(calib_knob k, double v, char *buf, size_t len)
{
    if (calib_knob_is_bandwidth(k))
        rate_text(v, buf, len);
    else
        time_text(v, buf, len);
}

/* The changes of one log's fit: its bandwidth and latency knobs, written or kept. */
static int log_changes(const calib_options *opt, const gcsim_platform *base,
                       const cJSON *base_json, const gcsim_platform *fitted,
                       const calib_log_fit *lf, calib_result *r, gcsim_error *err)
{
    char fit[2700], old_v[64], new_v[64], extra[200];
    describe_fit(opt, lf, fit, sizeof fit);
    calib_knob knobs[3] = {lf->fit.bw_knob, lf->fit.lat_knob, lf->fit.lat2_knob};
    bool fitted_k[3] = {lf->fit.bw_fitted, lf->fit.lat_fitted, lf->fit.lat2_fitted};
    for (int j = 0; j < 3; j++) {
        calib_knob k = knobs[j];
        if (j == 2 && !fitted_k[j]) /* the second latency is written only when it moved */
            continue;
        const char *field = calib_knob_path(base, k);
        double b = calib_knob_get(base, k), v = calib_knob_get(fitted, k);
        knob_text(k, b, old_v, sizeof old_v);
        if (!fitted_k[j]) {
            calib_change *c = add_change(r, field, old_v, NULL);
            snprintf(c->source, sizeof c->source, "base value kept: the search left it there (no "
                     "row of the log depends on it enough to move it); %s", fit);
            continue;
        }
        extra[0] = '\0';
        if (calib_knob_is_bandwidth(k) &&
            check_line_rate(opt, base, base_json, lf, field, v, b, extra, sizeof extra, r, err))
            return -1;
        knob_text(k, v, new_v, sizeof new_v);
        const char *bound = "";
        if (j == 0 && lf->fit.bw_at_bound)
            bound = "; the search ended at its range's end: the median error could not be "
                    "brought to 0";
        if (j == 1 && lf->fit.lat_at_bound)
            bound = "; the search ended at its range's end: the median error could not be "
                    "brought to 0";
        calib_change *c = add_change(r, field, old_v, new_v);
        snprintf(c->source, sizeof c->source, "%s%s%s", fit, extra, bound);
    }
    return 0;
}

/* The log's file name, for "fitted_to" */
static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static double round6(double v)
{
    char t[32];
    snprintf(t, sizeof t, "%.6g", v);
    return strtod(t, NULL);
}

/* r->platform_json with $.busbw_correction (and its $.sources entry) replaced by the bands
 * of the logs that have them (none: the key removed, as a base's own is refitted). */
static int write_correction(calib_result *r, const char *origin, gcsim_error *err)
{
    static const char *const ops[] = {"all_reduce", "all_gather", "reduce_scatter"};
    bool any = false;
    for (int k = 0; k < r->n_logs; k++)
        any = any || r->logs[k].corrected;
    if (!any && !strstr(r->platform_json, "\"busbw_correction\"")) /* the file as patched */
        return 0;
    cJSON *root = cJSON_Parse(r->platform_json);
    if (!root)
        return gcsim_fail_internal(err, "%s: out of memory writing busbw_correction", origin);
    cJSON_DeleteItemFromObjectCaseSensitive(root, "busbw_correction");
    cJSON *sources = cJSON_GetObjectItemCaseSensitive(root, "sources");
    if (cJSON_IsObject(sources))
        cJSON_DeleteItemFromObjectCaseSensitive(sources, "busbw_correction");
    char text[2048] = "";
    cJSON *arr = NULL;
    for (int k = 0; k < r->n_logs; k++) {
        const calib_log_fit *lf = &r->logs[k];
        if (!lf->corrected)
            continue;
        if (!arr)
            arr = cJSON_AddArrayToObject(root, "busbw_correction");
        cJSON *e = cJSON_CreateObject();
        cJSON_AddItemToArray(arr, e);
        char name[128];
        snprintf(name, sizeof name, "%.127s", base_name(lf->path));
        cJSON_AddStringToObject(e, "fitted_to", name);
        cJSON_AddStringToObject(e, "collective", ops[lf->gop <= 2 ? lf->gop : 0]);
        cJSON_AddNumberToObject(e, "gpus", lf->gpus);
        cJSON *bands = cJSON_AddArrayToObject(e, "bands");
        for (int b = 0; b < lf->bands.n_bands; b++) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddItemToArray(bands, o);
            if (b < lf->bands.n_bands - 1)
                cJSON_AddNumberToObject(o, "below_bytes", lf->bands.below_bytes[b]);
            cJSON_AddNumberToObject(o, "busbw_factor", lf->bands.factor[b]);
        }
        size_t used = strlen(text);
        snprintf(text + used, sizeof text - used,
                 "%sfitted by gcsim calibrate to %s (%s on %d GPUs), no mechanism: %d size "
                 "band%s of busbw factors measured / modelled, applied to that operation on "
                 "that GPU count only; the fitted fields alone missed the log by a median "
                 "%.3g%% latency-bound, %.3g%% bandwidth-bound (steps in the log's busbw that "
                 "the model's curve does not follow); with the bands %.3g%%, %.3g%%",
                 used ? "; " : "", lf->path, ops[lf->gop <= 2 ? lf->gop : 0], lf->gpus,
                 lf->bands.n_bands, lf->bands.n_bands == 1 ? "" : "s",
                 100 * lf->model_median_latency, 100 * lf->model_median_bandwidth,
                 100 * lf->median_latency, 100 * lf->median_bandwidth);
    }
    if (arr) {
        if (!cJSON_IsObject(sources))
            sources = cJSON_AddObjectToObject(root, "sources");
        cJSON_AddStringToObject(sources, "busbw_correction", text);
    }
    char *printed = platform_patch_print(root);
    cJSON_Delete(root);
    if (!printed)
        return gcsim_fail_internal(err, "%s: out of memory writing busbw_correction", origin);
    free(r->platform_json);
    r->platform_json = printed;
    return 0;
}

/* Where the fitted fields leave a regime of a log above 5%: bands on its rows' errors,
 * rounded as written. Returns whether any log got them. */
static bool fit_corrections(calib_result *r)
{
    bool any = false;
    for (int k = 0; k < r->n_logs; k++) {
        calib_log_fit *lf = &r->logs[k];
        lf->model_median_latency = lf->median_latency;
        lf->model_median_bandwidth = lf->median_bandwidth;
        int n = lf->n_rows;
        double *e = malloc((size_t)n * sizeof *e);
        bool *use = malloc((size_t)n * sizeof *use);
        if (e && use) {
            for (int i = 0; i < n; i++) {
                e[i] = lf->rows[i].rel_error;
                use[i] = lf->rows[i].used;
            }
            lf->corrected = bands_for(lf, use, e, &lf->bands);
            for (int b = 0; lf->corrected && b < lf->bands.n_bands; b++)
                lf->bands.factor[b] = round6(lf->bands.factor[b]);
        }
        free(e);
        free(use);
        any = any || lf->corrected;
    }
    return any;
}

/* The logs' job settings on a platform read from a file (platform.h: never in the file). */
static void apply_job_settings(const calib_options *opt, gcsim_platform *p)
{
    p->nccl_env.min_channels = opt->nccl_min_channels;
    p->nccl_env.max_channels = opt->nccl_max_channels;
}

int calib_run(const calib_options *opt, calib_result *r, gcsim_error *err)
{
    memset(r, 0, sizeof *r);
    if (opt->n_logs < 1 || opt->n_logs > CALIB_MAX_LOGS)
        return gcsim_fail(err, "give one or two --log files (a single-node and a multi-node "
                               "one)");
    char *base_text = NULL;
    gcsim_platform base, written;
    if (json_read_file(opt->platform_path, PLATFORM_MAX_BYTES, &base_text, err) ||
        gcsim_platform_parse(base_text, opt->platform_path, &base, err)) {
        free(base_text);
        return -1;
    }
    apply_job_settings(opt, &base);
    int rc = -1;
    cJSON *base_json = cJSON_Parse(base_text);
    if (!base_json) {
        gcsim_fail_internal(err, "%s: out of memory reading the sources", opt->platform_path);
        goto out;
    }
    r->n_logs = opt->n_logs;
    int order[CALIB_MAX_LOGS] = {0, 1};
    for (int k = 0; k < opt->n_logs; k++)
        if (load_log(opt, k, &base, &r->logs[k], r, err))
            goto out;
    if (opt->n_logs == 2) {
        if (r->logs[0].multi_node == r->logs[1].multi_node) {
            gcsim_fail(err, "%s and %s: both are %s logs; give one single-node and one "
                            "multi-node log",
                       opt->log_paths[0], opt->log_paths[1],
                       r->logs[0].multi_node ? "multi-node" : "single-node");
            goto out;
        }
        if (r->logs[0].multi_node) { /* the node first: the network's fit runs on it */
            order[0] = 1;
            order[1] = 0;
        }
    }
    gcsim_platform w = base;
    if (base.busbw_correction.n > 0) { /* fitted to a log: the fields are fitted without it */
        w.busbw_correction.n = 0;
        note(r, "%s: its busbw_correction (fitted to %s) is left out of the fit and replaced",
             opt->platform_path, base.busbw_correction.entry[0].fitted_to);
    }
    if (opt->nccl_min_channels > 0 || opt->nccl_max_channels > 0) {
        char set[64] = "";
        if (opt->nccl_min_channels > 0)
            snprintf(set, sizeof set, "--nccl-min-channels %d", opt->nccl_min_channels);
        if (opt->nccl_max_channels > 0)
            snprintf(set + strlen(set), sizeof set - strlen(set), "%s--nccl-max-channels %d",
                     set[0] ? " " : "", opt->nccl_max_channels);
        note(r, "fitted with NCCL's channels as the logs' runs set them (%s): a job setting, "
                "not written to %s; give gcsim collective the same",
             set, opt->output_path);
    }
    bool node_set = false;
    for (int k = 0; k < opt->n_logs; k++) {
        calib_log_fit *lf = &r->logs[order[k]];
        if (fit_log(lf, &w, node_set, r, err))
            goto out;
        node_set = node_set || !lf->multi_node;
    }
    /* A fitted rate at most CALIB_RATE_SLACK above the base's is the base's: the fit's
     * resolution, not a link faster than its line rate. */
    for (int k = 0; k < opt->n_logs; k++) {
        calib_knob bk = r->logs[k].fit.bw_knob;
        double v = calib_knob_get(&w, bk), b = calib_knob_get(&base, bk);
        if (r->logs[k].fit.bw_fitted && v > b && v <= b * (1 + CALIB_RATE_SLACK)) {
            calib_knob_set(&w, bk, b);
            note(r, "%s: %s fitted %.6g GB/s, within %.0f%% above the base's %.6g GB/s: the "
                    "base's value is kept",
                 r->logs[k].path, calib_knob_path(&base, bk), v / 1e9, 100 * CALIB_RATE_SLACK,
                 b / 1e9);
        }
    }
    /* The written platform's error first (for $.sources), on the values as written: the
     * text is made, loaded back and scored, then made again with the sources complete. */
    for (int pass = 0; pass < 2; pass++) {
        r->n_changes = 0;
        int before = r->n_warnings;
        for (int k = 0; k < opt->n_logs; k++)
            if (log_changes(opt, &base, base_json, &w, &r->logs[order[k]], r, err))
                goto out;
        if (pass == 0)
            r->n_warnings = before; /* said again in pass 1 */
        platform_patch patches[sizeof r->changes / sizeof r->changes[0]];
        for (int i = 0; i < r->n_changes; i++) {
            patches[i].path = r->changes[i].path;
            patches[i].value = r->changes[i].new_value[0] ? r->changes[i].new_value : NULL;
            patches[i].source = r->changes[i].source;
        }
        free(r->platform_json);
        r->platform_json = NULL;
        if (platform_patch_apply(base_text, opt->platform_path, patches, r->n_changes,
                                 opt->output_path, &r->platform_json, err) ||
            write_correction(r, opt->output_path, err))
            goto out;
        if (gcsim_platform_parse(r->platform_json, opt->output_path, &written, err)) {
            err->internal = 1;
            goto out;
        }
        apply_job_settings(opt, &written);
        if (pass == 1)
            break;
        int scored = r->n_warnings;
        for (int k = 0; k < opt->n_logs; k++)
            if (score_written(&r->logs[k], &written, r, err))
                goto out;
        if (!fit_corrections(r))
            continue;
        /* the fields' own misses become a note; the corrected platform is scored */
        r->n_warnings = scored;
        if (write_correction(r, opt->output_path, err))
            goto out;
        if (gcsim_platform_parse(r->platform_json, opt->output_path, &written, err)) {
            err->internal = 1;
            goto out;
        }
        apply_job_settings(opt, &written);
        for (int k = 0; k < opt->n_logs; k++) {
            calib_log_fit *lf = &r->logs[k];
            if (score_written(lf, &written, r, err))
                goto out;
            if (lf->corrected)
                note(r, "%s: the fitted fields alone miss the log by a median %.3g%% "
                        "latency-bound, %.3g%% bandwidth-bound: %d busbw factor band%s by "
                        "message size written as $.busbw_correction, fitted to this log (no "
                        "mechanism; it applies to %d GPUs only)",
                     lf->path, 100 * lf->model_median_latency, 100 * lf->model_median_bandwidth,
                     lf->bands.n_bands, lf->bands.n_bands == 1 ? "" : "s", lf->gpus);
        }
    }
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
