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

/* Notes "convergence" (the source asked and what the factor means) and one
 * "convergence.<spec>" per compressor: the evidence, factor and interval, how it was
 * matched, or "unknown" (ranked after every known factor); a compressor that missed the
 * target in gcsim's own runs says so with the accuracy reached and the target. */
void cli_convergence_notes(report *r, conv_source want, const char *const *specs, int n,
                           const conv_factor *f);

/* Meta fields of one compressor's factor at a GPU count (predict): convergence_source,
 * convergence_gpus, convergence_factor, convergence_lo, convergence_hi (null: unknown or
 * no upper limit), convergence_reached_target and, when missed, the accuracy reached, the
 * target and the task. */
void cli_convergence_meta(report *r, const conv_factor *f, int gpus);

/* The source column of a row: the evidence (conv_evidence_name), "unknown", or "none". */
const char *cli_convergence_source_label(const conv_factor *f);

#endif
