/* sim/planning/plan_run.c: the search of `gcsim plan` (plan_run.h). */
#include "plan_run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exchange_best.h"
#include "memory.h"
#include "plan_keep.h"
#include "plan_search.h"
#include "roofline.h"
#include "sweep_case.h"

int plan_default_collectives(gcsim_exchange exchange, gcsim_collective *out, int max)
{
    static const gcsim_collective allreduces[] = {COLLECTIVE_RING, COLLECTIVE_HALVING_DOUBLING,
                                                  COLLECTIVE_TREE, COLLECTIVE_DOUBLE_TREE,
                                                  COLLECTIVE_HIERARCHICAL};
    static const gcsim_collective gather[] = {COLLECTIVE_ALLGATHER};
    static const gcsim_collective ps[] = {COLLECTIVE_PARAMETER_SERVER};
    const gcsim_collective *list = NULL;
    int n = 0;
    if (exchange == GCSIM_EXCHANGE_ALLREDUCE)
        list = allreduces, n = 5;
    else if (exchange == GCSIM_EXCHANGE_ALLGATHER)
        list = gather, n = 1;
    else if (exchange == GCSIM_EXCHANGE_PS)
        list = ps, n = 1;
    else
        n = COLLECTIVE_ALLGATHER; /* ring .. allgather follow terngrad in the enum */
    for (int k = 0; k < n && k < max; k++)
        out[k] = list ? list[k] : (gcsim_collective)(COLLECTIVE_TERNGRAD + 1 + k);
    return n;
}

long long plan_search_domain(const plan_problem *pb, const gcsim_platform *pf, int *buf,
                             plan_domain *d)
{
    memset(d, 0, sizeof *d);
    d->capacity = (long long)pf->nodes * pf->gpus_per_node;
    d->gpus_per_node = pf->gpus_per_node;
    d->whole_nodes = pb->whole_nodes;
    if (!pb->gpus)
        return plan_domain_size(d);
    /* a --gpus list: ascending and distinct (gpu_list_parse), filtered by whole_nodes */
    long long n = 0;
    for (int k = 0; k < pb->n_gpus; k++)
        if (!pb->whole_nodes || pb->gpus[k] <= pf->gpus_per_node ||
            pb->gpus[k] % pf->gpus_per_node == 0)
            buf[n++] = pb->gpus[k];
    d->list = buf;
    d->n_list = n;
    return n;
}

int plan_problem_n_variants(const plan_problem *pb)
{
    if (pb->n_variants > 0)
        return pb->n_variants;
    return pb->n_shardings > 0 ? pb->n_shardings : 1;
}

plan_variant plan_problem_variant(const plan_problem *pb, int i)
{
    if (pb->n_variants > 0)
        return pb->variants[i];
    plan_variant v = {.ckpt = {.on = pb->act_ckpt, .policy = pb->act_ckpt_policy}};
    if (pb->n_shardings > 0)
        v.sharding = pb->shardings[i];
    return v;
}

const gcsim_model *plan_variant_model(const plan_problem *pb, const plan_variant *v)
{
    return pb->n_precisions > 0 ? pb->precision_models[v->precision] : pb->model;
}

const gcsim_payload_plan *plan_variant_payload(const plan_problem *pb, const plan_variant *v,
                                               int compressor)
{
    return pb->n_precisions > 0 ? pb->precision_plans[v->precision * pb->n_compressors + compressor]
                                : pb->plans[compressor];
}

double plan_candidate_memory_bytes(const plan_problem *pb, const plan_candidate *c)
{
    plan_variant v = plan_problem_variant(pb, c->variant);
    gcsim_memory mem;
    gcsim_memory_estimate_sharded(plan_variant_model(pb, &v), pb->platforms[c->platform],
                                  &v.sharding, c->gpus,
                                  gcsim_samples_per_gpu(pb->scaling, c->r.batch, c->gpus),
                                  v.ckpt.on ? &v.ckpt.policy : NULL, 0.0, &mem);
    return mem.total_bytes;
}

int plan_groups_per_platform(const plan_problem *pb)
{
    return pb->n_compressors * pb->n_stacks * (pb->exchange_best ? 1 : pb->n_collectives) *
           plan_problem_n_variants(pb);
}

gcsim_collective plan_candidate_collective(const plan_problem *pb, const plan_candidate *c)
{
    return pb->exchange_best ? c->r.collective : pb->collectives[c->collective];
}

long long plan_candidate_count(const plan_problem *pb)
{
    int *buf = pb->gpus ? malloc(((size_t)pb->n_gpus + 1) * sizeof *buf) : NULL;
    if (pb->gpus && !buf)
        return 0;
    long long planned = 0;
    for (int p = 0; p < pb->n_platforms; p++) {
        plan_domain d;
        long long n = plan_search_domain(pb, pb->platforms[p], buf, &d);
        if (pb->search == PLAN_SEARCH_BOUNDED)
            n = plan_grid_size(&d);
        if (n <= 0)
            continue;
        if (!pb->exchange_best) {
            /* a sharded variant runs its own exchange: one group, not one per collective */
            long long groups = 0;
            for (int v = 0; v < plan_problem_n_variants(pb); v++)
                groups += plan_problem_variant(pb, v).sharding.strategy == GCSIM_SHARD_DDP
                              ? pb->n_collectives
                              : 1;
            planned += n * pb->n_compressors * pb->n_stacks * groups;
            continue;
        }
        planned += n * pb->n_compressors * pb->n_stacks * EXCHANGE_BEST_TRIES;
    }
    free(buf);
    return planned;
}

/* Why nothing is feasible, in one sentence. */
static void explain(const plan_problem *pb, const plan_extremes *x, const char *first_error,
                    char *out, size_t size)
{
    const plan_candidate *fastest = x->has_fastest ? &x->fastest : NULL;
    const plan_candidate *cheapest_fast = x->has_cheapest_fast ? &x->cheapest_fast : NULL;
    if (!fastest) {
        snprintf(out, size, "no configuration could be evaluated: %s",
                 first_error ? first_error : "no GPU counts to search");
    } else if (pb->target.need_samples_per_s > 0 && fastest->tput < pb->target.need_samples_per_s) {
        snprintf(out, size,
                 "the fastest configuration (%s, %d GPUs, %s, stack %s, %s) reaches %.6g "
                 "samples/s; the target needs %.6g",
                 pb->platforms[fastest->platform]->name, fastest->gpus,
                 pb->plans[fastest->compressor]->spec, fastest->r.stack->name,
                 gcsim_collective_name(plan_candidate_collective(pb, fastest)), fastest->tput,
                 pb->target.need_samples_per_s);
    } else if (cheapest_fast && isfinite(plan_cost_key(cheapest_fast))) {
        snprintf(out, size,
                 "the cheapest configuration fast enough (%s, %d GPUs, %s, stack %s, %s) costs "
                 "$%.2f, over the budget of $%.2f",
                 pb->platforms[cheapest_fast->platform]->name, cheapest_fast->gpus,
                 pb->plans[cheapest_fast->compressor]->spec, cheapest_fast->r.stack->name,
                 gcsim_collective_name(plan_candidate_collective(pb, cheapest_fast)),
                 plan_cost_key(cheapest_fast), pb->target.budget_usd);
    } else {
        snprintf(out, size, "no platform has a price ($.price.usd_per_gpu_hour), so none can be "
                            "held to the budget");
    }
}

/* Runs one candidate: its group's collective, or with exchange_best every exchange, the
 * fastest kept. Returns sweep_case_run's (or exchange_best_run's) status. */
static int run_candidate(const plan_problem *pb, const sweep_case *cs, plan_candidate *cand,
                         gcsim_error *err)
{
    if (!pb->exchange_best)
        return sweep_case_run(cs, &cand->r, err);
    exchange_best_result best;
    if (exchange_best_run(cs, &best, err))
        return -1;
    cand->r = best.tried[best.best].r;
    cand->exchange_searched = true;
    cand->own_exchange = best.has_own ? best.tried[0].r.exchange : GCSIM_EXCHANGE_AUTO;
    cand->own_samples_per_s = best.own_samples_per_s;
    return 0;
}

/* What evaluating one count of a group needs (plan_eval_fn's context). */
typedef struct {
    const plan_problem *pb;
    sweep_case cs;
    plan_candidate proto; /* the group's indices, price and one-GPU throughput */
    int compressor;
    plan_result *out;
    /* A count gcsim could not cost (a limit of the machine, or gcsim itself failed): the
     * plan stops with it rather than skipping that count as it skips one the input rules
     * out, which would make its answer depend on the machine (issue 45). */
    gcsim_error *fatal;
    bool *failed;
    bool fsdp_searched; /* the problem has a plain fsdp variant */
} group_eval;

/* Counts a skipped candidate under its reason (plan_result), keeping the first of each. */
static void count_skip(plan_result *out, long long *n, char *first, const char *why)
{
    (*n)++;
    if (!first[0])
        snprintf(first, sizeof out->first_error, "%.500s", why);
    if (!out->first_error[0])
        snprintf(out->first_error, sizeof out->first_error, "%.500s", why);
}

/* Why a case the engine refused was refused: with precisions searched, no compute at the
 * case's precision; the worker's memory, the sharding, or else. */
static void classify_skip(const plan_problem *pb, const sweep_case *cs, plan_result *out,
                          const char *why)
{
    gcsim_error e;
    gcsim_profile roofline;
    if (pb->n_precisions > 0 &&
        !gcsim_compute_profile(cs->model, cs->platform, sweep_case_batch(cs), &roofline, &e))
        count_skip(out, &out->skipped_precision, out->first_precision, why);
    else if (gcsim_memory_check_sharded(cs->model, cs->platform, &cs->sharding, cs->gpus,
                                   gcsim_samples_per_gpu(cs->scaling, sweep_case_batch(cs),
                                                         cs->gpus),
                                   cs->act_ckpt ? &cs->act_ckpt_policy : NULL, cs->bucket_bytes,
                                   &e))
        count_skip(out, &out->skipped_memory, out->first_memory, why);
    else if (cs->sharding.strategy != GCSIM_SHARD_DDP &&
             gcsim_sharding_check(&cs->sharding, cs->platform, cs->payload, cs->gpus, &e))
        count_skip(out, &out->skipped_sharding, out->first_sharding, why);
    else
        count_skip(out, &out->skipped_other, out->first_other, why);
}

static int eval_count(void *ctx, int gpus, plan_candidate *cand)
{
    group_eval *ge = ctx;
    const plan_problem *pb = ge->pb;
    gcsim_error err;
    *cand = ge->proto;
    cand->gpus = ge->cs.gpus = gpus;
    if (*ge->failed)
        return -1; /* the plan stops: nothing more to cost */
    if (pb->global_batch > 0) {
        char why[300];
        int mb = sweep_case_batch(&ge->cs);
        int k = plan_grad_accum_for(pb->global_batch, gpus, mb, why, sizeof why);
        if (!k) {
            count_skip(ge->out, &ge->out->skipped_batch, ge->out->first_batch, why);
            return -1;
        }
        ge->cs.grad_accum = k;
    }
    if (ge->cs.sharding.strategy == GCSIM_SHARD_HSDP && ge->cs.sharding.group >= gpus &&
        ge->fsdp_searched) {
        /* one group of every GPU is fsdp, which the plan searches as such: not twice */
        char why[200];
        snprintf(why, sizeof why, "hsdp:%d on %d GPUs is one group of all of them, which is "
                 "fsdp (searched as such)", ge->cs.sharding.group, gpus);
        count_skip(ge->out, &ge->out->skipped_sharding, ge->out->first_sharding, why);
        return -1;
    }
    cand->micro_batch = sweep_case_batch(&ge->cs);
    cand->grad_accum = ge->cs.grad_accum > 1 ? ge->cs.grad_accum : 1;
    if (run_candidate(pb, &ge->cs, cand, &err)) {
        if (!gcsim_error_skippable(&err)) {
            *ge->fatal = err;
            *ge->failed = true;
            return -1;
        }
        classify_skip(pb, &ge->cs, ge->out, err.message);
        return -1;
    }
    if (pb->conv) {
        conv_factor f = conv_factor_at(&pb->conv[ge->compressor], gpus);
        cand->conv_factor = isfinite(f.factor) ? f.factor : 1.0;
        cand->conv_tier = conv_rank_tier(&f);
    }
    if (pb->goodput && pb->goodput->on) {
        goodput_result g;
        if (goodput_evaluate(pb->goodput, ge->cs.model, gpus, pb->platforms[cand->platform]->gpus_per_node,
                             cand->r.p.throughput_samples_per_s, &g, &err)) {
            *ge->fatal = err;
            *ge->failed = true;
            return -1;
        }
        cand->useful_fraction = g.useful_fraction;
    }
    plan_evaluate(&pb->target, cand);
    return 0;
}

/* Whether group (c, t, k) on platform p is searched: with default collectives the plan
 * recommends only what the stack can run (plan_run.h); a named exchange or collective the
 * stack does not implement runs as asked, counted as a what-if. */
static bool group_searched(const plan_problem *pb, int p, int c, int t, int k, int sh,
                           plan_result *out)
{
    if (pb->exchange_best || plan_problem_variant(pb, sh).sharding.strategy != GCSIM_SHARD_DDP)
        return true; /* best skips by itself; a sharded strategy runs its own exchange */
    gcsim_collective col = pb->collectives[k];
    /* what gcsim_exchange_resolve makes of the group's exchange and collective */
    gcsim_exchange e = pb->exchange != GCSIM_EXCHANGE_AUTO ? pb->exchange
                                                           : gcsim_collective_exchange(col);
    char why[sizeof out->first_unimplemented];
    if (!gcsim_stack_unimplemented(pb->stacks[p * pb->n_stacks + t], pb->plans[c]->spec, e,
                                   why, sizeof why))
        return true;
    bool named = !pb->collectives_default || pb->exchange != GCSIM_EXCHANGE_AUTO;
    int *n = named ? &out->n_whatif : &out->n_unimplemented;
    char *first = named ? out->first_whatif : out->first_unimplemented;
    if (!(*n)++)
        snprintf(first, sizeof out->first_unimplemented, "%.300s (collective %s)", why,
                 gcsim_collective_name(col));
    return named;
}

/* Searches one (platform, compressor, stack, collective) group's counts (plan_search.h),
 * offering each that ran to the group and the extremes. */
static int run_group(const plan_problem *pb, int p, int c, int t, int k, int sh,
                     const plan_domain *domain, plan_group *grp, plan_extremes *extremes,
                     plan_result *out, gcsim_error *fatal, bool *failed)
{
    const gcsim_platform *pf = pb->platforms[p];
    /* With exchange_best no collective is named: each exchange takes the schedule the
     * platform and the stack give it, as `gcsim predict --exchange X` does. */
    group_eval ge = {.pb = pb, .compressor = c, .out = out, .fatal = fatal, .failed = failed};
    plan_variant v = plan_problem_variant(pb, sh);
    case_options run;
    if (pb->run) {
        run = *pb->run;
    } else {
        case_options_init(&run);
        run.scaling = pb->scaling, run.engine = pb->engine, run.batch = pb->batch;
        run.exchange = pb->exchange, run.grad_accum = pb->grad_accum;
        if (pb->variability)
            run.variability = *pb->variability;
    }
    /* the group's collective (or, with exchange_best, none named: each exchange takes the
     * schedule the platform and the stack give it, as `gcsim predict --exchange X` does) and
     * the variant's training choices */
    run.collective = pb->exchange_best ? COLLECTIVE_RING : pb->collectives[k];
    run.collective_given = !pb->exchange_best;
    run.sharding = v.sharding;
    run.act_ckpt = v.ckpt.on;
    run.act_ckpt_policy = v.ckpt.policy;
    if (v.micro_batch > 0)
        run.batch = v.micro_batch;
    ge.cs = case_options_case(&run, pf, plan_variant_model(pb, &v),
                              plan_variant_payload(pb, &v, c), pb->stacks[p * pb->n_stacks + t], 1);
    ge.cs.variability = pb->variability; /* the problem's record outlives this copy */
    for (int k = 0; k < plan_problem_n_variants(pb) && !ge.fsdp_searched; k++) {
        gcsim_sharding o = plan_problem_variant(pb, k).sharding;
        ge.fsdp_searched = o.strategy == GCSIM_SHARD_ZERO3 && o.fsdp && !o.qwz && !o.hpz && !o.qgz;
    }
    /* One GPU exchanges nothing, so its throughput is the same under every exchange. */
    sweep_result one;
    gcsim_error err;
    double tput1 = sweep_case_run(&ge.cs, &one, &err) ? 0.0 : one.p.throughput_samples_per_s;
    memset(&ge.proto, 0, sizeof ge.proto);
    ge.proto.platform = p;
    ge.proto.compressor = c;
    ge.proto.stack = t;
    ge.proto.collective = k;
    ge.proto.variant = sh;
    ge.proto.one_gpu_samples_per_s = tput1;
    ge.proto.price_per_gpu_hour_usd = pf->has_price ? pf->price_per_gpu_hour_usd : NAN;
    return plan_search_group(domain, pb->search, &pb->target, pb->rank_by_time, eval_count, &ge,
                             grp, extremes, &out->evaluated, &out->skipped);
}

/* Refuses, before any work, a search that would cost a tree or double-tree schedule on
 * more than PLAN_TREE_GPUS_MAX GPUs (plan_run.h). */
static int tree_limit_check(const plan_problem *pb, int *counts, gcsim_error *err)
{
    const char *which = NULL;
    if (pb->exchange_best)
        which = "--exchange best lets each stack's tuner try the double tree, whose";
    for (int k = 0; !which && k < pb->n_collectives; k++)
        if (pb->collectives[k] == COLLECTIVE_TREE || pb->collectives[k] == COLLECTIVE_DOUBLE_TREE)
            which = "the tree and double-tree collectives, whose";
    if (!which)
        return 0;
    for (int p = 0; p < pb->n_platforms; p++) {
        plan_domain d;
        long long n = plan_search_domain(pb, pb->platforms[p], counts, &d);
        int largest = n > 0 ? plan_domain_count(&d, n - 1) : 0;
        if (largest > PLAN_TREE_GPUS_MAX)
            return gcsim_fail(err, "%s: plan would cost %s schedules are costed from every GPU "
                                   "pair's flows (O(N) time and memory per count: about 3 CPU-s "
                                   "and 2 GiB at 2^20 GPUs), on up to %d GPUs; plan costs them "
                                   "on up to %d GPUs (the search costs dozens of counts per "
                                   "configuration): give --gpus up to %d, or --collectives "
                                   "without tree and double-tree (the others are costed at any "
                                   "size); predict costs chosen counts at any size",
                              pb->platforms[p]->source_path, which, largest, PLAN_TREE_GPUS_MAX,
                              PLAN_TREE_GPUS_MAX);
    }
    return 0;
}

int plan_run(const plan_problem *pb, plan_result *out, gcsim_error *err)
{
    memset(out, 0, sizeof *out);
    int n_collectives = pb->exchange_best ? 1 : pb->n_collectives;
    int n_shardings = plan_problem_n_variants(pb);
    out->n_groups = pb->n_platforms * plan_groups_per_platform(pb);
    int *counts = malloc(((size_t)(pb->gpus ? pb->n_gpus : 0) + 1) * sizeof *counts);
    plan_group *groups = calloc((size_t)out->n_groups + 1, sizeof *groups);
    out->rows = calloc((size_t)out->n_groups + 1, sizeof *out->rows);
    plan_extremes extremes;
    memset(&extremes, 0, sizeof extremes);
    int rc = -1;
    if (!counts || !groups || !out->rows) {
        gcsim_fail_internal(err, "out of memory");
        goto done;
    }
    if (tree_limit_check(pb, counts, err))
        goto done;
    for (int p = 0; p < pb->n_platforms; p++) {
        plan_domain domain;
        plan_search_domain(pb, pb->platforms[p], counts, &domain);
        for (int c = 0; c < pb->n_compressors; c++)
            for (int t = 0; t < pb->n_stacks; t++)
                for (int k = 0; k < n_collectives; k++)
                    for (int sh = 0; sh < n_shardings; sh++) {
                        /* a sharded strategy's exchange does not depend on the collective */
                        if (k > 0 &&
                            plan_problem_variant(pb, sh).sharding.strategy != GCSIM_SHARD_DDP)
                            continue;
                        int g = (((p * pb->n_compressors + c) * pb->n_stacks + t) * n_collectives +
                                 k) * n_shardings + sh;
                        bool failed = false;
                        out->n_combinations++;
                        if (!group_searched(pb, p, c, t, k, sh, out))
                            continue;
                        if (run_group(pb, p, c, t, k, sh, &domain, &groups[g], &extremes,
                                      out, err, &failed)) {
                            gcsim_fail_internal(err, "out of memory");
                            goto done;
                        }
                        if (failed)
                            goto done; /* err says why */
                        if (groups[g].has_best)
                            out->rows[out->n_rows++] = groups[g].best;
                    }
    }
    out->feasible = out->n_rows > 0;
    if (out->feasible) {
        plan_sort(out->rows, out->n_rows, pb->rank_by_time, false);
    } else {
        /* The closest configuration of each platform, compressor, stack and collective. */
        explain(pb, &extremes, out->first_error[0] ? out->first_error : NULL, out->why,
                sizeof out->why);
        for (int g = 0; g < out->n_groups; g++)
            if (groups[g].has_closest)
                out->rows[out->n_rows++] = groups[g].closest;
        plan_sort(out->rows, out->n_rows, pb->rank_by_time, true);
    }
    rc = 0;
done:
    free(groups);
    free(counts);
    return rc;
}

void plan_result_free(plan_result *r)
{
    free(r->rows);
    r->rows = NULL;
    r->n_rows = 0;
}
