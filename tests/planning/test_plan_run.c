/*
 * The plan search (sim/planning/plan_run.h) called directly: the default collectives of
 * each exchange, the GPU counts searched on a hand-made platform (with and without
 * --whole-nodes), and plan_run on a small problem (ResNet-50 on the A100 platform,
 * analytic engine) whose answers follow from properties checked against the engine's own
 * per-count predictions: ranked by cost at a constant price per GPU-hour, the best count
 * of a group is its smallest count that reaches the target; with nothing feasible, the
 * explanation names the fastest configuration; counts that cannot run are skipped and
 * counted.
 * Usage: test_plan_run SOURCE_DIR
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "planning.h"

static void test_default_collectives(void)
{
    gcsim_collective out[COLLECTIVE_COUNT];
    /* auto: every GPU-direct collective, not the papers' patterns */
    const gcsim_collective all[] = {COLLECTIVE_RING, COLLECTIVE_HALVING_DOUBLING,
                                    COLLECTIVE_TREE, COLLECTIVE_DOUBLE_TREE,
                                    COLLECTIVE_HIERARCHICAL, COLLECTIVE_PARAMETER_SERVER,
                                    COLLECTIVE_ALLGATHER};
    CHECK(plan_default_collectives(GCSIM_EXCHANGE_AUTO, out, COLLECTIVE_COUNT) == 7);
    for (int k = 0; k < 7; k++)
        CHECK(out[k] == all[k]);
    CHECK(plan_default_collectives(GCSIM_EXCHANGE_ALLREDUCE, out, COLLECTIVE_COUNT) == 5);
    for (int k = 0; k < 5; k++)
        CHECK(out[k] == all[k]);
    CHECK(plan_default_collectives(GCSIM_EXCHANGE_ALLGATHER, out, COLLECTIVE_COUNT) == 1);
    CHECK(out[0] == COLLECTIVE_ALLGATHER);
    CHECK(plan_default_collectives(GCSIM_EXCHANGE_PS, out, COLLECTIVE_COUNT) == 1);
    CHECK(out[0] == COLLECTIVE_PARAMETER_SERVER);
    /* Room for two: two written, the count still says seven. */
    out[2] = COLLECTIVE_DGC_PAPER;
    CHECK(plan_default_collectives(GCSIM_EXCHANGE_AUTO, out, 2) == 7);
    CHECK(out[0] == COLLECTIVE_RING && out[1] == COLLECTIVE_HALVING_DOUBLING);
    CHECK(out[2] == COLLECTIVE_DGC_PAPER);
}

static void test_search_counts(void)
{
    gcsim_platform pf;
    memset(&pf, 0, sizeof pf);
    pf.nodes = 2;
    pf.gpus_per_node = 8;
    int counts[16];
    plan_domain d;
    /* A list: with whole nodes, 12 (one and a half nodes) goes; 3 (within a node) stays. */
    const int listed[] = {1, 2, 3, 8, 12, 16, 24};
    plan_problem pb = {.gpus = listed, .n_gpus = 7, .whole_nodes = true};
    const int whole[] = {1, 2, 3, 8, 16, 24};
    CHECK(plan_search_domain(&pb, &pf, counts, &d) == 6 && plan_domain_size(&d) == 6);
    for (int k = 0; k < 6; k++)
        CHECK(plan_domain_count(&d, k) == whole[k]);
    pb.whole_nodes = false;
    CHECK(plan_search_domain(&pb, &pf, counts, &d) == 7);
    for (int k = 0; k < 7; k++)
        CHECK(plan_domain_count(&d, k) == listed[k]);
    /* No list: 2 nodes of 8 are 1..16, or 1..8 and 16 in whole nodes. */
    pb.gpus = NULL;
    pb.n_gpus = 0;
    CHECK(plan_search_domain(&pb, &pf, counts, &d) == 16);
    CHECK(plan_domain_count(&d, 0) == 1 && plan_domain_count(&d, 15) == 16);
    pb.whole_nodes = true;
    CHECK(plan_search_domain(&pb, &pf, counts, &d) == 9);
    CHECK(plan_domain_count(&d, 7) == 8 && plan_domain_count(&d, 8) == 16);
    /* The exhaustive search runs every count; the bounded one at least its grid: 1, 2, 3,
     * 4, 6, 8, 16 (7 of the 9). */
    pb.search = PLAN_SEARCH_EXHAUSTIVE;
    /* What plan_run will run: counts x compressors x collectives per platform. */
    const gcsim_platform *two[] = {&pf, &pf};
    pb.platforms = two;
    pb.n_platforms = 2;
    pb.n_compressors = 3;
    pb.n_stacks = 1;
    pb.n_collectives = 2;
    CHECK(plan_candidate_count(&pb) == 2 * 9 * 3 * 2);
    /* Two stacks double the groups; --exchange best replaces the collectives by one
     * search of EXCHANGE_BEST_TRIES runs per candidate, under a codec-model stack too (the
     * papers' patterns are not searched, issue 45). */
    static gcsim_stack laws = {.codec_model = false}, fused = {.codec_model = true};
    const gcsim_stack *stacks[4] = {&laws, &laws, &laws, &laws};
    pb.stacks = stacks;
    pb.n_stacks = 2;
    CHECK(plan_candidate_count(&pb) == 2 * 9 * 3 * 2 * 2);
    pb.exchange_best = true;
    CHECK(plan_groups_per_platform(&pb) == 3 * 2);
    CHECK(plan_candidate_count(&pb) == 2 * 9 * 3 * 2 * EXCHANGE_BEST_TRIES);
    stacks[1] = stacks[3] = &fused;
    CHECK(plan_candidate_count(&pb) == 2 * 9 * 3 * 2 * EXCHANGE_BEST_TRIES);
    pb.search = PLAN_SEARCH_BOUNDED;
    CHECK(plan_candidate_count(&pb) == 2 * 7 * 3 * 2 * EXCHANGE_BEST_TRIES);
}

enum { N_COUNTS = 7, N_COMPRESSORS = 2, N_COLLECTIVES = 2 };
static const int gpu_list[N_COUNTS] = {1, 2, 4, 8, 16, 32, 64};

typedef struct {
    const gcsim_model *model;
    const gcsim_platform *platform;
    const gcsim_platform *other; /* cheaper per GPU-hour, slower per GPU */
    const gcsim_payload_plan *plans[N_COMPRESSORS];
    const gcsim_stack *stacks[2];   /* each platform's choice: platform's, other's */
    gcsim_collective collectives[N_COLLECTIVES];
    /* The engine's throughput of each (compressor, collective, count), run one by one. */
    double tput[N_COMPRESSORS][N_COLLECTIVES][N_COUNTS];
} small_problem;

static plan_problem problem_of(const small_problem *sp)
{
    plan_problem pb = {.model = sp->model, .n_platforms = 1, .n_compressors = N_COMPRESSORS,
                       .n_stacks = 1, .stacks = sp->stacks,
                       .n_collectives = N_COLLECTIVES, .platforms = &sp->platform,
                       .plans = sp->plans, .collectives = sp->collectives,
                       .scaling = SCALING_WEAK, .engine = ENGINE_ANALYTIC,
                       .gpus = gpu_list, .n_gpus = N_COUNTS};
    return pb;
}

static int load(const char *src, sweep_cache *cache, small_problem *sp)
{
    char path[4096];
    gcsim_error err;
    snprintf(path, sizeof path, "%s/platforms/a100-hdr.json", src);
    sp->platform = sweep_cache_platform(cache, path, &err);
    snprintf(path, sizeof path, "%s/platforms/cloud-v100-25gbe.json", src);
    sp->other = sp->platform ? sweep_cache_platform(cache, path, &err) : NULL;
    snprintf(path, sizeof path, "%s/models/resnet-50.json", src);
    sp->model = sweep_cache_model(cache, path, &err);
    if (!sp->platform || !sp->other || !sp->model) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    /* as gcsim plan without --stack: each platform's choice */
    sp->stacks[0] = sweep_cache_stack(cache, gcsim_stack_choice(NULL, sp->platform), &err);
    sp->stacks[1] = sp->stacks[0] ? sweep_cache_stack(cache, gcsim_stack_choice(NULL, sp->other), &err)
                                   : NULL;
    if (!sp->stacks[0] || !sp->stacks[1]) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    const char *specs[N_COMPRESSORS] = {"none", "fp16"};
    for (int c = 0; c < N_COMPRESSORS; c++)
        if (!(sp->plans[c] = sweep_cache_payload(cache, sp->model, specs[c], &err))) {
            fprintf(stderr, "%s\n", err.message);
            return -1;
        }
    sp->collectives[0] = COLLECTIVE_RING;
    sp->collectives[1] = COLLECTIVE_HIERARCHICAL;
    for (int c = 0; c < N_COMPRESSORS; c++)
        for (int k = 0; k < N_COLLECTIVES; k++)
            for (int g = 0; g < N_COUNTS; g++) {
                sweep_case cs = {.platform = sp->platform, .model = sp->model,
                                 .payload = sp->plans[c], .stack = sp->stacks[0],
                                 .collective = sp->collectives[k],
                                 .collective_given = true, .scaling = SCALING_WEAK,
                                 .engine = ENGINE_ANALYTIC, .gpus = gpu_list[g],
                                 .overlap = true};
                sweep_result r;
                if (sweep_case_run(&cs, &r, &err)) {
                    fprintf(stderr, "%s\n", err.message);
                    return -1;
                }
                sp->tput[c][k][g] = r.p.throughput_samples_per_s;
            }
    return 0;
}

/* Ranked by cost per hour at a constant $/GPU-hour: each group's best is its smallest
 * count reaching the target, and the groups come cheapest (fewest GPUs) first. */
static void test_feasible_by_cost(const small_problem *sp)
{
    plan_problem pb = problem_of(sp);
    /* Reached by none and fp16 on ring at 16 GPUs, so some groups need 16 or more. */
    pb.target.need_samples_per_s = sp->tput[0][0][4];
    plan_result res;
    gcsim_error err;
    CHECK(plan_run(&pb, &res, &err) == 0);
    CHECK(res.feasible && res.why[0] == '\0');
    CHECK(res.n_groups == N_COMPRESSORS * N_COLLECTIVES);
    CHECK(res.evaluated == N_COUNTS * N_COMPRESSORS * N_COLLECTIVES && res.skipped == 0);
    int expected_rows = 0;
    for (int c = 0; c < N_COMPRESSORS; c++)
        for (int k = 0; k < N_COLLECTIVES; k++) {
            int smallest = 0;
            for (int g = 0; g < N_COUNTS && !smallest; g++)
                if (sp->tput[c][k][g] >= pb.target.need_samples_per_s)
                    smallest = gpu_list[g];
            if (!smallest)
                continue;
            expected_rows++;
            int found = 0;
            for (int i = 0; i < res.n_rows; i++)
                if (res.rows[i].compressor == c && res.rows[i].collective == k) {
                    found++;
                    CHECK(res.rows[i].gpus == smallest);
                    CHECK(res.rows[i].feasible);
                    CHECK_REL(res.rows[i].usd_per_hour,
                              smallest * sp->platform->price_per_gpu_hour_usd, 1e-12);
                }
            CHECK(found == 1);
        }
    CHECK(expected_rows > 0 && res.n_rows == expected_rows);
    for (int i = 1; i < res.n_rows; i++)
        CHECK(res.rows[i - 1].usd_per_hour <= res.rows[i].usd_per_hour);
    plan_result_free(&res);

    /* Ranked by time, the first row is the fastest feasible count of all. */
    pb.rank_by_time = true;
    CHECK(plan_run(&pb, &res, &err) == 0);
    double fastest = 0.0;
    for (int c = 0; c < N_COMPRESSORS; c++)
        for (int k = 0; k < N_COLLECTIVES; k++)
            for (int g = 0; g < N_COUNTS; g++)
                fastest = fmax(fastest, sp->tput[c][k][g]);
    CHECK(res.feasible && res.n_rows > 0);
    if (res.n_rows > 0)
        CHECK(res.rows[0].tput == fastest);
    plan_result_free(&res);
}

/* A target no count reaches: the closest count of each group, and the explanation names
 * the fastest configuration and its throughput. */
static void test_infeasible(const small_problem *sp)
{
    plan_problem pb = problem_of(sp);
    pb.target.need_samples_per_s = 1e12;
    int best_c = 0, best_k = 0, best_g = 0;
    for (int c = 0; c < N_COMPRESSORS; c++)
        for (int k = 0; k < N_COLLECTIVES; k++)
            for (int g = 0; g < N_COUNTS; g++)
                if (sp->tput[c][k][g] > sp->tput[best_c][best_k][best_g])
                    best_c = c, best_k = k, best_g = g;
    plan_result res;
    gcsim_error err;
    CHECK(plan_run(&pb, &res, &err) == 0);
    CHECK(!res.feasible);
    CHECK(res.n_rows == N_COMPRESSORS * N_COLLECTIVES); /* one closest per group */
    for (int i = 1; i < res.n_rows; i++)
        CHECK(res.rows[i - 1].shortfall <= res.rows[i].shortfall);
    char expected[1024];
    snprintf(expected, sizeof expected,
             "the fastest configuration (%s, %d GPUs, %s, stack %s, %s) reaches %.6g "
             "samples/s; the target needs 1e+12",
             sp->platform->name, gpu_list[best_g], sp->plans[best_c]->spec, sp->stacks[0]->name,
             gcsim_collective_name(sp->collectives[best_k]), sp->tput[best_c][best_k][best_g]);
    CHECK(strcmp(res.why, expected) == 0);
    if (strcmp(res.why, expected))
        fprintf(stderr, "  got      %s\n  expected %s\n", res.why, expected);
    CHECK(res.n_rows > 0 && res.rows[0].tput == sp->tput[best_c][best_k][best_g]);
    plan_result_free(&res);

    /* Two platforms, the second cheaper and slower: the closest rows still come closest
     * first (by shortfall), not cheapest first. */
    const gcsim_platform *both[2] = {sp->platform, sp->other};
    pb.platforms = both;
    pb.n_platforms = 2;
    CHECK(plan_run(&pb, &res, &err) == 0);
    CHECK(!res.feasible && res.n_rows == 2 * N_COMPRESSORS * N_COLLECTIVES);
    for (int i = 1; i < res.n_rows; i++)
        CHECK(res.rows[i - 1].shortfall <= res.rows[i].shortfall);
    CHECK(res.n_rows > 0 && res.rows[0].platform == 0);
    plan_result_free(&res);
}

/* Counts beyond the platform cannot run: skipped and counted, the first reason kept; with
 * nothing else to run, the explanation is that reason. */
static void test_skipped(const small_problem *sp)
{
    plan_problem pb = problem_of(sp);
    long long capacity = (long long)sp->platform->nodes * sp->platform->gpus_per_node;
    int counts[2] = {2, (int)capacity + 8};
    pb.gpus = counts;
    pb.n_gpus = 2;
    pb.target.need_samples_per_s = 1.0;
    plan_result res;
    gcsim_error err;
    CHECK(plan_run(&pb, &res, &err) == 0);
    CHECK(res.feasible);
    CHECK(res.evaluated == N_COMPRESSORS * N_COLLECTIVES);
    CHECK(res.skipped == N_COMPRESSORS * N_COLLECTIVES);
    CHECK(res.first_error[0] != '\0');
    for (int i = 0; i < res.n_rows; i++)
        CHECK(res.rows[i].gpus == 2);
    plan_result_free(&res);

    pb.gpus = counts + 1;
    pb.n_gpus = 1;
    CHECK(plan_run(&pb, &res, &err) == 0);
    CHECK(!res.feasible && res.n_rows == 0 && res.evaluated == 0);
    char expected[1024];
    snprintf(expected, sizeof expected, "no configuration could be evaluated: %s",
             res.first_error);
    CHECK(res.first_error[0] != '\0' && strcmp(res.why, expected) == 0);
    plan_result_free(&res);
}

/* A budget nothing meets: the explanation names the cheapest configuration (lowest total
 * cost GPUs x $/GPU-hour x work / throughput) and its cost. */
static void test_over_budget(const small_problem *sp)
{
    plan_problem pb = problem_of(sp);
    pb.target.work_samples = 1e9;
    pb.target.budget_usd = 1.0;
    double price = sp->platform->price_per_gpu_hour_usd;
    int bc = 0, bk = 0, bg = 0;
    double cheapest = INFINITY;
    for (int c = 0; c < N_COMPRESSORS; c++)
        for (int k = 0; k < N_COLLECTIVES; k++)
            for (int g = 0; g < N_COUNTS; g++) {
                double usd = gpu_list[g] * price * pb.target.work_samples /
                             sp->tput[c][k][g] / 3600.0;
                if (usd < cheapest * (1 - 1e-9))
                    cheapest = usd, bc = c, bk = k, bg = g;
            }
    CHECK(cheapest > pb.target.budget_usd);
    plan_result res;
    gcsim_error err;
    CHECK(plan_run(&pb, &res, &err) == 0);
    CHECK(!res.feasible);
    char expected[1024];
    snprintf(expected, sizeof expected,
             "the cheapest configuration fast enough (%s, %d GPUs, %s, stack %s, %s) costs "
             "$%.2f, over the budget of $1.00",
             sp->platform->name, gpu_list[bg], sp->plans[bc]->spec, sp->stacks[0]->name,
             gcsim_collective_name(sp->collectives[bk]), cheapest);
    CHECK(strcmp(res.why, expected) == 0);
    if (strcmp(res.why, expected))
        fprintf(stderr, "  got      %s\n  expected %s\n", res.why, expected);
    plan_result_free(&res);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_plan_run SOURCE_DIR\n");
        return 2;
    }
    test_default_collectives();
    test_search_counts();
    sweep_cache *cache = sweep_cache_new(NULL);
    small_problem sp;
    memset(&sp, 0, sizeof sp);
    CHECK(cache != NULL && load(argv[1], cache, &sp) == 0);
    if (cache && sp.plans[N_COMPRESSORS - 1]) {
        test_feasible_by_cost(&sp);
        test_infeasible(&sp);
        test_skipped(&sp);
        test_over_budget(&sp);
    }
    sweep_cache_free(cache);
    CHECK_DONE();
}
