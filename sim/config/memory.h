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

typedef struct {
    long long params;
    int samples_per_gpu;
    double weights_bytes;     /* working copy plus fp32 master weights under bf16/fp16 */
    double gradients_bytes;
    double optimizer_bytes;
    double activation_bytes;  /* 0 when the model gives no estimate */
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

/* One line describing the estimate, for reports. */
void gcsim_memory_describe(const gcsim_model *m, const gcsim_memory *mem, char *buf,
                           size_t size);

#endif
