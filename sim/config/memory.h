/*
 * sim/config/memory.h: does one data-parallel worker's training state fit the GPU?
 *
 * Per parameter (Rajbhandari et al. 2020, ZeRO, Sec. 3.1, for mixed precision):
 *   fp32 / tf32: weights 4 B + gradients 4 B + optimizer state
 *   bf16 / fp16: 16-bit weights 2 B + fp32 master weights 4 B + 16-bit gradients 2 B
 *                + optimizer state
 *   optimizer state, fp32: SGD 0 B, SGD with momentum 4 B, Adam 8 B (two moments)
 * so Adam costs 16 B per parameter at either precision. Activations: the model's
 * activation_bytes_per_sample times the samples on one GPU. Framework workspace, the
 * allocator's fragmentation and the communication buffers are not counted: the estimate is
 * a lower bound, and a configuration it refuses cannot run.
 */
#ifndef GCSIM_CONFIG_MEMORY_H
#define GCSIM_CONFIG_MEMORY_H

#include <stdbool.h>

#include "gcsim_error.h"
#include "model.h"
#include "platform.h"
#include "scenario.h"
#include "sharding.h"

typedef struct {
    long long params;
    int samples_per_gpu;
    gcsim_sharding sharding;  /* how the state below is shared (ddp: not at all) */
    int shard_gpus;           /* GPUs the sharded state is spread over (1: none) */
    bool act_ckpt;
    gcsim_act_ckpt act_ckpt_policy;
    double weights_bytes;     /* working copy plus fp32 master weights under bf16/fp16 */
    double gradients_bytes;
    double optimizer_bytes;
    double activation_bytes;  /* 0 when the model gives no estimate */
    double buffer_bytes;      /* communication buffers: ZeRO-1/2's reduce buckets, ZeRO-3's
                                 unsharded units in flight, hpZ's secondary partition */
    double total_bytes;
    double capacity_bytes;    /* the platform's gpu.memory; 0 when not given */
} gcsim_memory;

/* Samples one GPU holds: K under weak scaling, ceil(K / N) under strong. */
int gcsim_samples_per_gpu(gcsim_scaling scaling, int batch, int gpus);

/* Bytes per parameter for weights, gradients and optimizer state together. */
double gcsim_memory_bytes_per_param(gcsim_precision p, gcsim_optimizer o);

void gcsim_memory_estimate(const gcsim_model *m, const gcsim_platform *pf, int samples_per_gpu,
                           gcsim_memory *out);

/* Fails, with the arithmetic in the message, when the estimate exceeds gpu.memory. */
int gcsim_memory_check(const gcsim_model *m, const gcsim_platform *pf, int samples_per_gpu,
                       gcsim_error *err);

/* The estimate per strategy on `gpus` GPUs (docs/sharding.md, "Memory"): with P
 * parameters, W working-weight bytes, M fp32 master bytes (mixed precision), G gradient
 * bytes and O optimizer bytes per parameter, and S the GPUs a shard spans,
 *   ddp   P (W + M + G + O)           zero1  P (W + G) + P (M + O) / S
 *   zero2 P W + P (M + G + O) / S     zero3, hsdp  P (W + M + G + O) / S
 * plus buffers (zero1/2: two reduce buckets; zero3/hsdp: two units' parameters and one
 * unit's gradient unsharded; hpz: P W / gpus_per_node) and activations (checkpointed:
 * what the policy keeps at the step's peak, act_memory.h). ckpt: NULL when activations
 * are not checkpointed.
 * bucket_bytes: fp32 bytes of a gradient bucket (0: 25 MiB). */
void gcsim_memory_estimate_sharded(const gcsim_model *m, const gcsim_platform *pf,
                                   const gcsim_sharding *sh, int gpus, int samples_per_gpu,
                                   const gcsim_act_ckpt *ckpt, double bucket_bytes,
                                   gcsim_memory *out);
/* As gcsim_memory_check; the refusal says which strategies, GPU counts (up to the
 * platform's) or activation checkpointing would fit. */
int gcsim_memory_check_sharded(const gcsim_model *m, const gcsim_platform *pf,
                               const gcsim_sharding *sh, int gpus, int samples_per_gpu,
                               const gcsim_act_ckpt *ckpt, double bucket_bytes,
                               gcsim_error *err);

/* One line describing the estimate, for reports. */
void gcsim_memory_describe(const gcsim_model *m, const gcsim_memory *mem, char *buf,
                           size_t size);

#endif
