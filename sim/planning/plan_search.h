/*
 * sim/planning/plan_search.h: which GPU counts `gcsim plan` evaluates for one (platform,
 * compressor, stack, collective) group, and in what order (issue 28: the search bounded by
 * what it evaluates, not by the GPU count).
 *
 * The counts a group may take are its domain: a --gpus list, or 1 to one node then every
 * whole node up to the platform's size (every count with --partial-nodes). The exhaustive
 * search evaluates every count of the domain. The bounded search (the default) evaluates
 * a geometric grid of the domain (PLAN_GRID_STEPS_PER_DOUBLING counts per doubling, always
 * with the first and the last count), then refines: around the best count found so far
 * of each objective that decides the plan's answer (the best feasible count by the plan's
 * ranking; with none feasible yet, the smallest shortfall, the highest throughput and the
 * cheapest count fast enough), it evaluates PLAN_REFINE_POINTS counts evenly spaced in each
 * gap to the nearest evaluated count on either side, until those neighbours are adjacent
 * counts of the domain. The number of evaluations grows with the logarithm of the domain's
 * size: a 100,000-GPU platform takes about as many as a 512-GPU one, twice.
 *
 * Throughput is not monotonic in the GPU count (node boundaries, powers of two in
 * halving-doubling), so the refinement finds a local optimum of the grid's best region.
 * planning.plan_bounded compares it with the exhaustive search on catalog platforms,
 * models and targets; docs/planning.md says how close the two are.
 */
#ifndef GCSIM_PLANNING_PLAN_SEARCH_H
#define GCSIM_PLANNING_PLAN_SEARCH_H

#include <stdbool.h>

#include "plan_keep.h"

typedef enum { PLAN_SEARCH_BOUNDED, PLAN_SEARCH_EXHAUSTIVE } plan_search_mode;

/* The counts a group may take, ascending, without being listed one by one: a platform of
 * 2^28 GPUs has 2^28 of them. */
typedef struct {
    const int *list;       /* ascending and distinct; NULL: the rule below */
    long long n_list;
    long long capacity;    /* GPUs of the platform */
    int gpus_per_node;
    bool whole_nodes;      /* beyond one node, only multiples of gpus_per_node */
} plan_domain;

/* How many counts the domain has, and the i-th (0-based, ascending). */
long long plan_domain_size(const plan_domain *d);
int plan_domain_count(const plan_domain *d, long long i);

/* Grid counts per doubling of the GPU count (the grid's counts are the domain's first at or
 * above 2^(k / this) for k = 0, 1, ...), and counts evaluated in each gap a refinement
 * step narrows. Chosen with planning.plan_bounded (docs/planning.md). */
#define PLAN_GRID_STEPS_PER_DOUBLING 2
#define PLAN_REFINE_POINTS 1
/* A group never evaluates more counts than this in the bounded search (a guard: the
 * refinement of a 2^28-count domain takes a few hundred). */
#define PLAN_MAX_BOUNDED_EVALUATIONS 4096

/* Writes the grid's domain indices, ascending and distinct, to idx (room for max) and
 * returns how many; -1 if they do not fit. The first and the last index are always in. */
int plan_grid(const plan_domain *d, long long *idx, int max);

/* Evaluates one GPU count of the group: fills out (plan_evaluate done) and returns 0, or
 * returns -1 when the count cannot run (the caller counts and explains it). */
typedef int (*plan_eval_fn)(void *ctx, int gpus, plan_candidate *out);

/* Searches one group's domain (mode), offering every count that ran to plan_keep in
 * ascending order, as the exhaustive search does, so that ties resolve the same way.
 * Adds the counts run and skipped to *evaluated and *skipped. Returns 0, or -1 when out of
 * memory. */
int plan_search_group(const plan_domain *d, plan_search_mode mode, const plan_target *t,
                      bool by_time, plan_eval_fn eval, void *ctx, plan_group *grp,
                      plan_extremes *x, long long *evaluated, long long *skipped);

/* How many counts the bounded search evaluates at least on a domain (its grid). */
long long plan_grid_size(const plan_domain *d);

#endif
