/*
 * sim/des/des_plan.c: from a scenario to the plan of one simulated iteration: per-GPU
 * compute (forward, backward per bucket), gradient buckets, payload sizes per hop.
 *
 * Compute follows the analytic engine (sim/analytic/analytic.c) so that the engines can be
 * compared: T(1,1,K,|g|) (gcsim_profile_time_s) is the profiled time of a batch on one GPU.
 * For the TernGrad pattern it includes one GPU-to-host copy of |g| at C_cwd (Appendix B),
 * which the DES simulates as traffic, so the compute replayed on a GPU is
 *   strong scaling: (T(1,1,K,|g|) - |g|/C_cwd) / N     (K/N samples per GPU)
 *   weak scaling:    T(1,1,K,|g|) - |g|/C_cwd          (K samples per GPU);
 * the other collectives keep gradients on the GPUs and replay T/N (strong) or T (weak).
 * Compute is split into forward (1 - backward_fraction) and backward (backward_fraction),
 * and over layers by their share of forward FLOPs (docs/formats.md).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "des_internal.h"

#define DEFAULT_BUCKET_BYTES (25.0 * 1024 * 1024) /* PyTorch DDP bucket_cap_mb default */
#define DEFAULT_BACKWARD_FRACTION (2.0 / 3.0)    /* docs/formats.md default */

double des_hop_bytes(const des_plan *plan, int bucket, double fraction, double k)
{
    const gcsim_des_bucket *bk = &plan->buckets[bucket];
    /* Layers sent uncompressed are summed in fp32 and never grow; the rest follows the
     * aggregation rule. */
    double f = plan->fixed_bytes ? plan->fixed_bytes[bucket] : 0;
    double p = bk->payload_bytes - f, d = bk->dense_bytes - f, v = p;
    if (k < 1)
        k = 1;
    if (plan->compressed && p > 0) {
        switch (plan->aggregation) {
        case PAYLOAD_SHARED_SCALE:
            /* The payload packs one ternary value in 2 bits; a sum of k of them has 2k+1
             * levels and needs log2(2k+1) bits, never more than fp32. */
            v = fmin(d, p * fmax(1.0, log2(2 * k + 1) / 2.0));
            break;
        case PAYLOAD_SPARSE:
            /* Worst case: supports do not overlap, density grows k-fold, capped at dense. */
            v = fmin(d, k * p);
            break;
        case PAYLOAD_DENSE_SUMMABLE:
        case PAYLOAD_PER_WORKER_SCALE:
        default:
            v = p;
            break;
        }
    }
    return (v + f) * fraction;
}

void des_plan_free(des_plan *plan)
{
    free(plan->backward_s);
    free(plan->buckets);
    free(plan->fixed_bytes);
    plan->backward_s = NULL;
    plan->buckets = NULL;
    plan->fixed_bytes = NULL;
}

int des_plan_network(des_plan *plan, const gcsim_platform *p, const gcsim_des_options *opts,
                     gcsim_error *err)
{
    const char *model = opts && opts->network_model ? opts->network_model : NULL;
    if (!model) {
        const char *env = getenv("GCSIM_DES_NETWORK_MODEL");
        model = env && *env ? env : gcsim_des_default_network_model(p);
    }
    static const char *known[] = {"LV08", "CM02", "IB", "SMPI", "Constant"};
    bool ok = false;
    for (size_t k = 0; k < sizeof known / sizeof *known; k++)
        ok = ok || strcmp(model, known[k]) == 0;
    if (!ok)
        return gcsim_fail(err, "network model \"%s\" (option or GCSIM_DES_NETWORK_MODEL) is not one of "
                               "LV08, CM02, IB, SMPI, Constant", model);
    snprintf(plan->network_model, sizeof plan->network_model, "%s", model);
    plan->crosstraffic = opts ? opts->crosstraffic : 0;
    return 0;
}

int des_plan_build(des_plan *plan, const gcsim_scenario *s, const gcsim_des_options *opts,
                   gcsim_error *err)
{
    memset(plan, 0, sizeof *plan);
    const gcsim_platform *p = s->platform;
    const gcsim_model *m = s->model;
    const gcsim_payload_plan *pay = s->payload;
    if (!p || !m || !pay)
        return gcsim_fail(err, "des: scenario lacks a platform, model or payload plan");
    if (pay->n_layers != m->n_layers || m->n_layers < 1)
        return gcsim_fail(err, "%s: payload plan has %d layers, model has %d", m->source_path,
                          pay->n_layers, m->n_layers);
    int n = s->placement.gpus;
    if (n < 1 || n > p->nodes * p->gpus_per_node)
        return gcsim_fail(err, "%s: %d GPUs requested, platform has %d x %d", p->source_path, n,
                          p->nodes, p->gpus_per_node);
    if (s->batch < 1)
        return gcsim_fail(err, "des: batch must be positive, got %d", s->batch);
    if (des_plan_network(plan, p, opts, err) != 0)
        return -1;

    const gcsim_profile *prof = gcsim_model_profile(m, p->gpu.type);
    if (!prof)
        return gcsim_fail(err, "%s: no compute profile for GPU type \"%s\" of %s", m->source_path,
                          p->gpu.type, p->source_path);
    double t_batch;
    if (gcsim_profile_time_s(prof, s->batch, &t_batch, err) != 0)
        return -1;
    double g_bytes = gcsim_model_gradient_bytes(m);
    double compute_s = t_batch;
    if (s->collective == COLLECTIVE_TERNGRAD)
        compute_s -= g_bytes / p->intra.gpu_to_host_Bps;
    if (!(compute_s > 0))
        return gcsim_fail(err, "%s: T(1,1,%d) = %g s is not larger than the gradient copy |g|/C_cwd = %g s",
                          m->source_path, s->batch, t_batch, g_bytes / p->intra.gpu_to_host_Bps);
    if (s->scaling == SCALING_STRONG)
        compute_s /= n;
    double bf = prof->backward_fraction > 0 && prof->backward_fraction < 1
                    ? prof->backward_fraction
                    : DEFAULT_BACKWARD_FRACTION;

    plan->platform = p;
    plan->gpus = n;
    plan->gpus_per_node = p->gpus_per_node;
    plan->nodes = (n + p->gpus_per_node - 1) / p->gpus_per_node;
    plan->collective = s->collective;
    plan->aggregation = pay->aggregation;
    plan->ps_shards = s->ps_shards > 0 ? s->ps_shards : plan->nodes;
    plan->overlap = s->overlap;
    plan->forward_s = compute_s * (1 - bf);
    plan->codec_Bps = p->gpu.codec_Bps;
    plan->compressed = gcsim_scenario_compresses(s);
    plan->timeline_path = s->timeline_path;

    double flops = 0;
    for (int l = 0; l < m->n_layers; l++)
        flops += m->layers[l].fwd_flops;
    double bucket_cap = s->bucket_bytes > 0 ? s->bucket_bytes : DEFAULT_BUCKET_BYTES;

    plan->buckets = calloc((size_t)m->n_layers, sizeof *plan->buckets);
    plan->backward_s = calloc((size_t)m->n_layers, sizeof *plan->backward_s);
    plan->fixed_bytes = calloc((size_t)m->n_layers, sizeof *plan->fixed_bytes);
    if (!plan->buckets || !plan->backward_s || !plan->fixed_bytes) {
        des_plan_free(plan);
        return gcsim_fail(err, "des: out of memory");
    }
    /* Backward runs from the last layer to the first; a bucket closes when it holds
     * bucket_cap fp32 bytes, or at the first layer. */
    int nb = 0;
    gcsim_des_bucket *cur = NULL;
    for (int l = m->n_layers - 1; l >= 0; l--) {
        if (!cur) {
            cur = &plan->buckets[nb];
            cur->last_layer = l;
        }
        double share = flops > 0 ? m->layers[l].fwd_flops / flops : 1.0 / m->n_layers;
        plan->backward_s[nb] += compute_s * bf * share;
        cur->first_layer = l;
        double layer_dense = 4.0 * (double)gcsim_layer_params(&m->layers[l]);
        double layer_wire = plan->compressed ? pay->layer_bytes[l] : layer_dense;
        cur->dense_bytes += layer_dense;
        cur->payload_bytes += layer_wire;
        if (layer_wire >= layer_dense)
            plan->fixed_bytes[nb] += layer_wire;
        if (cur->dense_bytes >= bucket_cap || l == 0) {
            nb++;
            cur = NULL;
        }
    }
    plan->n_buckets = nb;
    for (int b = 0; b < nb; b++) {
        gcsim_des_bucket *bk = &plan->buckets[b];
        bk->encode_s = plan->compressed && plan->codec_Bps > 0 ? bk->dense_bytes / plan->codec_Bps : 0;
    }
    return 0;
}
