/*
 * sim/step/sharding_build.h: building the iteration of sharded data parallelism,
 * gradient accumulation and activation checkpointing (sharding.c). Internal to
 * sim/step: gcsim_iteration_build calls these.
 */
#ifndef GCSIM_STEP_SHARDING_BUILD_H
#define GCSIM_STEP_SHARDING_BUILD_H

#include "step.h"

/* Micro-batches per optimizer step (gradient accumulation): 1 at least. */
int sharding_micro_batches(const gcsim_scenario *s);
/* GPUs a shard spans: all of them, or the HSDP group. */
int sharding_group(const gcsim_scenario *s);

/* Plain data parallelism, ZeRO-1 and ZeRO-2 from the iteration's gradient buckets (formed
 * as backward fills them, programs not yet built): blocks for every micro-batch (with
 * recomputation), the buckets exchanged at the micro-batches that synchronize (ZeRO-2:
 * all, the others: the last), and under ZeRO-1/2 their reduce-scatter programs and the
 * all-gather of the updated parameters. Plain data parallelism's programs are left to the
 * caller. layer_fwd_s: forward seconds per layer. */
int sharding_build_bucketed(gcsim_iteration *it, const gcsim_scenario *s,
                            const double *layer_fwd_s, gcsim_error *err);

/* ZeRO-3 / FSDP / HSDP: per unit (gcsim_model_units) and micro-batch, the parameter
 * all-gather before its forward (prefetched one unit ahead), again before its recompute
 * or backward, and its gradient reduce-scatter (HSDP: then the replicas' all-reduce)
 * after its backward. Replaces the iteration's buckets and blocks. */
int sharding_build_units(gcsim_iteration *it, const gcsim_scenario *s,
                         const double *layer_fwd_s, const double *layer_bwd_s,
                         gcsim_error *err);

#endif
