/*
 * sim/step/iteration.c: one training iteration as both engines see it: compute per
 * GPU, and the gradient buckets backward fills (step.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "case_memo.h"
#include "codec.h"
#include "program.h"
#include "sharding_build.h"
#include "step.h"
#include "roofline.h"
#include "stack.h"

bool gcsim_step_overlaps(gcsim_collective c, bool overlap)
{
    return overlap && !gcsim_collective_is_paper_pattern(c);
}

bool gcsim_scenario_overlaps(const gcsim_scenario *s)
{
    return gcsim_step_overlaps(s->collective, s->overlap);
}

/* Plain data parallelism's blocks: forward, then the backward of each bucket in the order
 * backward fills them; bucket b is ready when its block is done (or when backward is,
 * without overlap). */
static int plain_blocks(gcsim_iteration *it)
{
    it->n_blocks = it->n_buckets + 1;
    /* a case memo's (case_memo_lend), with room for these; every one is written below */
    if (!it->blocks)
        it->blocks = calloc((size_t)it->n_blocks, sizeof *it->blocks);
    if (!it->blocks)
        return -1;
    it->blocks[0] = (gcsim_block){.kind = GCSIM_BLOCK_FORWARD, .seconds = it->forward_s,
                                  .first_layer = 0, .last_layer = it->n_layers - 1,
                                  .gate = -1};
    for (int b = 0; b < it->n_buckets; b++) {
        gcsim_bucket *bk = &it->buckets[b];
        it->blocks[b + 1] = (gcsim_block){.kind = GCSIM_BLOCK_BACKWARD,
                                          .seconds = bk->backward_s,
                                          .first_layer = bk->first_layer,
                                          .last_layer = bk->last_layer, .gate = -1};
        bk->ready_block = it->overlap ? b + 1 : it->n_blocks - 1;
    }
    return 0;
}

/* The layers' labels for per-tensor views (step.h): the model's layers and their
 * parameter counts. -1 when out of memory. */
static int layer_labels(gcsim_iteration *it, const gcsim_scenario *s)
{
    const gcsim_model *m = s->model;
    it->layers = m->layers;
    /* a case memo's (case_memo_lend), with room for the model's layers */
    if (!it->layer_elements)
        it->layer_elements = malloc(sizeof(double) * (size_t)m->n_layers);
    if (!it->layer_elements)
        return -1;
    for (int l = 0; l < m->n_layers; l++)
        it->layer_elements[l] = (double)gcsim_layer_params(&m->layers[l]);
    return 0;
}

/* Each bucket's program, as the scenario's stack (or the fused stack) runs it. */
static int iteration_programs(gcsim_iteration *it, const gcsim_scenario *s, gcsim_error *err)
{
    const gcsim_stack *stack = s->stack && !s->stack->codec_model &&
                                       !gcsim_collective_is_paper_pattern(s->collective)
                                   ? s->stack
                                   : NULL;
    program_tuner *tuner = stack ? program_tuner_new(s, err) : NULL;
    if (stack && !tuner && err->message[0]) {
        gcsim_iteration_free(it);
        return -1;
    }
    program_entry_memo entry = {0};
    bool kept = stack && case_memo_entry(s->case_memo, s, &entry);
    program_entry_memo before = entry;
    for (int b = 0; b < it->n_buckets; b++) {
        if (stack ? program_stack(it, s, b, tuner, &entry, err) : program_fused(it, s, b)) {
            if (!stack)
                gcsim_fail(err, "out of memory for the programs of %d buckets", it->n_buckets);
            program_tuner_free(tuner);
            gcsim_iteration_free(it);
            return -1;
        }
    }
    program_tuner_free(tuner);
    /* kept for the group's next cases once found, and again when a case found more (a
     * one-GPU case's programs need no setting) */
    if (stack && entry.found &&
        (!kept || entry.have_gpu != before.have_gpu || entry.have_setting != before.have_setting))
        case_memo_keep_entry(s->case_memo, s, &entry);
    if (s->codec && s->codec->on_host)
        for (int k = 0; k < it->n_steps; k++)
            it->steps[k].on_host = it->steps[k].kind == GCSIM_STEP_CODEC;
    return 0;
}

int gcsim_iteration_build(gcsim_iteration *it, const gcsim_scenario *s, gcsim_error *err)
{
    memset(it, 0, sizeof *it);
    it->comm_interference = gcsim_step_interference(s);
    /* Plain data parallelism under weak scaling: nothing before the programs depends on
     * the GPU count, so a case memo's layers and buckets serve every count of a group. */
    bool plain = s->sharding.strategy == GCSIM_SHARD_DDP && sharding_micro_batches(s) <= 1 &&
                 !s->act_ckpt;
    bool memo = plain && s->case_memo && s->scaling != SCALING_STRONG;
    if (memo && (case_memo_lend(s->case_memo, s, it) || case_memo_buckets(s->case_memo, s, it))) {
        if (layer_labels(it, s)) {
            gcsim_iteration_free(it);
            return gcsim_fail(err, "out of memory for %d layers", it->n_layers);
        }
        if (plain_blocks(it)) {
            gcsim_iteration_free(it);
            return gcsim_fail(err, "out of memory for %d compute blocks", it->n_buckets + 1);
        }
        return iteration_programs(it, s, err);
    }
    const gcsim_platform *p = s->platform;
    const gcsim_model *m = s->model;
    const gcsim_payload_plan *pay = s->payload;
    if (!p || !m || !pay)
        return gcsim_fail(err, "scenario lacks a platform, model or payload plan");
    if (pay->n_layers != m->n_layers || m->n_layers < 1)
        return gcsim_fail(err, "%s: payload plan has %d layers, model has %d", m->source_path,
                          pay->n_layers, m->n_layers);
    if (s->batch < 1)
        return gcsim_fail(err, "batch must be positive, got %d", s->batch);
    gcsim_profile roofline; /* used when the model has no profile for this GPU */
    const gcsim_profile *prof = gcsim_compute_profile(m, p, s->batch, &roofline, err);
    if (!prof)
        return -1;
    double t_batch;
    if (gcsim_profile_time_s(prof, s->batch, &t_batch, err) != 0)
        return -1;
    /* In the TernGrad paper's model (and DGC's, which uses it) T(1,1,K,|g|) includes one
     * copy of the fp32 gradient to the host, which the pattern simulates as traffic; the
     * other collectives keep gradients on the GPUs and replay the profile as it is. */
    double g_bytes = gcsim_model_gradient_bytes(m);
    double compute_s = t_batch;
    if (gcsim_collective_is_paper_pattern(s->collective))
        compute_s -= g_bytes / p->intra.gpu_to_host_Bps;
    if (!(compute_s > 0))
        return gcsim_fail(err, "%s: profiled time %g s for batch %d is shorter than copying the "
                               "%g-byte gradient to the host at C_cwd, which the TernGrad model "
                               "assumes it includes",
                          m->source_path, t_batch, s->batch, g_bytes);
    if (s->scaling == SCALING_STRONG)
        compute_s /= s->placement.gpus;
    double bf = prof->backward_fraction > 0 && prof->backward_fraction < 1
                    ? prof->backward_fraction
                    : GCSIM_DEFAULT_BACKWARD_FRACTION;
    it->compute_s = compute_s;
    it->forward_s = compute_s * (1 - bf);
    it->overlap = gcsim_scenario_overlaps(s);

    /* Backward time is shared out between layers by measured per-layer backward times
     * when the profile has them (gcsim_export.py --profile), else by forward FLOPs. */
    const double *measured_bwd = prof->layer_backward_s;
    double flops = 0, measured_bwd_s = 0;
    for (int l = 0; l < m->n_layers; l++) {
        flops += m->layers[l].fwd_flops;
        measured_bwd_s += measured_bwd ? measured_bwd[l] : 0.0;
    }
    if (!(measured_bwd_s > 0))
        measured_bwd = NULL;
    /* Buckets close at a byte cap (PyTorch DDP: a smaller first bucket, then 25 MiB), or,
     * for a stack that fuses tensors per background cycle (Horovod), when the next layer's
     * gradient is ready in a later cycle or the fusion cap is reached. */
    /* The papers' patterns are their own models, whatever stack is named. */
    const gcsim_stack *stack = s->stack && !s->stack->codec_model &&
                                       !gcsim_collective_is_paper_pattern(s->collective)
                                   ? s->stack
                                   : NULL;
    bool by_cycle = stack && stack->unit == STACK_UNIT_TENSOR;
    /* A codec-model stack has no programs of its own, but where its framework closes a
     * bucket is still its own: DeepSpeed's engine all-reduces after backward in buffers of
     * 5e8 elements, one bucket for most models (platforms/stacks/deepspeed.json); the
     * fused stack names PyTorch's 25 MiB, the default. */
    const gcsim_stack *bucketing =
        stack ? stack
        : s->stack && s->stack->codec_model && !gcsim_collective_is_paper_pattern(s->collective)
            ? s->stack
            : NULL;
    double stack_cap = !bucketing ? 0 : by_cycle ? stack->fusion_bytes : bucketing->bucket_bytes;
    double cap = s->bucket_bytes > 0 ? s->bucket_bytes
                 : stack_cap > 0     ? stack_cap
                                     : GCSIM_DEFAULT_BUCKET_BYTES;
    double first_cap = bucketing && !by_cycle && !(s->bucket_bytes > 0) &&
                               bucketing->first_bucket_bytes > 0
                           ? bucketing->first_bucket_bytes
                           : cap;
    double cycle_s = by_cycle ? stack->cycle_s : 0;
    /* A Horovod whose background thread waits for the data, with the host ahead of the
     * GPU (gcsim_stack_fuses_ahead): groups cut by the fusion threshold alone, a layer
     * that would take a group past it starting the next (FuseResponses adds a tensor only
     * while the sum stays within it). */
    bool ahead = false;
    if (by_cycle && stack->wait_on_thread) {
        const gcsim_stack_entry *e = NULL;
        if (gcsim_stack_entry_for(stack, pay->spec, &e, err))
            return -1;
        ahead = gcsim_stack_fuses_ahead(stack, e, gcsim_scenario_compresses(s),
                                        s->collective == COLLECTIVE_ALLGATHER);
        if (ahead)
            cycle_s = 0;
    }
    /* The papers' models exchange the whole gradient once backward is done (eq. 27-30
     * cost T_comm(|g|)): one bucket. With several, the DES would pipeline them, the GPUs
     * starting bucket b+1 while the CPUs still sum bucket b, which the models do not. */
    if (gcsim_collective_is_paper_pattern(s->collective))
        cap = first_cap = INFINITY, cycle_s = 0;
    bool compressed = gcsim_scenario_compresses(s);
    size_t nl = (size_t)m->n_layers;
    it->n_layers = m->n_layers;
    it->buckets = calloc(nl, sizeof *it->buckets);
    it->layer_bucket = calloc(nl, sizeof *it->layer_bucket);
    it->layer_payload_bytes = calloc(nl, sizeof *it->layer_payload_bytes);
    it->layer_encode_s = calloc(nl, sizeof *it->layer_encode_s);
    it->layer_decode_s = calloc(nl, sizeof *it->layer_decode_s);
    if (!it->buckets || !it->layer_bucket || !it->layer_payload_bytes || !it->layer_encode_s ||
        !it->layer_decode_s) {
        gcsim_iteration_free(it);
        return gcsim_fail(err, "out of memory for %d gradient buckets", m->n_layers);
    }
    if (layer_labels(it, s)) {
        gcsim_iteration_free(it);
        return gcsim_fail(err, "out of memory for %d layers", m->n_layers);
    }
    /* Backward runs from the last layer to the first; a bucket closes when it holds cap
     * fp32 bytes, at the first layer, or (by cycle) before a layer ready in a later cycle. */
    double *layer_fwd_s = calloc(nl, sizeof *layer_fwd_s);
    double *layer_bwd_s_of = calloc(nl, sizeof *layer_bwd_s_of);
    if (!layer_fwd_s || !layer_bwd_s_of) {
        free(layer_fwd_s);
        free(layer_bwd_s_of);
        gcsim_iteration_free(it);
        return gcsim_fail(err, "out of memory for %d layers", m->n_layers);
    }
    for (int l = 0; l < m->n_layers; l++)
        layer_fwd_s[l] = it->forward_s * (flops > 0 ? m->layers[l].fwd_flops / flops
                                                    : 1.0 / m->n_layers);
    gcsim_bucket *cur = NULL;
    double ready_s = it->forward_s, cur_ready_s = 0;
    for (int l = m->n_layers - 1; l >= 0; l--) {
        double share = measured_bwd ? measured_bwd[l] / measured_bwd_s
                       : flops > 0  ? m->layers[l].fwd_flops / flops
                                    : 1.0 / m->n_layers;
        double layer_bwd_s = compute_s * bf * share;
        ready_s += layer_bwd_s;
        if (cur && ((cycle_s > 0 && floor(ready_s / cycle_s) > floor(cur_ready_s / cycle_s)) ||
                    (ahead && cur->bytes.dense_bytes +
                                      4.0 * (double)gcsim_layer_params(&m->layers[l]) > cap))) {
            it->n_buckets++;
            cur = NULL;
        }
        if (!cur) {
            cur = &it->buckets[it->n_buckets];
            cur->last_layer = l;
            /* payloads with one support on every worker add in place */
            cur->bytes.aggregation = s->shared_support ? PAYLOAD_DENSE_SUMMABLE : pay->aggregation;
            cur->bytes.compressed = compressed;
        }
        cur_ready_s = ready_s;
        cur->backward_s += layer_bwd_s;
        layer_bwd_s_of[l] = layer_bwd_s;
        cur->first_layer = l;
        double dense = 4.0 * (double)gcsim_layer_params(&m->layers[l]);
        /* Uncompressed gradients travel at the training precision (bf16: half of fp32). */
        double wire = compressed ? pay->layer_bytes[l]
                                 : dense * gcsim_precision_grad_elem_bytes(m->precision) / 4.0;
        cur->bytes.dense_bytes += dense;
        cur->bytes.payload_bytes += wire;
        if (wire >= dense)
            cur->bytes.fixed_bytes += wire;
        /* Tensor by tensor, as the compressor library encodes: each pays its kernels. */
        if (compressed && s->codec) {
            double elems = (double)gcsim_layer_params(&m->layers[l]);
            it->layer_encode_s[l] = gcsim_codec_encode_s(s->codec, elems, wire);
            it->layer_decode_s[l] = gcsim_codec_decode_s(s->codec, elems, wire);
            cur->bytes.encode_s += it->layer_encode_s[l];
            cur->bytes.decode_s += it->layer_decode_s[l];
        }
        it->layer_bucket[l] = it->n_buckets;
        it->layer_payload_bytes[l] = wire;
        if (cur->bytes.dense_bytes >= (it->n_buckets == 0 ? first_cap : cap) || l == 0) {
            it->n_buckets++;
            cur = NULL;
        }
    }
    if (memo)
        case_memo_keep_buckets(s->case_memo, s, it);
    gcsim_shard_strategy strategy = s->sharding.strategy;
    int shaped = strategy == GCSIM_SHARD_ZERO3 || strategy == GCSIM_SHARD_HSDP
                     ? sharding_build_units(it, s, layer_fwd_s, layer_bwd_s_of, err)
                 : !plain ? sharding_build_bucketed(it, s, layer_fwd_s, err)
                 : plain_blocks(it) ? gcsim_fail(err, "out of memory for %d compute blocks",
                                                 it->n_buckets + 1)
                                    : 0;
    free(layer_fwd_s);
    free(layer_bwd_s_of);
    if (shaped) {
        gcsim_iteration_free(it);
        return -1;
    }
    if (strategy != GCSIM_SHARD_DDP)
        return 0; /* the programs are the sharded exchange's (sharding.c) */
    return iteration_programs(it, s, err);
}
