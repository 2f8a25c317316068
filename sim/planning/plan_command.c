/* sim/planning/plan_command.c: plan's checks, set-up and search (plan_command.h). */
#include "plan_command.h"

#include <stdlib.h>

#include "convergence_factors.h"
#include "gpu_list.h"

void plan_command_init(plan_command *c)
{
    *c = (plan_command){.top = 10, .nodes_rule = -1, .convergence = CONV_SOURCE_BEST};
    case_options_init(&c->run);
}

void plan_command_free(plan_command *c)
{
    sweep_list *lists[] = {&c->platforms, &c->compressors, &c->collectives, &c->stacks,
                           &c->shardings, &c->ckpts, &c->micro, &c->precisions};
    for (size_t k = 0; k < sizeof lists / sizeof *lists; k++)
        sweep_list_free(lists[k]);
}

const char *plan_command_check(plan_command *o)
{
    const char *problem = NULL;
    if (o->samples > 0 && o->epochs > 0)
        problem = "--samples and --epochs both give the work: use one";
    else if ((o->epochs > 0) != (o->dataset_size > 0))
        problem = "--epochs and --dataset-size go together";
    else if (!(o->target_tput > 0) && !(o->samples > 0) && !(o->epochs > 0))
        problem = "no target: give --target-throughput X, --samples S, or --epochs E "
                  "--dataset-size D";
    else if ((o->deadline_h > 0 || o->budget_usd > 0) && !(o->samples > 0) && !(o->epochs > 0))
        problem = "--deadline and --budget need the work: --samples S or --epochs E "
                  "--dataset-size D";
    else if (o->exchange_best && o->collectives.n)
        problem = "--exchange best picks each configuration's collective with its exchange: "
                  "not with --collectives";
    else if (o->exchange_best && o->shardings.n)
        problem = "--exchange best searches plain data parallelism's exchanges: not with "
                  "--sharding";
    else if (o->run.act_ckpt && o->ckpts.n)
        problem = "--act-ckpt: one policy or one list (--act-ckpt=none,op,full), not both";
    else if (o->global_batch > 0 && o->tokens_per_step > 0)
        problem = "--global-batch and --tokens-per-step both give the batch: use one";
    else if ((o->global_batch > 0 || o->tokens_per_step > 0) && o->run.grad_accum > 0)
        problem = "--grad-accum: the global batch sets the micro-batches per step at each "
                  "GPU count: not with --global-batch or --tokens-per-step";
    else if ((o->global_batch > 0 || o->tokens_per_step > 0 || o->micro.n) &&
             o->run.scaling == SCALING_STRONG)
        problem = "--scaling strong splits --batch over the GPUs: not with --global-batch, "
                  "--tokens-per-step or --micro-batch";
    else if (o->micro.n && o->run.batch)
        problem = "--batch and --micro-batch both give the samples per GPU: use one";
    /* Clouds rent whole machines: the default search proposes whole nodes (9 GPUs on 8-GPU
     * nodes pays for 16). A --gpus list is searched as given unless --whole-nodes filters it. */
    o->whole_nodes = o->nodes_rule == 1 || (o->nodes_rule == -1 && !o->gpus);
    return problem;
}

int plan_command_setup(plan_command *o, sweep_cache *cache, plan_session *s, gcsim_error *err)
{
    char msg[512];
    *s = (plan_session){0};
    plan_problem *pb = &s->pb;
    *pb = (plan_problem){.rank_by_time = o->rank_by_time, .scaling = o->run.scaling,
                         .engine = o->run.engine, .batch = (int)o->run.batch,
                         .exchange = o->run.exchange, .run = &o->run,
                         .grad_accum = (int)o->run.grad_accum,
                         .variability = o->run.variability.on ? &o->run.variability : NULL,
                         .exchange_best = o->exchange_best, .whole_nodes = o->whole_nodes,
                         .search = o->search, .goodput = o->goodput.on ? &o->goodput : NULL};
    if (!o->compressors.n && sweep_list_add_compressors(&o->compressors,
                                                        PLAN_DEFAULT_COMPRESSORS, msg, sizeof msg))
        return gcsim_fail_internal(err, "%s", msg);
    pb->target.work_samples = o->samples > 0 ? o->samples : o->epochs * o->dataset_size;
    pb->target.need_samples_per_s = o->target_tput;
    pb->target.budget_usd = o->budget_usd;
    if (o->deadline_h > 0 &&
        pb->target.work_samples / (o->deadline_h * 3600.0) > pb->target.need_samples_per_s)
        pb->target.need_samples_per_s = pb->target.work_samples / (o->deadline_h * 3600.0);
    int n_precisions = 0;
    if (o->precisions.n &&
        (n_precisions = plan_precisions_parse(&o->precisions, s->precisions, err)) < 0)
        return -1;
    plan_inputs in = {.model_path = o->model_path, .platforms = &o->platforms,
                      .compressors = &o->compressors, .stacks = &o->stacks,
                      .collectives = &o->collectives, .precision = o->run.precision,
                      .optimizer = o->run.optimizer, .mfu = o->run.mfu,
                      .batch = (int)o->run.batch, .exchange = o->run.exchange,
                      .precisions = s->precisions, .n_precisions = n_precisions};
    if (plan_inputs_load(pb, &s->loaded, cache, &in, err))
        return -1;
    const gcsim_model *model = pb->model;
    if (!(s->conv = calloc((size_t)pb->n_compressors, sizeof *s->conv)))
        return gcsim_fail_internal(err, "out of memory");
    if (convergence_factors(o->convergence, model->name,
                            (const char *const *)o->compressors.items, pb->n_compressors, 0,
                            s->conv, err))
        return -1;
    pb->conv = s->conv;
    if (plan_inputs_load_stacks(pb, &s->loaded, cache, &in, err))
        return -1;
    if (o->gpus) {
        if (!(s->gpus = malloc(PLAN_MAX_GPU_COUNTS * sizeof *s->gpus)))
            return gcsim_fail_internal(err, "out of memory");
        if ((pb->n_gpus = gpu_list_parse(o->gpus, s->gpus, PLAN_MAX_GPU_COUNTS, msg,
                                         sizeof msg)) < 0)
            return gcsim_fail(err, "%s", msg);
        pb->gpus = s->gpus;
    }
    if (o->tokens_per_step > 0 &&
        (o->global_batch = plan_global_batch_of_tokens(model, o->tokens_per_step, err)) < 0)
        return -1;
    pb->global_batch = o->global_batch;
    s->rq = (plan_request){.shardings = &o->shardings, .ckpts = &o->ckpts, .micro = &o->micro,
                           .act_ckpt = o->run.act_ckpt, .act_ckpt_policy = o->run.act_ckpt_policy,
                           .batch = (int)o->run.batch, .global_batch = o->global_batch,
                           .n_precisions = n_precisions,
                           .max_gpus = pb->gpus && pb->n_gpus > 0 ? pb->gpus[pb->n_gpus - 1] : 0};
    if (o->run.engine == ENGINE_DES) {
        /* The DES takes a fraction of a second per case: the command says what is coming
         * (the variants built here only to count them: plan_run_widening builds its own). */
        int n_var;
        if (plan_variants_build(&s->rq, model, pb->platforms, pb->n_platforms, &s->variants,
                                &n_var, err))
            return -1;
        pb->variants = s->variants;
        pb->n_variants = n_var;
        s->des_planned = plan_candidate_count(pb);
        free(s->variants);
        s->variants = NULL;
        pb->variants = NULL;
        pb->n_variants = 0;
    }
    return 0;
}

int plan_command_search(plan_session *s, gcsim_error *err)
{
    return plan_run_widening(&s->pb, &s->rq, &s->res, &s->variants, &s->widened, err);
}

void plan_session_free(plan_session *s)
{
    plan_result_free(&s->res);
    free(s->gpus);
    plan_inputs_free(&s->loaded);
    free(s->variants);
    free(s->conv);
    *s = (plan_session){0};
}
