/* sim/planning/plan_setup.c: what plan searches, from what it was asked (plan_setup.h). */
#include "plan_setup.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "plain_number.h"
#include "roofline.h"

/* The shardings of rq (or ddp), "all" expanded for the platforms. */
static int shardings_of(const plan_request *rq, const gcsim_platform *const *platforms,
                        int n_platforms, gcsim_sharding *out, int max, gcsim_error *err)
{
    int n = 0;
    for (int k = 0; rq->shardings && k < rq->shardings->n; k++) {
        const char *t = rq->shardings->items[k];
        if (strcmp(t, "all") == 0) {
            gcsim_sharding all[64];
            int m = plan_sharding_all(platforms, n_platforms, rq->max_gpus, all, 64);
            for (int j = 0; j < m && n < max; j++)
                out[n++] = all[j];
            continue;
        }
        char why[160];
        if (n >= max)
            return gcsim_fail(err, "--sharding: more than %d strategies", max);
        if (gcsim_sharding_parse(t, &out[n], why, sizeof why))
            return gcsim_fail(err, "--sharding: %s", why);
        n++;
    }
    if (!n)
        out[n++] = (gcsim_sharding){.strategy = GCSIM_SHARD_DDP};
    /* a strategy named twice (or named and in all) would be searched twice */
    for (int a = 0; a < n; a++)
        for (int b = 0; b < a; b++) {
            char x[48], y[48];
            gcsim_sharding_format(&out[a], x, sizeof x);
            gcsim_sharding_format(&out[b], y, sizeof y);
            if (strcmp(x, y) == 0)
                return gcsim_fail(err, "--sharding: \"%s\" given twice", x);
        }
    return n;
}

/* The checkpointing choices of rq: its list ("all" expanded), or the one --act-ckpt. */
static int ckpts_of(const plan_request *rq, const gcsim_model *m, plan_ckpt *out, int max,
                    gcsim_error *err)
{
    int n = 0;
    for (int k = 0; rq->ckpts && k < rq->ckpts->n; k++) {
        const char *t = rq->ckpts->items[k];
        if (strcmp(t, "all") == 0) {
            n += plan_ckpt_all(out + n, max - n);
            continue;
        }
        char why[160];
        if (n >= max)
            return gcsim_fail(err, "--act-ckpt: more than %d policies", max);
        if (plan_ckpt_parse(t, &out[n], why, sizeof why))
            return gcsim_fail(err, "--act-ckpt: %s", why);
        n++;
    }
    if (!n)
        out[n++] = (plan_ckpt){.on = rq->act_ckpt, .policy = rq->act_ckpt_policy};
    /* a policy the model cannot take is bad input, not "no feasible configuration" */
    for (int k = 0; k < n; k++)
        if (out[k].on && gcsim_act_ckpt_check(m, &out[k].policy, err))
            return -1;
    return n;
}

/* The micro-batches of rq: its list, --batch, the default list with a global batch, or
 * none (0: the plan's batch). */
static int micro_of(const plan_request *rq, int *out, int max, gcsim_error *err)
{
    sweep_list fallback = {0};
    const sweep_list *l = rq->micro;
    char msg[256];
    if ((!l || !l->n) && rq->global_batch > 0 && !rq->batch) {
        if (sweep_list_add(&fallback, PLAN_DEFAULT_MICRO_BATCHES, "--micro-batch", msg,
                           sizeof msg)) {
            sweep_list_free(&fallback);
            return gcsim_fail_internal(err, "%s", msg);
        }
        l = &fallback;
    }
    int n = 0;
    for (int k = 0; l && k < l->n; k++) {
        long long v;
        if (n >= max) {
            sweep_list_free(&fallback);
            return gcsim_fail(err, "--micro-batch: more than %d sizes", max);
        }
        if (!gcsim_plain_int(l->items[k], 1, 1 << 24, &v)) {
            int rc = gcsim_fail(err, "--micro-batch: expected positive integers (samples per "
                                     "GPU per micro-batch), got \"%s\"", l->items[k]);
            sweep_list_free(&fallback);
            return rc;
        }
        out[n++] = (int)v;
    }
    sweep_list_free(&fallback);
    if (!n)
        out[n++] = 0;
    return n;
}

static int build(const plan_request *rq, const gcsim_model *m,
                 const gcsim_platform *const *platforms, int n_platforms,
                 const gcsim_sharding *force_sh, int n_force_sh, bool force_full,
                 plan_variant **out, int *n_out, gcsim_error *err)
{
    gcsim_sharding sh[PLAN_MAX_VARIANTS > 256 ? 256 : PLAN_MAX_VARIANTS];
    plan_ckpt ck[64];
    int mb[PLAN_MAX_MICRO_BATCHES];
    int n_sh = force_sh ? n_force_sh : shardings_of(rq, platforms, n_platforms, sh, 256, err);
    int n_ck = ckpts_of(rq, m, ck, 64, err);
    int n_mb = micro_of(rq, mb, PLAN_MAX_MICRO_BATCHES, err);
    if (n_sh < 0 || n_ck < 0 || n_mb < 0)
        return -1;
    if (force_full)
        for (int k = 0; k < n_ck; k++)
            ck[k] = (plan_ckpt){.on = true, .policy = {.mode = GCSIM_CKPT_FULL}};
    if (force_full)
        n_ck = 1;
    if (!(*out = malloc(PLAN_MAX_VARIANTS * sizeof **out)))
        return gcsim_fail_internal(err, "out of memory");
    *n_out = plan_variants_cross(force_sh ? force_sh : sh, n_sh, ck, n_ck, mb, n_mb, *out,
                                 PLAN_MAX_VARIANTS);
    /* each precision searched repeats the cross product, precision slowest */
    int n_prec = rq->n_precisions > 1 ? rq->n_precisions : 1, n_one = *n_out;
    if (n_one >= 0 && (long long)n_one * n_prec > PLAN_MAX_VARIANTS)
        *n_out = -1;
    for (int p = 1; *n_out >= 0 && p < n_prec; p++)
        for (int k = 0; k < n_one; k++) {
            (*out)[p * n_one + k] = (*out)[k];
            (*out)[p * n_one + k].precision = p;
            *n_out = (p + 1) * n_one;
        }
    if (*n_out < 0) {
        free(*out);
        *out = NULL;
        return gcsim_fail(err, "%d shardings x %d checkpointing policies x %d micro-batches%s: "
                               "more than the %d variants plan searches; narrow --sharding, "
                               "--act-ckpt or --micro-batch", n_sh, n_ck, n_mb,
                          rq->n_precisions > 1 ? " x precisions" : "", PLAN_MAX_VARIANTS);
    }
    return 0;
}

int plan_variants_build(const plan_request *rq, const gcsim_model *m,
                        const gcsim_platform *const *platforms, int n_platforms,
                        plan_variant **out, int *n, gcsim_error *err)
{
    return build(rq, m, platforms, n_platforms, NULL, 0, false, out, n, err);
}

long long plan_global_batch_of_tokens(const gcsim_model *m, double tokens_per_step,
                                      gcsim_error *err)
{
    if (m->tokens_per_sample <= 0)
        return gcsim_fail(err, "--tokens-per-step: the model %s (%s) gives no tokens_per_sample: "
                               "give --global-batch in samples", m->name, m->source_path);
    double samples = tokens_per_step / m->tokens_per_sample;
    if (samples < 1 || fabs(samples - nearbyint(samples)) > 1e-9 * samples || samples > 1e12)
        return gcsim_fail(err, "--tokens-per-step: %.17g tokens is not a whole number of %s's "
                               "samples of %d tokens", tokens_per_step, m->name,
                          m->tokens_per_sample);
    return (long long)nearbyint(samples);
}

int plan_run_widening(plan_problem *pb, const plan_request *rq, plan_result *res,
                      plan_variant **owned, plan_widening *how, gcsim_error *err)
{
    *how = PLAN_WIDENED_NO;
    *owned = NULL;
    int n;
    if (plan_variants_build(rq, pb->model, pb->platforms, pb->n_platforms, owned, &n, err))
        return -1;
    pb->variants = *owned;
    pb->n_variants = n;
    if (plan_run(pb, res, err))
        return -1;
    bool asked_sharding = rq->shardings && rq->shardings->n;
    if (asked_sharding || res->evaluated != 0 || res->skipped == 0 ||
        !strstr(res->first_error, "does not fit in GPU memory"))
        return 0;
    /* Plain data parallelism fits nowhere: search the sharded strategies, and say so. */
    static const gcsim_sharding widened[] = {{.strategy = GCSIM_SHARD_DDP},
                                             {.strategy = GCSIM_SHARD_ZERO1},
                                             {.strategy = GCSIM_SHARD_ZERO2},
                                             {.strategy = GCSIM_SHARD_ZERO3, .fsdp = true},
                                             {.strategy = GCSIM_SHARD_HSDP, .fsdp = true}};
    int n_widened = (int)(sizeof widened / sizeof *widened);
    bool any_ckpt = rq->act_ckpt || (rq->ckpts && rq->ckpts->n);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1 && (res->evaluated != 0 || any_ckpt))
            break;
        plan_result_free(res);
        free(*owned);
        *owned = NULL;
        if (build(rq, pb->model, pb->platforms, pb->n_platforms, widened, n_widened, pass == 1,
                  owned, &n, err))
            return -1;
        pb->variants = *owned;
        pb->n_variants = n;
        *how = pass ? PLAN_WIDENED_CKPT : PLAN_WIDENED_SHARDING;
        if (plan_run(pb, res, err))
            return -1;
    }
    return 0;
}

int plan_precisions_parse(const sweep_list *l, int *out, gcsim_error *err)
{
    int n = 0;
    for (int k = 0; k < l->n; k++) {
        bool all = strcmp(l->items[k], "all") == 0;
        for (int p = all ? 0 : -1; p < (all ? 4 : 0); p++) {
            gcsim_precision v = (gcsim_precision)p;
            if (!all && gcsim_precision_parse(l->items[k], &v))
                return gcsim_fail(err, "--precision: expected fp32, tf32, bf16, fp16 or all, got "
                                       "\"%s\"", l->items[k]);
            for (int j = 0; j < n; j++)
                if (out[j] == (int)v)
                    return gcsim_fail(err, "--precision: %s given twice",
                                      gcsim_precision_name(v));
            out[n++] = (int)v;
        }
    }
    return n;
}

int plan_inputs_load(plan_problem *pb, plan_loaded *l, sweep_cache *cache,
                     const plan_inputs *in, gcsim_error *err)
{
    memset(l, 0, sizeof *l);
    pb->n_platforms = in->platforms->n ? in->platforms->n : 1;
    pb->n_compressors = in->compressors->n;
    pb->n_stacks = in->stacks->n ? in->stacks->n : 1;
    gcsim_collective defaults[COLLECTIVE_COUNT];
    int n_defaults = plan_default_collectives(in->exchange, defaults, COLLECTIVE_COUNT);
    pb->n_collectives = in->collectives->n ? in->collectives->n : n_defaults;
    pb->collectives_default = !in->collectives->n;
    l->platforms = calloc((size_t)pb->n_platforms, sizeof *l->platforms);
    l->plans = calloc((size_t)pb->n_compressors + 1, sizeof *l->plans);
    l->collectives = calloc((size_t)pb->n_collectives, sizeof *l->collectives);
    l->stacks = calloc((size_t)pb->n_platforms * pb->n_stacks, sizeof *l->stacks);
    if (!l->platforms || !l->plans || !l->collectives || !l->stacks)
        return gcsim_fail_internal(err, "out of memory");
    pb->platforms = l->platforms;
    pb->plans = l->plans;
    pb->collectives = l->collectives;
    pb->stacks = l->stacks;
    const gcsim_model *model = pb->model = sweep_cache_model(cache, in->model_path, err);
    if (!model)
        return -1;
    /* The command's precision and optimizer apply to its one model (the cache's copy is
     * this command's alone). */
    gcsim_model *own = (gcsim_model *)model;
    if (in->precision >= 0)
        gcsim_model_set_precision(own, (gcsim_precision)in->precision);
    if (in->optimizer >= 0)
        own->optimizer = (gcsim_optimizer)in->optimizer;
    for (int p = 0; p < pb->n_platforms; p++)
        if (!(l->platforms[p] = sweep_cache_platform(
                  cache, in->platforms->n ? in->platforms->items[p] : NULL, err)))
            return -1;
    if (in->mfu > 0)
        for (int p = 0; p < pb->n_platforms; p++)
            if (gcsim_compute_override(own, l->platforms[p],
                                       in->batch ? in->batch : own->batch_per_gpu, in->mfu, 0,
                                       err))
                return -1;
    for (int c = 0; c < pb->n_compressors; c++)
        if (!(l->plans[c] = sweep_cache_payload(cache, model, in->compressors->items[c], err)))
            return -1;
    if (in->n_precisions < 2)
        return 0;
    /* each precision searched: a copy of the model at it (as --precision P sets the one
     * model, the optimizer and --mfu as above), and its payload plans (16-bit gradients
     * travel at 2 bytes) */
    int n = in->n_precisions;
    l->models = calloc((size_t)n, sizeof *l->models);
    l->precision_plans = calloc((size_t)n * pb->n_compressors, sizeof *l->precision_plans);
    if (!l->models || !l->precision_plans)
        return gcsim_fail_internal(err, "out of memory");
    for (int k = 0; k < n; k++) {
        /* the cache's copy at that precision and optimizer is this command's alone */
        gcsim_model *m = (gcsim_model *)sweep_cache_model_as(cache, in->model_path,
                                                             in->precisions[k], in->optimizer,
                                                             err);
        if (!m)
            return -1;
        if (in->mfu > 0)
            for (int p = 0; p < pb->n_platforms; p++)
                if (gcsim_compute_override(m, l->platforms[p], in->batch ? in->batch
                                                                          : m->batch_per_gpu,
                                           in->mfu, 0, err))
                    return -1;
        l->models[k] = m;
        for (int c = 0; c < pb->n_compressors; c++)
            if (!(l->precision_plans[k * pb->n_compressors + c] =
                      sweep_cache_payload(cache, m, in->compressors->items[c], err)))
                return -1;
    }
    pb->n_precisions = n;
    pb->precisions = in->precisions;
    pb->precision_models = l->models;
    pb->precision_plans = l->precision_plans;
    return 0;
}

int plan_inputs_load_stacks(plan_problem *pb, plan_loaded *l, sweep_cache *cache,
                            const plan_inputs *in, gcsim_error *err)
{
    /* Without --stack each platform runs its own choice, as gcsim predict does. */
    for (int p = 0; p < pb->n_platforms; p++)
        for (int t = 0; t < pb->n_stacks; t++) {
            const char *name = in->stacks->n ? in->stacks->items[t]
                                             : gcsim_stack_choice(NULL, l->platforms[p]);
            if (!(l->stacks[p * pb->n_stacks + t] = sweep_cache_stack(cache, name, err))) {
                gcsim_stack_blame_platform(in->stacks->n ? name : NULL, l->platforms[p], err);
                return -1;
            }
        }
    gcsim_collective defaults[COLLECTIVE_COUNT];
    plan_default_collectives(in->exchange, defaults, COLLECTIVE_COUNT);
    for (int k = 0; k < pb->n_collectives; k++) {
        if (!in->collectives->n)
            l->collectives[k] = defaults[k];
        else if (gcsim_collective_parse(in->collectives->items[k], &l->collectives[k]))
            return gcsim_fail(err, "--collectives: unknown collective \"%s\" (terngrad, ring, "
                                   "halving-doubling, tree, double-tree, hierarchical, nvls, ps, "
                                   "allgather, dgc-paper)", in->collectives->items[k]);
        gcsim_exchange_choice ch;
        if (gcsim_exchange_resolve(in->exchange, l->collectives[k], COLLECTIVE_FROM_CLI, "none",
                                   &ch, err))
            return -1;
    }
    return 0;
}

void plan_inputs_free(plan_loaded *l)
{
    free(l->platforms);
    free(l->plans);
    free(l->stacks);
    free(l->collectives);
    free(l->models);
    free(l->precision_plans);
    memset(l, 0, sizeof *l);
}
