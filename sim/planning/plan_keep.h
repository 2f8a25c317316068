/*
 * sim/planning/plan_keep.h: what `gcsim plan`'s search keeps instead of every candidate
 * (a 100,000-GPU platform has millions): per (platform, compressor, stack, collective)
 * group the best feasible candidate and the one closest to feasible, and over all groups
 * the fastest candidate and the cheapest one fast enough (which say why nothing is
 * feasible).
 */
#ifndef GCSIM_PLANNING_PLAN_KEEP_H
#define GCSIM_PLANNING_PLAN_KEEP_H

#include <stdbool.h>

#include "plan_rank.h"

typedef struct {
    plan_candidate best, closest;
    bool has_best, has_closest;
} plan_group;

typedef struct {
    plan_candidate fastest, cheapest_fast;
    bool has_fastest, has_cheapest_fast;
} plan_extremes;

/* Offers an evaluated candidate (plan_evaluate) to its group and to the extremes. The best
 * is ranked by plan_better; the closest has the smallest shortfall (ties by plan_better);
 * the fastest the highest throughput (the first of equals); the cheapest fast enough the
 * lowest plan_cost_key among those reaching t's throughput. */
void plan_keep(const plan_target *t, bool by_time, const plan_candidate *c, plan_group *g,
               plan_extremes *x);

#endif
