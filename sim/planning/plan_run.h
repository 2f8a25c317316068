/*
 * sim/planning/plan_run.h: the search behind `gcsim plan`. Given loaded inputs (platforms,
 * payload plans of one model, training stacks, collectives) and a target, the GPU counts of
 * every platform are searched (plan_search.h) for every compressor, stack and collective; the best
 * feasible count of each (platform, compressor, stack, collective) group is kept and the
 * groups ranked, or, when no group is feasible, the closest count of each group with a
 * sentence saying why none is. With exchange_best, each count runs every exchange the
 * stack allows (exchange_best.h) instead of a list of collectives, and keeps the fastest.
 * The command parses options, loads the inputs, prints the result and picks the exit code.
 */
#ifndef GCSIM_PLANNING_PLAN_RUN_H
#define GCSIM_PLANNING_PLAN_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "case_options.h"
#include "convergence.h"
#include "engine.h"
#include "gcsim_error.h"
#include "goodput.h"
#include "plan_rank.h"
#include "plan_search.h"
#include "plan_variant.h"
#include "scenario.h"

/* A --gpus list has at most this many counts (a list with "..." can expand to many; issue
 * 29: every input that grows has a limit). Parsing, filtering and the bounded search are
 * linear in the list, or less; the exhaustive search evaluates every count. */
#define PLAN_MAX_GPU_COUNTS 65536

typedef struct {
    const gcsim_model *model;
    int n_platforms, n_compressors, n_stacks, n_collectives;
    const gcsim_platform *const *platforms;
    const gcsim_payload_plan *const *plans;  /* one per compressor, of model */
    /* n_platforms x n_stacks: stacks[p * n_stacks + t], so that each platform can run its
     * own choice (gcsim_stack_choice); none may be NULL */
    const gcsim_stack *const *stacks;
    const gcsim_collective *collectives;     /* ignored with exchange_best */
    /* The collectives are plan_default_collectives' (none named): a group whose collective
     * runs the compressor by an exchange its stack does not implement (a parameter server or
     * a re-encoding all-reduce under horovod, gcsim_stack_implements) is not searched, as
     * `--exchange best` does not try it (issue 43). Named ones run as asked (a what-if). */
    bool collectives_default;
    plan_target target;
    bool rank_by_time;        /* false: by cost */
    gcsim_scaling scaling;
    gcsim_engine engine;      /* ENGINE_ANALYTIC or ENGINE_DES */
    int batch;                /* 0: the model's */
    gcsim_exchange exchange;  /* GCSIM_EXCHANGE_AUTO unless asked */
    /* --exchange best: no collective is named; each count runs under every exchange
     * (exchange_best_run) and the fastest is the candidate, which also carries the stack's
     * own exchange and throughput. Groups are then (platform, compressor, stack). */
    bool exchange_best;
    const int *gpus;          /* the counts asked for, ascending and distinct, or NULL: */
    int n_gpus;               /*   1 to each platform's size (plan_search_domain) */
    bool whole_nodes;         /* beyond one node, only multiples of gpus_per_node */
    plan_search_mode search;  /* bounded (default) or exhaustive (plan_search.h) */
    /* Sharding strategies searched (NULL or none: ddp alone); a sharded strategy runs its
     * own exchange, so it forms one group per (platform, compressor, stack), not one per
     * collective. Micro-batches per step and checkpointing apply to every candidate. */
    const gcsim_sharding *shardings;
    int n_shardings;
    int grad_accum;
    bool act_ckpt;
    gcsim_act_ckpt act_ckpt_policy; /* zeroed: full */
    /* The training variants searched (plan_variant.h: sharding x checkpointing policy x
     * micro-batch), each its own group; when given, shardings, act_ckpt and its policy are
     * not read. NULL: one variant per sharding with act_ckpt (plan_problem_variant). */
    const plan_variant *variants;
    int n_variants;
    /* Samples per optimizer step (weak scaling): each count runs global_batch / (GPUs x
     * micro-batch) micro-batches per step, and a count where that is not a whole number is
     * skipped with the reason; 0: grad_accum micro-batches at every count. */
    long long global_batch;
    /* Variable compute and stragglers (variability.h), or NULL: candidates ranked by their
     * mean iteration. */
    const struct gcsim_variability_s *variability;
    /* Convergence factor of each compressor (conv_factor_at gives it at a GPU count), or
     * NULL: not counted. A factor that no source covers (NAN) ranks as 1; the caller says so. */
    const conv_factor *conv;
    /* Failures, checkpoints and restarts (goodput.h, issue 41), or NULL / off: not counted.
     * When on, every candidate's progress is its throughput x the useful fraction at its
     * GPU count: feasibility, hours, cost and the ranking see goodput. */
    const goodput_options *goodput;
    /* The command line's option record (case_options.h): every case is built from it by
     * case_options_case, then given its group's collective and its variant (issue 44: one
     * case builder); NULL: a record made of the fields above (tests that fill them). */
    const case_options *run;
    /* --precision LIST (issue 46): the precisions searched, each with the model loaded at
     * it and its payload plans (precision_plans[k * n_compressors + c]); a variant's
     * precision indexes them. 0: the model as loaded, and plans. */
    int n_precisions;
    const int *precisions; /* gcsim_precision */
    const gcsim_model *const *precision_models;
    const gcsim_payload_plan *const *precision_plans;
} plan_problem;

typedef struct {
    /* Feasible: the best count of each feasible group, best first. Otherwise the closest
     * count of each group that could be evaluated, closest first. */
    plan_candidate *rows;
    int n_rows;
    bool feasible;
    int n_groups;             /* platforms x compressors x stacks x collectives (1 with
                                 exchange_best) */
    /* combinations of platform, compressor, stack, collective and variant searched (a
     * sharded variant runs its own exchange: one combination, not one per collective) */
    int n_combinations;
    long long evaluated;      /* candidates run */
    long long skipped;        /* candidates that could not run, e.g. out of GPU memory */
    /* Groups not searched: their default collective runs an exchange the stack does not
     * implement for the compressor (plan_problem.collectives_default); the first's reason. */
    int n_unimplemented;
    char first_unimplemented[384];
    /* Groups searched though their stack does not implement their exchange: named by
     * --collectives or --exchange, a what-if; the first's reason. */
    int n_whatif;
    char first_whatif[384];
    char first_error[512];    /* why the first skipped one could not; empty when none */
    /* The skipped candidates by reason (they add up to skipped), with the first of each:
     * the worker cannot hold its training state; the sharding refuses the count or the
     * compressor; the global batch is no whole number of micro-batches; anything else. */
    long long skipped_memory, skipped_sharding, skipped_batch, skipped_other;
    char first_memory[512], first_sharding[512], first_batch[512], first_other[512];
    /* with precisions searched: the model has no compute at the precision on the GPU */
    long long skipped_precision;
    char first_precision[512];
    char why[1024];           /* why nothing is feasible; empty when feasible */
} plan_result;

/* The collectives searched when none are named: those of the exchange (allreduce: ring,
 * halving-doubling, tree, double-tree, hierarchical; allgather; ps), or with
 * GCSIM_EXCHANGE_AUTO every GPU-direct collective (ring .. allgather): the papers'
 * patterns (terngrad, dgc-paper) only when asked for, since they move a host copy out of
 * the measured compute time. Writes at most max and returns how many there are. */
int plan_default_collectives(gcsim_exchange exchange, gcsim_collective *out, int max);

/* The GPU counts a group may take on a platform (plan_search.h): the problem's list (with
 * whole_nodes, only those up to one node and the multiples of gpus_per_node; buf has room
 * for n_gpus and holds them), or 1 to the platform's size (whole nodes beyond one node
 * with whole_nodes). Returns how many. */
long long plan_search_domain(const plan_problem *pb, const gcsim_platform *pf, int *buf,
                             plan_domain *d);

/* The number of candidates plan_run will evaluate: every count of each domain in the
 * exhaustive search, the grid's counts in the bounded one (refinement adds some: a lower
 * bound); with exchange_best each candidate is EXCHANGE_BEST_TRIES runs. */
long long plan_candidate_count(const plan_problem *pb);

/* The most GPUs a plan costs the tree and double-tree schedules on (--collectives, or the
 * stacks' tuner under --exchange best). Their schedules are costed from every GPU pair's
 * flows (a template, tree_cost.h: about 3 CPU-s and 2 GiB at 2^20 GPUs), and the bounded
 * search costs dozens of counts per configuration, most of them near the answer: a default
 * plan at 2^20 GPUs ran past 180 CPU-s (issue 45), at 2^18 it takes 18 CPU-s and 0.7 GiB.
 * Past it plan_run refuses before any work (predict costs chosen counts at any size). */
#define PLAN_TREE_GPUS_MAX 262144

/* Runs the search. Candidates that cannot run (more GPUs than fit, a compressor the stack
 * refuses, ...) are skipped and counted; one that gcsim cannot cost (a limit of the
 * machine, gcsim_error_skippable) stops the search. Returns 0, or -1 with the reason in err
 * (a platform with too many counts to search; trees past PLAN_TREE_GPUS_MAX; a limit; out
 * of memory, internal). plan_result_free
 * releases out either way. */
int plan_run(const plan_problem *pb, plan_result *out, gcsim_error *err);
void plan_result_free(plan_result *r);

/* The collective a candidate ran: its group's, or with exchange_best the one the winning
 * exchange chose (r.collective). */
gcsim_collective plan_candidate_collective(const plan_problem *pb, const plan_candidate *c);

/* The variants the problem searches (at least one) and the i-th of them. */
int plan_problem_n_variants(const plan_problem *pb);
plan_variant plan_problem_variant(const plan_problem *pb, int i);

/* The model and a compressor's payload plan of a variant (its precision's, or pb's). */
const gcsim_model *plan_variant_model(const plan_problem *pb, const plan_variant *v);
const gcsim_payload_plan *plan_variant_payload(const plan_problem *pb, const plan_variant *v,
                                               int compressor);

/* The memory per GPU of a candidate as predict reports it (gcsim_memory_estimate_sharded
 * for its variant, micro-batch and count), bytes. */
double plan_candidate_memory_bytes(const plan_problem *pb, const plan_candidate *c);

/* The groups each platform has: compressors x stacks x collectives (collectives count one
 * with exchange_best). */
int plan_groups_per_platform(const plan_problem *pb);

#endif
