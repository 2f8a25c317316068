/*
 * sim/plot/plot_script.h: the gnuplot script that draws a gcsim output read by
 * plot_table.h (what `gcsim plot` runs, and writes with --script).
 *
 * The script is self-contained: the numbers it draws are inline data blocks ($series1 <<
 * EOD ... EOD), each line commented with the input line it came from, so that a user can
 * restyle the picture and redraw it with `gnuplot FILE` without gcsim or the input. The
 * picture goes to the variable `out` (the --output path unless set before the script:
 * gnuplot -e "out='other.png'" FILE). Every text taken from the input is written as a
 * single-quoted gnuplot string: gnuplot substitutes `backquoted` shell commands inside
 * double quotes, never inside single ones.
 *
 * What each kind draws:
 * - sweep: throughput against GPUs (log2 axis), one line per value of the columns that vary
 *   among the rows (platform, model, compressor, stack, collective, sharding, ...); tokens/s
 *   when every row drawn has it, else samples/s; rows whose status is not ok are left out
 *   (the subtitle counts them);
 * - plan: the ranked configurations as bars of throughput (best first, at most
 *   PLOT_MAX_BARS), the chosen one (rank 1 of a feasible plan) in its own colour, the
 *   throughput target as a dashed line when the JSON names it;
 * - predict: the step's time per GPU count as stacked bars of compute, codec (encode +
 *   decode) and exposed communication, the iteration time as a marker (the bars' sum), and,
 *   beside it, the memory per GPU where the rows carry it.
 */
#ifndef GCSIM_PLOT_PLOT_SCRIPT_H
#define GCSIM_PLOT_PLOT_SCRIPT_H

#include <stdbool.h>

#include "gcsim_error.h"
#include "plot_table.h"

enum {
    PLOT_MAX_SERIES = 40, /* sweep lines in one figure (more: a key nobody can read) */
    PLOT_MAX_BARS = 40    /* plan configurations and predict GPU counts */
};

typedef struct {
    const char *output; /* the picture's path as given: the script's default `out` */
    bool svg;           /* svg terminal, else pngcairo */
    const char *title;  /* NULL: one made from the input */
} plot_options;

/* Whether path names a picture gnuplot can write: 1 for .svg, 0 for .png (any case), -1
 * for anything else. */
int plot_output_is_svg(const char *path);

/* Builds the script drawing t. Returns 0 with a malloc'd NUL-terminated script in *script,
 * or -1 with the reason in err (a column missing, a value not a number, nothing to draw:
 * naming the file and the line or JSON path). */
int plot_script_build(const plot_table *t, const plot_options *o, char **script,
                      gcsim_error *err);

#endif
