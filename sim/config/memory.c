/* Memory feasibility of one data-parallel worker (memory.h). */
#include "memory.h"

#include "act_memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gcsim_samples_per_gpu(gcsim_scaling scaling, int batch, int gpus)
{
    return scaling == SCALING_STRONG ? (batch + gpus - 1) / gpus : batch;
}

static double state_bytes_per_param(gcsim_optimizer o)
{
    return o == GCSIM_OPT_ADAM ? 8.0 : o == GCSIM_OPT_MOMENTUM ? 4.0 : 0.0;
}

/* A 16-bit working copy beside the fp32 master weights under mixed precision. */
static double weight_bytes_per_param(gcsim_precision p)
{
    return gcsim_precision_grad_elem_bytes(p) == 4 ? 4.0 : 2.0 + 4.0;
}

double gcsim_memory_bytes_per_param(gcsim_precision p, gcsim_optimizer o)
{
    return weight_bytes_per_param(p) + (double)gcsim_precision_grad_elem_bytes(p) +
           state_bytes_per_param(o);
}

void gcsim_memory_estimate(const gcsim_model *m, const gcsim_platform *pf, int samples_per_gpu,
                           gcsim_memory *out)
{
    memset(out, 0, sizeof *out);
    out->shard_gpus = 1;
    out->params = gcsim_model_params(m); /* a sum over the layers: once (issue 47) */
    double n = (double)out->params;
    out->samples_per_gpu = samples_per_gpu;
    out->weights_bytes = n * weight_bytes_per_param(m->precision);
    out->gradients_bytes = n * (double)gcsim_precision_grad_elem_bytes(m->precision);
    out->optimizer_bytes = n * state_bytes_per_param(m->optimizer);
    out->activation_bytes = m->activation_bytes_per_sample * (double)samples_per_gpu;
    out->total_bytes = out->weights_bytes + out->gradients_bytes + out->optimizer_bytes +
                       out->activation_bytes;
    out->capacity_bytes = pf ? pf->gpu.memory_bytes : 0.0;
}

/* Parameters of the model's largest unit (what ZeRO-3 holds unsharded at once). */
static double largest_unit_params(const gcsim_model *m)
{
    int *unit_of = malloc(sizeof(int) * (size_t)(m->n_layers > 0 ? m->n_layers : 1));
    if (!unit_of)
        return (double)gcsim_model_params(m); /* the worst case */
    int units = gcsim_model_units(m, unit_of);
    double best = 0, cur = 0;
    for (int l = 0; l < m->n_layers; l++) {
        if (l > 0 && unit_of[l] != unit_of[l - 1])
            cur = 0;
        cur += (double)gcsim_layer_params(&m->layers[l]);
        if (cur > best)
            best = cur;
    }
    (void)units;
    free(unit_of);
    return best;
}

/* Parameters DeepSpeed ZeRO-3 holds unsharded at once: those fetched and prefetched stay
 * under stage3_max_live_parameters except by the tensor that crosses it (a prefetch issues
 * one tensor at least; sharding.c, prefetch_issue), and never more than the model. */
static double largest_tensor_params(const gcsim_model *m)
{
    double largest = 0;
    for (int l = 0; l < m->n_layers; l++) {
        const gcsim_layer *ly = &m->layers[l];
        double e = (double)gcsim_layer_params(ly) / (ly->matrices > 0 ? ly->matrices : 1);
        if (e > largest)
            largest = e;
    }
    return largest;
}

static double deepspeed_live_params(const gcsim_model *m)
{
    double live = GCSIM_DS_MAX_LIVE_PARAMS + largest_tensor_params(m);
    double n = (double)gcsim_model_params(m);
    return live < n ? live : n;
}

/* Unsharded gradients DeepSpeed ZeRO-3 holds: the reduce bucket it fills before a
 * reduce-scatter (reduce_bucket_size) and the tensor whose gradient is being added, at
 * most a unit's (what FSDP reduce-scatters at once). */
static double deepspeed_live_grads(const gcsim_model *m, double unit)
{
    double g = GCSIM_DS_REDUCE_BUCKET_ELEMS + largest_tensor_params(m);
    return g < unit ? g : unit;
}

/* GPUs a shard spans: all of them under ZeRO, the group under HSDP (a node by default). */
static int shard_span(const gcsim_sharding *sh, const gcsim_platform *pf, int gpus)
{
    if (sh->strategy == GCSIM_SHARD_DDP)
        return 1;
    if (sh->strategy == GCSIM_SHARD_HSDP) {
        int g = sh->group > 0 ? sh->group : pf->gpus_per_node;
        return g < gpus ? g : gpus;
    }
    return gpus;
}

void gcsim_memory_estimate_sharded(const gcsim_model *m, const gcsim_platform *pf,
                                   const gcsim_sharding *sh, int gpus, int samples_per_gpu,
                                   const gcsim_act_ckpt *ckpt, double bucket_bytes,
                                   gcsim_memory *out)
{
    gcsim_memory_estimate(m, pf, samples_per_gpu, out);
    out->sharding = *sh;
    out->act_ckpt = ckpt != NULL;
    if (ckpt)
        out->act_ckpt_policy = *ckpt;
    int span = shard_span(sh, pf, gpus);
    out->shard_gpus = span;
    double n = (double)out->params, S = (double)span;
    double grad = (double)gcsim_precision_grad_elem_bytes(m->precision);
    double working = grad == 4 ? 4.0 : 2.0, master = grad == 4 ? 0.0 : 4.0;
    double opt = state_bytes_per_param(m->optimizer);
    switch (sh->strategy) {
    case GCSIM_SHARD_DDP: break;
    case GCSIM_SHARD_ZERO1:
        out->weights_bytes = n * (working + master / S);
        out->optimizer_bytes = n * opt / S;
        break;
    case GCSIM_SHARD_ZERO2:
        out->weights_bytes = n * (working + master / S);
        out->gradients_bytes = n * grad / S;
        out->optimizer_bytes = n * opt / S;
        break;
    case GCSIM_SHARD_ZERO3:
    case GCSIM_SHARD_HSDP:
        out->weights_bytes = n * (working + master) / S;
        out->gradients_bytes = n * grad / S;
        out->optimizer_bytes = n * opt / S;
        break;
    }
    double bucket_elems = (bucket_bytes > 0 ? bucket_bytes : 25.0 * 1048576) / 4.0;
    if (sh->strategy == GCSIM_SHARD_ZERO1 || sh->strategy == GCSIM_SHARD_ZERO2)
        out->buffer_bytes = 2.0 * bucket_elems * grad;
    else if (gcsim_sharding_deepspeed_fetch(sh) && span > 1)
        /* the live parameters and gradients as DeepSpeed bounds them */
        out->buffer_bytes = deepspeed_live_params(m) * working +
                            deepspeed_live_grads(m, largest_unit_params(m)) * grad;
    else if (gcsim_sharding_shards_params(sh) && span > 1)
        out->buffer_bytes = largest_unit_params(m) * (2.0 * working + grad);
    if (sh->hpz && pf->gpus_per_node > 1)
        out->buffer_bytes += n * working / pf->gpus_per_node;
    /* what the policy keeps (act_memory.h) */
    out->activation_bytes = gcsim_act_bytes_per_sample(m, ckpt) * (double)samples_per_gpu;
    out->total_bytes = out->weights_bytes + out->gradients_bytes + out->optimizer_bytes +
                       out->activation_bytes + out->buffer_bytes;
}

void gcsim_memory_describe(const gcsim_model *m, const gcsim_memory *mem, char *buf,
                           size_t size)
{
    char act[160];
    if (mem->activation_bytes > 0.0)
        snprintf(act, sizeof act, "activations %.2f GB (%d samples x %.1f MB%s)",
                 mem->activation_bytes / 1e9, mem->samples_per_gpu,
                 (mem->act_ckpt && mem->samples_per_gpu > 0
                      ? mem->activation_bytes / mem->samples_per_gpu
                      : m->activation_bytes_per_sample) / 1e6,
                 mem->act_ckpt ? " kept" : "");
    else
        snprintf(act, sizeof act, "activations not estimated (the model gives no "
                                  "activation_bytes_per_sample)");
    char cap[96];
    if (mem->capacity_bytes > 0.0)
        snprintf(cap, sizeof cap, "%s %.1f GB of gpu.memory",
                 mem->total_bytes > mem->capacity_bytes ? ">" : "<=", mem->capacity_bytes / 1e9);
    else
        snprintf(cap, sizeof cap, "not checked: the platform gives no gpu.memory");
    if (mem->sharding.strategy == GCSIM_SHARD_DDP && mem->buffer_bytes == 0 && !mem->act_ckpt) {
        snprintf(buf, size,
                 "%lld parameters x %.0f B (%s, %s: weights %.2f + gradients %.2f + optimizer "
                 "%.2f GB) + %s = %.2f GB per GPU, %s",
                 mem->params, gcsim_memory_bytes_per_param(m->precision, m->optimizer),
                 gcsim_precision_name(m->precision), gcsim_optimizer_name(m->optimizer),
                 mem->weights_bytes / 1e9, mem->gradients_bytes / 1e9,
                 mem->optimizer_bytes / 1e9, act, mem->total_bytes / 1e9, cap);
        return;
    }
    char strategy[48], policy[48], ckpt_text[160] = "";
    gcsim_sharding_format(&mem->sharding, strategy, sizeof strategy);
    gcsim_act_ckpt_format(&mem->act_ckpt_policy, policy, sizeof policy);
    if (mem->act_ckpt && mem->act_ckpt_policy.mode == GCSIM_CKPT_FULL)
        snprintf(ckpt_text, sizeof ckpt_text, " checkpointed");
    else if (mem->act_ckpt && mem->act_ckpt_policy.mode == GCSIM_CKPT_OP &&
             !gcsim_act_memory_from_saved(m))
        snprintf(ckpt_text, sizeof ckpt_text, " (checkpointed, %s policy: counted whole, an "
                                              "upper bound)", policy);
    else if (mem->act_ckpt)
        snprintf(ckpt_text, sizeof ckpt_text, " checkpointed (%s)", policy);
    snprintf(buf, size,
             "%s%s%d GPUs: %lld parameters (%s, %s: weights %.2f + gradients %.2f + "
             "optimizer %.2f GB) + buffers %.2f GB + %s%s = %.2f GB per GPU, %s",
             strategy, mem->shard_gpus > 1 ? " over " : " (nothing sharded) x ",
             mem->shard_gpus > 1 ? mem->shard_gpus : 1, mem->params, gcsim_precision_name(m->precision),
             gcsim_optimizer_name(m->optimizer), mem->weights_bytes / 1e9,
             mem->gradients_bytes / 1e9, mem->optimizer_bytes / 1e9, mem->buffer_bytes / 1e9,
             act, ckpt_text, mem->total_bytes / 1e9, cap);
}

int gcsim_memory_check(const gcsim_model *m, const gcsim_platform *pf, int samples_per_gpu,
                       gcsim_error *err)
{
    gcsim_memory mem;
    gcsim_memory_estimate(m, pf, samples_per_gpu, &mem);
    if (mem.capacity_bytes <= 0.0 || mem.total_bytes <= mem.capacity_bytes)
        return 0;
    char line[900];
    gcsim_memory_describe(m, &mem, line, sizeof line);
    return gcsim_fail(err, "does not fit in GPU memory: %s %s on %s (%s): %s", m->name,
                      m->source_path, pf->gpu.type, pf->source_path, line);
}

/* What would fit instead: per strategy, the smallest power-of-two GPU count (up to the
 * platform's) at which it fits, without checkpointing, else with it. */
static void fit_suggestions(const gcsim_model *m, const gcsim_platform *pf, int gpus,
                            int samples, const gcsim_act_ckpt *ckpt, double bucket_bytes,
                            char *buf, size_t size)
{
    static const gcsim_shard_strategy order[] = {GCSIM_SHARD_DDP, GCSIM_SHARD_ZERO1,
                                                 GCSIM_SHARD_ZERO2, GCSIM_SHARD_HSDP,
                                                 GCSIM_SHARD_ZERO3};
    static const char *names[] = {"ddp", "zero1", "zero2", "hsdp", "fsdp"};
    static const gcsim_act_ckpt full = {.mode = GCSIM_CKPT_FULL};
    long long capacity = (long long)pf->nodes * pf->gpus_per_node;
    size_t n = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < sizeof order / sizeof *order && n < size; k++) {
        /* zero3 suggested as fsdp: FSDP's memory (a DeepSpeed zero3 differs) */
        gcsim_sharding alt = {.strategy = order[k], .fsdp = order[k] == GCSIM_SHARD_ZERO3};
        /* without checkpointing (when none was asked), with the asked policy (unless op
         * counted whole), then with full checkpointing (unless that was asked) */
        bool op = ckpt && ckpt->mode == GCSIM_CKPT_OP && !gcsim_act_memory_from_saved(m);
        const gcsim_act_ckpt *tries[3];
        int n_tries = 0;
        if (!ckpt)
            tries[n_tries++] = NULL;
        else if (!op)
            tries[n_tries++] = ckpt;
        if (!ckpt || ckpt->mode != GCSIM_CKPT_FULL)
            tries[n_tries++] = &full;
        for (int t = 0; t < n_tries; t++) {
            const gcsim_act_ckpt *with = tries[t];
            bool say_full = with == &full;
            long long found = 0;
            gcsim_memory mem;
            for (long long g = 1; g <= capacity && !found; g *= 2) {
                gcsim_memory_estimate_sharded(m, pf, &alt, (int)g, samples, with, bucket_bytes,
                                              &mem);
                if (mem.total_bytes <= mem.capacity_bytes)
                    found = g;
            }
            if (!found)
                continue;
            if (found <= gpus) /* fits at the asked count: its figure there */
                gcsim_memory_estimate_sharded(m, pf, &alt, gpus, samples, with, bucket_bytes,
                                              &mem);
            n += (size_t)snprintf(buf + n, size - n, "%s%s%s on %s%lld GPUs (%.1f GB)",
                                  n ? ", " : "", names[k], say_full ? " --act-ckpt" : "",
                                  found > gpus ? ">= " : "", found > gpus ? found : gpus,
                                  mem.total_bytes / 1e9);
            break;
        }
    }
    if (!n)
        snprintf(buf, size, "nothing on this platform up to %lld GPUs: a smaller micro-batch "
                            "(--batch), or tensor/pipeline parallelism (not modelled)", capacity);
}

int gcsim_memory_check_sharded(const gcsim_model *m, const gcsim_platform *pf,
                               const gcsim_sharding *sh, int gpus, int samples_per_gpu,
                               const gcsim_act_ckpt *ckpt, double bucket_bytes,
                               gcsim_error *err)
{
    gcsim_memory mem;
    gcsim_memory_estimate_sharded(m, pf, sh, gpus, samples_per_gpu, ckpt, bucket_bytes, &mem);
    if (mem.capacity_bytes <= 0.0 || mem.total_bytes <= mem.capacity_bytes)
        return 0;
    char line[900], fits[600];
    gcsim_memory_describe(m, &mem, line, sizeof line);
    fit_suggestions(m, pf, gpus, samples_per_gpu, ckpt, bucket_bytes, fits, sizeof fits);
    return gcsim_fail(err, "does not fit in GPU memory on %d GPUs: %s %s on %s (%s): %s; would "
                           "fit: %s%s",
                      gpus, m->name, m->source_path, pf->gpu.type, pf->source_path, line, fits,
                      ckpt && ckpt->mode == GCSIM_CKPT_OP && !gcsim_act_memory_from_saved(m)
                          ? " (under --act-ckpt=op the activations are counted whole, an upper "
                            "bound: --no-memory-check predicts a configuration known to run)"
                          : "");
}
