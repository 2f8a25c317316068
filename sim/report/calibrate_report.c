/* gcsim calibrate's table and notes; see calibrate_report.h. */
#include "calibrate_report.h"

#include <stdio.h>
#include <string.h>

static void add_notes(report *rep, const calib_options *calib, const calib_result *r)
{
    char key[64], value[1024];
    snprintf(value, sizeof value, "%s -> %s", calib->platform_path, calib->output_path);
    report_note(rep, "platform", value);
    report_meta_str(rep, "platform.file", calib->platform_path);
    report_meta_str(rep, "output_file", calib->output_path);
    report_meta_int(rep, "logs", r->n_logs);
    for (int k = 0; k < r->n_logs; k++) {
        const calib_log_fit *lf = &r->logs[k];
        snprintf(key, sizeof key, "log %d", k + 1);
        char table[96] = "";
        if (lf->n_tables > 1)
            snprintf(table, sizeof table, " (table %d of %d: lines %d-%d)", lf->table,
                     lf->n_tables, lf->table_first_line, lf->table_last_line);
        snprintf(value, sizeof value, "%s%s: %s, %d GPUs on %d node%s (%s)%s%s, %s times",
                 lf->path, table, lf->op, lf->gpus, lf->nodes, lf->nodes == 1 ? "" : "s",
                 lf->counts_from_log ? "from its Rank lines" : "from --gpus/--nodes",
                 lf->device[0] ? ", " : "", lf->device,
                 calib->out_of_place ? "out-of-place" : "in-place");
        report_note(rep, key, value);
        snprintf(key, sizeof key, "fit %d", k + 1);
        snprintf(value, sizeof value,
                 "%s and %s searched so that the platform, run as `gcsim collective` runs it, "
                 "has a median busbw error of 0 over the latency-bound and the bandwidth-bound "
                 "rows%s%s%s",
                 lf->lat_field, lf->bw_field, lf->fit.lat2_fitted ? "; " : "",
                 lf->fit.lat2_fitted ? lf->lat2_field : "",
                 lf->fit.lat2_fitted ? " polished with them (the node's hop latency, paid in "
                                       "the log's floor)" : "");
        report_note(rep, key, value);
        snprintf(key, sizeof key, "error %d", k + 1);
        snprintf(value, sizeof value,
                 "the written platform on its own log: median |busbw error| %.3g%% over %d "
                 "latency-bound rows, %.3g%% over %d bandwidth-bound rows; max %.3g%%",
                 100 * lf->median_latency, lf->n_latency, 100 * lf->median_bandwidth,
                 lf->n_bandwidth, 100 * lf->max_abs_error);
        if (lf->corrected) { /* a fit, said as one (docs/calibrate.md) */
            size_t used = strlen(value);
            snprintf(value + used, sizeof value - used,
                     ", with busbw_correction: %d busbw factor band%s fitted to this log (the "
                     "fitted fields alone: %.3g%% and %.3g%%)",
                     lf->bands.n_bands, lf->bands.n_bands == 1 ? "" : "s",
                     100 * lf->model_median_latency, 100 * lf->model_median_bandwidth);
        }
        report_note(rep, key, value);
        snprintf(key, sizeof key, "held-out %d", k + 1);
        calib_held_out_text(&lf->held_out, value, sizeof value);
        report_note(rep, key, value);
    }
    for (int i = 0; i < r->n_notes; i++) {
        snprintf(key, sizeof key, "note %d", i + 1);
        report_note(rep, key, r->notes[i]);
    }
    for (int i = 0; i < r->n_changes; i++) {
        const calib_change *c = &r->changes[i];
        if (c->new_value[0])
            snprintf(value, sizeof value, "%s -> %s", c->old_value, c->new_value);
        else
            snprintf(value, sizeof value, "%s kept", c->old_value);
        report_note(rep, c->path, value);
    }
    for (int i = 0; i < r->n_warnings; i++) {
        snprintf(key, sizeof key, "warning %d", i + 1);
        report_note(rep, key, r->warnings[i]);
    }
}

report *calibrate_report(const calib_options *calib, const calib_result *r)
{
    report *rep = report_new_for_file("calibrate");
    add_notes(rep, calib, r);
    /* The columns of schema version 1 keep their names and units (docs/schema.json): fit_*
     * are the written platform's figures, rel_error_pct its time error, alpha_s and B_Bps
     * the latency and bandwidth fields it was given; regime, busbw_error_pct and algorithm
     * were added by issue 42. */
    int col[16];
    col[0] = report_column(rep, "log", "log", -1);
    col[1] = report_column(rep, "gpus", "GPUs", -1);
    col[2] = report_column(rep, "nodes", "nodes", -1);
    col[3] = report_column(rep, "line", "line", -1);
    col[4] = report_column(rep, "size_bytes", "size B", -1);
    /* yes: in both fits; held-out: left out of the held-out check's; no: below --min-size */
    col[5] = report_column(rep, "in_fit", "fit", -1);
    /* seconds and bytes per second in CSV and JSON; the text table shows us and GB/s */
    col[6] = report_column_scaled(rep, "time_s", "time us", 2, 1e6);
    col[7] = report_column_scaled(rep, "busbw_Bps", "busbw GB/s", 2, 1e-9);
    col[8] = report_column_scaled(rep, "fit_time_s", "platform us", 2, 1e6);
    col[9] = report_column_scaled(rep, "fit_busbw_Bps", "platform GB/s", 2, 1e-9);
    col[10] = report_column(rep, "rel_error_pct", "time err %", 2);
    col[11] = report_column_scaled(rep, "alpha_s", "latency us", 3, 1e6);
    col[12] = report_column_scaled(rep, "B_Bps", "bandwidth GB/s", 2, 1e-9);
    col[13] = report_column(rep, "regime", "regime", -1);
    col[14] = report_column(rep, "busbw_error_pct", "busbw err %", 2);
    col[15] = report_column(rep, "algorithm", "algorithm", -1);
    /* the text table in 100 columns (issue 46): a point is its log and size; measured beside
     * fitted, then the fit's figures */
    report_column_brief(rep, col[11], "alpha us");
    report_column_brief(rep, col[12], "B GB/s");
    {
        const int lead[] = {col[0], col[4], col[5], col[6], col[8], col[10], col[7], col[9],
                            col[14], col[13], col[15]};
        report_table_lead(rep, 2, lead, (int)(sizeof lead / sizeof lead[0]));
    }
    for (int k = 0; k < r->n_logs; k++) {
        const calib_log_fit *lf = &r->logs[k];
        for (int i = 0; i < lf->n_rows; i++) {
            const calib_row *row = &lf->rows[i];
            report_row(rep);
            /* the fitted table's short form (--wide: the path, as before) */
            const char *base = report_table_limit() ? strrchr(lf->path, '/') : NULL;
            report_str_table(rep, col[0], lf->path, base ? base + 1 : lf->path);
            report_int(rep, col[1], lf->gpus);
            report_int(rep, col[2], lf->nodes);
            report_int(rep, col[3], row->line);
            report_int(rep, col[4], (long long)row->size_bytes);
            report_str(rep, col[5], !row->used ? "no" : row->held_out ? "held-out" : "yes");
            report_num(rep, col[6], row->time_s);
            report_num(rep, col[7], row->busbw_Bps);
            report_num(rep, col[8], row->pred_time_s);
            report_num(rep, col[9], row->pred_busbw_Bps);
            report_num(rep, col[10], 100 * (row->pred_time_s - row->time_s) / row->time_s);
            report_num(rep, col[11], lf->lat_value_s);
            report_num(rep, col[12], lf->bw_value_Bps);
            report_str(rep, col[13], row->regime == CALIB_REGIME_LATENCY ? "latency"
                                                                         : "bandwidth");
            report_num(rep, col[14], 100 * row->rel_error);
            report_str(rep, col[15], row->algorithm);
        }
    }
    return rep;
}

