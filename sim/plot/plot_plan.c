/* sim/plot/plot_plan.c: a plan's ranked configurations as bars of throughput, the chosen
 * one marked (plot_script.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_gp.h"

int plot_plan_write(const plot_table *t, const plot_options *o, FILE *out, gcsim_error *err)
{
    /* one row per (platform, sharding), several of each: clustered bars (plot_plan_grouped.c) */
    int grouped = plot_plan_grouped_write(t, o, out, err);
    if (grouped)
        return grouped < 0 ? -1 : 0;
    if (plot_table_require(t, "rank", err) || plot_table_require(t, "gpus", err) ||
        plot_table_require(t, "throughput_samples_per_s", err))
        return -1;
    int c_rank = plot_table_col(t, "rank"), c_gpus = plot_table_col(t, "gpus");
    int c_tokens = plot_table_col(t, "tokens_per_s"), c_why = plot_table_col(t, "why_not");
    int n = t->n_rows < PLOT_MAX_BARS ? t->n_rows : PLOT_MAX_BARS;
    int rows[PLOT_MAX_BARS];
    double y[PLOT_MAX_BARS], gpus[PLOT_MAX_BARS], rank[PLOT_MAX_BARS];
    bool tokens = c_tokens >= 0;
    for (int r = 0; r < n; r++) {
        rows[r] = r;
        tokens = tokens && plot_table_cell(t, r, c_tokens);
    }
    int c_y = tokens ? c_tokens : plot_table_col(t, "throughput_samples_per_s");
    double ymax = 0;
    for (int r = 0; r < n; r++) {
        if (plot_table_number(t, r, c_rank, &rank[r], err) ||
            plot_table_number(t, r, c_gpus, &gpus[r], err) ||
            plot_table_number(t, r, c_y, &y[r], err))
            return -1;
        if (r && !(rank[r] >= rank[r - 1])) {
            char where[1200];
            plot_table_where(t, r, "rank", where, sizeof where);
            return gcsim_fail(err, "%s: rank %g after rank %g: plan writes its rows best first",
                              where, rank[r], rank[r - 1]);
        }
        if (y[r] < 0) {
            char where[1200];
            plot_table_where(t, r, t->cols[c_y], where, sizeof where);
            return gcsim_fail(err, "%s: %g: a throughput cannot be negative", where, y[r]);
        }
        ymax = fmax(ymax, y[r]);
    }
    /* The chosen configuration: rank 1 of a plan that met its target. */
    bool feasible = t->feasible != 0 && !plot_table_cell(t, 0, c_why) && rank[0] == 1;
    bool target = !tokens && isfinite(t->target_samples_per_s) && t->target_samples_per_s > 0;
    if (target)
        ymax = fmax(ymax, t->target_samples_per_s);
    plot_keys vary, fixed;
    plot_keys_find(t, rows, n, plot_setting_columns, &vary, &fixed);
    char labels[PLOT_MAX_BARS][600];
    size_t longest = 0;
    for (int r = 0; r < n; r++) {
        char keys[512];
        plot_keys_label(t, &vary, r, keys, sizeof keys);
        snprintf(labels[r], sizeof labels[r], "%s%s%g GPUs", keys, *keys ? ", " : "", gpus[r]);
        longest = strlen(labels[r]) > longest ? strlen(labels[r]) : longest;
    }
    char title[512], sub[2048] = "";
    snprintf(title, sizeof title, "gcsim plan: %s%s%s", t->model ? t->model : "",
             t->model ? ", " : "", "configurations ranked best first");
    plot_keys_text(t, &fixed, 0, true, sub, 512);
    size_t used = strlen(sub);
    if (t->rank_by)
        used += (size_t)snprintf(sub + used, sizeof sub - used, "%sranked by %s", used ? "; " : "",
                                 t->rank_by);
    snprintf(sub + used, sizeof sub - used, "%s%s%s", used ? "; " : "",
             feasible ? "red: the chosen configuration (rank 1)"
                      : "none meets the target: the closest configurations",
             t->n_rows > n ? " (the first 40 ranks)" : "");
    gp_header(out, t, o, "ranked configurations", 1100, 700);
    gp_title(out, o, title, sub);
    /* Rotated tick labels take about a quarter of a text line per character. */
    fprintf(out, "set bmargin %d\n", (int)(longest / 4) + 4);
    fprintf(out, "set ylabel 'Throughput (%s)'\n", tokens ? "tokens/s" : "samples/s");
    fprintf(out, "set xrange [-0.6:%g]\nset yrange [0:%g]\n", n - 0.4, ymax * 1.15);
    fputs("set style fill solid 0.85 border -1\nset boxwidth 0.7\nset format y '%g'\n"
          "set key outside top center horizontal\nset lmargin 12\nset xtics rotate by 35 right scale 0 (", out);
    for (int r = 0; r < n; r++) {
        fputs(r ? ", " : "", out);
        gp_string(out, labels[r]);
        fprintf(out, " %d", r);
    }
    fputs(")\n", out);
    for (int pass = 0; pass < 2; pass++) {
        fprintf(out, "$%s << EOD\n# position %s rank\n", pass ? "chosen" : "others", t->cols[c_y]);
        for (int r = 0; r < n; r++) {
            if ((r == 0 && feasible) != (pass == 1))
                continue;
            fprintf(out, "# %s %s %ld\n", t->file, t->format == PLOT_JSON ? "row" : "line", t->line[r]);
            fprintf(out, "%d ", r);
            gp_number(out, y[r]);
            fputc(' ', out);
            gp_number(out, rank[r]);
            fputc('\n', out);
        }
        fputs("EOD\n", out);
    }
    if (target) {
        fputs("target = ", out);
        gp_number(out, t->target_samples_per_s);
        fputc('\n', out);
    }
    /* An empty data block would make gnuplot warn: each clause only where it has bars. */
    bool others = n > (feasible ? 1 : 0);
    fputs("plot ", out);
    if (others)
        fputs("$others using 1:2 with boxes lc rgb '#1f77b4' title 'configurations', \\\n"
              "     $others using 1:2:(sprintf('%.4g', $2)) with labels offset 0,0.7 font ',9' "
              "notitle", out);
    if (feasible)
        fprintf(out, "%s$chosen using 1:2 with boxes lc rgb '#d62728' title 'chosen (rank 1)', "
                "\\\n     $chosen using 1:2:(sprintf('%%.4g', $2)) with labels offset 0,0.7 "
                "font ',9' notitle", others ? ", \\\n     " : "");
    if (target)
        fputs(", \\\n     target with lines dt 2 lw 1.5 lc rgb '#000000' title "
              "sprintf('target: %g samples/s', target)", out);
    fputc('\n', out);
    return 0;
}
