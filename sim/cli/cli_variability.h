/*
 * sim/cli/cli_variability.h: the options of variable per-GPU compute and stragglers
 * (issue 41, sim/config/variability.h), shared by predict, sweep and plan:
 *   --compute-cv X         coefficient of variation of a GPU's per-iteration compute, 0..1
 *   --compute-dist D       its family: normal (truncated at 0), lognormal (default), pareto
 *   --slow-fraction F      fraction of the GPUs persistently slow, 0..1
 *   --slow-factor X        their compute factor (> 1; with --slow-fraction)
 *   --slow-rank R:X        rank R's compute factor X (>= 1)
 *   --seed N               the draws' seed (default 1)
 *   --iterations K         iterations the DES simulates (default: 10 or more until the 95%
 *                          interval of the mean is within 0.5%, at most 100)
 * Off unless one of --compute-cv, --slow-fraction and --slow-rank is given: every output
 * is then what it was without them.
 */
#ifndef GCSIM_CLI_VARIABILITY_H
#define GCSIM_CLI_VARIABILITY_H

#include <getopt.h>

#include "variability.h"

/* getopt values of the options (above the commands' own 1000-series codes) */
enum {
    CLI_VAR_CV = 1200, CLI_VAR_DIST, CLI_VAR_SLOW_FRACTION, CLI_VAR_SLOW_FACTOR,
    CLI_VAR_SLOW_RANK, CLI_VAR_SEED, CLI_VAR_ITERATIONS, CLI_VAR_PRESET,
    CLI_VAR_LAST = CLI_VAR_PRESET
};

/* The entries of a command's longopts table. */
#define CLI_VARIABILITY_LONGOPTS                                                           \
    {"compute-cv", required_argument, 0, CLI_VAR_CV},                                      \
        {"compute-dist", required_argument, 0, CLI_VAR_DIST},                              \
        {"slow-fraction", required_argument, 0, CLI_VAR_SLOW_FRACTION},                    \
        {"slow-factor", required_argument, 0, CLI_VAR_SLOW_FACTOR},                        \
        {"slow-rank", required_argument, 0, CLI_VAR_SLOW_RANK},                            \
        {"seed", required_argument, 0, CLI_VAR_SEED},                                      \
        {"iterations", required_argument, 0, CLI_VAR_ITERATIONS},                          \
        {"variability", required_argument, 0, CLI_VAR_PRESET}


/* Zeroed, no slow rank, lognormal, seed 1. */
void cli_variability_init(gcsim_variability *v);
/* Whether ch is one of these options. */
int cli_variability_is_option(int ch);
/* Parses one of them: 0, or -1 after "gcsim CMD: --OPTION: reason" on stderr. */
int cli_variability_option(const char *cmd, int ch, const char *arg, gcsim_variability *v);
/* After all options: applies a --variability preset to the CV and family not given
 * explicitly, sets v->on, refuses options that would do nothing (--slow-factor
 * without --slow-fraction, --compute-dist, --seed or --iterations without variable
 * compute). 0, or -1 after a message. */
int cli_variability_finish(const char *cmd, gcsim_variability *v);

#endif
