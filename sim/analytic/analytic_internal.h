/*
 * sim/analytic/analytic_internal.h: what the analytic engine's files share (not for other
 * libraries). Who calls whom, top down: analytic.c -> analytic_fabric.c -> predict_one.c
 * -> variable_compute.c -> call_times.c; nothing calls back up.
 */
#ifndef GCSIM_ANALYTIC_INTERNAL_H
#define GCSIM_ANALYTIC_INTERNAL_H

#include "analytic.h"
#include "fabric_expect.h"

/* The engine's closed form without ECMP's expectation (predict_one.c), on the step's
 * topology; network jitter included where the platform has it. */
int gcsim_analytic_predict_one(const gcsim_resolved_step *st, const gcsim_topology *topo,
                               gcsim_prediction *out, gcsim_error *err);
/* Fails unless topo is the step's: its platform and GPU count (gcsim_step_topology).
 * Inline: the entry (analytic.c) and variable compute (variable_compute.c), which the
 * closed form below calls, both check it. */
static inline int gcsim_analytic_check_topology(const gcsim_resolved_step *st,
                                                const gcsim_topology *topo,
                                                gcsim_error *err)
{
    if (!topo || topo->platform != st->platform || topo->gpus != st->placement.gpus)
        return gcsim_fail(err, "analytic: the topology handed in is not the step's (its "
                               "platform and GPU count; gcsim_step_topology builds it)");
    return 0;
}

/* The prediction's expectation over ECMP collisions (st->platform->ecmp.spines > 1): each
 * field, and the variable-compute statistics, weighted by the most loaded spine link's law
 * (analytic_fabric.c), over the step's fabrics (st->fabrics: the step resolved on each,
 * with its topology, by sim/step). */
int gcsim_analytic_ecmp_predict(const gcsim_resolved_step *st, gcsim_prediction *out,
                                gcsim_error *err);

#endif
