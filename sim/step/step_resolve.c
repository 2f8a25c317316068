/*
 * sim/step/step_resolve.c: the resolved step an engine is handed (step.h) on one fabric:
 * built once from a scenario, so that neither engine reads a scenario nor asks which
 * collective the step came from. gcsim_step_resolve (step_fabrics.c) adds, for ECMP, the
 * step on each fabric of the expectation, each resolved here.
 */
#include <stdlib.h>
#include <string.h>

#include "step.h"
#include "step_fabrics.h"

void gcsim_step_release_fabrics(gcsim_resolved_step *st)
{
    for (int k = 0; k < st->n_fabrics; k++) {
        gcsim_step_release(&st->fabrics[k].step);
        gcsim_topology_free(&st->fabrics[k].topology);
    }
    free(st->fabrics);
    st->fabrics = NULL;
    st->n_fabrics = 0;
}

int gcsim_step_resolve_one(gcsim_resolved_step *st, const gcsim_scenario *s, gcsim_error *err)
{
    memset(st, 0, sizeof *st);
    /* The TernGrad paper's closed form costs the collective terngrad as published (its
     * refusals first, as when the engine resolved them); dgc-paper, its sparse variant,
     * is costed through its schedule like every other collective. */
    st->costing = s->collective == COLLECTIVE_TERNGRAD ? GCSIM_COST_TERNGRAD_FORM
                                                       : GCSIM_COST_PROGRAMS;
    if (st->costing == GCSIM_COST_TERNGRAD_FORM &&
        gcsim_terngrad_inputs_build(s, &st->terngrad, err))
        return -1;
    if (gcsim_iteration_build(&st->it, s, err))
        return -1;
    st->platform = s->platform;
    st->placement = s->placement;
    st->collective = s->collective;
    st->ps_shards = s->ps_shards;
    st->compressed = gcsim_scenario_compresses(s);
    st->samples_per_iteration =
        (s->scaling == SCALING_STRONG ? (double)s->batch : (double)s->placement.gpus * s->batch) *
        (s->grad_accum > 1 ? s->grad_accum : 1);
    st->variability = s->variability;
    st->variability_stats = s->variability_stats;
    st->timeline_path = s->timeline_path;
    st->des_max_messages = s->des_max_messages;
    return 0;
}

int gcsim_step_topology(const gcsim_resolved_step *st, gcsim_topology *t, gcsim_error *err)
{
    return gcsim_topology_init(t, st->platform, st->placement.gpus, err);
}

void gcsim_step_release(gcsim_resolved_step *st)
{
    gcsim_iteration_free(&st->it);
    gcsim_step_release_fabrics(st);
    free(st->fabrics_error);
    st->fabrics_error = NULL;
}
