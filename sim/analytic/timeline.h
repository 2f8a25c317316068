/*
 * sim/analytic/timeline.h: an iteration laid out in time by the analytic engine, the way
 * the DES runs it (sim/des/des_sim.c), with each collective call's duration given in
 * closed form.
 *
 * Three actors per GPU, all GPUs alike:
 *   - compute: forward, then each bucket's backward, one after another;
 *   - comm: bucket by bucket, once backward has produced it (or once backward is done,
 *     without overlap), the steps of its program: codec steps and collective calls (a
 *     call lasts its overhead plus its closed-form time);
 *   - step: the deferred codec steps of each bucket (Horovod decodes in the optimizer
 *     step), once backward is done and the bucket's calls have finished.
 * A blocking call (issued and waited for inside the gradient hook) stops compute until it
 * is done. Codec steps and compute share the GPU: while k of them run, each advances at 1/k of
 * full speed (the DES's SimGrid host shares its speed the same way), so a codec second
 * costs a compute second while backward is still running. A call in flight (after its release
 * wait) takes x = min(s, 1/(k+1)) of the GPU from the k pieces of work beside it, s the
 * iteration's comm_interference (step.h): compute overlapped with communication runs slower,
 * as the DES's bounded execution on the GPU's host makes it.
 *
 * A call whose reducing steps decode, sum and re-encode (hop_s[k] > 0 of its call_s[k])
 * runs its communication first, then that codec work as GPU work of the comm actor, still
 * inside the call (its interference share and a blocking call's hold go on): the DES runs
 * each step's codec on the GPU's host after the step's transfer, sharing the host with
 * compute, so the codec seconds stretch beside backward in both engines. The order within
 * the call (all transfers, then all codec) is the timeline's simplification of the DES's
 * alternation; the sums are the same.
 */
#ifndef GCSIM_ANALYTIC_TIMELINE_H
#define GCSIM_ANALYTIC_TIMELINE_H

#include "step.h"

typedef struct {
    double iteration_s;     /* the last actor's end */
    double compute_end_s;   /* backward done (later than the profile's compute when codec
                               work shared the GPU with it) */
    double comm_s;          /* the calls' durations, summed (their codec part as it ran) */
    double encode_s;        /* nominal codec seconds per GPU, by class; the calls' reducing */
    double decode_s;        /* steps' codec counts as decode, as the DES counts it */
} gcsim_timeline;

/* call_s[k]: how long call k of it takes, overhead included; hop_s[k] (hop_s NULL: none)
 * how much of it is its reducing steps' codec work (gcsim_analytic_call_times). Returns 0,
 * or -1 (with err) when the programs cannot run (a deferred step that is a call). */
int gcsim_timeline_run(const gcsim_iteration *it, const double *call_s, const double *hop_s,
                       gcsim_timeline *out, gcsim_error *err);

#endif
