/*
 * tests/resolved_predict.h: the engines on a hand-built scenario, for tests and benchmarks.
 *
 * The engines take a resolved step (sim/step/step.h); a test that builds a gcsim_scenario
 * by hand resolves it once with its topology (gcsim_step_topology), runs the engine and
 * releases them, as sim/planning/engine.c does
 * for the commands. Include the engine's header first: the analytic helper is defined
 * after analytic.h, the DES ones after des.h.
 */
#ifndef GCSIM_TESTS_RESOLVED_PREDICT_H
#define GCSIM_TESTS_RESOLVED_PREDICT_H

#include "step.h"

#ifdef GCSIM_ANALYTIC_ANALYTIC_H
static inline int analytic_predict_s(const gcsim_scenario *s, gcsim_prediction *out,
                                     gcsim_error *err)
{
    gcsim_resolved_step st;
    gcsim_topology topo;
    if (gcsim_step_resolve(&st, s, err))
        return -1;
    if (gcsim_step_topology(&st, &topo, err)) {
        gcsim_step_release(&st);
        return -1;
    }
    int rc = gcsim_analytic_predict(&st, &topo, out, err);
    gcsim_topology_free(&topo);
    gcsim_step_release(&st);
    return rc;
}
#endif

#ifdef GCSIM_DES_H
static inline int des_predict_opts_s(const gcsim_scenario *s, const gcsim_des_options *o,
                                     gcsim_prediction *out, gcsim_des_details *d,
                                     gcsim_error *err)
{
    gcsim_resolved_step st;
    gcsim_topology topo;
    if (gcsim_step_resolve(&st, s, err))
        return -1;
    if (gcsim_step_topology(&st, &topo, err)) {
        gcsim_step_release(&st);
        return -1;
    }
    int rc = gcsim_des_predict_opts(&st, &topo, o, out, d, err);
    gcsim_topology_free(&topo);
    gcsim_step_release(&st);
    return rc;
}
#endif

#endif
