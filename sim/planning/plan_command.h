/*
 * sim/planning/plan_command.h: what `gcsim plan` was asked (the one record its options fill)
 * and its set-up and search (issue 44: the command parses and prints, planning decides):
 * the options' combinations checked, the target, the inputs loaded (with each compressor's
 * convergence factor), the GPU list, the variants, then the search with its widening.
 */
#ifndef GCSIM_PLANNING_PLAN_COMMAND_H
#define GCSIM_PLANNING_PLAN_COMMAND_H

#include <stdbool.h>

#include "case_options.h"
#include "convergence.h"
#include "goodput.h"
#include "plan_setup.h"
#include "sweep_lists.h"

/* The compressors plan compares when none are named. */
#define PLAN_DEFAULT_COMPRESSORS "none,fp16,terngrad"

typedef struct {
    const char *model_path, *gpus;
    sweep_list platforms, compressors, collectives, stacks;
    double target_tput, samples, epochs, dataset_size, deadline_h, budget_usd;
    bool rank_by_time, whole_nodes;
    int nodes_rule;          /* 1 --whole-nodes, 0 --partial-nodes, -1 neither given */
    plan_search_mode search; /* --search */
    case_options run;        /* what every case is run with (case_options.h) */
    long long top;           /* rows shown (0: all) */
    bool exchange_best;      /* --exchange best */
    sweep_list shardings;
    sweep_list ckpts;        /* --act-ckpt=LIST: none, policies or all (plan_variant.h) */
    sweep_list micro;        /* --micro-batch LIST */
    long long global_batch;  /* --global-batch (samples), or from --tokens-per-step */
    double tokens_per_step;
    unsigned best_per;       /* --best-per keys (plan_answer.h); 0: every group's row */
    sweep_list precisions;   /* --precision LIST: searched (one name: run.precision) */
    conv_source convergence;
    goodput_options goodput; /* --goodput and its inputs; off: not counted */
} plan_command;

/* The defaults: top 10, neither node rule, the best convergence evidence, case_options'. */
void plan_command_init(plan_command *c);
void plan_command_free(plan_command *c);

/* After parsing: the sentence saying which options contradict each other (the work and the
 * target, --exchange best with a list, one checkpointing policy and a list, the batch given
 * twice ...), or NULL; then sets whole_nodes (the default search proposes whole nodes). */
const char *plan_command_check(plan_command *c);

/* A run's state: the problem searched and everything it points into. */
typedef struct {
    plan_problem pb;
    plan_loaded loaded;
    plan_request rq;
    plan_result res;
    plan_variant *variants;
    plan_widening widened;
    int *gpus;
    conv_factor *conv;       /* one per compressor */
    int precisions[4];
    long long des_planned;   /* --engine des: the simulations ahead (at least, bounded) */
} plan_session;

/* Loads c's inputs and sets the search up in s (zeroed first). 0, or -1 with err. */
int plan_command_setup(plan_command *c, sweep_cache *cache, plan_session *s, gcsim_error *err);
/* The search (plan_run_widening) into s->res. 0, or -1 with err. */
int plan_command_search(plan_session *s, gcsim_error *err);
void plan_session_free(plan_session *s);

#endif
