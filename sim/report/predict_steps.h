/*
 * sim/report/predict_steps.h: `gcsim predict --steps`: every bucket's program as the
 * scenario's training stack runs it (codec steps and collective calls, docs/stacks.md),
 * with the analytic engine's closed-form duration of each call.
 */
#ifndef GCSIM_REPORT_PREDICT_STEPS_H
#define GCSIM_REPORT_PREDICT_STEPS_H

#include "report.h"
#include "scenario.h"

/* Fills r (a new report of the predict command) with one row per step; 0 or -1 (err). */
int predict_steps_fill(report *r, const gcsim_scenario *s, gcsim_error *err);

#endif
