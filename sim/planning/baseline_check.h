/*
 * sim/planning/baseline_check.h: what `gcsim check` does with one baseline case:
 * predict its throughput now, and how far that is from the recorded value.
 */
#ifndef GCSIM_PLANNING_BASELINE_CHECK_H
#define GCSIM_PLANNING_BASELINE_CHECK_H

#include <stdbool.h>

#include "baseline_file.h"
#include "sweep_case.h"

/* Runs the case on its engine under its stack (inputs read through cache) and gives the
 * predicted throughput and, when stack is not NULL, the stack it ran under. Returns 0; 1
 * with the reason in err when the inputs cannot run the case (a GPU count the platform
 * cannot hold, memory, a sharding's refusal: issue 46); or -1 with the reason in err (an
 * input that cannot be read, a compressor the stack cannot run, an engine failure). */
int baseline_case_predict(const baseline_case *bc, sweep_cache *cache,
                          double *predicted_samples_per_s, const gcsim_stack **stack,
                          gcsim_error *err);

/* The stack a case runs under, as gcsim_stack_load reads it: its "stack", else the
 * platform's choice (gcsim_stack_choice(NULL, pf)). Points into bc, pf or a literal. */
const char *baseline_case_stack(const baseline_case *bc, const gcsim_platform *pf);

/* What `check --update` pins as the "stack" of a case that has none: the platform's
 * choice when it is a catalog name (no '/', no ".json"), which reads back as the same
 * stack wherever the baseline is; NULL when the case names its stack already, or when
 * the platform names a stack file of its own (the case then keeps following the
 * platform). */
const char *baseline_stack_to_pin(const baseline_case *bc, const gcsim_platform *pf);

/* 100 x (predicted - expected) / expected: positive when the model now predicts more. */
double baseline_drift_pct(double predicted_samples_per_s, double expected_samples_per_s);

/* Whether |drift| <= tolerance; a drift that is not a number is beyond any tolerance. */
bool baseline_within_tolerance(double drift_pct, double tolerance_pct);

/* The tolerance of a case: its own, else the command line's, else the file's, else
 * fallback_pct (negative values mean absent). */
double baseline_tolerance_pct(const baseline *b, const baseline_case *bc, double command_pct,
                              double fallback_pct);

#endif
