#include "analytic.h"

#include <math.h>
#include <string.h>

terngrad_links gcsim_terngrad_links(const gcsim_platform *p)
{
    terngrad_links c = {
        .C_gwd_Bps = p->intra.gpu_to_gpu_Bps,
        .C_cwd_Bps = p->intra.gpu_to_host_Bps,
        .C_nwd_Bps = gcsim_platform_node_network_Bps(p),
        .C_ncost_s = p->nic.latency_s + 2.0 * p->fabric.switch_latency_s,
    };
    return c;
}

static double exchange_s(const gcsim_scenario *s, const ab_problem *ab)
{
    switch (s->collective) {
    case COLLECTIVE_RING:
        return ab_ring_allreduce_s(ab);
    case COLLECTIVE_HALVING_DOUBLING:
        return ab_halving_doubling_s(ab);
    case COLLECTIVE_TREE:
        return ab_binary_tree_s(ab);
    case COLLECTIVE_DOUBLE_TREE:
        return ab_double_binary_tree_s(ab);
    case COLLECTIVE_HIERARCHICAL:
        return ab_hierarchical_s(ab);
    case COLLECTIVE_PARAMETER_SERVER:
        return ab_parameter_server_s(ab);
    case COLLECTIVE_ALLGATHER:
        return ab_allgather_s(ab);
    case COLLECTIVE_TERNGRAD:
    case COLLECTIVE_COUNT:
        break;
    }
    return NAN;
}

int gcsim_analytic_predict(const gcsim_scenario *s, gcsim_prediction *out, gcsim_error *err)
{
    const gcsim_platform *pf = s->platform;
    const gcsim_model *m = s->model;
    const gcsim_payload_plan *pl = s->payload;
    const gcsim_placement *pc = &s->placement;
    memset(out, 0, sizeof *out);

    const gcsim_profile *prof = gcsim_model_profile(m, pf->gpu.type);
    if (!prof)
        return gcsim_fail(err, "%s: no compute profile for GPU type \"%s\" of platform %s",
                          m->source_path, pf->gpu.type, pf->source_path);
    double T1_s;
    if (gcsim_profile_time_s(prof, s->batch, &T1_s, err))
        return -1;

    terngrad_links c = gcsim_terngrad_links(pf);
    int i = pc->gpus_per_machine, j = pc->machines, N = pc->gpus;
    /* Without compression (gcsim_scenario_compresses) the wire carries fp32. */
    bool compressed = gcsim_scenario_compresses(s);
    double g_dense = pl->dense_bytes, g_wire = compressed ? pl->total_bytes : g_dense;
    /* In the paper's model T(1,1,K,|g|) includes one copy of the fp32 gradient to the host. */
    double T1_compute_s = T1_s - g_dense / c.C_cwd_Bps;
    if (s->collective == COLLECTIVE_TERNGRAD && T1_compute_s <= 0.0)
        return gcsim_fail(err, "%s: profiled time %g s for batch %d is shorter than copying the "
                               "%g-byte gradient to the host at C_cwd, which the TernGrad model "
                               "assumes it includes",
                          m->source_path, T1_s, s->batch, g_dense);

    /* The paper's model has no partly filled machine; with one, the full-machine i and
     * j = ceil(N/i) are used (the slowest machine decides) and compute is divided by the
     * real N. Its T(1,1,K) contains one fp32 copy to the host, which it moves into T_comm.
     * The other collectives stay on the GPUs, so for them the profile is pure compute. */
    if (s->collective == COLLECTIVE_TERNGRAD) {
        if (s->scaling == SCALING_STRONG)
            out->compute_s =
                terngrad_T_comp_strong_s(i, j, T1_s, g_dense, &c) * (double)(i * j) / N;
        else
            out->compute_s = T1_compute_s;
    } else {
        out->compute_s = s->scaling == SCALING_STRONG ? T1_s / N : T1_s;
    }

    ab_problem ab = {
        .gpus = N,
        .gpus_per_machine = i,
        .machines = j,
        .intra_alpha_s = pf->intra.latency_s,
        .intra_Bps = c.C_gwd_Bps,
        .host_Bps = c.C_cwd_Bps,
        .inter_alpha_s = c.C_ncost_s,
        .inter_Bps = c.C_nwd_Bps,
        .dense_bytes = g_dense,
        .payload_bytes = g_wire,
        .aggregation = pl->aggregation,
        .ps_shards = s->ps_shards,
    };
    if (s->collective == COLLECTIVE_TERNGRAD)
        out->comm_s = terngrad_T_comm_s(i, j, g_wire, &c);
    else
        out->comm_s = exchange_s(s, &ab);
    if (!isfinite(out->comm_s))
        return gcsim_fail(err, "collective %s: no analytic cost", gcsim_collective_name(s->collective));

    /* Encoding the local gradient and decoding what arrives run on the GPU at the
     * platform's codec throughput (fp32 bytes per second); an uncompressed exchange costs
     * nothing here. */
    if (compressed && pf->gpu.codec_Bps > 0.0)
        out->compress_s = g_dense / pf->gpu.codec_Bps *
                          (1.0 + (double)ab_payloads_decoded(s->collective, &ab));

    out->exposed_comm_s = out->comm_s;
    out->iteration_s = out->compute_s + out->comm_s + out->compress_s;
    out->samples_per_iteration =
        s->scaling == SCALING_STRONG ? (double)s->batch : (double)N * s->batch;
    out->throughput_samples_per_s = out->samples_per_iteration / out->iteration_s;
    return 0;
}
