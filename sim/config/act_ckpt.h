/*
 * sim/config/act_ckpt.h: which forward work activation checkpointing recomputes before
 * backward, as the stacks that train large transformers apply it (docs/sharding.md,
 * "Activation checkpointing").
 *
 *   full         every unit's whole forward (gcsim's --act-ckpt since 0.2: every unit,
 *                the embeddings and the head included)
 *   op           torchtitan's op-level selective policy: inside each transformer block,
 *                the outputs of every other matrix multiplication (the 2nd, 4th, ... in
 *                forward order) and of the element-wise ops are recomputed, attention
 *                itself (SDPA) and the other matmuls are saved
 *   every:N      torchtitan's layer-level selective policy: blocks N, 2N, 3N, ... (counted
 *                from 1) recompute their whole forward, the others nothing
 *   fraction:P   fms-fsdp's selective_checkpointing=P: a fraction P of the blocks, evenly
 *                spaced (block i, from 1, is checkpointed when i x P passes the next
 *                half-integer), recompute their whole forward
 *
 * A transformer block is a unit (gcsim_model_units) holding a layer of kind "attention".
 * Under op, a block's layers are walked in forward order, each attention or fc layer
 * contributing its `matrices` matmuls of equal size (docs/formats.md), except an attention
 * layer of 2 matrices, which is GPT's fused QKV (3/4 of its weights) then the output
 * projection (1/4). With grouped-query attention the equal-size convention still gives the
 * exact recomputed share: K and O, the 2nd and 4th, are d x kv + d x d, half of Q, K, V
 * and O's 2 d x d + 2 d x kv.
 */
#ifndef GCSIM_CONFIG_ACT_CKPT_H
#define GCSIM_CONFIG_ACT_CKPT_H

#include "gcsim_error.h"
#include "model.h"

typedef enum {
    GCSIM_CKPT_FULL,     /* zero: what a scenario with act_ckpt set and nothing else means */
    GCSIM_CKPT_OP,
    GCSIM_CKPT_EVERY,
    GCSIM_CKPT_FRACTION
} gcsim_ckpt_mode;

typedef struct {
    gcsim_ckpt_mode mode;
    int every;        /* every:N */
    double fraction;  /* fraction:P, in (0, 1] */
} gcsim_act_ckpt;

/* every:N at most: past any model's blocks (a model holds at most 100,000 layers). */
#define GCSIM_ACT_CKPT_MAX_EVERY (1 << 20)

/* Parses full | op | every:N (N >= 1) | fraction:P (0 < P <= 1). Returns 0, or -1 with the
 * reason in why. N and P are plain decimal (plain_number.h): no sign, space or hexadecimal. */
int gcsim_act_ckpt_parse(const char *text, gcsim_act_ckpt *out, char *why, int why_len);
/* The spelling parse accepts ("full", "op", "every:2", "fraction:0.5"). */
void gcsim_act_ckpt_format(const gcsim_act_ckpt *c, char *buf, int len);
/* What the policy recomputes, in words, for reports. */
void gcsim_act_ckpt_describe(const gcsim_act_ckpt *c, char *buf, int len);

/* share[l]: the fraction of layer l's forward time recomputed before its backward (n_layers
 * entries; full: 1 everywhere). Fails, naming the model file and layer, where op cannot be
 * applied: a block layer of another kind than attention or fc, an attention layer whose
 * forward FLOPs are below its projections' (or a model without tokens_per_sample). */
int gcsim_act_ckpt_layer_share(const gcsim_model *m, const gcsim_act_ckpt *c, double *share,
                               gcsim_error *err);

/* Whether the policy applies to the model (gcsim_act_ckpt_layer_share's refusals). */
int gcsim_act_ckpt_check(const gcsim_model *m, const gcsim_act_ckpt *c, gcsim_error *err);

/* Blocks of the model, and how many of them recompute their whole forward (every, fraction;
 * full: every unit; op: none whole). */
void gcsim_act_ckpt_blocks(const gcsim_model *m, const gcsim_act_ckpt *c, int *blocks,
                           int *checkpointed);

#endif
