/*
 * sim/collectives/closed_form.h: prepared schedules of the symmetric collectives computed
 * from the topology's shape, without listing a flow.
 *
 * gcsim_schedule_prepare finds a phase's classes (flows that cost the same: latency,
 * bandwidth, share, sums, window) by walking every flow's route and every link's load:
 * memory and time grow with the flows (N per phase for a ring, N x shards for the parameter
 * server). Ring, all-gather, halving-doubling, hierarchical and parameter-server schedules
 * repeat the same few situations node after node, so their classes follow from the node
 * shape (GPUs per node, NICs, the last node's GPUs, leaves of the fat tree) alone. The
 * functions here compute those classes directly: memory independent of N, time at most
 * linear in the nodes. The result is what gcsim_schedule_build_for_cost +
 * gcsim_schedule_prepare + gcsim_schedule_drop_flows give: to the bit for ring,
 * all-gather, halving-doubling and hierarchical, whose loads are summed flow by flow in
 * the same order; up to the last bit for the parameter server (a count times a share).
 * tests/collectives/test_closed_*.c compare the two on a grid of topologies within 1e-12.
 */
#ifndef GCSIM_CLOSED_FORM_H
#define GCSIM_CLOSED_FORM_H

#include "collectives.h"

/* The parameter server's closed form computes a link's load as a count times a share,
 * where the flow-by-flow form adds the shares one by one: the two can differ in the last
 * bit. The analytic engine keeps the flows up to this many (about 25 MB while built), so
 * that the outputs of clusters that size are the same to the bit as before, and takes
 * the closed form past it. The other closed forms sum their loads flow by flow and are
 * used at every size. */
#define GCSIM_CLOSED_FORM_PS_FLOWS_MIN (1 << 18)

/* Whether the analytic engine costs c on t from its closed form (the rule above). */
bool gcsim_closed_form_preferred(gcsim_collective c, const gcsim_topology *t, int ps_shards,
                                 int group);

/* Collectives over all GPUs whose classes are computed here. */
bool gcsim_closed_form_covers(gcsim_collective c, int group);

/* *s = the prepared schedule (classes, no flows) of collective c on t. Returns 1 when c
 * (with this group) has no closed form here, -1 with err when out of memory, else 0. */
int gcsim_closed_form_prepare(gcsim_schedule *s, gcsim_collective c, const gcsim_topology *t,
                              int ps_shards, int group, gcsim_error *err);

/* ---- for the per-collective files (closed_*.c) ---- */

/* Distinct classes of one phase, in the order found. */
typedef struct {
    gcsim_flow_class *v;
    int n, cap;
} gcsim_class_list;

/* Adds c unless an identical class is there; -1 when out of memory. */
int gcsim_class_list_add(gcsim_class_list *l, gcsim_flow_class c);
void gcsim_class_list_free(gcsim_class_list *l);

/* An empty schedule of c on t, as gcsim_schedule_build starts one (1 chunk, N endpoints, 1
 * decode). */
void gcsim_closed_init(gcsim_schedule *s, gcsim_collective c, const gcsim_topology *t);

/* Appends an empty phase (no flow, no class) with these fields to s, as every builder
 * starts one (schedule.c); NULL when out of memory. */
gcsim_phase *gcsim_schedule_new_phase(gcsim_schedule *s, const char *name, int steps, double dk,
                                      bool reduce);

/* Appends a phase of `steps` steps holding l's classes (taken over: l is emptied). Like
 * the builders' add_phase, a phase with no step or no class is not added. -1 when out of
 * memory. */
int gcsim_closed_add_phase(gcsim_schedule *s, const char *name, int steps, double dk,
                           bool reduce, gcsim_class_list *l);

/* The collectives (closed_ring.c, closed_hd.c, closed_ps.c, closed_hier.c): fill a schedule
 * that gcsim_closed_init started. -1 when out of memory. */
typedef enum { GCSIM_RING_ALLREDUCE, GCSIM_RING_ALLGATHER, GCSIM_RING_REDUCE_SCATTER } gcsim_ring_kind;
int gcsim_closed_ring(gcsim_schedule *s, const gcsim_topology *t, gcsim_ring_kind kind);
int gcsim_closed_halving_doubling(gcsim_schedule *s, const gcsim_topology *t);
int gcsim_closed_ps(gcsim_schedule *s, const gcsim_topology *t, int shards);
/* reduce_scatter_only: the hierarchical reduce-scatter (its first two phases). */
int gcsim_closed_hierarchical(gcsim_schedule *s, const gcsim_topology *t,
                              bool reduce_scatter_only);

#endif
