/*
 * sim/planning/plan_setup.h: from what `gcsim plan` was asked (the texts of --sharding,
 * --act-ckpt, --micro-batch and the global batch) to the variants plan_run searches
 * (plan_variant.h), and the search with the widening plain `plan` does when data
 * parallelism fits nowhere. The command parses and prints; this decides what is searched.
 */
#ifndef GCSIM_PLANNING_PLAN_SETUP_H
#define GCSIM_PLANNING_PLAN_SETUP_H

#include <stdbool.h>

#include "plan_run.h"
#include "sweep_lists.h"

typedef struct {
    const sweep_list *shardings; /* texts (sharding.h spellings, or "all"); none: ddp */
    const sweep_list *ckpts;     /* none, act_ckpt.h policies, or "all"; none given: act_ckpt */
    const sweep_list *micro;     /* samples per GPU per micro-batch; none given: see below */
    bool act_ckpt;               /* --act-ckpt[=P], one policy for every variant */
    gcsim_act_ckpt act_ckpt_policy;
    int batch;                   /* --batch (0: none) */
    /* Samples per optimizer step (0: none). With it and no micro list nor --batch, the
     * micro-batches searched are PLAN_DEFAULT_MICRO_BATCHES. */
    long long global_batch;
    int max_gpus;                /* the largest count searched (0: each platform's size) */
    int n_precisions;            /* precisions searched (--precision LIST), each variant's
                                    precision indexes them; 0 or 1: one */
} plan_request;

/* The micro-batch sizes a global batch searches when none is named. */
#define PLAN_DEFAULT_MICRO_BATCHES "1,2,4,8"

/* The variants of rq for model m on the platforms: *out malloc'ed (free it), *n set.
 * Returns 0, or -1 with the reason in err: a sharding, policy or micro-batch that does not
 * parse (naming the option), a policy the model cannot take, too many variants (input
 * errors), out of memory (internal). */
int plan_variants_build(const plan_request *rq, const gcsim_model *m,
                        const gcsim_platform *const *platforms, int n_platforms,
                        plan_variant **out, int *n, gcsim_error *err);

/* Samples per step for tokens_per_step tokens of model m: a whole number of its samples
 * (tokens_per_sample), else -1 with the reason in err. */
long long plan_global_batch_of_tokens(const gcsim_model *m, double tokens_per_step,
                                      gcsim_error *err);

/* The precisions of --precision LIST (fp32, tf32, bf16, fp16, or all: those four), in the
 * order given, into out (room for 4): how many, or -1 with the reason in err (an unknown
 * name, one given twice). */
int plan_precisions_parse(const sweep_list *l, int *out, gcsim_error *err);

/* What plan loads: the texts of its options. */
typedef struct {
    const char *model_path;  /* NULL: the embedded default (the cache's loaders) */
    const sweep_list *platforms, *compressors, *stacks, *collectives; /* empty: defaults */
    int precision, optimizer; /* -1: the model's */
    double mfu;              /* > 0: --mfu for the model on every platform */
    int batch;               /* --batch (0: the model's), the batch --mfu is fitted at */
    gcsim_exchange exchange;
    const int *precisions;   /* --precision LIST: a model and plans per precision (or NULL) */
    int n_precisions;
} plan_inputs;

/* The arrays pb points into (plan_inputs_free releases them). */
typedef struct {
    const gcsim_platform **platforms;
    const gcsim_payload_plan **plans;
    const gcsim_stack **stacks;
    gcsim_collective *collectives;
    const gcsim_model **models;          /* one per precision searched */
    const gcsim_payload_plan **precision_plans;
} plan_loaded;

/* Loads the model (at in's precision and optimizer: the cache's copy is the command's
 * own), the platforms (with --mfu), one payload plan per compressor, into pb (model,
 * platforms, plans and their counts; the counts of stacks and collectives too). Returns 0,
 * or -1 with the reason in err. */
int plan_inputs_load(plan_problem *pb, plan_loaded *l, sweep_cache *cache,
                     const plan_inputs *in, gcsim_error *err);
/* Then the stacks (each platform's choice without --stack, as predict) and the collectives
 * (the named ones, each checked against the exchange, or plan_default_collectives). */
int plan_inputs_load_stacks(plan_problem *pb, plan_loaded *l, sweep_cache *cache,
                            const plan_inputs *in, gcsim_error *err);
void plan_inputs_free(plan_loaded *l);

/* What plan_run_widening did. */
typedef enum {
    PLAN_WIDENED_NO,       /* the request ran as given */
    PLAN_WIDENED_SHARDING, /* ddp fit nowhere: zero1, zero2, fsdp and hsdp searched too */
    PLAN_WIDENED_CKPT      /* nor did those: searched again with full checkpointing */
} plan_widening;

/* plan_run on pb with rq's variants (pb->variants is set to them; *owned keeps them: free
 * it after the last use of pb). Without --sharding, when no candidate fits in memory, the
 * sharded strategies are searched as well, then (with no checkpointing asked for) with
 * full checkpointing, as `gcsim plan` has done since 0.3; *how says which ran. */
int plan_run_widening(plan_problem *pb, const plan_request *rq, plan_result *res,
                      plan_variant **owned, plan_widening *how, gcsim_error *err);

#endif
