/*
 * sim/cli/cli_convergence.h: the --convergence option of plan, predict and breakeven
 * (issue 26, docs/convergence.md): parsing, and the data files it reads as inputs of the
 * run. The factors: convergence_factors.h (sim/planning); their notes, meta and source
 * column: convergence_notes.h (sim/report).
 */
#ifndef GCSIM_CLI_CONVERGENCE_H
#define GCSIM_CLI_CONVERGENCE_H

#include "cli_files.h"
#include "convergence.h"
#include "convergence_notes.h"
#include "report.h"

/* none, catalog, train, bound or best; 0, or -1 after printing "gcsim CMD: --convergence:
 * ..." on stderr. */
int cli_convergence_option(const char *cmd, const char *arg, conv_source *out);

/* The data files convergence_factors reads for want (none for CONV_SOURCE_NONE),
 * listed as inputs of the run: an output must not replace them either. */
void cli_convergence_files(cli_files *f, conv_source want);


#endif
