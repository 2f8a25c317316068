/*
 * sim/planning/plan_rank.h: how `gcsim plan` judges and orders configurations: cost per hour,
 * hours and total cost of a work, feasibility against a throughput and a budget, how far
 * an infeasible configuration is from feasible, and the ranking by cost or by time.
 * Pure arithmetic on predictions, so it is tested with hand-computed values.
 */
#ifndef GCSIM_PLANNING_PLAN_RANK_H
#define GCSIM_PLANNING_PLAN_RANK_H

#include <stdbool.h>

#include "sweep_case.h"

typedef struct {
    double need_samples_per_s; /* max(--target-throughput, work / deadline); 0: none */
    double work_samples;       /* samples to train; 0: none given */
    double budget_usd;         /* 0: none */
} plan_target;

typedef struct {
    /* Set by the caller. */
    int platform, compressor, stack, collective; /* indices into the caller's lists */
    int variant;     /* index of its training variant (plan_problem_variant) */
    int gpus;
    /* what the variant ran at this count: samples per GPU per micro-batch, micro-batches
     * per optimizer step (1: no accumulation) */
    int micro_batch, grad_accum;
    sweep_result r;
    /* --exchange best (exchange_best.h): r is the fastest exchange's result; the stack's
     * own exchange (--exchange auto) and its throughput (0: it could not run), for the
     * comparison the plan prints. */
    bool exchange_searched;
    gcsim_exchange own_exchange;
    double own_samples_per_s;
    double one_gpu_samples_per_s;   /* same compressor and collective on one GPU; 0: unknown */
    double price_per_gpu_hour_usd;  /* NAN: the platform has no price */
    /* Convergence factor (sim/convergence, issue 26): iterations the compressor needs to
     * reach fp32's accuracy relative to fp32's; 0 (unset) counts as 1. */
    double conv_factor;
    /* conv_rank_tier (issue 43): 0 known, 1 unknown, 2 missed the target in gcsim's own
     * runs; a higher tier ranks after a lower one whatever the time or cost. 0 when unset. */
    int conv_tier;
    /* Goodput (goodput.h, issue 41): the fraction of wall time that is useful work with
     * failures, checkpoints and restarts at this GPU count; 0 (unset) counts as 1. */
    double useful_fraction;
    /* Set by plan_evaluate. */
    double tput, efficiency, usd_per_hour, hours, total_usd;
    double tput_to_accuracy;  /* tput / conv_factor: samples/s of fp32-equivalent progress */
    bool feasible;
    double shortfall;  /* max(needed / reached throughput, total cost / budget); <= 1 feasible */
    char why[160];     /* why it is not feasible; empty when it is */
} plan_candidate;

/* Fills the derived fields: usd_per_hour = GPUs x price, tput_to_accuracy = throughput /
 * conv_factor (x useful_fraction when set: progress per wall-clock second), hours = work / tput_to_accuracy / 3600 (the time to fp32's accuracy on that
 * work), total = usd_per_hour x hours (NAN when unknown), feasibility (the needed throughput
 * against tput_to_accuracy) and shortfall. An unpriced
 * configuration is infeasible under a budget (infinite shortfall). */
void plan_evaluate(const plan_target *t, plan_candidate *c);

/* What --rank-by cost minimizes: the total cost with a work, else the cost per hour;
 * INFINITY when the platform has no price. */
double plan_cost_key(const plan_candidate *c);

/* Costs and throughputs closer than this (relative) rank as equal. */
#define PLAN_SAME_REL 1e-9

/* Negative when a ranks before b. First the lower conv_tier. By cost: lower cost, then fewer
 * GPUs, then higher throughput to accuracy. By time: higher throughput to accuracy, then
 * lower cost. Then fewer GPUs, then the input order of platform, compressor, stack and
 * collective, so the order is total. Costs and throughputs within PLAN_SAME_REL of each
 * other count as equal. */
int plan_better(const plan_candidate *a, const plan_candidate *b, bool by_time);

/* Stable sort by plan_better, or by shortfall first (closest first) when by_shortfall. */
void plan_sort(plan_candidate *rows, int n, bool by_time, bool by_shortfall);

#endif
