/*
 * The bounded search of gcsim plan (sim/planning/plan_search.h) against the exhaustive
 * one, on real throughput curves: every catalog platform x 3 models x 2 compressors x the 7
 * default collectives (weak scaling; strong scaling on some), each curve computed once at
 * every count of the domain (whole nodes; every count on two platforms), then both searches
 * run over it for many targets: throughput targets from one GPU's throughput to beyond the
 * fastest count, ranked by cost and by time; a work with a deadline and budgets at the cost
 * of chosen counts (the budget boundary), ranked both ways. For each, the group's best
 * feasible count must be the same; in a group with nothing feasible, the closest count, the
 * fastest and the cheapest fast enough (what a plan with nothing feasible prints) must be
 * too. docs/planning.md states the result: the same answer in every case here. The bounded
 * search's evaluations per group are checked against a logarithmic bound.
 * Usage: test_plan_bounded SOURCE_DIR
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "planning.h"

#define MAX_COUNTS 1024
/* docs/planning.md: with a throughput or deadline target, a bounded answer that differs
 * costs (or by time, runs) at most this much worse than the exhaustive one. */
#define PLAN_TARGET_TOLERANCE 0.02

/* One group's throughput at every count of its domain. */
typedef struct {
    plan_domain d;
    int n;
    bool ran[MAX_COUNTS];
    sweep_result r[MAX_COUNTS];
    double tput1, price;
} curve;

typedef struct {
    const curve *cv;
    const plan_target *t;
    long long calls;
} lookup;

static int eval_cached(void *ctx, int gpus, plan_candidate *c)
{
    lookup *lk = ctx;
    const curve *cv = lk->cv;
    lk->calls++;
    int lo = 0, hi = cv->n;
    while (lo < hi) { /* the domain is ascending */
        int mid = (lo + hi) / 2;
        if (plan_domain_count(&cv->d, mid) < gpus)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo >= cv->n || plan_domain_count(&cv->d, lo) != gpus || !cv->ran[lo])
        return -1;
    memset(c, 0, sizeof *c);
    c->gpus = gpus;
    c->r = cv->r[lo];
    c->one_gpu_samples_per_s = cv->tput1;
    c->price_per_gpu_hour_usd = cv->price;
    plan_evaluate(lk->t, c);
    return 0;
}

/* Per class of target (0: throughput or deadline, 1: a budget at a count's cost): searches,
 * those whose answer differs, those where only one search found a feasible count, and the
 * worst relative loss of the bounded answer's objective (cost, or throughput by time;
 * shortfall when nothing is feasible) on priced platforms. */
static long long cases[2], differ[2], feasibility_differs[2], max_evals, sum_evals, searches;
static double worst_rel[2];

static double rel_loss(bool by_time, const plan_group *ge, const plan_group *gb)
{
    if (ge->has_best && gb->has_best)
        return by_time ? (ge->best.tput_to_accuracy - gb->best.tput_to_accuracy) /
                             ge->best.tput_to_accuracy
                       : (plan_cost_key(&gb->best) - plan_cost_key(&ge->best)) /
                             plan_cost_key(&ge->best);
    if (!ge->has_best && !gb->has_best && ge->has_closest && gb->has_closest)
        return (gb->closest.shortfall - ge->closest.shortfall) / ge->closest.shortfall;
    return NAN;
}

/* Both searches on one curve and target (cls: its class, above). */
static void compare(const curve *cv, const plan_target *t, bool by_time, const char *what, int cls)
{
    plan_group ge = {0}, gb = {0};
    plan_extremes xe = {0}, xb = {0};
    long long ev = 0, sk = 0, evb = 0, skb = 0;
    lookup le = {cv, t, 0}, lb = {cv, t, 0};
    CHECK(plan_search_group(&cv->d, PLAN_SEARCH_EXHAUSTIVE, t, by_time, eval_cached, &le, &ge,
                            &xe, &ev, &sk) == 0);
    CHECK(plan_search_group(&cv->d, PLAN_SEARCH_BOUNDED, t, by_time, eval_cached, &lb, &gb, &xb,
                            &evb, &skb) == 0);
    CHECK(le.calls == cv->n);
    if (lb.calls > max_evals)
        max_evals = lb.calls;
    sum_evals += lb.calls;
    searches++;
    cases[cls]++;
    bool same = ge.has_best == gb.has_best && (!ge.has_best || ge.best.gpus == gb.best.gpus);
    if (same && !ge.has_best)
        same = ge.has_closest == gb.has_closest &&
               (!ge.has_closest || ge.closest.gpus == gb.closest.gpus) &&
               xe.has_fastest == xb.has_fastest &&
               (!xe.has_fastest || xe.fastest.gpus == xb.fastest.gpus) &&
               xe.has_cheapest_fast == xb.has_cheapest_fast &&
               (!xe.has_cheapest_fast || xe.cheapest_fast.gpus == xb.cheapest_fast.gpus);
    if (!same) {
        differ[cls]++;
        feasibility_differs[cls] += ge.has_best != gb.has_best;
        double rel = rel_loss(by_time, &ge, &gb);
        if (isfinite(cv->price) && isfinite(rel) && rel > worst_rel[cls])
            worst_rel[cls] = rel;
        fprintf(stderr, "differ: %s%s: exhaustive %d (closest %d, fastest %d), bounded %d (closest %d, "
                        "fastest %d), objective %.3g%% worse\n",
                what, by_time ? ", by time" : "", ge.has_best ? ge.best.gpus : 0, ge.closest.gpus,
                xe.fastest.gpus, gb.has_best ? gb.best.gpus : 0, gb.closest.gpus, xb.fastest.gpus,
                100 * rel);
    }
}

/* Throughput targets and budgets around one curve. */
static void targets(const curve *cv, const char *what)
{
    double fastest = 0, t1 = cv->tput1;
    for (int i = 0; i < cv->n; i++)
        if (cv->ran[i] && cv->r[i].p.throughput_samples_per_s > fastest)
            fastest = cv->r[i].p.throughput_samples_per_s;
    if (fastest <= 0 || t1 <= 0)
        return;
    char label[512];
    /* 16 throughput targets from one GPU's to 1.1 x the fastest, geometrically. */
    for (int k = 0; k < 16; k++) {
        double need = t1 * pow(1.1 * fastest / t1, k / 15.0);
        plan_target t = {.need_samples_per_s = need};
        snprintf(label, sizeof label, "%.400s, %.6g samples/s", what, need);
        compare(cv, &t, false, label, 0);
        compare(cv, &t, true, label, 0);
        /* The same as a work and a deadline, with a budget at the cost of a count
         * between the smallest reaching it and the platform's size. */
        plan_target w = {.need_samples_per_s = need, .work_samples = 90.0 * 1281167};
        compare(cv, &w, false, label, 0);
        if (isfinite(cv->price))
            for (int j = 1; j <= 3; j++) {
                int i = cv->n * j / 4;
                if (!cv->ran[i])
                    continue;
                plan_candidate c = {.gpus = plan_domain_count(&cv->d, i), .r = cv->r[i],
                                    .price_per_gpu_hour_usd = cv->price};
                plan_evaluate(&w, &c);
                plan_target b = w;
                b.budget_usd = c.total_usd * 1.000001;
                snprintf(label, sizeof label, "%.400s, %.6g samples/s, budget $%.2f", what, need,
                         b.budget_usd);
                compare(cv, &b, false, label, 1);
                compare(cv, &b, true, label, 1);
                b.need_samples_per_s = 0; /* the budget alone: the fastest within it */
                compare(cv, &b, true, label, 1);
            }
    }
}

static int fill_curve(curve *cv, const sweep_case *proto)
{
    gcsim_error err;
    cv->n = (int)plan_domain_size(&cv->d);
    if (cv->n > MAX_COUNTS)
        return -1;
    sweep_case cs = *proto;
    int ran = 0;
    for (int i = 0; i < cv->n; i++) {
        cs.gpus = plan_domain_count(&cv->d, i);
        cv->ran[i] = sweep_case_run(&cs, &cv->r[i], &err) == 0;
        ran += cv->ran[i];
    }
    cs.gpus = 1;
    sweep_result one;
    cv->tput1 = sweep_case_run(&cs, &one, &err) ? 0.0 : one.p.throughput_samples_per_s;
    return ran;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_plan_bounded SOURCE_DIR\n");
        return 2;
    }
    static const char *platforms[] = {"a100-40g-400g", "a100-hdr", "cloud-v100-100gbe",
                                      "cloud-v100-25gbe", "dgc-fig6-10gbe", "dgc-fig6-1gbe",
                                      "ecq-fig6", "h100-400g", "h100-ndr", "h200-ndr",
                                      "terngrad-fig5a", "terngrad-fig5b", "terngrad-testbed"};
    static const char *models[] = {"resnet-50", "vgg-16", "bert-base"};
    static const char *compressors[] = {"none", "terngrad"};
    gcsim_collective colls[COLLECTIVE_COUNT];
    int n_colls = plan_default_collectives(GCSIM_EXCHANGE_AUTO, colls, COLLECTIVE_COUNT);
    sweep_cache *cache = sweep_cache_new(NULL);
    CHECK(cache != NULL);
    static curve cv;
    char path[4096], what[512];
    gcsim_error err;
    for (size_t p = 0; p < sizeof platforms / sizeof *platforms; p++) {
        snprintf(path, sizeof path, "%s/platforms/%s.json", argv[1], platforms[p]);
        const gcsim_platform *pf = sweep_cache_platform(cache, path, &err);
        CHECK(pf != NULL);
        if (!pf)
            continue;
        const gcsim_stack *st = sweep_cache_stack(cache, gcsim_stack_choice(NULL, pf), &err);
        CHECK(st != NULL);
        for (size_t m = 0; m < sizeof models / sizeof *models && st; m++) {
            snprintf(path, sizeof path, "%s/models/%s.json", argv[1], models[m]);
            const gcsim_model *md = sweep_cache_model(cache, path, &err);
            CHECK(md != NULL);
            for (size_t c = 0; c < sizeof compressors / sizeof *compressors && md; c++) {
                const gcsim_payload_plan *plan = sweep_cache_payload(cache, md, compressors[c], &err);
                CHECK(plan != NULL);
                for (int k = 0; k < n_colls && plan; k++)
                    for (int mode = 0; mode < 3; mode++) {
                        /* 0: whole nodes, weak; 1: every count, weak (two platforms);
                         * 2: whole nodes, strong scaling (ResNet-50) */
                        if (mode == 1 && strcmp(platforms[p], "a100-hdr") &&
                            strcmp(platforms[p], "dgc-fig6-1gbe"))
                            continue;
                        if (mode == 1 && m > 0)
                            continue;
                        if (mode == 2 && m != 0)
                            continue;
                        memset(&cv.d, 0, sizeof cv.d);
                        cv.d.capacity = (long long)pf->nodes * pf->gpus_per_node;
                        cv.d.gpus_per_node = pf->gpus_per_node;
                        cv.d.whole_nodes = mode != 1;
                        cv.price = pf->has_price ? pf->price_per_gpu_hour_usd : NAN;
                        sweep_case cs = {.platform = pf, .model = md, .payload = plan, .stack = st,
                                         .collective = colls[k], .collective_given = true,
                                         .scaling = mode == 2 ? SCALING_STRONG : SCALING_WEAK,
                                         .batch = mode == 2 ? 4096 : 0,
                                         .engine = ENGINE_ANALYTIC, .gpus = 1, .overlap = true};
                        if (fill_curve(&cv, &cs) <= 0)
                            continue;
                        snprintf(what, sizeof what, "%s %s %s %s %s", platforms[p], models[m],
                                 compressors[c], gcsim_collective_name(colls[k]),
                                 mode == 0 ? "whole nodes" : mode == 1 ? "every count" : "strong");
                        targets(&cv, what);
                        /* logarithmic: the grid (2 per doubling) and refinement steps */
                        /* logarithmic: the grid, the refinement's steps for up to three
                         * objectives, and a window of two nodes around each */
                        double bound = 2.0 * log2((double)cv.n) + 2 + 6.0 * log2((double)cv.n) +
                                       3 * 2 * pf->gpus_per_node;
                        CHECK(max_evals <= bound);
                        max_evals = 0;
                    }
            }
        }
    }
    for (int cls = 0; cls < 2; cls++)
        printf("%s: %lld searches compared, %lld answers differ (%.2f%%), %lld in feasibility; "
               "worst loss of the bounded answer's objective on a priced platform %.3g%%\n",
               cls ? "budgets at a count's cost" : "throughput and deadline targets", cases[cls],
               differ[cls], 100.0 * differ[cls] / (double)cases[cls], feasibility_differs[cls],
               100 * worst_rel[cls]);
    printf("bounded search: %.1f evaluations per search on average\n",
           (double)sum_evals / (double)searches);
    CHECK(cases[0] > 10000 && cases[1] > 10000);
    /* The tolerances docs/planning.md states (measured: see there). */
    CHECK(differ[0] <= cases[0] / 200);          /* at most 0.5% of answers differ */
    CHECK(feasibility_differs[0] == 0);
    CHECK(worst_rel[0] <= PLAN_TARGET_TOLERANCE);
    CHECK(differ[1] <= cases[1] / 50);           /* at most 2% */
    sweep_cache_free(cache);
    CHECK_DONE();
}
