/*
 * sim/config/sharding.h: how data-parallel workers share the training state
 * (docs/sharding.md).
 *
 *   ddp    every GPU holds everything; gradients all-reduced per bucket (PyTorch DDP)
 *   zero1  optimizer state (and fp32 master weights) sharded over all GPUs; gradient
 *          buckets reduce-scattered once per step (after the last micro-batch), updated
 *          parameters all-gathered after the optimizer step (DeepSpeed ZeRO stage 1)
 *   zero2  gradients sharded too: buckets reduce-scattered after every micro-batch
 *          (DeepSpeed ZeRO stage 2)
 *   zero3  parameters sharded too: each unit's parameters all-gathered before its forward
 *          and again before its backward (prefetched one unit ahead), its gradients
 *          reduce-scattered after its backward (DeepSpeed ZeRO-3; "fsdp" is the same
 *          exchange, PyTorch FSDP FULL_SHARD)
 *   hsdp   zero3 inside groups of GROUP GPUs (default: one node), the groups replicas of
 *          each other: every unit's gradient shard is then all-reduced across the groups
 *          (PyTorch FSDP HYBRID_SHARD)
 * ZeRO++ (Wang et al. 2023) options on zero3: qwz (parameters all-gathered in int8 with a
 * scale per block), hpz (a second copy of the parameters sharded inside each node, so the
 * backward all-gathers stay inside the node), qgz (gradients reduce-scattered in int4,
 * inside the node first, then across nodes).
 */
#ifndef GCSIM_CONFIG_SHARDING_H
#define GCSIM_CONFIG_SHARDING_H

#include <stdbool.h>

#include "gcsim_error.h"
#include "payload.h"
#include "platform.h"

typedef enum {
    GCSIM_SHARD_DDP,
    GCSIM_SHARD_ZERO1,
    GCSIM_SHARD_ZERO2,
    GCSIM_SHARD_ZERO3,
    GCSIM_SHARD_HSDP
} gcsim_shard_strategy;

typedef struct {
    gcsim_shard_strategy strategy;
    bool fsdp;               /* spelled fsdp (zero3's exchange), for messages */
    int group;               /* hsdp: GPUs per shard group; 0: one node */
    bool qwz, hpz, qgz;      /* ZeRO++ */
} gcsim_sharding;

/* Micro-batches per optimizer step at most: every one is its own blocks and, for the
 * strategies that exchange per micro-batch, its own collective calls (an iteration of 1,024
 * micro-batches of an 80-unit model holds 245,760 calls; both engines stay linear in it). */
#define GCSIM_MAX_GRAD_ACCUM 1024

/* ZeRO++'s block-wise quantization: one fp32 scale per block of elements (DeepSpeed's
 * default zero_quantized_weights / gradients group size is per 2,048 elements; the
 * exact grouping only moves the scale overhead, 0.2% of an int8 payload). */
#define GCSIM_ZEROPP_BLOCK_ELEMS 2048.0

/* DeepSpeed ZeRO-3's parameter fetching (zero3 as spelled; fsdp keeps FSDP's one unit
 * ahead), in parameter elements, DeepSpeed's defaults: prefetch_bucket_size (alias
 * stage3_prefetch_bucket_size) pp_int(5e7), "maximum number of parameter elements to fetch
 * ahead of use", and max_live_parameters (alias stage3_max_live_parameters) pp_int(1e9),
 * "the maximum number of parameters resident per GPU before releasing"
 * (deepspeed/runtime/zero/config.py, microsoft/DeepSpeed commit 50c6d6f2). How they bound
 * the prefetch: partitioned_param_coordinator.py (fetch_sub_module, commit 196e63ac) and
 * docs/sharding.md. */
#define GCSIM_DS_PREFETCH_BUCKET_ELEMS 5e7
#define GCSIM_DS_MAX_LIVE_PARAMS 1e9
/* reduce_bucket_size pp_int(5e8), "number of elements reduced/allreduced at a time" (the
 * same config.py): the unsharded gradients ZeRO-3 collects before a reduce-scatter. */
#define GCSIM_DS_REDUCE_BUCKET_ELEMS 5e8
/* Whether parameters are fetched as DeepSpeed ZeRO-3 does (per weight tensor, prefetch
 * bounded by the two limits above) rather than FSDP's whole unit one unit ahead. */
bool gcsim_sharding_deepspeed_fetch(const gcsim_sharding *s);

/* Parses ddp | zero1 | zero2 | zero3 | fsdp | hsdp[:GROUP], then any of +qwz +hpz +qgz
 * (zero3/fsdp only). Returns 0, or -1 with the reason in why. */
int gcsim_sharding_parse(const char *text, gcsim_sharding *out, char *why, int why_len);
/* The spelling parse accepts, e.g. "hsdp:8", "zero3+qwz+hpz". */
void gcsim_sharding_format(const gcsim_sharding *s, char *buf, int len);
/* Whether parameters are sharded (zero3, fsdp, hsdp). */
bool gcsim_sharding_shards_params(const gcsim_sharding *s);

/* Whether the strategy can run on `gpus` GPUs of the platform with this compressor:
 * an HSDP group inside a node (a divisor of gpus_per_node) or of whole nodes, dividing
 * the GPU count; qgz over whole nodes; and a compressor whose payloads survive a
 * reduce-scatter (docs/sharding.md, "Compressors"): sparse payloads (DGC, top-k,
 * random-k) and low-rank ones (PowerSGD) are refused with the reason. */
int gcsim_sharding_check(const gcsim_sharding *s, const gcsim_platform *pf,
                         const gcsim_payload_plan *payload, int gpus, gcsim_error *err);

#endif
