/* NCCL's per-call latency in a training stack's calls (sim/collectives/nccl_call.h):
 *   1. its figure, by hand from NCCL's tuning model (per-call base + network hops x per-hop
 *      overhead, Simple), for each collective a stack issues, and that it is what `gcsim
 *      collective` charges spread over a ring's 2(N-1) steps;
 *   2. what it adds to a small iteration, in closed form (analytic engine, no overlap):
 *      the stack's call cost, NCCL's latency and the schedule's time, nothing else;
 *   3. (with the DES) engine agreement with it on: both engines charge it, so they agree
 *      where it is a large share of the iteration (compute of 100 us).
 * Figures: NVIDIA/nccl src/graph/tuning.cc at 5067397 (sim/collectives/tuner_model.c):
 * base Simple 8.4 us (ring, tree), 0 (NVLS-tree); network hop Simple 14 us (ring, tree),
 * 20.9 us (NVLS-tree). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analytic.h"
#include "check.h"
#include "step.h"
#include "nccl_call.h"
#include "protocol.h"
#include "stack.h"
#include "tuner_model.h"
#ifdef GCSIM_TEST_DES
#include "des.h"
#endif
#include "resolved_predict.h"
#include "../bare_topology.h"

/* A stack whose calls cost 7 us, with no codec ops for fp32, PowerSGD or top-k. */
static const char *stack_json =
    "{\"schema\": \"gcsim-stack/1\", \"name\": \"t\", \"description\": \"d\", \"source\": \"s\","
    " \"codec\": \"laws\","
    " \"granularity\": {\"unit\": \"bucket\", \"bucket_bytes\": \"1GiB\", \"source\": \"s\"},"
    " \"costs\": {\"collective_call\": \"7us\", \"sync\": \"3us\", \"source\": \"s\"},"
    " \"laws\": {\"lin\": {\"gpu\": \"h100\", \"elements\": [1000, 100000], \"host_us\": [1, 1],"
    "           \"gpu_us\": [1, 2], \"source\": \"s\"}},"
    " \"compressors\": {"
    "  \"none\": {\"exchange\": \"allreduce\", \"source\": \"s\"},"
    "  \"topk\": {\"exchange\": \"allgather\", \"source\": \"s\"},"
    "  \"powersgd\": {\"exchange\": \"powersgd-hook\", \"source\": \"s\"}}}";

static const char *platform_fmt =
    "{\"name\": \"p\", \"nodes\": %d, \"gpus_per_node\": %d,"
    " \"gpu\": {\"type\": \"v100\", \"speed\": \"15Tflops\"},"
    " \"intra_node\": {\"kind\": \"%s\", \"gpu_to_host\": \"100Gbps\","
    "                  \"gpu_to_gpu\": \"10GBps\", \"latency\": \"1us\"},"
    " \"nic\": {\"kind\": \"infiniband\", \"bandwidth\": \"100Gbps\", \"latency\": \"1us\"},"
    " \"fabric\": {\"topology\": \"star\"}}";

/* Two layers, 50,688 fp32 gradient bytes; 100 us per batch. */
static const char *model_json =
    "{\"name\": \"m\", \"batch_per_gpu\": 8,"
    " \"layers\": [{\"name\": \"A\", \"kind\": \"conv\", \"weights\": 4096, \"bias\": 0,"
    "               \"other_params\": 128, \"fwd_flops\": 1e6},"
    "              {\"name\": \"B\", \"kind\": \"conv\", \"weights\": 8192, \"bias\": 0,"
    "               \"other_params\": 256, \"fwd_flops\": 3e6}],"
    " \"profiles\": [{\"gpu\": \"v100\", \"framework\": \"none\", \"source\": \"test\","
    "                 \"points\": [{\"batch\": 8, \"time\": \"100us\"}]}]}";

static gcsim_model model;
static gcsim_stack *stack;

static int platform_of(int nodes, int per_node, const char *kind, gcsim_platform *p)
{
    char json[1024];
    gcsim_error err;
    snprintf(json, sizeof json, platform_fmt, nodes, per_node, kind);
    if (gcsim_platform_parse(json, "test", p, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    return 0;
}

/* 1. NCCL's figure per collective, by hand. */
static void test_figures(void)
{
    gcsim_platform p;
    if (platform_of(16, 8, "nvswitch", &p)) {
        check_failures++;
        return;
    }
    /* 128 GPUs on 16 nodes: ring all-reduce 8.4 + 2 x 15 x 14 us; tree (either) 8.4 +
     * 2 log2(16) x 14; NVLS-tree 0 + 2 x 4 x 20.9; all-gather and reduce-scatter (NCCL's
     * ring) 8.4 + 15 x 14 */
    CHECK_REL(gcsim_nccl_call_overhead_s(&p, 128, COLLECTIVE_RING, -1), 428.4e-6, 1e-12);
    CHECK_REL(gcsim_nccl_call_overhead_s(&p, 128, COLLECTIVE_DOUBLE_TREE, -1), 120.4e-6, 1e-12);
    CHECK_REL(gcsim_nccl_call_overhead_s(&p, 128, COLLECTIVE_TREE, -1), 120.4e-6, 1e-12);
    CHECK_REL(gcsim_nccl_call_overhead_s(&p, 128, COLLECTIVE_DOUBLE_TREE, GCSIM_NCCL_NVLS_TREE),
              167.2e-6, 1e-12);
    CHECK_REL(gcsim_nccl_call_overhead_s(&p, 128, COLLECTIVE_ALLGATHER, -1), 218.4e-6, 1e-12);
    CHECK_REL(gcsim_nccl_call_overhead_s(&p, 128, COLLECTIVE_REDUCE_SCATTER, -1), 218.4e-6,
              1e-12);
    /* one node: the base only; NVLS there: none (its figures hold it); one GPU: no call */
    CHECK_REL(gcsim_nccl_call_overhead_s(&p, 8, COLLECTIVE_RING, -1), 8.4e-6, 1e-12);
    CHECK(gcsim_nccl_call_overhead_s(&p, 8, COLLECTIVE_NVLS, -1) == 0);
    CHECK(gcsim_nccl_call_overhead_s(&p, 1, COLLECTIVE_RING, -1) == 0);
    /* what NCCL does not run: gcsim's patterns, a parameter server (MPI, gRPC, BytePS) */
    CHECK(gcsim_nccl_call_overhead_s(&p, 128, COLLECTIVE_HALVING_DOUBLING, -1) == 0);
    CHECK(gcsim_nccl_call_overhead_s(&p, 128, COLLECTIVE_HIERARCHICAL, -1) == 0);
    CHECK(gcsim_nccl_call_overhead_s(&p, 128, COLLECTIVE_PARAMETER_SERVER, -1) == 0);
    CHECK(gcsim_nccl_call_algo(COLLECTIVE_PARAMETER_SERVER) < 0);
    /* the figure `gcsim collective` charges, there spread over the schedule's steps: on 16
     * nodes of 1 GPU (NCCL then charges the tree's network figure, also 14 us for Simple)
     * 8.4 + 2 x 15 x 14 us, whole here, and as much added to the ring's time when spread
     * over its 2(N-1) = 30 steps */
    gcsim_platform one;
    if (platform_of(16, 1, "pcie-switch", &one)) {
        check_failures++;
        return;
    }
    double whole = gcsim_nccl_call_overhead_s(&one, 16, COLLECTIVE_RING, -1);
    CHECK_REL(whole, 428.4e-6, 1e-12);
    CHECK_REL(whole, gcsim_protocol_overhead_s(&one, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_RING, 16,
                                               GCSIM_PROTO_SIMPLE), 0);
    gcsim_platform plain, spread;
    gcsim_protocol_platform(&one, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_RING, 16, GCSIM_PROTO_SIMPLE, 0,
                            &plain);
    gcsim_protocol_platform(&one, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_RING, 16, GCSIM_PROTO_SIMPLE,
                            2 * (16 - 1), &spread);
    double t0, t1;
    gcsim_error err;
    CHECK(bare_analytic_collective_time(&plain, 16, COLLECTIVE_RING, 1 << 20, 0, &t0, &err) == 0);
    CHECK(bare_analytic_collective_time(&spread, 16, COLLECTIVE_RING, 1 << 20, 0, &t1, &err) == 0);
    CHECK_REL(t1 - t0, whole, 1e-9);
}

static int scenario_of(gcsim_platform *p, const char *spec, int gpus, bool overlap,
                       gcsim_scenario *s, gcsim_payload_plan *plan, gcsim_stack_setup *ss)
{
    gcsim_error err;
    *s = (gcsim_scenario){.platform = p, .model = &model, .payload = plan,
                          .scaling = SCALING_WEAK, .batch = 8, .overlap = overlap};
    if (gcsim_payload_plan_build(spec, &model, plan, &err) ||
        gcsim_stack_setup_init(ss, p, stack, plan->spec, GCSIM_EXCHANGE_AUTO, NULL, &err) ||
        gcsim_platform_place(p, gpus, &s->placement, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    gcsim_stack_setup_apply(ss, s);
    return 0;
}

/* 2. One bucket of fp32 on 2 nodes x 2 GPUs, no overlap: the iteration is the 100 us of
 * compute, then one all-reduce: 7 us of call and the schedule of the algorithm the tuner
 * picks for 50,688 bytes with its protocol's fixed cost (nccl_call.h, gcsim_nccl_call_tune:
 * NCCL's closed-form model), the schedule's alone where the model's time is lower. */
static void test_iteration(void)
{
    gcsim_platform p;
    gcsim_scenario s;
    gcsim_payload_plan plan;
    gcsim_stack_setup ss;
    gcsim_error err;
    if (platform_of(2, 2, "pcie-switch", &p) || scenario_of(&p, "none", 4, false, &s, &plan, &ss)) {
        check_failures++;
        return;
    }
    gcsim_iteration it;
    if (gcsim_iteration_build(&it, &s, &err)) {
        fprintf(stderr, "%s\n", err.message);
        check_failures++;
        gcsim_payload_plan_free(&plan);
        return;
    }
    CHECK(it.n_calls == 1);
    const gcsim_call *c = &it.calls[0];
    gcsim_nccl_tuned_call tc;
    CHECK(gcsim_nccl_call_tune(&p, 4, c->bytes.payload_bytes, &tc, &err) == 0);
    CHECK(c->collective == tc.collective && c->protocol &&
          strcmp(c->protocol, gcsim_protocol_name((gcsim_protocol)tc.protocol)) == 0);
    CHECK_REL(c->overhead_s, 7e-6 + tc.fixed_s, 1e-12);
    double sched_s = 0, call_s = 0;
    CHECK(bare_analytic_collective_time(&p, 4, c->collective, c->bytes.payload_bytes, 0,
                                        &sched_s, &err) == 0);
    CHECK_REL(sched_s, tc.schedule_s, 1e-12);
    CHECK(bare_analytic_call_times(s.platform, s.placement.gpus, s.ps_shards, &it, &call_s, &err) == 0);
    CHECK_REL(call_s, 7e-6 + fmax(tc.time_s, sched_s), 1e-12);
    gcsim_prediction ana;
    CHECK(analytic_predict_s(&s, &ana, &err) == 0);
    CHECK_REL(ana.iteration_s, 100e-6 + call_s, 1e-9);
#ifdef GCSIM_TEST_DES
    /* 3a. the DES charges it too */
    gcsim_prediction des;
    CHECK(des_predict_opts_s(&s, NULL, &des, NULL, &err) == 0);
    CHECK_REL(des.iteration_s, ana.iteration_s, 1e-3);
#endif
    gcsim_iteration_free(&it);
    gcsim_payload_plan_free(&plan);
}

#ifdef GCSIM_TEST_DES
/* 3b. Engine agreement with NCCL's latency on, overlap on, on 4 nodes x 2 GPUs (ring
 * 92.4 us, tree 64.4 us a call): fp32 (one all-reduce), PowerSGD's hook (three dependent
 * all-reduces) and top-k (an all-gather, 8.4 + 3 x 14 = 50.4 us). */
static void test_engines(void)
{
    gcsim_platform p;
    if (platform_of(4, 2, "pcie-switch", &p)) {
        check_failures++;
        return;
    }
    const char *specs[] = {"none", "powersgd:rank=1", "topk:ratio=0.01"};
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        gcsim_scenario s;
        gcsim_payload_plan plan;
        gcsim_stack_setup ss;
        gcsim_error err;
        if (scenario_of(&p, specs[k], 8, true, &s, &plan, &ss)) {
            check_failures++;
            continue;
        }
        gcsim_iteration it;
        gcsim_prediction ana, des;
        if (gcsim_iteration_build(&it, &s, &err) || analytic_predict_s(&s, &ana, &err) ||
            des_predict_opts_s(&s, NULL, &des, NULL, &err)) {
            fprintf(stderr, "%s: %s\n", specs[k], err.message);
            check_failures++;
            gcsim_payload_plan_free(&plan);
            continue;
        }
        double nccl_s = 0;
        for (int c = 0; c < it.n_calls; c++) {
            const gcsim_call *call = &it.calls[c];
            /* a tuned all-reduce: the tuner's fixed cost for it (nccl_call.h) */
            gcsim_nccl_tuned_call tc = {0};
            if (call->collective != COLLECTIVE_ALLGATHER)
                CHECK(gcsim_nccl_call_tune(&p, 8, call->bytes.payload_bytes, &tc, &err) == 0);
            double want = call->collective == COLLECTIVE_ALLGATHER ? 50.4e-6 : tc.fixed_s;
            CHECK_REL(call->overhead_s, 7e-6 + want, 1e-12);
            nccl_s += want;
        }
        printf("%-16s %d calls, NCCL %.1f us; analytic %.3f us, DES %.3f us (%+.3f%%)\n",
               specs[k], it.n_calls, nccl_s * 1e6, ana.iteration_s * 1e6, des.iteration_s * 1e6,
               100 * (des.iteration_s / ana.iteration_s - 1));
        /* NCCL's latency is 15-60% of these iterations: a gap of 0.5% cannot hide it */
        CHECK(nccl_s > 0.15 * ana.iteration_s);
        CHECK_REL(des.iteration_s, ana.iteration_s, 5e-3);
        gcsim_iteration_free(&it);
        gcsim_payload_plan_free(&plan);
    }
}
#endif

int main(void)
{
    gcsim_error err;
    stack = malloc(sizeof *stack);
    if (gcsim_model_parse(model_json, "test", &model, &err) ||
        gcsim_stack_parse(stack_json, "test-stack", stack, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    test_figures();
    test_iteration();
#ifdef GCSIM_TEST_DES
    test_engines();
#endif
    gcsim_model_free(&model);
    free(stack);
    CHECK_DONE();
}
