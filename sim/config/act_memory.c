/*
 * sim/config/act_memory.c: activation bytes at the step's peak per checkpointing policy
 * (act_memory.h).
 *
 * Sources (facts, not code):
 *   - Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
 *     Models" (arXiv 2205.05198), Sec. 4.1: a layer without recomputation keeps
 *     s b h (34 + 5 a s / h) bytes at 16 bits (the 5 a s^2 b attention-matrix term is not
 *     kept by fused attention, FlashAttention / PyTorch SDPA); full recomputation keeps
 *     each layer's input, 2 s b h. The model files' activation_bytes_per_sample is that
 *     count (34 s h per layer, models/gen_models.py) plus the fp32 logits s V x 4.
 *   - torchtitan's op policy, torchtitan/parallelisms/parallelize_llama.py at 9dec370
 *     (Dec 2024; `_save_list`, `_custom_policy`): the outputs of aten.mm (except every
 *     second one, counted per block forward), of the SDPA kernels (output and logsumexp)
 *     and of reduce_scatter are saved, everything else is recomputed; the checkpointed
 *     block's input is held by the checkpoint. Llama's block runs q, k, v, (SDPA), o,
 *     w1, w3, w2 (torchtitan/models/llama/model.py: `w2(silu(w1(x)) * w3(x))`), so q, v,
 *     the attention output, w1 and w2 are saved: per token 4h + kv + ffn elements.
 *   - torchtitan train.py at 9dec370: `loss = cross_entropy(pred.flatten(0, 1).float(),
 *     labels)` then `del pred` before backward: the bf16 logits are freed, the fp32
 *     log-softmax output (4 B per logit) stays; in backward nll_loss's dense gradient
 *     (4 B) and log_softmax's input gradient (4 B) exist at once with it: 12 B per logit.
 * Validated against published peak-memory figures in tests/validation/peak_memory.py
 * (docs/validation.md); nothing here is fitted to them.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "act_memory.h"

typedef struct {
    int blocks, units, whole;
    double h;             /* hidden width: the blocks' attention rows */
    double vocab;         /* the head's outputs per token; 0: no head */
    double op_saved;      /* elements per token op saves over all blocks (inputs included) */
} decoder_shape;

static bool is_kind(const gcsim_layer *l, const char *k) { return strcmp(l->kind, k) == 0; }

/* Elements per token of a block layer's matmul outputs that op saves, the layer's matmuls
 * being *k, *k + 1, ... of its block (odd: saved); attention adds its SDPA output. */
static double op_layer_saved(const gcsim_layer *l, double h, int *k)
{
    int n = l->matrices > 0 ? l->matrices : 1;
    double w = (double)l->weights, saved = 0;
    if (is_kind(l, "attention")) {
        double out[4];
        int nm;
        if (n == 2) { /* GPT's fused QKV, then the output projection */
            out[0] = 3 * h, out[1] = h, nm = 2;
        } else { /* q, k, v, o: 2 h^2 + 2 h kv weights */
            double kv = (w - 2 * h * h) / (2 * h);
            if (kv < 0)
                kv = h;
            out[0] = h, out[1] = kv, out[2] = kv, out[3] = h, nm = 4;
        }
        for (int j = 0; j < nm; j++, (*k)++)
            if (*k % 2 == 1)
                saved += out[j];
        return saved + h; /* SDPA's output (its logsumexp: heads x 4 B, left out) */
    }
    if (!is_kind(l, "fc"))
        return 0; /* norms, element-wise: recomputed */
    double wide = n > 1 ? w / (n * h) : w / h;
    for (int j = 0; j < n; j++, (*k)++)
        if (*k % 2 == 1)
            saved += n > 1 && j == n - 1 ? h : wide;
    return saved;
}

/* 0 when the shapes cannot be read (then the earlier fractions apply). */
static int read_shape(const gcsim_model *m, const gcsim_act_ckpt *ckpt, decoder_shape *d)
{
    memset(d, 0, sizeof *d);
    int L = m->n_layers;
    if (m->tokens_per_sample <= 0 || L < 2)
        return 0;
    int *unit_of = malloc(sizeof(int) * (size_t)L);
    int *block_unit = calloc((size_t)L, sizeof(int));
    if (!unit_of || !block_unit) {
        free(unit_of);
        free(block_unit);
        return 0;
    }
    d->units = gcsim_model_units(m, unit_of);
    for (int l = 0; l < L; l++)
        if (is_kind(&m->layers[l], "attention")) {
            block_unit[unit_of[l]] = 1;
            if (d->h == 0)
                d->h = (double)m->layers[l].rows;
        }
    int k = 1, cur = -1;
    for (int l = 0; l < L; l++) {
        if (!block_unit[unit_of[l]])
            continue;
        if (unit_of[l] != cur) { /* a block's first layer: its input, a new mm count */
            cur = unit_of[l];
            d->blocks++;
            k = 1;
            d->op_saved += d->h;
        }
        d->op_saved += op_layer_saved(&m->layers[l], d->h, &k);
    }
    const gcsim_layer *head = &m->layers[L - 1];
    int ok = d->blocks > 0 && d->h > 0 && !block_unit[unit_of[L - 1]] && is_kind(head, "fc") &&
             head->fwd_flops > 0;
    if (ok)
        d->vocab = head->fwd_flops / (2.0 * m->tokens_per_sample * d->h);
    free(unit_of);
    free(block_unit);
    int blocks;
    if (ckpt)
        gcsim_act_ckpt_blocks(m, ckpt, &blocks, &d->whole);
    return ok;
}

int gcsim_act_memory_from_saved(const gcsim_model *m)
{
    decoder_shape d;
    return m->activation_bytes_per_sample > 0 && read_shape(m, NULL, &d);
}

/* The earlier per-policy fractions of the whole (models whose shapes are not read). */
static double fraction_of_whole(const gcsim_model *m, const gcsim_act_ckpt *ckpt, double a)
{
    if (ckpt->mode == GCSIM_CKPT_OP)
        return a;
    int *unit_of = malloc(sizeof(int) * (size_t)(m->n_layers > 0 ? m->n_layers : 1));
    int units = unit_of ? gcsim_model_units(m, unit_of) : 1;
    free(unit_of);
    double U = units > 0 ? units : 1;
    if (ckpt->mode == GCSIM_CKPT_FULL)
        return a * (2.0 / 34.0 + 1.0 / U);
    int blocks, whole;
    gcsim_act_ckpt_blocks(m, ckpt, &blocks, &whole);
    return a * ((U - whole) / U + whole / U * (2.0 / 34.0) + (whole > 0 ? 1.0 / U : 0.0));
}

double gcsim_act_bytes_per_sample(const gcsim_model *m, const gcsim_act_ckpt *ckpt)
{
    double a = m->activation_bytes_per_sample;
    if (!ckpt || !(a > 0))
        return a;
    decoder_shape d;
    if (!read_shape(m, ckpt, &d))
        return fraction_of_whole(m, ckpt, a);
    double s = m->tokens_per_sample;
    double e = (double)gcsim_precision_grad_elem_bytes(m->precision);
    double logits = s * d.vocab;
    double blocks_whole = a - 4.0 * logits; /* the file's count: 34 s h per block + 4 s V */
    double per_block = blocks_whole > 0 ? blocks_whole / d.blocks : 0;
    double input = e * s * d.h;
    double saved, recomputing;
    switch (ckpt->mode) {
    case GCSIM_CKPT_OP:
        saved = e * s * d.op_saved + input; /* the head's input */
        recomputing = per_block - e * s * d.op_saved / d.blocks;
        break;
    case GCSIM_CKPT_FULL:
        saved = input * (d.blocks + 1);
        recomputing = per_block;
        break;
    default:
        saved = input * d.whole + per_block * (d.blocks - d.whole) + input;
        recomputing = d.whole > 0 ? per_block : 0;
        break;
    }
    double loss = 12.0 * logits;
    double peak = saved + (loss > recomputing ? loss : recomputing);
    return peak < a ? peak : a;
}
