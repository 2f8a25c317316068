/*
 * sim/step/step_fabrics.c: gcsim_step_resolve (step.h): the step on its own fabric
 * (step_resolve.c) and, for ECMP, on each fabric of the analytic engine's expectation
 * over the collisions (the model: sim/analytic/fabric_expect.h). A step
 * depends on its fabric (NCCL's tuner picks each call's algorithm by its cost there), so it
 * is resolved again on each, here, where the scenario is at hand: the engine then only
 * costs the steps it is handed and weighs them.
 */
#include <stdlib.h>
#include <string.h>

#include "step_fabrics.h"

/* The cases of the law: those of the largest call's schedule (the flows per leaf link);
 * one case, unscaled, for a step without calls. */
static int law_of(const gcsim_resolved_step *st, gcsim_ecmp_case **cases, int *n,
                  gcsim_error *err)
{
    const gcsim_platform *p = st->platform;
    const gcsim_iteration *it = &st->it;
    if (it->n_calls == 0) {
        *cases = malloc(sizeof **cases);
        if (!*cases)
            return gcsim_fail(err, "out of memory for the law of ECMP collisions");
        **cases = (gcsim_ecmp_case){.weight = 1.0, .oversubscription = p->fabric.oversubscription};
        *n = 1;
        return 0;
    }
    gcsim_topology topo;
    if (gcsim_step_topology(st, &topo, err) != 0)
        return -1;
    int big = 0;
    for (int k = 1; k < it->n_calls; k++)
        if (it->calls[k].bytes.dense_bytes > it->calls[big].bytes.dense_bytes)
            big = k;
    gcsim_schedule sch;
    int chunks = gcsim_call_pipeline_chunks(&it->calls[big], topo.platform, topo.gpus);
    int rc = gcsim_schedule_build_for_cost(&sch, it->calls[big].collective, &topo, st->ps_shards,
                                           chunks, it->calls[big].group, err);
    if (rc == 0) {
        rc = gcsim_ecmp_law(p, &sch, &topo, cases, n, err);
        gcsim_schedule_free(&sch);
    }
    gcsim_topology_free(&topo);
    return rc;
}

/* Fills st->fabrics for the resolved step st of scenario s (s->platform->ecmp.spines > 1):
 * the law of the most loaded spine link (gcsim_ecmp_law) over the largest call's schedule
 * on the step's topology, and for each of its cases the platform, its topology and the
 * step resolved on it. On failure st->fabrics holds what was built. */
static int resolve_fabrics(gcsim_resolved_step *st, const gcsim_scenario *s, gcsim_error *err)
{
    gcsim_ecmp_case *cases;
    int n;
    if (law_of(st, &cases, &n, err) != 0)
        return -1;
    st->fabrics = calloc((size_t)n, sizeof *st->fabrics);
    if (!st->fabrics) {
        free(cases);
        return gcsim_fail(err, "out of memory for %d fabrics", n);
    }
    int rc = 0;
    for (int k = 0; k < n && rc == 0; k++) {
        gcsim_step_fabric *f = &st->fabrics[k];
        f->weight = cases[k].weight;
        f->platform = *st->platform;
        memset(&f->platform.ecmp, 0, sizeof f->platform.ecmp);
        f->platform.fabric.oversubscription = cases[k].oversubscription;
        gcsim_scenario sc = *s; /* s's step on this fabric; sc lives on this frame only */
        sc.platform = &f->platform;
        sc.variability_stats = NULL; /* the engine keeps each fabric's statistics */
        rc = gcsim_step_resolve_one(&f->step, &sc, err);
        if (rc == 0) {
            st->n_fabrics = k + 1;
            rc = gcsim_topology_init(&f->topology, &f->platform, f->step.placement.gpus, err);
        }
    }
    free(cases);
    return rc;
}

int gcsim_step_resolve(gcsim_resolved_step *st, const gcsim_scenario *s, gcsim_error *err)
{
    if (gcsim_step_resolve_one(st, s, err) != 0)
        return -1;
    /* the analytic engine's expectation over ECMP collisions: the step on each fabric;
     * why not, kept for that engine to report (the DES needs none) */
    if (st->costing == GCSIM_COST_PROGRAMS && s->platform && s->platform->ecmp.spines > 1) {
        gcsim_error why;
        if (resolve_fabrics(st, s, &why) != 0) {
            gcsim_step_release_fabrics(st);
            st->fabrics_error = malloc(sizeof *st->fabrics_error);
            if (!st->fabrics_error) {
                gcsim_step_release(st);
                return gcsim_fail(err, "out of memory for the fabrics of a step");
            }
            *st->fabrics_error = why;
        }
    }
    return 0;
}
