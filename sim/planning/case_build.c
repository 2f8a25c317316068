/* sim/planning/case_build.c: a case record to a scenario (case_build.h). */
#include "case_build.h"

#include "act_ckpt.h"
#include "memory.h"
#include "sharding.h"
#include "step.h"

int case_build_check(const sweep_case *c, gcsim_placement *placement, gcsim_error *err)
{
    /* No silent default: the stack decides the exchange, codec costs and buckets, and a
     * case run under another stack than predict's gives another number (issue 24). */
    if (!c->stack)
        return gcsim_fail_internal(err, "case_build: the case names no training stack");
    gcsim_placement own;
    if (!placement)
        placement = &own;
    int batch = sweep_case_batch(c);
    if (gcsim_platform_place(c->platform, c->gpus, placement, err))
        return -1;
    if (c->scaling == SCALING_STRONG && batch < c->gpus)
        return gcsim_fail(err, "strong scaling: the mini-batch K = %d is smaller than %d GPUs",
                          batch, c->gpus);
    if (c->act_ckpt && gcsim_act_ckpt_check(c->model, &c->act_ckpt_policy, err))
        return -1;
    /* A worker that cannot hold its training state is refused with the arithmetic. */
    if (!c->no_memory_check &&
        gcsim_memory_check_sharded(c->model, c->platform, &c->sharding, c->gpus,
                                   gcsim_samples_per_gpu(c->scaling, batch, c->gpus),
                                   c->act_ckpt ? &c->act_ckpt_policy : NULL,
                                   c->bucket_bytes, err))
        return -1;
    if (c->sharding.strategy != GCSIM_SHARD_DDP &&
        gcsim_sharding_check(&c->sharding, c->platform, c->payload, c->gpus, err))
        return -1;
    return 0;
}

int case_build_feasible(const sweep_case *c, gcsim_error *err)
{
    /* the refusals that blame the inputs: the same checks without memory and sharding */
    sweep_case inputs = *c;
    inputs.no_memory_check = true;
    inputs.sharding.strategy = GCSIM_SHARD_DDP;
    if (case_build_check(&inputs, NULL, err))
        return -1;
    if (!case_build_check(c, NULL, err))
        return 0;
    return gcsim_error_skippable(err) ? 1 : -1;
}

int case_build_setup(const sweep_case *c, gcsim_stack_setup *ss, gcsim_error *err)
{
    if (!c->stack)
        return gcsim_fail_internal(err, "case_build_setup: the case names no training stack");
    return gcsim_stack_setup_init(ss, c->platform, c->stack, c->payload->spec, c->exchange,
                                  c->collective_given ? &c->collective : NULL, err);
}

/* The scenario's fields from the record, before the stack's setup is applied. */
static gcsim_scenario scenario_of(const sweep_case *c)
{
    return (gcsim_scenario){
        .platform = c->platform, .model = c->model, .payload = c->payload,
        .scaling = c->scaling, .collective = c->collective, .batch = sweep_case_batch(c),
        .ps_shards = c->ps_shards, .bucket_bytes = c->bucket_bytes, .overlap = c->overlap,
        .timeline_path = NULL, .des_max_messages = c->des_max_messages,
        .sharding = c->sharding, .grad_accum = c->grad_accum, .act_ckpt = c->act_ckpt,
        .act_ckpt_policy = c->act_ckpt_policy, .case_memo = c->case_memo,
        .variability = c->variability};
}

int case_build_scenario(const sweep_case *c, const gcsim_stack_setup *setup, gcsim_scenario *s,
                        gcsim_error *err)
{
    if (!c->stack)
        return gcsim_fail_internal(err, "case_build: the case names no training stack");
    *s = scenario_of(c);
    gcsim_stack_setup_apply(setup, s);
    if (gcsim_scenario_training_check(s, err))
        return -1;
    return gcsim_platform_place(c->platform, c->gpus, &s->placement, err);
}

int case_build(const sweep_case *c, const gcsim_stack_setup *setup, gcsim_scenario *s,
               gcsim_error *err)
{
    if (case_build_check(c, NULL, err))
        return -1;
    return case_build_scenario(c, setup, s, err);
}
