/*
 * sim/planning/case_build.h: the one place a training configuration becomes a scenario.
 *
 * Every command that puts a configuration to an engine describes it with one record,
 * sweep_case (sweep_case.h: platform, model, payload, stack, exchange, collective, scaling,
 * batch, GPUs, parameter-server shards, bucket, overlap, sharding, micro-batches,
 * checkpointing, memory check), and turns it into a scenario here: `gcsim predict` (its
 * rows, its one-GPU reference and its exchange search), sweep, plan, check (baselines),
 * breakeven, and the search behind `--exchange best` (exchange_best.h). A search copies the
 * record and changes only what it searches (the exchange, the collective, the GPU count),
 * so an option set on the command line reaches every case it tries (issue 45: predict's
 * search case was built by hand without sharding, accumulation or checkpointing, and a
 * 16-GPU run reported 398% efficiency).
 */
#ifndef GCSIM_PLANNING_CASE_BUILD_H
#define GCSIM_PLANNING_CASE_BUILD_H

#include <stdbool.h>

#include "gcsim_error.h"
#include "scenario.h"
#include "stack.h"
#include "sweep_case.h"

/* The refusals of a configuration at its GPU count, in the order predict reports them: the
 * GPUs do not fit the platform, a strong-scaling batch smaller than the GPU count, an
 * activation-checkpointing policy the model cannot take, a worker that cannot hold its
 * training state (unless c->no_memory_check), a sharding the count or payload does not
 * allow. Sets *placement (may be NULL). The case must name its stack (internal error). */
int case_build_check(const sweep_case *c, gcsim_placement *placement, gcsim_error *err);

/* case_build_check split by whom the refusal blames (issue 46): -1 when the inputs
 * themselves are bad at any count (the GPUs exceed the platform, a strong-scaling batch
 * smaller than the count, a checkpointing policy the model cannot take, or a failure of
 * gcsim itself); 1 when this count alone cannot run them (the worker cannot hold its
 * training state, or the sharding refuses the count or payload): one infeasible item of a
 * list, which a command shows as a row with err's reason and goes on; 0 when it runs. */
int case_build_feasible(const sweep_case *c, gcsim_error *err);

/* The stack's setup for the case (gcsim_stack_setup_init: the exchange the stack runs the
 * compressor with, or the one asked for, its codec and per-call costs). It depends on the
 * platform, stack, compressor, exchange and collective only, so cases that differ in GPU
 * count, model, batch or training options can share one. */
int case_build_setup(const sweep_case *c, gcsim_stack_setup *ss, gcsim_error *err);

/* The scenario of case c at c->gpus under `setup` (which must outlive *s: the scenario
 * points into it), with gcsim_scenario_training_check's refusal (a paper's pattern with
 * sharding, accumulation or checkpointing). No check of case_build_check is made: predict
 * runs its one-GPU reference with it, a configuration nobody asked to fit. */
int case_build_scenario(const sweep_case *c, const gcsim_stack_setup *setup, gcsim_scenario *s,
                        gcsim_error *err);

/* case_build_check, then case_build_scenario: what sweep, plan and check run. */
int case_build(const sweep_case *c, const gcsim_stack_setup *setup, gcsim_scenario *s,
               gcsim_error *err);

#endif
