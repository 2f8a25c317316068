/*
 * sim/planning/sweep_case.h: what `gcsim sweep`, `plan`, `check` and `breakeven` share: a
 * cache of loaded inputs (each platform, model and training stack read once, each payload
 * plan built once per (model, compressor), since data-dependent compressors encode real
 * gradients to size their payloads), one case put to an engine under its training stack
 * exactly as `gcsim predict` puts it (gcsim_stack_setup_init/apply, sim/stack/stack.h),
 * and the case's stable id.
 */
#ifndef GCSIM_PLANNING_SWEEP_CASE_H
#define GCSIM_PLANNING_SWEEP_CASE_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "scenario.h"
#include "stack.h"

typedef struct sweep_cache sweep_cache;

/* How the cache reads a platform or model the first time it is asked for one. The command
 * passes its own (sim/cli/inputs.h: catalog names, the embedded defaults for a NULL path);
 * NULL loaders read plain files (gcsim_platform_load, gcsim_model_load), and a NULL path
 * is then an error. */
typedef struct sweep_loaders {
    int (*platform)(const char *path, gcsim_platform *out, gcsim_error *err);
    int (*model)(const char *path, gcsim_model *out, gcsim_error *err);
} sweep_loaders;

sweep_cache *sweep_cache_new(const sweep_loaders *loaders);
void sweep_cache_free(sweep_cache *c);

/* The loaded file (NULL path: the embedded default); pointers stay valid until
 * sweep_cache_free. NULL on failure with a message in err. */
const gcsim_platform *sweep_cache_platform(sweep_cache *c, const char *path, gcsim_error *err);
const gcsim_model *sweep_cache_model(sweep_cache *c, const char *path, gcsim_error *err);
/* The model trained at another precision (gcsim_model_set_precision) and with another
 * optimizer: a copy of its own, loaded once per (path, precision, optimizer); -1 keeps the
 * file's. */
const gcsim_model *sweep_cache_model_as(sweep_cache *c, const char *path, int precision,
                                        int optimizer, gcsim_error *err);
const gcsim_payload_plan *sweep_cache_payload(sweep_cache *c, const gcsim_model *m,
                                              const char *spec, gcsim_error *err);
/* The training stack a name or path means (gcsim_stack_load: "pytorch-ddp" from the
 * catalog, or a file), read once per distinct text: a stack holds every op law it prices
 * with, and a sweep of a million cases must not parse it a million times. Callers pass
 * gcsim_stack_choice(given, platform) so that the platform's "stack" and the default
 * apply as in `gcsim predict`. NULL on failure with a message in err naming the stack. */
const gcsim_stack *sweep_cache_stack(sweep_cache *c, const char *name_or_path, gcsim_error *err);

typedef struct {
    const gcsim_platform *platform;
    const gcsim_model *model;
    const gcsim_payload_plan *payload;
    /* The training stack that runs the exchange (required: sweep_case_run refuses a case
     * without one, so no caller can fall back to another stack than `predict` would use;
     * sweep_cache_stack(cache, gcsim_stack_choice(given, platform)) gives predict's). */
    const gcsim_stack *stack;
    gcsim_collective collective;
    bool collective_given;    /* false: the platform's, chosen with the exchange */
    gcsim_exchange exchange;  /* GCSIM_EXCHANGE_AUTO (0) unless asked */
    gcsim_scaling scaling;
    gcsim_engine engine;      /* ENGINE_ANALYTIC or ENGINE_DES */
    int batch;                /* 0: the model's batch_per_gpu */
    int gpus;
    int ps_shards;            /* 0: one per machine */
    double bucket_bytes;      /* gradient bucket (fp32 bytes); 0: the stack's */
    bool overlap;
    /* Sharded data parallelism (zeroed: ddp), micro-batches per step (0, 1: one) and
     * activation checkpointing, as gcsim predict --sharding / --grad-accum / --act-ckpt. */
    gcsim_sharding sharding;
    int grad_accum;
    bool act_ckpt;
    gcsim_act_ckpt act_ckpt_policy; /* zeroed: full */
    /* gcsim predict --no-memory-check: run even when the memory estimate exceeds
     * gpu.memory (false: such a case is refused with the arithmetic). */
    bool no_memory_check;
    /* DES: the message limit (0: the engine's default; < 0: none), as --des-max-messages. */
    long long des_max_messages;
    /* What the cases of one group of GPU counts share (gcsim_case_memo: op prices, the
     * iteration's buckets; sweep_run keeps one per group), or NULL. */
    struct gcsim_case_memo *case_memo;
    /* Variable per-GPU compute and stragglers (sim/config/variability.h), or NULL: as
     * --compute-cv and the straggler options (issue 41). */
    const struct gcsim_variability_s *variability;
    /* Fill sweep_result.tuned (sweep's collective column): the iteration is built once more
     * for a tuned case, so only sweep asks. */
    bool label_tuned;
} sweep_case;

typedef enum { BOTTLENECK_COMPUTE, BOTTLENECK_NETWORK, BOTTLENECK_COMPRESSION } sweep_bottleneck;

typedef struct {
    int batch;                /* the batch used (the model's when the case says 0) */
    gcsim_exchange exchange;  /* the exchange used */
    gcsim_collective collective; /* its schedule */
    /* Tuned per call (the stack's library picks each all-reduce's algorithm, as NCCL's
     * tuner): bit (1 << c) for each collective c the calls run; 0: not tuned, `collective`
     * is what every call runs. */
    unsigned tuned;
    gcsim_placement placement;
    const gcsim_stack *stack; /* the stack that ran it (the case's) */
    gcsim_prediction p;
} sweep_result;

/* Runs one case under its training stack: the exchange the stack runs the compressor with
 * (or the one the case asks for), its codec and per-call costs and its bucket sizes, as
 * `gcsim predict --stack` does: the scenario comes from case_build (case_build.h), the
 * builder predict's own rows use. Fails (with the reason in err) when the case names no
 * stack (internal), the GPUs do not fit the platform, a strong-scaling batch is smaller
 * than the GPU count, the model has no profile for the platform's GPU, the stack cannot
 * run the compressor or the exchange asked for (e.g. PowerSGD by all-gather under
 * pytorch-ddp), or the engine fails. */
int sweep_case_run(const sweep_case *c, sweep_result *out, gcsim_error *err);
/* The same with the stack's setup for the case made beforehand (sweep_case_setup; NULL:
 * made here): the setup depends on the platform, stack, compressor, exchange and
 * collective only, so the cases that differ in GPU count, model, batch or scaling share
 * it. Every check and error before the setup's comes first as in sweep_case_run. */
int sweep_case_run_with(const sweep_case *c, const gcsim_stack_setup *setup, sweep_result *out,
                        gcsim_error *err);
/* The setup sweep_case_run makes for c (gcsim_stack_setup_init); -1 with err. */
int sweep_case_setup(const sweep_case *c, gcsim_stack_setup *ss, gcsim_error *err);

/* The collective column of sweep: the collective's name, or for a run tuned per call
 * "tuned:" and the algorithms the tuner picked, joined by "+" (tuned:ring,
 * tuned:ring+double-tree). */
void sweep_collective_label(const sweep_result *r, char *buf, size_t size);

/* The batch a case uses: its own, else the model's per GPU. Inline so that the case
 * builder (case_build.c), which sweep_case.c calls, need not call back into it. */
static inline int sweep_case_batch(const sweep_case *c)
{
    return c->batch > 0 ? c->batch : c->model->batch_per_gpu;
}

/* The largest of compute_s, exposed_comm_s and compress_s names what limits the
 * iteration; ties go to compute, then network. */
sweep_bottleneck sweep_bottleneck_of(const gcsim_prediction *p);
const char *sweep_bottleneck_name(sweep_bottleneck b);

/* The exchange column of predict, sweep and plan: "sharded" under a sharding strategy
 * (its own reduce-scatters and all-gathers, whatever the stack would exchange), else the
 * exchange that ran. */
const char *sweep_exchange_label(const gcsim_sharding *s, gcsim_exchange ran);

/* A 16-hex-digit id (FNV-1a 64 of the case's canonical text: platform and model names,
 * normalized compressor spec, the stack's name, collective, scaling, batch, engine, GPU
 * count). It does not depend on the case's position, the other cases or where the files
 * are, so a case keeps its id across sweeps, shards and machines; the same case under two
 * stacks has two ids. */
void sweep_case_id(const sweep_case *c, char out[17]);
/* The same in two parts, for a caller that keeps what a group of GPU counts shares (the
 * sweep's row writer): the hash and length of the id's text up to the GPU count (which
 * depends on the platform's, model's and stack's names, the spec, collective, scaling,
 * batch and engine), then the id of a case of that prefix. sweep_case_id_from(c,
 * sweep_case_id_prefix(c), out) is sweep_case_id(c, out). */
typedef struct {
    uint64_t hash;
    size_t len;
} sweep_id_prefix;
sweep_id_prefix sweep_case_id_prefix(const sweep_case *c);
void sweep_case_id_from(const sweep_case *c, sweep_id_prefix p, char out[17]);

#endif
