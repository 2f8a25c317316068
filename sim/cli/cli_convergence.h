/*
 * sim/cli/cli_convergence.h: the --convergence option of plan, predict and breakeven
 * (issue 26, docs/convergence.md): parsing, loading the sources the library reads from the
 * data folder (models/convergence/outcomes.tsv, train_factors.tsv, a shipped gradient trace
 * for the bound), and the notes that name each factor's source. The factors themselves come
 * from sim/convergence (convergence.h).
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

/* The data files cli_convergence_factors reads for want (none for CONV_SOURCE_NONE),
 * listed as inputs of the run: an output must not replace them either. */
void cli_convergence_files(cli_files *f, conv_source want);

/* The factor of each spec on model (workers: the count asked for, or 0 when a search will
 * decide; the bound's factor is then given at each count by conv_factor_at). Returns 0, or
 * -1 after printing the reason (an unreadable catalog or trace). */
int cli_convergence_factors(const char *cmd, conv_source want, const char *model,
                            const char *const *specs, int n, int workers, conv_factor *out);

/* The notes, meta and source column of the factors: convergence_notes.h (sim/report). */

#endif
