/*
 * sim/planning/sweep_space.h: the cases of a sweep and how shards split them.
 *
 * A sweep is the cross product platform x model x compressor x stack x collective x
 * scaling x batch x engine x GPU count, in that nesting order (the GPU count innermost,
 * with its own list per platform; the stacks too have a list per platform, since by
 * default each platform runs its own stack choice). Case i is in shard K/N when i mod N = K - 1, so the shards
 * partition the cases and each holds every N-th case (a shard of a slow region is not
 * much slower than the others).
 */
#ifndef GCSIM_PLANNING_SWEEP_SPACE_H
#define GCSIM_PLANNING_SWEEP_SPACE_H

#include <stdbool.h>
#include <stddef.h>

#include "engine.h"
#include "scenario.h"
#include "stack.h"

typedef struct {
    int n_platforms, n_models, n_compressors, n_stacks, n_collectives, n_scalings, n_batches,
        n_engines;
    const gcsim_platform **platforms;
    const gcsim_model **models;
    const gcsim_payload_plan **plans; /* n_models x n_compressors */
    const gcsim_stack **stacks;       /* n_platforms x n_stacks: stacks[p * n_stacks + t] */
    gcsim_collective *collectives;
    gcsim_scaling *scalings;
    int *batches;                     /* 0: the model's */
    gcsim_engine *engines;
    int **gpus;                       /* per platform, room for max_gpu_counts */
    int *n_gpus;
} sweep_space;

/* Allocates the arrays for the given list lengths (each at least 1), zeroed; n_engines is
 * left 0 with room for max_engines. Returns 0, or -1 when out of memory (then
 * sweep_space_free still frees what was allocated). */
int sweep_space_alloc(sweep_space *s, int n_platforms, int n_models, int n_compressors,
                      int n_stacks, int n_collectives, int n_scalings, int n_batches,
                      int max_engines, int max_gpu_counts);
void sweep_space_free(sweep_space *s);

/* The number of cases (all shards together). */
long long sweep_space_count(const sweep_space *s);

/* The most cases one sweep run (one shard) writes unless --max-cases says otherwise: a
 * sweep's cases are a product, and a list one item too long (--gpus 1,2,3,...,100000)
 * multiplies them into a run that writes until the disk is full (issue 45: 177 million
 * cases). Ten million rows are about 4 GB of CSV (380 bytes a row; 7 GB of JSON lines)
 * and 5 minutes of one core at the 35,000 cases per CPU-second of docs/planning.md; the
 * 307,200-case benchmark sweep (bench/planning) is 33 times below it. Larger sweeps are split with --shard, or asked for with --max-cases. */
#define SWEEP_DEFAULT_MAX_CASES 10000000LL

/* Whether the cases shard k of n of s holds (n = 0: all of them) are at most max_cases.
 * Returns 0, or -1 with a message in err naming the count, the product it comes from and
 * the options that allow it. Counted in floating point, so a product past the range of
 * long long is refused too, not wrapped. */
int sweep_space_check_limit(const sweep_space *s, int k, int n, long long max_cases, char *err,
                            size_t err_len);

/* Whether case index belongs to shard k of n (1 <= k <= n); n = 0: no sharding, every case. */
bool sweep_shard_has(long long index, int k, int n);
/* How many of total cases shard k of n holds (total when n = 0). */
long long sweep_shard_size(long long total, int k, int n);

/* The GPU counts a sweep runs on a platform of capacity_gpus GPUs when none are given:
 * powers of two up to the capacity, then the capacity itself. Returns how many were
 * written (at most max_counts). */
int sweep_default_gpus(long long capacity_gpus, int *counts, int max_counts);

#endif
