/*
 * The exchange search (sim/planning/exchange_best.h) and `plan --exchange best`'s use of it
 * (plan_run.h), called directly:
 *   - QSGD under the fused stack (which implements every exchange) on 256 V100s over 25 GbE:
 *     its own all-gather has every GPU receive and decode 255 payloads per bucket, so the
 *     throughput stops growing with the GPUs; a parameter server moves one payload each way
 *     per worker. The search must try the four exchanges, give for each exactly what
 *     sweep_case_run gives with case.exchange set (what `gcsim predict --exchange X`
 *     prints), keep the largest, and warn: the stack's own is more than 1.5x slower here;
 *   - the same QSGD under pytorch-ddp, which can only all-gather it (issue 43): allreduce
 *     and ps are not run, the stack's own wins, no warning;
 *   - every catalog stack x every compressor of the library, at 16 and 256 GPUs: the
 *     exchange best returns is one the stack implements for that payload
 *     (gcsim_stack_implements), and every exchange not tried is one it does not;
 *   - PowerSGD under pytorch-ddp: all-gather and ps are not in the stack (skipped, with
 *     the reason), the stack's own and allreduce run;
 *   - fp16: the stack's own (allreduce) is as fast as the best, so it wins the tie: gain 1,
 *     no warning;
 *   - more GPUs than the platform holds: no exchange runs, the stack's own reason is given;
 *   - plan_run with exchange_best: the fastest row is the search's best at that count, with
 *     the stack's own exchange and throughput beside it.
 * Usage: test_exchange_best SOURCE_DIR
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "compressor.h"
#include "planning.h"

static const gcsim_platform *platform;
static const gcsim_model *model;
static const gcsim_stack *ddp, *fused;

static sweep_case case_under(const gcsim_stack *st, const gcsim_payload_plan *pl, int gpus)
{
    sweep_case c = {.platform = platform, .model = model, .payload = pl, .stack = st,
                    .scaling = SCALING_WEAK, .engine = ENGINE_ANALYTIC, .gpus = gpus,
                    .overlap = true};
    return c;
}

static sweep_case case_of(const gcsim_payload_plan *pl, int gpus)
{
    sweep_case c = {.platform = platform, .model = model, .payload = pl, .stack = ddp,
                    .scaling = SCALING_WEAK, .engine = ENGINE_ANALYTIC, .gpus = gpus,
                    .overlap = true};
    return c;
}

static void test_parse(void)
{
    gcsim_exchange x = GCSIM_EXCHANGE_PS;
    bool best = false;
    CHECK(exchange_option_parse("best", &x, &best) == 0 && best && x == GCSIM_EXCHANGE_AUTO);
    CHECK(exchange_option_parse("ps", &x, &best) == 0 && !best && x == GCSIM_EXCHANGE_PS);
    CHECK(exchange_option_parse("auto", &x, &best) == 0 && !best && x == GCSIM_EXCHANGE_AUTO);
    CHECK(exchange_option_parse("fastest", &x, &best) == -1);
}

/* Every exchange that ran gives sweep_case_run's number with that exchange; the best is the
 * largest of them; returns the index of the best. */
static int check_tries(const sweep_case *c, const exchange_best_result *res)
{
    const gcsim_exchange order[] = {GCSIM_EXCHANGE_AUTO, GCSIM_EXCHANGE_ALLREDUCE,
                                    GCSIM_EXCHANGE_ALLGATHER, GCSIM_EXCHANGE_PS};
    CHECK(res->n_tried == EXCHANGE_BEST_TRIES && EXCHANGE_BEST_TRIES == 4);
    double max = 0.0;
    for (int k = 0; k < res->n_tried; k++) {
        const exchange_try *t = &res->tried[k];
        CHECK(t->asked == order[k]);
        if (t->unimplemented) {
            /* not run: the stack has no implementation of it for this payload */
            CHECK(k > 0 && t->rc == -1);
            CHECK(!gcsim_stack_implements(c->stack, c->payload->spec, order[k]));
            CHECK_STR_CONTAINS(t->why_not, "does not implement");
            continue;
        }
        CHECK(gcsim_stack_implements(c->stack, c->payload->spec, order[k]));
        sweep_case one = *c;
        one.exchange = order[k];
        sweep_result r;
        gcsim_error err;
        int rc = sweep_case_run(&one, &r, &err);
        CHECK(rc == t->rc);
        if (rc) {
            CHECK_STR_CONTAINS(t->why_not, err.message);
            continue;
        }
        CHECK(r.p.throughput_samples_per_s == t->r.p.throughput_samples_per_s);
        CHECK(r.exchange == t->r.exchange && r.collective == t->r.collective);
        max = fmax(max, r.p.throughput_samples_per_s);
    }
    CHECK(res->best >= 0 && res->best < res->n_tried);
    CHECK(res->best_samples_per_s == max);
    CHECK(res->tried[res->best].r.p.throughput_samples_per_s == max);
    CHECK(res->has_own == (res->tried[0].rc == 0));
    if (res->has_own)
        CHECK(res->own_samples_per_s == res->tried[0].r.p.throughput_samples_per_s);
    return res->best;
}

static void test_qsgd_many_gpus(const gcsim_payload_plan *qsgd)
{
    sweep_case c = case_under(fused, qsgd, 256);
    exchange_best_result res;
    gcsim_error err;
    CHECK(exchange_best_run(&c, &res, &err) == 0);
    int best = check_tries(&c, &res);
    /* the stack's own is its all-gather */
    CHECK(res.has_own && res.tried[0].r.exchange == GCSIM_EXCHANGE_ALLGATHER);
    /* and it is the slowest: every other exchange runs, and faster */
    for (int k = 1; k < res.n_tried; k++)
        CHECK(res.tried[k].rc == 0 &&
              res.tried[k].r.p.throughput_samples_per_s >= res.own_samples_per_s);
    CHECK(best != 0 && res.tried[best].r.exchange != GCSIM_EXCHANGE_ALLGATHER);
    CHECK(exchange_best_gain(&res) == res.best_samples_per_s / res.own_samples_per_s);
    CHECK(exchange_best_gain(&res) > EXCHANGE_BEST_WARN_RATIO && exchange_best_warns(&res));
    printf("qsgd, 256 GPUs: own %s %.0f samples/s, best %s %.0f (%.2fx)\n",
           gcsim_exchange_name(res.tried[0].r.exchange), res.own_samples_per_s,
           gcsim_exchange_name(res.tried[best].r.exchange), res.best_samples_per_s,
           exchange_best_gain(&res));
    /* c's own exchange field is not a choice of the search: the comparison is with auto */
    c.exchange = GCSIM_EXCHANGE_PS;
    exchange_best_result again;
    CHECK(exchange_best_run(&c, &again, &err) == 0 && again.own_samples_per_s == res.own_samples_per_s);
}

/* pytorch-ddp can only all-gather QSGD (its quantization hooks do, quantization_hooks.py):
 * the parameter server and the re-encoding all-reduce that win under fused are not run. */
static void test_qsgd_ddp(const gcsim_payload_plan *qsgd)
{
    sweep_case c = case_of(qsgd, 256);
    exchange_best_result res;
    gcsim_error err;
    CHECK(exchange_best_run(&c, &res, &err) == 0);
    int best = check_tries(&c, &res);
    CHECK(res.tried[1].unimplemented && res.tried[3].unimplemented);
    CHECK(!res.tried[2].unimplemented && res.tried[2].rc == 0);
    CHECK_STR_CONTAINS(res.tried[3].why_not, "stack pytorch-ddp does not implement ps for "
                                             "quantized payloads");
    CHECK(res.tried[best].r.exchange == GCSIM_EXCHANGE_ALLGATHER);
    CHECK(exchange_best_gain(&res) == 1.0 && !exchange_best_warns(&res));
}

/* Every catalog stack x every compressor: best returns only what the stack implements. */
static void test_every_stack_and_compressor(sweep_cache *cache)
{
    const char *const *names = gc_compressor_names();
    int checked = 0, refused = 0;
    for (const char *const *st = gcsim_stack_catalog(); *st; st++) {
        gcsim_error err;
        const gcsim_stack *stack = sweep_cache_stack(cache, *st, &err);
        CHECK(stack != NULL);
        if (!stack)
            continue;
        for (int n = -2; n < 0 || names[n]; n++) {
            const char *spec = n == -2 ? "none" : n == -1 ? "ef+qsgd" : names[n];
            /* threshold's payload needs real gradients (no model payload); its kind is
             * top-k's, checked by tests/stack */
            if (strcmp(spec, "threshold") == 0)
                continue;
            const gcsim_payload_plan *pl = sweep_cache_payload(cache, model, spec, &err);
            if (!pl) {
                fprintf(stderr, "%s: %s\n", spec, err.message);
                CHECK(pl != NULL);
                continue;
            }
            const int counts[] = {16, 256};
            for (int g = 0; g < 2; g++) {
                sweep_case c = case_under(stack, pl, counts[g]);
                exchange_best_result res;
                if (exchange_best_run(&c, &res, &err)) {
                    refused++; /* the stack refuses the compressor (orq under horovod, ...) */
                    CHECK(!err.internal && !res.has_own);
                    continue;
                }
                const exchange_try *w = &res.tried[res.best];
                CHECK(gcsim_stack_implements(stack, spec, w->r.exchange));
                CHECK(gcsim_stack_implements(stack, spec, w->asked));
                for (int k = 1; k < res.n_tried; k++)
                    CHECK(res.tried[k].unimplemented ==
                          !gcsim_stack_implements(stack, spec, res.tried[k].asked));
                checked++;
            }
        }
    }
    printf("every stack x compressor: %d searches checked, %d refused by the stack\n",
           checked, refused);
    CHECK(checked >= 60);
}

static void test_powersgd_refusals(const gcsim_payload_plan *powersgd)
{
    sweep_case c = case_of(powersgd, 16);
    exchange_best_result res;
    gcsim_error err;
    CHECK(exchange_best_run(&c, &res, &err) == 0);
    check_tries(&c, &res);
    CHECK(res.tried[0].rc == 0 && res.tried[1].rc == 0);
    CHECK(res.tried[2].rc == -1 && res.tried[3].rc == -1);
    CHECK_STR_CONTAINS(res.tried[2].why_not, "does not implement allgather for low-rank");
    CHECK_STR_CONTAINS(res.tried[3].why_not, "does not implement ps for low-rank");
    CHECK(res.best == 0 || res.best == 1);
}

static void test_fp16_tie(const gcsim_payload_plan *fp16)
{
    sweep_case c = case_of(fp16, 64);
    exchange_best_result res;
    gcsim_error err;
    CHECK(exchange_best_run(&c, &res, &err) == 0);
    check_tries(&c, &res);
    /* the stack's own is allreduce, the same run as --exchange allreduce: a tie it wins */
    CHECK(res.tried[0].r.exchange == GCSIM_EXCHANGE_ALLREDUCE);
    CHECK(res.tried[1].r.p.throughput_samples_per_s == res.own_samples_per_s);
    CHECK(res.best == 0 && exchange_best_gain(&res) == 1.0 && !exchange_best_warns(&res));
}

static void test_too_many_gpus(const gcsim_payload_plan *qsgd)
{
    long long capacity = (long long)platform->nodes * platform->gpus_per_node;
    sweep_case c = case_of(qsgd, (int)capacity + 8);
    exchange_best_result res;
    gcsim_error err = {.internal = 0};
    CHECK(exchange_best_run(&c, &res, &err) == -1 && !err.internal);
    CHECK(err.message[0] != '\0');
    CHECK(res.best == -1 && !res.has_own);
    CHECK(strcmp(err.message, res.tried[0].why_not) == 0);
}

/* plan --exchange best: rank by time with a target every count meets; the first row is the
 * 256-GPU search's best, and carries the stack's own for the comparison. */
static void test_plan(const gcsim_payload_plan *qsgd)
{
    const gcsim_platform *platforms[] = {platform};
    const gcsim_payload_plan *plans[] = {qsgd};
    const gcsim_stack *stacks[] = {fused};
    const gcsim_collective unused[] = {COLLECTIVE_RING};
    const int counts[] = {64, 256};
    plan_problem pb = {.model = model, .n_platforms = 1, .n_compressors = 1, .n_stacks = 1,
                       .n_collectives = 1, .platforms = platforms, .plans = plans,
                       .stacks = stacks, .collectives = unused,
                       .target = {.need_samples_per_s = 1.0}, .rank_by_time = true,
                       .scaling = SCALING_WEAK, .engine = ENGINE_ANALYTIC,
                       .exchange_best = true, .gpus = counts, .n_gpus = 2};
    plan_result res;
    gcsim_error err;
    CHECK(plan_run(&pb, &res, &err) == 0);
    CHECK(res.feasible && res.n_groups == 1 && res.n_rows == 1 && res.evaluated == 2);
    sweep_case c = case_under(fused, qsgd, 256);
    exchange_best_result best;
    CHECK(exchange_best_run(&c, &best, &err) == 0);
    if (res.n_rows == 1 && best.best >= 0) {
        const plan_candidate *row = &res.rows[0];
        CHECK(row->gpus == 256 && row->tput == best.best_samples_per_s);
        CHECK(row->r.exchange == best.tried[best.best].r.exchange);
        CHECK(plan_candidate_collective(&pb, row) == best.tried[best.best].r.collective);
        CHECK(row->exchange_searched && row->own_exchange == GCSIM_EXCHANGE_ALLGATHER);
        CHECK(row->own_samples_per_s == best.own_samples_per_s);
        CHECK(row->r.stack == fused);
    }
    plan_result_free(&res);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_exchange_best SOURCE_DIR\n");
        return 2;
    }
    test_parse();
    char path[4096];
    gcsim_error err;
    sweep_cache *cache = sweep_cache_new(NULL);
    snprintf(path, sizeof path, "%s/platforms/cloud-v100-25gbe.json", argv[1]);
    platform = cache ? sweep_cache_platform(cache, path, &err) : NULL;
    snprintf(path, sizeof path, "%s/models/resnet-50.json", argv[1]);
    model = platform ? sweep_cache_model(cache, path, &err) : NULL;
    ddp = model ? sweep_cache_stack(cache, "pytorch-ddp", &err) : NULL;
    fused = ddp ? sweep_cache_stack(cache, "fused", &err) : NULL;
    const gcsim_payload_plan *qsgd = fused ? sweep_cache_payload(cache, model, "qsgd", &err) : NULL;
    const gcsim_payload_plan *psgd = qsgd ? sweep_cache_payload(cache, model, "powersgd", &err) : NULL;
    const gcsim_payload_plan *fp16 = psgd ? sweep_cache_payload(cache, model, "fp16", &err) : NULL;
    CHECK(fp16 != NULL);
    if (!fp16) {
        fprintf(stderr, "%s\n", err.message);
    } else {
        test_qsgd_many_gpus(qsgd);
        test_qsgd_ddp(qsgd);
        test_every_stack_and_compressor(cache);
        test_powersgd_refusals(psgd);
        test_fp16_tie(fp16);
        test_too_many_gpus(qsgd);
        test_plan(qsgd);
    }
    sweep_cache_free(cache);
    CHECK_DONE();
}
