/* sim/plot/plot_predict.c: predict's step broken down per GPU count (compute, codec, exposed
 * communication as stacked bars, the iteration time as a marker) and the memory per GPU
 * beside it (plot_script.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_gp.h"

int plot_predict_write(const plot_table *t, const plot_options *o, FILE *out, gcsim_error *err)
{
    static const char *const need[] = {"gpus", "iteration_s", "compute_s", "compress_s",
                                       "exposed_comm_s"};
    int c[5];
    for (int k = 0; k < 5; k++) {
        if (plot_table_require(t, need[k], err))
            return -1;
        c[k] = plot_table_col(t, need[k]);
    }
    int c_status = plot_table_col(t, "status"), c_engine = plot_table_col(t, "engine");
    int c_mem = plot_table_col(t, "memory_bytes_per_gpu");
    if (t->n_rows > PLOT_MAX_BARS)
        return gcsim_fail(err, "%s: %d rows: at most %d GPU counts in one figure", t->file,
                          t->n_rows, PLOT_MAX_BARS);
    int n = t->n_rows, rows[PLOT_MAX_BARS];
    double v[PLOT_MAX_BARS][5], mem[PLOT_MAX_BARS];
    bool runs[PLOT_MAX_BARS], any_mem = false, any_run = false;
    double longest_s = 0;
    for (int r = 0; r < n; r++) {
        rows[r] = r;
        const char *status = plot_table_cell(t, r, c_status);
        runs[r] = c_status < 0 || (status && strcmp(status, "ok") == 0);
        if (plot_table_number(t, r, c[0], &v[r][0], err))
            return -1;
        mem[r] = NAN;
        if (!runs[r])
            continue;
        any_run = true;
        for (int k = 1; k < 5; k++) {
            if (plot_table_number(t, r, c[k], &v[r][k], err))
                return -1;
            if (v[r][k] < 0) {
                char where[1200];
                plot_table_where(t, r, need[k], where, sizeof where);
                return gcsim_fail(err, "%s: %g s: a time cannot be negative", where, v[r][k]);
            }
        }
        longest_s = fmax(longest_s, v[r][1]);
        if (plot_table_cell(t, r, c_mem)) {
            if (plot_table_number(t, r, c_mem, &mem[r], err))
                return -1;
            any_mem = true;
        }
    }
    if (!any_run)
        return gcsim_fail(err, "%s: no GPU count could run (every row's status says why): "
                               "nothing to draw", t->file);
    /* Milliseconds unless a step takes ten seconds or more. */
    bool ms = longest_s < 10;
    double scale = ms ? 1e3 : 1;
    /* Rows of --engine both: the engine tells two bars of one count apart. */
    plot_keys vary, fixed;
    static const char *const engine_only[] = {"engine", NULL}, *const none[] = {NULL};
    int ran[PLOT_MAX_BARS], n_ran = 0;
    for (int r = 0; r < n; r++)
        if (runs[r])
            ran[n_ran++] = rows[r];
    plot_keys_find(t, ran, n_ran, c_engine >= 0 ? engine_only : none, &vary, &fixed);
    char title[512], sub[2048] = "";
    snprintf(title, sizeof title, "gcsim predict: the step's time%s per GPU count",
             any_mem ? " and memory" : "");
    snprintf(sub, sizeof sub, "%s%s%s%s%s", t->model ? t->model : "", t->platform ? " on " : "",
             t->platform ? t->platform : "", t->context && t->model ? "; " : "",
             t->context ? t->context : "");
    gp_header(out, t, o, "the step's time per GPU count", any_mem ? 1200 : 900, 600);
    fputs("set datafile missing '?'\n", out);
    fputs("set xtics scale 0 (", out);
    for (int r = 0; r < n; r++) {
        char label[600], keys[512];
        keys[0] = '\0';
        if (runs[r])
            plot_keys_label(t, &vary, r, keys, sizeof keys);
        snprintf(label, sizeof label, "%g%s%s%s", v[r][0], *keys ? " " : "", keys,
                 runs[r] ? "" : " (cannot run)");
        fputs(r ? ", " : "", out);
        gp_string(out, label);
        fprintf(out, " %d", r);
    }
    fputs(")\n", out);
    bool rotate = n > 8 || vary.n;
    if (rotate)
        fputs("set xtics rotate by 35 right\n", out);
    fputs("set xlabel 'GPUs'\nset format y '%g'\nset style fill solid 0.85 border -1\n", out);
    fprintf(out, "$step << EOD\n# position compute codec exposed_communication iteration (%s; "
                 "? where the count cannot run)\n", ms ? "ms" : "s");
    for (int r = 0; r < n; r++) {
        fprintf(out, "# %s %s %ld\n%d", t->file, t->format == PLOT_JSON ? "row" : "line",
                t->line[r], r);
        /* the stack in the order drawn: compute, codec, exposed communication */
        static const int order[4] = {2, 3, 4, 1};
        for (int k = 0; k < 4; k++) {
            fputc(' ', out);
            if (runs[r])
                gp_number(out, v[r][order[k]] * scale);
            else
                fputs(k < 3 ? "0" : "?", out);
        }
        fputc('\n', out);
    }
    fputs("EOD\n", out);
    if (any_mem) {
        fputs("$memory << EOD\n# position GB_per_GPU (? where not given)\n", out);
        for (int r = 0; r < n; r++) {
            fprintf(out, "# %s %s %ld\n%d ", t->file, t->format == PLOT_JSON ? "row" : "line",
                    t->line[r], r);
            if (isfinite(mem[r]))
                gp_number(out, mem[r] / 1e9);
            else
                fputc('?', out);
            fputc('\n', out);
        }
        fputs("EOD\n", out);
        fputs("set multiplot layout 1,2 columns title ", out);
        gp_title_text(out, o, title, sub);
        fputc('\n', out);
    } else {
        gp_title(out, o, title, sub);
    }
    fprintf(out, "set ylabel 'Time per step (%s)'\n", ms ? "ms" : "s");
    fprintf(out, "set xrange [-0.6:%g]\nset yrange [0:%g]\n", n - 0.4,
            longest_s * scale * 1.4);
    fputs("set boxwidth 0.7\nset key top left\n"
          "plot $step using 1:($2+$3+$4) with boxes lc rgb '#2ca02c' title 'exposed communication', \\\n"
          "     $step using 1:($2+$3) with boxes lc rgb '#ff7f0e' title 'codec (encode + decode)', \\\n"
          "     $step using 1:2 with boxes lc rgb '#1f77b4' title 'compute', \\\n"
          "     $step using 1:5 with points pt 7 ps 1.3 lc rgb '#000000' title 'iteration time'\n",
          out);
    if (any_mem) {
        fputs("unset title\nunset key\nset ylabel 'Memory per GPU, estimate (GB)'\nset yrange [0:*]\n"
              "plot $memory using 1:2 with boxes lc rgb '#9467bd' notitle\n"
              "unset multiplot\n", out);
    }
    (void)fixed;
    return 0;
}
