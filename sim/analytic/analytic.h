/*
 * sim/analytic/analytic.h: the analytic engine.
 *
 * For the collective "terngrad" it is the TernGrad paper's model (terngrad_model.h,
 * eq. 27-30) with |g| in the communication terms replaced by the compressed payload, and
 * no overlap, as published. For every other collective it costs the same schedules the DES
 * executes (sim/collectives: gcsim_schedule_time_s, contention-free closed form) bucket by
 * bucket, and lays the buckets on the same timeline as the DES: a bucket's exchange starts
 * when backward has produced it (or after backward with --no-overlap) and the previous
 * bucket's exchange has finished. What the analytic engine cannot see is contention
 * between flows of different phases or buckets and between codec work and compute.
 * With ECMP collisions or network jitter on the platform (--ecmp-spines, --jitter-us) it
 * gives their expectation over seeds (fabric_expect.h, analytic_fabric.c).
 */
#ifndef GCSIM_ANALYTIC_ANALYTIC_H
#define GCSIM_ANALYTIC_ANALYTIC_H

#include "step.h"
#include "scenario.h"
#include "terngrad_model.h"

/* The paper's link constants of a platform: C_gwd, C_cwd, C_nwd (all NICs of a node),
 * C_ncost. */
terngrad_links gcsim_terngrad_links(const gcsim_platform *p);

/* The engine takes a resolved step (step.h, gcsim_step_resolve: its iteration and the
 * machine it runs on, with ECMP collisions the step on each fabric) and the topology it
 * runs on (gcsim_step_topology: the step's platform for its GPUs, built once where the step
 * is handed over, sim/planning/engine.c); it reads no scenario and builds no topology. */

struct gcsim_var_stats_s;
/* Under st->variability (variable per-GPU compute, sim/config/variability.h): the
 * iteration's mean, p50 and p99 and the expected largest factor over the synchronising
 * group, by the order statistics of the stated distribution through the step's iteration
 * (variable_compute.c). gcsim_analytic_predict reports the mean as its iteration time. */
int gcsim_analytic_variable(const gcsim_resolved_step *st, const gcsim_topology *topo,
                            struct gcsim_var_stats_s *vs, gcsim_error *err);
int gcsim_analytic_predict(const gcsim_resolved_step *st, const gcsim_topology *topo,
                           gcsim_prediction *out, gcsim_error *err);

/* Questions without a step, each handed the topology it runs on (built by the caller,
 * gcsim_topology_init: the first topo->gpus GPUs of topo->platform). The closed-form
 * duration of every collective call of iteration it (it->calls[k]: its overhead plus its
 * schedule's time, parameter servers in ps_shards shards, 0: one per machine), into
 * call_s[0 .. n_calls) (call_times.c); and, when hop_s is not NULL, how much of each is
 * codec work of its reducing steps (receivers that decode, sum and re-encode a
 * per-worker-scale payload, gcsim_hop_codec_s: 0 for every other call), which the
 * timeline runs on the GPU beside compute (timeline.h). */
int gcsim_analytic_call_times(const gcsim_topology *topo, int ps_shards,
                              const gcsim_iteration *it, double *call_s, double *hop_s,
                              gcsim_error *err);

/* One bare collective of `bytes` dense fp32 bytes on topo, in closed form (the analytic
 * twin of gcsim_des_collective_time; analytic_bare.c). */
int gcsim_analytic_collective_time(const gcsim_topology *topo, gcsim_collective c,
                                   double bytes, int ps_shards, double *time_s,
                                   gcsim_error *err);

/* The same for one operation as nccl-tests runs it (gcsim_op_schedule_build). */
int gcsim_analytic_op_time(const gcsim_topology *topo, gcsim_op op, gcsim_collective c,
                           double bytes, double *time_s, gcsim_error *err);

#endif
