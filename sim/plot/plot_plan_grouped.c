/* sim/plot/plot_plan_grouped.c: a plan that searched strategies on several platforms, shown
 * best row per (platform, sharding) (gcsim plan --best-per platform,sharding), as clustered
 * bars: one cluster per strategy, one bar per platform (issue 46: "which strategy on 8 x 400G
 * and on 1 x 400G"). plot_plan_write draws every other plan. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_gp.h"

enum { MAX_PLATFORMS = 8, MAX_STRATEGIES = 40 };

/* Index of s in names[0..n-1], else adds it (at most max). -1 when full. */
static int intern(const char **names, int *n, int max, const char *s)
{
    for (int k = 0; k < *n; k++)
        if (strcmp(names[k], s) == 0)
            return k;
    if (*n >= max)
        return -1;
    names[*n] = s;
    return (*n)++;
}

int plot_plan_grouped_write(const plot_table *t, const plot_options *o, FILE *out,
                            gcsim_error *err)
{
    int c_pf = plot_table_col(t, "platform"), c_sh = plot_table_col(t, "sharding");
    int c_tok = plot_table_col(t, "tokens_per_s");
    int c_y = c_tok >= 0 ? c_tok : plot_table_col(t, "throughput_samples_per_s");
    if (c_pf < 0 || c_sh < 0 || c_y < 0 || t->n_rows < 2 || t->n_rows > MAX_STRATEGIES)
        return 0;
    const char *pfs[MAX_PLATFORMS], *shs[MAX_STRATEGIES];
    int n_pf = 0, n_sh = 0;
    static double y[MAX_STRATEGIES][MAX_PLATFORMS];
    static long line[MAX_STRATEGIES][MAX_PLATFORMS];
    for (int s = 0; s < MAX_STRATEGIES; s++)
        for (int p = 0; p < MAX_PLATFORMS; p++)
            y[s][p] = NAN;
    for (int r = 0; r < t->n_rows; r++) {
        const char *pf = plot_table_cell(t, r, c_pf), *sh = plot_table_cell(t, r, c_sh);
        if (!pf || !sh || !plot_table_cell(t, r, c_y))
            return 0;
        int p = intern(pfs, &n_pf, MAX_PLATFORMS, pf), s = intern(shs, &n_sh, MAX_STRATEGIES, sh);
        if (p < 0 || s < 0 || !isnan(y[s][p]))
            return 0; /* too many, or a pair twice: not one row per (platform, sharding) */
        if (plot_table_number(t, r, c_y, &y[s][p], err))
            return -1;
        line[s][p] = t->line[r];
    }
    if (n_pf < 2 || n_sh < 2)
        return 0;
    double ymax = 0;
    for (int s = 0; s < n_sh; s++)
        for (int p = 0; p < n_pf; p++)
            if (!isnan(y[s][p]))
                ymax = fmax(ymax, y[s][p]);
    int rows[MAX_STRATEGIES];
    for (int r = 0; r < t->n_rows; r++)
        rows[r] = r;
    plot_keys vary, fixed;
    plot_keys_find(t, rows, t->n_rows, plot_setting_columns, &vary, &fixed);
    char title[512], sub[1024] = "";
    snprintf(title, sizeof title, "gcsim plan: %s%s%s per sharding strategy and platform",
             t->model ? t->model : "", t->model ? ", " : "", c_tok >= 0 ? "tokens/s" : "samples/s");
    plot_keys_text(t, &fixed, 0, true, sub, 512);
    size_t used = strlen(sub);
    snprintf(sub + used, sizeof sub - used, "%sthe best row of each; strategies in rank order, "
             "an empty slot: did not fit", used ? "; " : "");
    gp_header(out, t, o, "best throughput per strategy and platform", 1100, 600);
    gp_title(out, o, title, sub);
    fprintf(out, "set ylabel 'Throughput (%s)'\nset yrange [0:%g]\n",
            c_tok >= 0 ? "tokens/s" : "samples/s", ymax * 1.18);
    fputs("set style data histograms\nset style histogram clustered gap 1\n"
          "set style fill solid 0.85 border -1\nset boxwidth 0.9\nset datafile missing '?'\n"
          "set format y '%g'\nset key outside top center horizontal\nset lmargin 12\n"
          "set bmargin 7\nset xtics rotate by 30 right scale 0\n", out);
    fputs("$data << EOD\n# strategy", out);
    for (int p = 0; p < n_pf; p++)
        fprintf(out, " %s", pfs[p]);
    fputc('\n', out);
    for (int s = 0; s < n_sh; s++) {
        fprintf(out, "# %s %s", t->file, t->format == PLOT_JSON ? "rows" : "lines");
        for (int p = 0; p < n_pf; p++)
            if (!isnan(y[s][p]))
                fprintf(out, " %ld", line[s][p]);
        fprintf(out, "\n\"%s\"", shs[s]);
        for (int p = 0; p < n_pf; p++) {
            fputc(' ', out);
            if (isnan(y[s][p]))
                fputc('?', out);
            else
                gp_number(out, y[s][p]);
        }
        fputc('\n', out);
    }
    fputs("EOD\n", out);
    static const char *const colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                          "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
    fputs("plot ", out);
    for (int p = 0; p < n_pf; p++) {
        fprintf(out, "%s$data using %d%s lc rgb '%s' title ", p ? ", \\\n     " : "", p + 2,
                p ? "" : ":xtic(1)", colours[p]);
        gp_string(out, pfs[p]);
    }
    /* each bar's value, thousands, above it: bar p of cluster x sits at x + (p - (n-1)/2)
     * / (n + gap) */
    for (int p = 0; p < n_pf; p++)
        fprintf(out, ", \\\n     $data using ($0 + (%d - %g) / %d.0):($%d):(sprintf('%%.1fk', "
                "$%d / 1000)) with labels rotate by 90 left offset 0,0.3 font ',8' notitle",
                p, (n_pf - 1) / 2.0, n_pf + 1, p + 2, p + 2);
    fputc('\n', out);
    return 1;
}
