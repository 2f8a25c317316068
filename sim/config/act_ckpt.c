/*
 * sim/config/act_ckpt.c: activation checkpointing policies (act_ckpt.h).
 *
 * Sources of the policies (facts, not code):
 *   - op, every:N: torchtitan, torchtitan/parallelisms/parallelize_llama.py at commit
 *     004b3148 (Dec 2024; `_apply_ac_to_transformer_block`): selective_ac_option "op" saves
 *     the outputs of aten.mm, the SDPA kernels and reduce_scatter, except every second mm
 *     (a counter per block forward, incremented before the test, so the 2nd, 4th, ... are
 *     recomputed), and recomputes every other op; a digit N wraps every N-th block (a
 *     counter from 1, checkpointed when it is a multiple of N). Only model.layers (the
 *     blocks) are wrapped.
 *   - fraction:P: fms-fsdp, fms_fsdp/policies/ac_handler.py (`apply_fsdp_checkpointing`):
 *     block i (from 1) is wrapped when i x P >= cut_off, cut_off starting at 1/2 and
 *     growing by 1 at each wrapped block.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act_ckpt.h"
#include "plain_number.h"

int gcsim_act_ckpt_parse(const char *text, gcsim_act_ckpt *out, char *why, int why_len)
{
    memset(out, 0, sizeof *out);
    if (strcmp(text, "full") == 0)
        return 0;
    if (strcmp(text, "op") == 0) {
        out->mode = GCSIM_CKPT_OP;
        return 0;
    }
    if (strncmp(text, "every:", 6) == 0) {
        long long n;
        if (!gcsim_plain_int(text + 6, 1, GCSIM_ACT_CKPT_MAX_EVERY, &n)) {
            snprintf(why, (size_t)why_len, "every:N: expected a block count of at least 1 (plain "
                                           "digits, at most %d), got \"%s\"", GCSIM_ACT_CKPT_MAX_EVERY, text + 6);
            return -1;
        }
        out->mode = GCSIM_CKPT_EVERY;
        out->every = (int)n;
        return 0;
    }
    if (strncmp(text, "fraction:", 9) == 0) {
        double p;
        if (!gcsim_plain_double(text + 9, 0.0, 1.0, &p) || !(p > 0.0)) {
            snprintf(why, (size_t)why_len, "fraction:P: expected a share of the blocks in (0, 1] "
                                           "(plain decimal), got \"%s\"", text + 9);
            return -1;
        }
        out->mode = GCSIM_CKPT_FRACTION;
        out->fraction = p;
        return 0;
    }
    snprintf(why, (size_t)why_len, "unknown policy \"%s\" (full, op, every:N, fraction:P)", text);
    return -1;
}

void gcsim_act_ckpt_format(const gcsim_act_ckpt *c, char *buf, int len)
{
    switch (c->mode) {
    case GCSIM_CKPT_OP: snprintf(buf, (size_t)len, "op"); break;
    case GCSIM_CKPT_EVERY: snprintf(buf, (size_t)len, "every:%d", c->every); break;
    case GCSIM_CKPT_FRACTION: snprintf(buf, (size_t)len, "fraction:%.17g", c->fraction); break;
    default: snprintf(buf, (size_t)len, "full"); break;
    }
}

void gcsim_act_ckpt_describe(const gcsim_act_ckpt *c, char *buf, int len)
{
    switch (c->mode) {
    case GCSIM_CKPT_OP:
        snprintf(buf, (size_t)len, "op policy (torchtitan): every other matmul of each "
                                   "transformer block recomputed, attention saved");
        break;
    case GCSIM_CKPT_EVERY:
        snprintf(buf, (size_t)len, "every %d%s transformer block's forward recomputed whole "
                                   "(torchtitan)", c->every,
                 c->every == 1 ? "" : c->every == 2 ? "nd" : c->every == 3 ? "rd" : "th");
        break;
    case GCSIM_CKPT_FRACTION:
        snprintf(buf, (size_t)len, "%.4g of the transformer blocks' forward recomputed whole, "
                                   "evenly spaced (fms-fsdp)", c->fraction);
        break;
    default:
        snprintf(buf, (size_t)len, "forward recomputed per unit");
        break;
    }
}

/* Each layer's block number from 1 (the block its unit is: a unit with an attention layer),
 * 0 outside the blocks; *units and *blocks the counts. NULL when out of memory. */
static int *layer_blocks(const gcsim_model *m, int *units, int *blocks)
{
    int L = m->n_layers;
    int *unit_of = malloc(sizeof(int) * (size_t)(L > 0 ? L : 1));
    int *block_of = calloc((size_t)(L > 0 ? L : 1), sizeof(int)); /* per unit, then per layer */
    if (!unit_of || !block_of) {
        free(unit_of);
        free(block_of);
        return NULL;
    }
    *units = gcsim_model_units(m, unit_of);
    for (int l = 0; l < L; l++)
        if (strcmp(m->layers[l].kind, "attention") == 0)
            block_of[unit_of[l]] = 1;
    *blocks = 0;
    for (int u = 0; u < *units; u++)
        if (block_of[u])
            block_of[u] = ++*blocks;
    for (int l = 0; l < L; l++) /* the unit's number becomes its block's */
        unit_of[l] = block_of[unit_of[l]];
    free(block_of);
    return unit_of;
}

/* Whether block i (from 1) recomputes its whole forward; *cut_off carries fms-fsdp's
 * state from block to block. */
static bool whole_block(const gcsim_act_ckpt *c, int i, double *cut_off)
{
    switch (c->mode) {
    case GCSIM_CKPT_EVERY: return i % c->every == 0;
    case GCSIM_CKPT_FRACTION:
        if ((double)i * c->fraction >= *cut_off) {
            *cut_off += 1.0;
            return true;
        }
        return false;
    default: return c->mode == GCSIM_CKPT_FULL;
    }
}

/* Under op: the share of layer l's matmul weights recomputed, its matmuls being k, k + 1, ...
 * of its block (the even ones are recomputed); advances *k. */
static double op_weight_share(const gcsim_layer *l, int *k)
{
    int n = l->matrices > 0 ? l->matrices : 1;
    double share = 0;
    if (strcmp(l->kind, "attention") == 0 && n == 2) /* fused QKV (3/4), then O (1/4) */
        share = (*k % 2 == 0 ? 0.75 : 0.0) + ((*k + 1) % 2 == 0 ? 0.25 : 0.0);
    else
        for (int j = 0; j < n; j++)
            share += (*k + j) % 2 == 0 ? 1.0 / n : 0.0;
    *k += n;
    return share;
}

static int op_layer_share(const gcsim_model *m, int l, int *k, double *share, gcsim_error *err)
{
    const gcsim_layer *y = &m->layers[l];
    if (strcmp(y->kind, "norm") == 0) { /* element-wise: recomputed whole */
        *share = 1.0;
        return 0;
    }
    bool attention = strcmp(y->kind, "attention") == 0;
    if (!attention && strcmp(y->kind, "fc") != 0)
        return gcsim_fail(err, "%s: layer \"%s\" (kind %s) is inside a transformer block: "
                               "--act-ckpt=op (torchtitan's op policy) applies to blocks of "
                               "attention, fc and norm layers",
                          m->source_path, y->name, y->kind);
    double w = op_weight_share(y, k);
    if (!(y->fwd_flops > 0)) {
        *share = 0.0;
        return 0;
    }
    if (!attention) { /* an fc layer's forward is its matmuls */
        *share = w;
        return 0;
    }
    /* An attention layer's forward FLOPs are its projections' 2 T W plus attention itself,
     * which the op policy saves: only the recomputed projections count. */
    if (m->tokens_per_sample <= 0)
        return gcsim_fail(err, "%s: --act-ckpt=op needs the model's tokens_per_sample (the "
                               "attention layers' projection FLOPs are 2 x tokens x weights); "
                               "every:N and fraction:P do not",
                          m->source_path);
    double proj = 2.0 * m->tokens_per_sample * (double)y->weights;
    if (proj > y->fwd_flops * (1.0 + 1e-9))
        return gcsim_fail(err, "%s: layer \"%s\": fwd_flops %.17g is below its projections' "
                               "2 x tokens_per_sample x weights = %.17g",
                          m->source_path, y->name, y->fwd_flops, proj);
    *share = w * proj / y->fwd_flops;
    return 0;
}

int gcsim_act_ckpt_layer_share(const gcsim_model *m, const gcsim_act_ckpt *c, double *share,
                               gcsim_error *err)
{
    int L = m->n_layers;
    if (c->mode == GCSIM_CKPT_FULL) {
        for (int l = 0; l < L; l++)
            share[l] = 1.0;
        return 0;
    }
    int units, blocks;
    int *block_of = layer_blocks(m, &units, &blocks);
    if (!block_of)
        return gcsim_fail(err, "out of memory");
    if (blocks == 0) {
        free(block_of);
        char policy[48];
        gcsim_act_ckpt_format(c, policy, sizeof policy);
        return gcsim_fail(err, "%s: --act-ckpt=%s applies to transformer blocks, and the model "
                               "has none (no layer of kind attention): use --act-ckpt (full)",
                          m->source_path, policy);
    }
    int rc = 0, k = 1;
    double cut_off = 0.5;
    bool whole = false;
    for (int l = 0; l < L && rc == 0; l++) {
        int b = block_of[l];
        if (b > 0 && (l == 0 || block_of[l - 1] != b)) { /* a block's first layer */
            k = 1; /* torchtitan's counter is per block forward */
            whole = whole_block(c, b, &cut_off);
        }
        if (b == 0)
            share[l] = 0.0; /* only the blocks are wrapped */
        else if (c->mode == GCSIM_CKPT_OP)
            rc = op_layer_share(m, l, &k, &share[l], err);
        else
            share[l] = whole ? 1.0 : 0.0;
    }
    free(block_of);
    return rc;
}

int gcsim_act_ckpt_check(const gcsim_model *m, const gcsim_act_ckpt *c, gcsim_error *err)
{
    if (c->mode == GCSIM_CKPT_FULL)
        return 0;
    double *share = malloc(sizeof(double) * (size_t)(m->n_layers > 0 ? m->n_layers : 1));
    if (!share)
        return gcsim_fail(err, "out of memory");
    int rc = gcsim_act_ckpt_layer_share(m, c, share, err);
    free(share);
    return rc;
}

void gcsim_act_ckpt_blocks(const gcsim_model *m, const gcsim_act_ckpt *c, int *blocks,
                           int *checkpointed)
{
    int units = 0;
    *blocks = *checkpointed = 0;
    free(layer_blocks(m, &units, blocks));
    double cut_off = 0.5;
    if (c->mode == GCSIM_CKPT_FULL)
        *checkpointed = units;
    else if (c->mode != GCSIM_CKPT_OP)
        for (int i = 1; i <= *blocks; i++)
            *checkpointed += whole_block(c, i, &cut_off);
}
