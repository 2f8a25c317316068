/*
 * sim/stack/stack_gpu_passes.h: a codec-model stack whose compressors run as unfused
 * framework ops on the GPU ("gpu_passes", private to sim/stack): DeepSpeed's compressed
 * all-reduce (1-bit Adam) is a chain of torch and cupy elementwise ops over the whole
 * momentum buffer, each a kernel streaming its operands through device memory, so its cost
 * is the bytes those passes move at the GPU's memory bandwidth, not gcsim's fused codec
 * model (docs/stacks.md, "DeepSpeed: the compressed all-reduce's passes").
 */
#ifndef GCSIM_STACK_GPU_PASSES_H
#define GCSIM_STACK_GPU_PASSES_H

#include "codec.h"
#include "json_strict.h"
#include "stack.h"

/* Reads $.gpu_passes (v; NULL when the file has none) into s. */
int stack_gpu_passes_parse(const cJSON *v, gcsim_stack *s, json_ctx *ctx);

/* Prices a compressed spec's codec under st when st lists passes for it: *codec's cost
 * becomes linear in elements, encode and decode bytes per element / mem_Bps (the GPU's
 * memory bandwidth, > 0). A spec st lists no passes for keeps its codec (0 returned). */
int stack_gpu_passes_apply(const gcsim_stack *st, const char *spec, double mem_Bps,
                           gcsim_codec *codec, gcsim_error *err);

#endif
