/*
 * sim/plot/plot_gnuplot.h: running gnuplot on a script, as a child process.
 *
 * The program is $GCSIM_GNUPLOT when set (a path or a name looked up in PATH), else
 * "gnuplot". Its standard output and error are captured, never passed to gcsim's standard
 * output. gnuplot missing, killed, or exiting non-zero is a failure of the environment,
 * not of the input: err->internal is set (the commands exit 3) and the message names the
 * program and quotes the end of what it printed.
 */
#ifndef GCSIM_PLOT_PLOT_GNUPLOT_H
#define GCSIM_PLOT_PLOT_GNUPLOT_H

#include "gcsim_error.h"

/* The program run: $GCSIM_GNUPLOT, else "gnuplot". */
const char *plot_gnuplot_program(void);

/* Runs `PROGRAM -e "out='picture'" script`. Returns 0, with what gnuplot printed (warnings)
 * in *printed (malloc'd; NULL when nothing), or -1 with the reason in err. */
int plot_gnuplot_run(const char *script, const char *picture, char **printed, gcsim_error *err);

#endif
