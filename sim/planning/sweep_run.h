/*
 * sim/planning/sweep_run.h: a sweep's inputs loaded into its space, and its cases run in
 * order. The command parses the option values, writes each finished case (the callback),
 * draws the progress and handles signals; the library loads and runs.
 */
#ifndef GCSIM_PLANNING_SWEEP_RUN_H
#define GCSIM_PLANNING_SWEEP_RUN_H

#include <stdbool.h>

#include "gcsim_error.h"
#include "case_options.h"
#include "sweep_case.h"
#include "sweep_space.h"

/* What the space is built from. A count of 0 means one, the default: a NULL path (the
 * cache's loaders pick the embedded platform or model), a NULL compressor spec, or for the
 * stacks each platform's own choice (gcsim_stack_choice: its "stack", else
 * GCSIM_DEFAULT_STACK), as `gcsim predict` without --stack. */
typedef struct {
    int n_platforms, n_models, n_compressors, n_stacks;
    const char *const *platforms;
    const char *const *models;
    const char *const *compressors;
    const char *const *stacks;                /* names or files (gcsim_stack_load) */
    int n_collectives, n_scalings, n_batches; /* 0: one, ring / weak / the model's */
    int max_engines;
    int max_gpu_counts;                       /* room per platform */
    /* The training precision and optimizer every model is run at (-1: each model's own;
     * a zeroed struct means fp32 and SGD, so callers set them). */
    int precision, optimizer;
} sweep_inputs;

/* Allocates the space for the given list lengths and loads every platform, model, payload
 * plan (model x compressor) and stack (platform x stack) through the cache, in that order,
 * so that a bad input stops the sweep before it writes anything (a stack that cannot run
 * some compressor is not bad input: those cases are rows that say why). The first collective is ring and the first
 * scaling weak until the caller fills in its own; engines and GPU counts are left to it.
 * Returns 0, or -1 with the reason in err (sweep_space_free still frees the space). */
int sweep_space_load(sweep_space *s, const sweep_inputs *in, sweep_cache *cache,
                     gcsim_error *err);

/* What every case of a sweep shares, and the shard to run. */
typedef struct {
    /* every case's options (case_options.h); its collective, scaling, engine and batch are
     * the space's, collective_given false: each case's collective chosen with the exchange */
    const case_options *run;
    int shard_k, shard_n;     /* shard K of N; 0/0: every case */
} sweep_run_options;

/* One finished case, as the callback sees it (pointers valid during the call). */
typedef struct {
    long long index, total;   /* the case's place in the unsharded order, and all cases */
    const sweep_case *c;
    int rc;                   /* sweep_case_run's: 0 ran; else err says why not */
    const sweep_result *r;
    const gcsim_error *err;
    bool has_one_gpu;         /* the same group on one GPU ran (for speedups) */
    double one_gpu_samples_per_s;
    /* The case's exchange was named (--exchange, --collective) but its stack does not
     * implement it for the payload: why (gcsim_stack_setup.unimplemented), else NULL. */
    const char *unimplemented;
} sweep_outcome;

/* Called after each case of the shard, in order; nonzero stops the sweep there. */
typedef int (*sweep_case_done)(void *ctx, const sweep_outcome *outcome);

/* Runs the shard's cases in the space's order (sweep_space.h). The one-GPU run of a group
 * (same platform, model, compressor, stack, collective, scaling, batch, engine) is made once, and
 * only when the shard has a case of the group. Returns how many cases ran; *stopped says
 * whether the callback stopped the sweep. */
long long sweep_run(const sweep_space *s, const sweep_run_options *o, sweep_case_done done,
                    void *ctx, bool *stopped);

#endif
