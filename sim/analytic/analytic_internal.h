/*
 * sim/analytic/analytic_internal.h: what analytic.c and analytic_fabric.c share (not for
 * other libraries).
 */
#ifndef GCSIM_ANALYTIC_INTERNAL_H
#define GCSIM_ANALYTIC_INTERNAL_H

#include "analytic.h"
#include "fabric_expect.h"

/* The engine's closed form without ECMP's expectation (analytic.c): the prediction, a bare
 * collective and one operation; network jitter included where the platform has it. */
int gcsim_analytic_predict_one(const gcsim_resolved_step *st, gcsim_prediction *out,
                               gcsim_error *err);
int gcsim_analytic_collective_time_one(const gcsim_platform *p, int gpus, gcsim_collective c,
                                       double bytes, int ps_shards, double *time_s,
                                       gcsim_error *err);
int gcsim_analytic_op_time_one(const gcsim_platform *p, int gpus, gcsim_op op,
                               gcsim_collective c, double bytes, double *time_s,
                               gcsim_error *err);

/* Adds each call's expected jitter, M x the harmonic sum of its schedule's steps, to
 * call_s (analytic_fabric.c). */
int gcsim_analytic_add_jitter(const gcsim_platform *p, int ps_shards, const gcsim_iteration *it,
                              const gcsim_topology *topo, double *call_s, gcsim_error *err);

/* The prediction's expectation over ECMP collisions (st->platform->ecmp.spines > 1): each
 * field, and the variable-compute statistics, weighted by the most loaded spine link's law
 * (analytic_fabric.c), the step rebuilt on each fabric (gcsim_step_resolve_on). */
int gcsim_analytic_ecmp_predict(const gcsim_resolved_step *st, gcsim_prediction *out,
                                gcsim_error *err);

#endif
