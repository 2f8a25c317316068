/*
 * sim/planning/plan_search.h: which GPU counts `gcsim plan` evaluates on a platform when no
 * --gpus list is given.
 *
 * Throughput is not monotonic in the GPU count (a partly filled machine pays a whole
 * machine's communication), so small counts are all searched. Beyond PLAN_EXACT_GPUS the
 * analytic engine's cost per evaluation grows with the count (a ring has N - 1 hops) and a
 * search of every count would take minutes on a 100,000-GPU platform, so whole-node counts
 * spaced geometrically are searched instead, up to and including the platform's size.
 */
#ifndef GCSIM_PLANNING_PLAN_SEARCH_H
#define GCSIM_PLANNING_PLAN_SEARCH_H

#include <stdbool.h>

/* Every count up to this is searched (up to one node, then whole nodes, with whole_nodes). */
#define PLAN_EXACT_GPUS 4096
/* Beyond PLAN_EXACT_GPUS, consecutive counts differ by at most this fraction (or by one
 * node where a node is a larger step), so the cheapest count found is within about 1% of
 * the cheapest whole-node count. */
#define PLAN_GRID_REL 0.01
/* Enough room for any platform gcsim loads (at most 2^28 GPUs): 4096 exact counts and
 * ln(2^28 / 4096) / ln(1.01), about 1,115, grid counts. */
#define PLAN_MAX_DEFAULT_COUNTS 8192

/* Writes the counts searched on a platform of capacity_gpus GPUs (gpus_per_node each) to
 * counts, ascending, and returns how many (at most max_counts; -1 if they do not fit). */
int plan_default_counts(long long capacity_gpus, int gpus_per_node, bool whole_nodes,
                        int *counts, int max_counts);

#endif
