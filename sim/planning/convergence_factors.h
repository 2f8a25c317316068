/*
 * sim/planning/convergence_factors.h: the convergence factor of each compressor plan,
 * predict and breakeven count with --convergence (issue 26, docs/convergence.md), from the
 * sources the library reads from the data folder (models/convergence/outcomes.tsv,
 * train_factors.tsv, a shipped gradient trace for the bound) and a described compressor's
 * stated factor. The factors themselves come from sim/convergence (convergence.h).
 */
#ifndef GCSIM_PLANNING_CONVERGENCE_FACTORS_H
#define GCSIM_PLANNING_CONVERGENCE_FACTORS_H

#include <stddef.h>

#include "convergence.h"
#include "gcsim_error.h"

/* The data files read: 0 the catalog, 1 the train factors, 2 the bound's trace; the path
 * of the k-th in buf, returned. */
#define CONVERGENCE_DATA_FILES 3
const char *convergence_data_file(int k, char *buf, size_t size);

/* The factor of each spec on model (workers: the count asked for, or 0 when a search will
 * decide; the bound's factor is then given at each count by conv_factor_at). Returns 0, or
 * -1 with "--convergence: ..." in err (an unreadable catalog or trace). */
int convergence_factors(conv_source want, const char *model, const char *const *specs, int n,
                        int workers, conv_factor *out, gcsim_error *err);

#endif
