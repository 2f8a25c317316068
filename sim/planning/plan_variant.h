/*
 * sim/planning/plan_variant.h: the training choices `gcsim plan` searches besides the
 * platform, compressor, stack, collective and GPU count (issue 46): the sharding strategy
 * (ZeRO++ variants and HSDP group sizes among them), the activation-checkpointing policy
 * (or none) and the micro-batch per GPU, with the gradient accumulation that reaches a
 * stated global batch. A variant is one point of their cross product; each is searched as
 * its own group, so the plan's rows say which strategy, policy and micro-batch won.
 */
#ifndef GCSIM_PLANNING_PLAN_VARIANT_H
#define GCSIM_PLANNING_PLAN_VARIANT_H

#include <stdbool.h>

#include "act_ckpt.h"
#include "platform.h"
#include "sharding.h"

/* One activation-checkpointing choice: off, or a policy (act_ckpt.h). */
typedef struct {
    bool on;
    gcsim_act_ckpt policy;
} plan_ckpt;

typedef struct {
    gcsim_sharding sharding;
    plan_ckpt ckpt;
    int micro_batch; /* samples per GPU per micro-batch; 0: the plan's batch (--batch, model's) */
    int precision;   /* index into plan_problem's precisions (0 when none are searched) */
} plan_variant;

/* Variants at most (shardings x policies x micro-batches): each is a group of the search
 * per platform, compressor and stack; a plan of 2 platforms x 2 compressors x 4096 variants
 * is 16,384 groups. */
#define PLAN_MAX_VARIANTS 4096
/* Micro-batch sizes a list may hold. */
#define PLAN_MAX_MICRO_BATCHES 64

/* Parses one checkpointing choice: none, or a policy gcsim_act_ckpt_parse accepts. Returns
 * 0, or -1 with the reason in why. */
int plan_ckpt_parse(const char *text, plan_ckpt *out, char *why, int why_len);
/* "none", or the policy's spelling ("full", "op", "every:2"). */
void plan_ckpt_format(const plan_ckpt *c, char *buf, int len);

/* The checkpointing choices of --act-ckpt=all: none, op, every:2, full (cheapest in
 * recomputation first). Writes at most max, returns how many. */
int plan_ckpt_all(plan_ckpt *out, int max);

/* The shardings of --sharding all for these platforms: ddp, zero1, zero2, zero3, fsdp; the
 * ZeRO++ options on zero3 (+qwz, +hpz, +qgz, and all three, as DeepSpeed runs them); hsdp
 * with groups of one node and of 2, 4, ... nodes up to half of the largest GPU count
 * searched (max_gpus) on each platform's node size (a group as large as the job is zero3).
 * Writes at most max, returns how many. */
int plan_sharding_all(const gcsim_platform *const *platforms, int n_platforms, int max_gpus,
                      gcsim_sharding *out, int max);

/* The cross product, sharding slowest, then checkpointing, then micro-batch. A NULL or
 * empty list counts as one default item (ddp; no checkpointing; micro-batch 0). Writes at
 * most max, returns how many, or -1 when they do not fit. */
int plan_variants_cross(const gcsim_sharding *shardings, int n_shardings, const plan_ckpt *ckpts,
                        int n_ckpts, const int *micro_batches, int n_micro, plan_variant *out,
                        int max);

/* The micro-batches per optimizer step that make global_batch samples on gpus GPUs of
 * micro_batch each (weak scaling): global_batch / (gpus x micro_batch) when it divides
 * evenly and is at most GCSIM_MAX_GRAD_ACCUM; 0 otherwise (why says so). */
int plan_grad_accum_for(long long global_batch, int gpus, int micro_batch, char *why,
                        int why_len);

#endif
