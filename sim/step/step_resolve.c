/*
 * sim/step/step_resolve.c: the resolved step an engine is handed (step.h): built once
 * from a scenario, so that neither engine reads a scenario nor asks which collective the
 * step came from.
 */
#include <string.h>

#include "step.h"

int gcsim_step_resolve(gcsim_resolved_step *st, const gcsim_scenario *s, gcsim_error *err)
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
    st->source = s;
    return 0;
}

int gcsim_step_resolve_on(const gcsim_resolved_step *st, const gcsim_platform *q,
                          struct gcsim_var_stats_s *stats, gcsim_resolved_step *out,
                          gcsim_error *err)
{
    if (!st->source)
        return gcsim_fail(err, "a step rebuilt on another platform needs its scenario");
    gcsim_scenario sc = *st->source;
    sc.platform = q;
    sc.variability_stats = stats;
    if (gcsim_step_resolve(out, &sc, err))
        return -1;
    out->source = NULL; /* sc lives on this stack frame only */
    return 0;
}

void gcsim_step_release(gcsim_resolved_step *st)
{
    gcsim_iteration_free(&st->it);
}
