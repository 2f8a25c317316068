/*
 * sim/report/predict_phases.h: `gcsim predict --optimizer onebit-adam:... | zero-one-adam:...
 * --steps-total N`: the run's phases (sim/planning/run_phases.h) per GPU count and engine:
 * the steps of each kind, one step's time of each, the end-to-end time and the speedup over
 * the same run with every step uncompressed (docs/onebit-adam.md).
 */
#ifndef GCSIM_REPORT_PREDICT_PHASES_H
#define GCSIM_REPORT_PREDICT_PHASES_H

#include <stdbool.h>

#include "report.h"
#include "run_phases.h"

/* A new report with one row per (count, engine): base is predict's case (its engine is
 * replaced by each of `engines`, 1 or 2 of them). NULL with err on failure. */
report *predict_phases_report(const run_phased_spec *sp, long long total_steps,
                              const sweep_case *base, const gcsim_payload_plan *onebit_plan,
                              const int *counts, int n_counts, const gcsim_engine *engines,
                              int n_engines, gcsim_error *err);

#endif
