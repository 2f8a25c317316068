/*
 * sim/plot/plot_gp.h: what the three pictures' scripts share (plot_gp.c): quoting,
 * the terminal lines, and the labels made of the columns that vary among rows.
 */
#ifndef GCSIM_PLOT_PLOT_GP_H
#define GCSIM_PLOT_PLOT_GP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "plot_script.h"
#include "plot_table.h"

/* text as a single-quoted gnuplot string ('' for a quote): no substitution inside. */
void gp_string(FILE *out, const char *text);
/* The script's first lines: where it came from, `out`, the terminal (width x height
 * pixels), the common styles. */
void gp_header(FILE *out, const plot_table *t, const plot_options *o, const char *what,
               int width, int height);
/* `set title` with the title (o->title or fallback) and a smaller second line. */
void gp_title(FILE *out, const plot_options *o, const char *fallback, const char *subtitle);
/* The title's gnuplot string expression alone (for `set multiplot ... title`). */
void gp_title_text(FILE *out, const plot_options *o, const char *fallback, const char *subtitle);
/* A number with the fewest digits that read back the same. */
void gp_number(FILE *out, double v);

/* The columns that tell rows apart (the case's settings, not its results). */
enum { PLOT_MAX_KEYS = 24 };
typedef struct {
    int n;
    int col[PLOT_MAX_KEYS];
    int shorten[PLOT_MAX_KEYS]; /* compressor specs shown by name (the names are unique) */
} plot_keys;

/* The columns of names present in t, split into those whose value varies among rows
 * (rows[0..n_rows-1]) and those that are the same in all of them. */
void plot_keys_find(const plot_table *t, const int *rows, int n_rows,
                    const char *const *names, plot_keys *varying, plot_keys *constant);
/* The values of the keys at row, joined by ", " (numbers as "batch 128"); cut to fit. */
void plot_keys_label(const plot_table *t, const plot_keys *k, int row, char *buf, size_t size);

/* The same with every key named ("stack fused") but platform and model, for a subtitle. */
void plot_keys_text(const plot_table *t, const plot_keys *k, int row, bool named, char *buf,
                    size_t size);

/* The setting columns of sweep, plan and predict rows that can tell cases apart. */
extern const char *const plot_setting_columns[];

/* Line styles 1..10: distinct colours and markers. */
void gp_line_styles(FILE *out);

int plot_sweep_write(const plot_table *t, const plot_options *o, FILE *out, gcsim_error *err);
/* A plan with one row per (platform, sharding), two or more of each, as bars clustered by
 * strategy: 1 when written, 0 when the plan is not of that shape (nothing written), -1 on
 * a bad number (err). */
int plot_plan_grouped_write(const plot_table *t, const plot_options *o, FILE *out,
                            gcsim_error *err);
int plot_plan_write(const plot_table *t, const plot_options *o, FILE *out, gcsim_error *err);
int plot_predict_write(const plot_table *t, const plot_options *o, FILE *out, gcsim_error *err);

#endif
