/*
 * sim/analytic/predict_one.c: the analytic engine's closed form of one step on one fabric:
 * the TernGrad pattern's published equations, or the shared schedule's calls
 * (call_times.c) laid on the step's timeline (timeline.c), with the expected variable
 * compute (variable_compute.c). analytic.c wraps it with ECMP's expectation
 * (analytic_fabric.c), which calls it once per fabric: its own file so that nothing
 * calls back up.
 */
#include "analytic.h"
#include "analytic_internal.h"
#include "timeline.h"
#include "variability.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

terngrad_links gcsim_terngrad_links(const gcsim_platform *p)
{
    terngrad_links c = {
        .C_gwd_Bps = p->intra.gpu_to_gpu_Bps,
        .C_cwd_Bps = p->intra.gpu_to_host_Bps,
        /* what the NICs move of payload and the per-message overhead of the transport, as
         * the topology's links carry them (docs/formats.md, "Transports and PCIe
         * topology"); the NIC's line rate and latency without one. The node's NICs are
         * the ones the topology lays rails on (NCCL's channel count on NVSwitch nodes,
         * gcsim_topology_net_channels), so that both engines move the pattern's bytes
         * over the same bandwidth: 15 of a GB200 rack's 72, all of them elsewhere */
        .C_nwd_Bps = gcsim_platform_nic_payload_Bps(p) * gcsim_topology_net_channels(p),
        .C_ncost_s = p->nic.latency_s + 2.0 * p->fabric.switch_latency_s +
                     (p->nic.message_overhead_s > 0 ? p->nic.message_overhead_s : 0),
    };
    return c;
}

/* Codec time of the TernGrad pattern, as the DES charges its schedule: every bucket
 * encoded once and its aggregate decoded once (its reducing steps charge nothing,
 * gcsim_hop_codec_s); all of it in series with the paper's communication, which has no
 * overlap. */
static int pattern_codec_s(const gcsim_resolved_step *st, const gcsim_topology *topo,
                           gcsim_prediction *out, gcsim_error *err)
{
    const gcsim_iteration *it = &st->it;
    gcsim_schedule sch;
    /* the step's collective: the one whose costing is the paper's closed form */
    if (gcsim_schedule_build(&sch, st->collective, topo, 0, 1, err) != 0)
        return -1;
    for (int b = 0; b < it->n_buckets; b++) {
        const gcsim_bucket_bytes *bb = &it->buckets[b].bytes;
        out->encode_s += gcsim_bucket_encode_s(bb);
        out->decode_s += gcsim_bucket_decode_s(bb, &sch);
        for (int p = 0; p < sch.n_phases; p++) {
            const gcsim_phase *ph = &sch.phases[p];
            double share = 0;
            for (int f = 0; f < ph->n_flows; f++)
                share = fmax(share, ph->flows[f].share);
            out->decode_s += ph->steps * gcsim_hop_codec_s(ph, bb, share);
        }
    }
    out->compress_s = out->encode_s + out->decode_s;
    gcsim_schedule_free(&sch);
    return 0;
}

/* TernGrad Appendix B, eq. 27-30, exactly as published, from the inputs the step resolved
 * (profile, precision, payload; T(1,1,K) checked to include the host copy). */
static int terngrad_predict(const gcsim_resolved_step *st, const gcsim_topology *topo,
                            gcsim_prediction *out, gcsim_error *err)
{
    const gcsim_placement *pc = &st->placement;
    const gcsim_terngrad_inputs *in = &st->terngrad;
    double T1_s = in->T1_s;
    terngrad_links c = gcsim_terngrad_links(st->platform);
    int i = pc->gpus_per_machine, j = pc->machines, N = pc->gpus;
    double g_dense = in->g_dense_bytes;
    double g_wire = in->g_wire_bytes;
    /* The paper has no partly filled machine; with one, the full-machine i and
     * j = ceil(N/i) are used (the slowest machine decides) and compute is divided by the
     * real N. */
    if (in->strong_scaling)
        out->compute_s = terngrad_T_comp_strong_s(i, j, T1_s, g_dense, &c) * (double)(i * j) / N;
    else
        out->compute_s = T1_s - g_dense / c.C_cwd_Bps;
    out->comm_s = terngrad_T_comm_s(i, j, g_wire, &c);
    if (in->compressed && pattern_codec_s(st, topo, out, err) != 0)
        return -1;
    out->exposed_comm_s = out->comm_s;
    out->iteration_s = out->compute_s + out->comm_s + out->compress_s;
    return 0;
}

static int schedule_predict(const gcsim_resolved_step *st, const gcsim_topology *topo,
                            gcsim_prediction *out, gcsim_error *err)
{
    const gcsim_iteration *it = &st->it;
    /* A case's calls usually fit on the stack: no allocation per case (issue 47). */
    enum { CALLS_ON_STACK = 64 };
    double on_stack[2 * CALLS_ON_STACK] = {0};
    bool heap = it->n_calls > CALLS_ON_STACK;
    /* each call's duration, then (hop_s) how much of it is its reducing steps' codec */
    double *call_s = heap ? calloc(2 * (size_t)it->n_calls, sizeof *call_s) : on_stack;
    double *hop_s = call_s ? call_s + (heap ? it->n_calls : CALLS_ON_STACK) : NULL;
    gcsim_timeline tl;
    int rc = !call_s ? gcsim_fail(err, "out of memory for %d collective calls", it->n_calls)
             : gcsim_analytic_call_times(topo, st->ps_shards, it, call_s, hop_s, err) != 0
                 ? -1
                 : gcsim_timeline_run(it, call_s, hop_s, &tl, err);
    if (rc == 0) {
        out->compute_s = it->compute_s;
        out->comm_s = tl.comm_s;
        out->encode_s = tl.encode_s;
        out->decode_s = tl.decode_s;
        out->compress_s = tl.encode_s + tl.decode_s;
        out->iteration_s = tl.iteration_s;
        out->exposed_comm_s = fmax(0.0, out->iteration_s - out->compute_s - out->compress_s);
    }
    if (heap)
        free(call_s);
    return rc;
}

int gcsim_analytic_predict_one(const gcsim_resolved_step *st, const gcsim_topology *topo,
                               gcsim_prediction *out, gcsim_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = st->costing == GCSIM_COST_TERNGRAD_FORM ? terngrad_predict(st, topo, out, err)
                                                      : schedule_predict(st, topo, out, err);
    if (rc != 0)
        return -1;
    if (st->variability && st->variability->on) {
        /* variable compute: the expected iteration (variable_compute.c) */
        gcsim_var_stats vs;
        if (gcsim_analytic_variable(st, topo, &vs, err) != 0)
            return -1;
        out->iteration_s = vs.mean_s;
        if (st->variability_stats)
            *st->variability_stats = vs;
        out->exposed_comm_s = fmax(0.0, out->iteration_s - out->compute_s - out->compress_s);
    }
    out->samples_per_iteration = st->samples_per_iteration;
    out->throughput_samples_per_s = out->samples_per_iteration / out->iteration_s;
    return 0;
}
