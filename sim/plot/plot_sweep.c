/* sim/plot/plot_sweep.c: a sweep as throughput against GPUs, one line per case setting
 * (plot_script.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_gp.h"

typedef struct {
    int *rows, n;
} series;

/* Whether rows a and b have the same value in every varying key. */
static bool same_series(const plot_table *t, const plot_keys *k, int a, int b)
{
    for (int i = 0; i < k->n; i++) {
        const char *x = plot_table_cell(t, a, k->col[i]), *y = plot_table_cell(t, b, k->col[i]);
        if (!(x == y || (x && y && strcmp(x, y) == 0)))
            return false;
    }
    return true;
}

static const double *sort_gpus; /* for by_gpus: each row's GPU count */
static int by_gpus(const void *a, const void *b)
{
    double x = sort_gpus[*(const int *)a], y = sort_gpus[*(const int *)b];
    return x < y ? -1 : x > y ? 1 : *(const int *)a - *(const int *)b;
}

/* Line styles 1..10: distinct colours and markers, reused after ten. */
void gp_line_styles(FILE *out)
{
    static const char *const colour[10] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                           "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    static const int point[10] = {7, 9, 5, 11, 13, 15, 4, 6, 8, 10};
    for (int k = 0; k < 10; k++)
        fprintf(out, "set style line %d lc rgb '%s' lw 2 pt %d ps 1.0\n", k + 1, colour[k], point[k]);
}

int plot_sweep_write(const plot_table *t, const plot_options *o, FILE *out, gcsim_error *err)
{
    if (plot_table_require(t, "gpus", err) || plot_table_require(t, "throughput_samples_per_s", err))
        return -1;
    int c_gpus = plot_table_col(t, "gpus"), c_status = plot_table_col(t, "status");
    int c_tokens = plot_table_col(t, "tokens_per_s");
    int rc = -1, n_ok = 0, skipped = 0, n_series = 0;
    int *ok = malloc((size_t)t->n_rows * sizeof *ok);
    double *gpus = malloc((size_t)t->n_rows * sizeof *gpus), *y = malloc((size_t)t->n_rows * sizeof *y);
    series *s = calloc(PLOT_MAX_SERIES, sizeof *s);
    if (!ok || !gpus || !y || !s) {
        gcsim_fail_internal(err, "out of memory");
        goto done;
    }
    for (int r = 0; r < t->n_rows; r++) {
        const char *status = plot_table_cell(t, r, c_status);
        if (c_status >= 0 && !(status && strcmp(status, "ok") == 0)) {
            skipped++;
            continue;
        }
        ok[n_ok++] = r;
    }
    if (n_ok == 0) {
        gcsim_fail(err, "%s: no row has status ok (%d rows could not run): nothing to draw",
                   t->file, t->n_rows);
        goto done;
    }
    bool tokens = c_tokens >= 0;
    for (int k = 0; k < n_ok && tokens; k++)
        tokens = plot_table_cell(t, ok[k], c_tokens) != NULL;
    int c_y = tokens ? c_tokens : plot_table_col(t, "throughput_samples_per_s");
    for (int k = 0; k < n_ok; k++) {
        int r = ok[k];
        if (plot_table_number(t, r, c_gpus, &gpus[r], err) ||
            plot_table_number(t, r, c_y, &y[r], err))
            goto done;
        char where[1200];
        if (!(gpus[r] >= 1)) {
            plot_table_where(t, r, "gpus", where, sizeof where);
            gcsim_fail(err, "%s: %g GPUs: at least 1 needed", where, gpus[r]);
            goto done;
        }
        if (!(y[r] > 0)) {
            plot_table_where(t, r, t->cols[c_y], where, sizeof where);
            gcsim_fail(err, "%s: %g: a throughput must be positive (the axis is logarithmic)",
                       where, y[r]);
            goto done;
        }
    }
    plot_keys vary, fixed;
    plot_keys_find(t, ok, n_ok, plot_setting_columns, &vary, &fixed);
    for (int k = 0; k < n_ok; k++) {
        int r = ok[k], i = 0;
        while (i < n_series && !same_series(t, &vary, s[i].rows[0], r))
            i++;
        if (i == n_series) {
            if (n_series == PLOT_MAX_SERIES) {
                gcsim_fail(err, "%s: more than %d series (one per value of the settings that "
                                "vary: platform, model, compressor, ...): too many lines for "
                                "one figure (plot a part of the output)", t->file, PLOT_MAX_SERIES);
                goto done;
            }
            if (!(s[i].rows = malloc((size_t)n_ok * sizeof *s[i].rows))) {
                gcsim_fail_internal(err, "out of memory");
                goto done;
            }
            n_series++;
        }
        s[i].rows[s[i].n++] = r;
    }
    /* The figure. */
    char title[512], sub[2048] = "";
    snprintf(title, sizeof title, "gcsim sweep: %s against GPUs", tokens ? "tokens/s" : "samples/s");
    if (fixed.n)
        plot_keys_text(t, &fixed, ok[0], true, sub, 512);
    if (skipped)
        snprintf(sub + strlen(sub), sizeof sub - strlen(sub), "%s%d row%s not ok left out "
                 "(status)", *sub ? "; " : "", skipped, skipped == 1 ? "" : "s");
    /* Taller for a long key (outside, at the right): about 17 pixels an entry. */
    int height = 140 + 17 * n_series > 620 ? 140 + 17 * n_series : 620;
    gp_header(out, t, o, tokens ? "tokens/s against GPUs" : "samples/s against GPUs", 1000,
              height);
    gp_line_styles(out);
    gp_title(out, o, title, sub);
    double lo = INFINITY, hi = 0, ylo = INFINITY, yhi = 0;
    for (int k = 0; k < n_ok; k++) {
        lo = fmin(lo, gpus[ok[k]]), hi = fmax(hi, gpus[ok[k]]);
        ylo = fmin(ylo, y[ok[k]]), yhi = fmax(yhi, y[ok[k]]);
    }
    fputs("set logscale x 2\nset xlabel 'GPUs'\n", out);
    fprintf(out, "set ylabel 'Throughput (%s)'\n", tokens ? "tokens/s" : "samples/s");
    fprintf(out, "set xrange [%g:%g]\n", lo / 1.3, hi * 1.3);
    if (yhi / ylo > 20)
        fputs("set logscale y 10\n", out);
    fputs("set format y '%g'\nset format x '%g'\nset key outside right top\n", out);
    for (int i = 0; i < n_series; i++) {
        sort_gpus = gpus;
        qsort(s[i].rows, (size_t)s[i].n, sizeof *s[i].rows, by_gpus);
        fprintf(out, "$series%d << EOD\n# GPUs %s\n", i + 1, t->cols[c_y]);
        for (int k = 0; k < s[i].n; k++) {
            int r = s[i].rows[k];
            if (k && gpus[r] == gpus[s[i].rows[k - 1]]) {
                char a[1200];
                plot_table_where(t, r, "gpus", a, sizeof a);
                gcsim_fail(err, "%s: a second row at %g GPUs with the same settings as the row "
                                "of %s %ld (they differ in a column gcsim plot does not tell "
                                "series apart by)", a, gpus[r],
                           t->format == PLOT_JSON ? "rows index" : "line",
                           t->line[s[i].rows[k - 1]]);
                goto done;
            }
            fprintf(out, "# %s %s %ld\n", t->file, t->format == PLOT_JSON ? "row" : "line", t->line[r]);
            gp_number(out, gpus[r]);
            fputc(' ', out);
            gp_number(out, y[r]);
            fputc('\n', out);
        }
        fputs("EOD\n", out);
    }
    fputs("plot ", out);
    for (int i = 0; i < n_series; i++) {
        char label[512];
        plot_keys_label(t, &vary, s[i].rows[0], label, sizeof label);
        /* Past ten lines the colours repeat: another dash and marker tell them apart. */
        static const int point[10] = {7, 9, 5, 11, 13, 15, 4, 6, 8, 10};
        fprintf(out, "%s$series%d using 1:2 with linespoints ls %d dt %d pt %d title ",
                i ? ", \\\n     " : "", i + 1, i % 10 + 1, i / 10 + 1, point[(i + i / 10) % 10]);
        gp_string(out, *label ? label : (t->model ? t->model : "all rows"));
    }
    fputc('\n', out);
    rc = 0;
done:
    for (int i = 0; s && i < n_series; i++)
        free(s[i].rows);
    free(s);
    free(ok);
    free(gpus);
    free(y);
    return rc;
}
