/*
 * sim/collectives/tree_cost.h: the pipelined all-reduce trees (tree, double-tree) prepared
 * for any chunk count from one template.
 *
 * A tree schedule's flows are the same for every chunk count C except for their windows
 * ([o, o + C - 1], o a flow's offset: its height going up, the root's height plus its
 * parent's depth going down) and their share (1 / (rails x trees x C)). The template keeps
 * what does not depend on C, built once per topology: the trees' flows grouped by GPU
 * pair in flow order, each pair's route, the pairs crossing each link. Preparing it for a
 * chunk count then merges each pair's windows (as gcsim_schedule_build does) and walks the
 * intervals of steps as gcsim_schedule_prepare does, pair by pair instead of flow by flow:
 * the same intervals and, in each, the same distinct costs (latency, bandwidth, share,
 * sums), so gcsim_schedule_prepared_time_s gives the same number bit for bit
 * (tests/analytic/test_schedule_memo.c checks it against the flow-by-flow form).
 */
#ifndef GCSIM_TREE_COST_H
#define GCSIM_TREE_COST_H

#include "collectives.h"

typedef struct gcsim_tree_template gcsim_tree_template;

/* The template of collective c (COLLECTIVE_TREE, COLLECTIVE_DOUBLE_TREE or
 * COLLECTIVE_NVLS_TREE, tree_nvls.c) on t, which must outlive it. NULL when out of memory. */
gcsim_tree_template *gcsim_tree_template_new(const gcsim_topology *t, gcsim_collective c);
void gcsim_tree_template_free(gcsim_tree_template *tt);
/* The template's kinds depend on the topology's shape only (its links' capacity formulas,
 * not their numbers): this sets the numbers (link capacities, route latencies) of t, whose
 * shape must be the template's (the same links and routes, other bandwidths and
 * latencies), so one template serves every platform of a shape (schedule_memo.c).
 * Returns 0. */
int tree_template_value(gcsim_tree_template *tt, const gcsim_topology *t);
/* Bytes it holds (its steady form too, once built), for a memo's bound. */
double gcsim_tree_template_bytes(const gcsim_tree_template *tt);

/* *s = the schedule of the template's collective in `chunks` chunks, prepared and without
 * flows (what gcsim_schedule_build_for_cost, gcsim_schedule_prepare and
 * gcsim_schedule_drop_flows give). Returns 1 when the template cannot do it (its one
 * phase is not windowed: build the schedule instead), -1 when out of memory, else 0.
 * Chunk counts above the trees' deepest offset are prepared from the template's steady
 * form, which the first of them builds and keeps in tt: calls on one template must not
 * overlap (the schedule memo holds its lock). */
int gcsim_tree_template_prepare(gcsim_tree_template *tt, int chunks, gcsim_schedule *s);

/* The trees' flows before their pairs are merged, with one-step windows ([o, o]) and in
 * flow order (schedule.c). Returns -1 when out of memory. */
int gcsim_tree_raw_flows(const gcsim_topology *t, int per_rail, gcsim_flow **flows, int *n);

#endif
