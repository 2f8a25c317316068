/*
 * sim/planning/case_options.h: the one option record every command fills from its command
 * line (predict, sweep, breakeven, check's baseline cases, plan), and the one
 * function that turns it into a case (sweep_case.h) for case_build.h. A search copies the
 * case and changes only what it searches (the exchange, the collective, the GPU count, a
 * sweep's listed values), so every option given reaches every case it tries (issue 44; issue
 * 45: predict's search case was built by hand and dropped options).
 *
 * Two halves: what changes the model (precision, optimizer, a compute override), applied once
 * to the loaded model by case_options_model; and what the case carries, copied by
 * case_options_case.
 */
#ifndef GCSIM_PLANNING_CASE_OPTIONS_H
#define GCSIM_PLANNING_CASE_OPTIONS_H

#include <stdbool.h>

#include "gcsim_error.h"
#include "scenario.h"
#include "stack.h"
#include "sweep_case.h"
#include "variability.h"

typedef struct {
    /* the model half */
    int precision, optimizer;      /* -1: the model's */
    double mfu, step_time_s;       /* compute overrides; 0: not given */
    /* the case half */
    gcsim_collective collective;
    bool collective_given;         /* false: the platform's, chosen with the exchange */
    gcsim_exchange exchange;       /* GCSIM_EXCHANGE_AUTO unless asked */
    gcsim_scaling scaling;
    gcsim_engine engine;
    long long batch;               /* 0: the model's */
    long long ps_shards;           /* 0: one per machine */
    double bucket_bytes;           /* 0: the stack's */
    bool overlap;
    gcsim_sharding sharding;       /* zeroed: ddp */
    long long grad_accum;          /* 0, 1: one micro-batch */
    bool act_ckpt;
    gcsim_act_ckpt act_ckpt_policy;
    bool no_memory_check;
    long long des_max_messages;    /* 0: the engine's default limit, < 0: none */
    gcsim_variability variability; /* .on: variable compute and stragglers */
} case_options;

/* The defaults of every command: weak scaling, the analytic engine, overlap, the model's
 * precision and optimizer, ddp. */
void case_options_init(case_options *o);

/* Applies the model half to m (loaded, the caller's copy): precision, optimizer, then the
 * compute override at the case's batch on pf (gcsim_compute_override). 0, or -1 with err. */
int case_options_model(const case_options *o, const gcsim_platform *pf, gcsim_model *m,
                       gcsim_error *err);

/* The case of platform pf, model m (case_options_model applied), payload pl and stack st at
 * `gpus` GPUs with every option of the case half; batch 0 is the model's. */
sweep_case case_options_case(const case_options *o, const gcsim_platform *pf,
                             const gcsim_model *m, const gcsim_payload_plan *pl,
                             const gcsim_stack *st, int gpus);

#endif
