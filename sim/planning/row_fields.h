/*
 * sim/planning/row_fields.h: the fields predict reports for a row (issue 46), defined once
 * so that predict, sweep, breakeven and plan print the same numbers for the same case:
 * tokens per second, model FLOPs utilization and the memory estimate per GPU.
 */
#ifndef GCSIM_PLANNING_ROW_FIELDS_H
#define GCSIM_PLANNING_ROW_FIELDS_H

#include "model.h"
#include "platform.h"
#include "sweep_case.h"

/* samples/s x the model's tokens_per_sample; NAN (a null cell) for a model without one. */
double row_tokens_per_s(const gcsim_model *m, double samples_per_s);
/* MFU in percent: training FLOPs per sample (3 x forward) x samples/s over gpus x the
 * peak at the training precision (gcsim_mfu_peak_flops, mfu.h). */
double row_mfu_pct(const gcsim_model *m, const gcsim_platform *pf, double samples_per_s,
                   int gpus);
/* The case's memory estimate per GPU at gpus GPUs, bytes (gcsim_memory_estimate_sharded
 * with the case's sharding, batch, scaling, activation checkpointing and bucket size), as
 * predict's memory column and the check that refuses a case that does not fit. */
double sweep_case_memory_bytes(const sweep_case *c, int gpus);

#endif
