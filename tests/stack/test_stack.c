/* Training stacks (sim/stack, sim/step/program_stack.c, sim/analytic/timeline.c):
 * stack files read strictly, op laws evaluated as docs/stacks.md says, the programs each
 * exchange builds (calls, bytes, deferred and blocking steps, fused groups) and the
 * timeline both engines share, each against values computed by hand below. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analytic.h"
#include "check.h"
#include "step.h"
#include "compressor.h"
#include "stack.h"
#include "timeline.h"

/* ---- a stack small enough to price by hand ---- */

/* Law "lin" on an h100: GPU 10 us at 1,000 elements, 1,000 us at 100,000 (linear between:
 * 10 + 0.01 (n - 1000) us), host 20 us per call. Law "host" is host-bound (100 us). */
static const char *test_stack_json =
    "{\"schema\": \"gcsim-stack/1\", \"name\": \"t\", \"description\": \"d\", \"source\": \"s\","
    " \"codec\": \"laws\","
    " \"granularity\": {\"unit\": \"bucket\", \"bucket_bytes\": \"1GiB\", \"source\": \"s\"},"
    " \"costs\": {\"collective_call\": \"7us\", \"sync\": \"3us\", \"source\": \"s\"},"
    " \"laws\": {"
    "  \"lin\": {\"gpu\": \"h100\", \"elements\": [1000, 100000], \"host_us\": [20, 20],"
    "           \"gpu_us\": [10, 1000], \"source\": \"s\"},"
    "  \"host\": {\"gpu\": \"h100\", \"elements\": [1000, 100000], \"host_us\": [100, 100],"
    "           \"gpu_us\": [1, 2], \"source\": \"s\"}},"
    " \"compressors\": {"
    "  \"none\": {\"exchange\": \"allreduce\", \"source\": \"s\"},"
    "  \"topk\": {\"exchange\": \"allgather\", \"encode\": [{\"law\": \"lin\", \"per\": \"unit\"}],"
    "            \"decode\": [{\"law\": \"host\", \"per\": \"tensor\", \"payloads\": true}],"
    "            \"decode_own\": true, \"source\": \"s\"},"
    "  \"dgc\": {\"exchange\": \"allgather\", \"encode\": [{\"law\": \"lin\", \"per\": \"unit\"}],"
    "          \"decode\": [{\"law\": \"lin\", \"per\": \"unit\", \"payloads\": true}],"
    "          \"size_exchange\": true, \"source\": \"s\"},"
    "  \"powersgd\": {\"exchange\": \"powersgd-hook\","
    "     \"encode\": [{\"law\": \"lin\", \"per\": \"matrix\", \"rank\": 1}],"
    "     \"unpack\": [{\"law\": \"host\", \"per\": \"vector\"}],"
    "     \"between\": [{\"law\": \"lin\", \"per\": \"matrix\", \"fraction\": 0.5, \"rank\": 1}],"
    "     \"decode\": [{\"law\": \"lin\", \"per\": \"unit\", \"gpu_scale\": 2}], \"source\": \"s\"},"
    "  \"orq\": {\"refuse\": \"no measurement\", \"source\": \"s\"}}}";

/* Two conv layers with batch norm on 2 machines of 2 v100s (fat NIC, 1 us latencies).
 * A: 4,096 weights as 64 rows x 64 (BN 128); B: 8,192 weights as 128 rows x 64 (BN 256).
 * Compute 30 ms per batch, backward 20 ms shared by forward FLOPs 1 : 3 (A : B). */
static const char *platform_json =
    "{\"name\": \"p\", \"nodes\": 2, \"gpus_per_node\": 2,"
    " \"gpu\": {\"type\": \"v100\", \"speed\": \"15Tflops\"},"
    " \"intra_node\": {\"kind\": \"pcie-switch\", \"gpu_to_host\": \"100Gbps\","
    "                  \"gpu_to_gpu\": \"10GBps\", \"latency\": \"1us\"},"
    " \"nic\": {\"kind\": \"infiniband\", \"bandwidth\": \"100Gbps\", \"latency\": \"1us\"},"
    " \"fabric\": {\"topology\": \"star\"}}";

static const char *model_json =
    "{\"name\": \"m\", \"batch_per_gpu\": 8,"
    " \"layers\": [{\"name\": \"A\", \"kind\": \"conv\", \"weights\": 4096, \"bias\": 0,"
    "               \"other_params\": 128, \"fwd_flops\": 1e6},"
    "              {\"name\": \"B\", \"kind\": \"conv\", \"weights\": 8192, \"bias\": 0,"
    "               \"other_params\": 256, \"fwd_flops\": 3e6}],"
    " \"profiles\": [{\"gpu\": \"v100\", \"framework\": \"none\", \"source\": \"test\","
    "                 \"points\": [{\"batch\": 8, \"time\": \"30ms\"}]}]}";

/* NCCL's latency of an all-gather on these 2 nodes, charged on top of the stack's call cost
 * (nccl_call.h): the ring's per-call base, Simple, 8.4 us, and its nodes - 1 = 1 network
 * hop at 14 us (NVIDIA/nccl src/graph/tuning.cc baseLatencies, hwLatencies[NET]). */
#define NCCL_ALLGATHER_2NODES_S 22.4e-6

static gcsim_platform platform;
static gcsim_model model;
static gcsim_stack *stack;

/* The law "lin" on a v100 at n elements, by hand: the GPU part above 10 us scales by the
 * h100's 3,350 GB/s over the v100's 900 GB/s; the host's 20 us is the floor. */
static double lin_v100_s(double n)
{
    double gpu_us = 10 + (10 + 0.01 * (n - 1000) - 10) * 3350.0 / 900.0;
    return fmax(20.0, gpu_us) * 1e-6;
}

static int build(const char *spec, gcsim_exchange ex, int gpus, gcsim_iteration *it,
                 gcsim_payload_plan *plan, gcsim_stack_setup *ss)
{
    gcsim_error err;
    gcsim_scenario s = {.platform = &platform, .model = &model, .payload = plan,
                        .scaling = SCALING_WEAK, .batch = 8, .overlap = true};
    if (gcsim_payload_plan_build(spec, &model, plan, &err) ||
        gcsim_stack_setup_init(ss, &platform, stack, plan->spec, ex, NULL, &err) ||
        gcsim_platform_place(&platform, gpus, &s.placement, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    gcsim_stack_setup_apply(ss, &s);
    if (gcsim_iteration_build(it, &s, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    return 0;
}

static void test_laws(void)
{
    const gcsim_stack_law *lin = &stack->laws[0];
    const gcsim_gpu_params *h100, *v100;
    gcsim_error err;
    CHECK(gcsim_gpu_params_find("h100", &h100, &err) == 0);
    CHECK(gcsim_gpu_params_find("v100", &v100, &err) == 0);
    /* on its own GPU: max(host 20, GPU), linear between points, clamped below */
    CHECK_REL(gcsim_stack_law_s(stack, lin, 500, NULL, 1, 1, h100), 20e-6, 1e-12);
    CHECK_REL(gcsim_stack_law_s(stack, lin, 50500, NULL, 1, 1, h100), 505e-6, 1e-12);
    /* above the largest size: GPU work proportional to size, host not growing */
    CHECK_REL(gcsim_stack_law_s(stack, lin, 200000, NULL, 1, 1, h100), 2000e-6, 1e-12);
    /* on a v100: the GPU part above the floor scaled by bandwidth */
    CHECK_REL(gcsim_stack_law_s(stack, lin, 50500, NULL, 1, 1, v100), lin_v100_s(50500), 1e-12);
    /* a fraction of the call, and twice the GPU work */
    CHECK_REL(gcsim_stack_law_s(stack, lin, 50500, NULL, 0.5, 1, h100), 252.5e-6, 1e-12);
    CHECK_REL(gcsim_stack_law_s(stack, lin, 50500, NULL, 1, 2, h100), (10 + 2 * 495) * 1e-6, 1e-12);
}

/* One bucket, top-k all-gathered on 4 GPUs: encode on the bucket, the all-gather (the
 * stack's call cost), then every one of the 4 payloads decoded per tensor (host-bound). */
static void test_allgather_program(void)
{
    gcsim_iteration it;
    gcsim_payload_plan plan;
    gcsim_stack_setup ss;
    if (build("topk:ratio=0.01", GCSIM_EXCHANGE_AUTO, 4, &it, &plan, &ss))
    {
        check_failures++;
        return;
    }
    CHECK(ss.cs.exchange.exchange == GCSIM_EXCHANGE_ALLGATHER);
    CHECK(it.n_buckets == 1 && it.n_calls == 1 && it.buckets[0].n_steps == 3);
    const gcsim_step *st = &it.steps[0];
    double elems = 4096 + 128 + 8192 + 256;
    CHECK(st[0].kind == GCSIM_STEP_CODEC && st[0].cls == GCSIM_CODEC_ENCODE);
    CHECK_REL(st[0].codec_s, lin_v100_s(elems), 1e-12);
    CHECK(st[1].kind == GCSIM_STEP_CALL && it.calls[0].collective == COLLECTIVE_ALLGATHER);
    CHECK_REL(it.calls[0].overhead_s, 7e-6 + NCCL_ALLGATHER_2NODES_S, 1e-12);
    CHECK_REL(it.calls[0].bytes.payload_bytes, plan.total_bytes, 1e-12);
    /* 4 payloads (its own too) x 6 tensors (2 weights, 4 BN vectors) x 100 us */
    CHECK(st[2].cls == GCSIM_CODEC_DECODE);
    CHECK_REL(st[2].codec_s, 4 * 6 * 100e-6, 1e-12);
    CHECK(it.buckets[0].n_deferred == 0);
    gcsim_iteration_free(&it);
    gcsim_payload_plan_free(&plan);
    /* DGC: its sizes vary, a blocking all-gather of 8 bytes first; N-1 decodes */
    if (build("dgc:ratio=0.01", GCSIM_EXCHANGE_AUTO, 4, &it, &plan, &ss))
    {
        check_failures++;
        return;
    }
    CHECK(it.n_calls == 2 && it.calls[0].blocking && !it.calls[1].blocking);
    CHECK_REL(it.calls[0].bytes.payload_bytes, 8, 0);
    CHECK(it.calls[0].collective == COLLECTIVE_ALLGATHER);
    CHECK_REL(it.steps[it.buckets[0].n_steps - 1].codec_s, 3 * lin_v100_s(elems), 1e-12);
    gcsim_iteration_free(&it);
    gcsim_payload_plan_free(&plan);
    /* one GPU exchanges nothing: no codec, no call cost */
    if (build("topk:ratio=0.01", GCSIM_EXCHANGE_AUTO, 1, &it, &plan, &ss))
    {
        check_failures++;
        return;
    }
    CHECK(it.n_calls == 1 && it.calls[0].overhead_s == 0 && it.buckets[0].n_steps == 1);
    gcsim_iteration_free(&it);
    gcsim_payload_plan_free(&plan);
}

/* PyTorch's PowerSGD hook, rank 1: A (64 x 64) and B (128 x 64) are factored ((rows + cols)
 * x 2 < rows cols), the 384 BN elements are not: all-reduces of 1,536 B uncompressed, then
 * P = (64 + 128) x 4 = 768 B, then Q = (64 + 64) x 4 = 512 B. */
static void test_powersgd_hook(void)
{
    gcsim_iteration it;
    gcsim_payload_plan plan;
    gcsim_stack_setup ss;
    if (build("powersgd:rank=1", GCSIM_EXCHANGE_AUTO, 4, &it, &plan, &ss))
    {
        check_failures++;
        return;
    }
    CHECK(ss.cs.exchange.exchange == GCSIM_EXCHANGE_ALLREDUCE);
    CHECK(it.n_calls == 3 && it.buckets[0].n_steps == 7);
    CHECK_REL(it.calls[0].bytes.payload_bytes, 1536, 0);
    CHECK_REL(it.calls[1].bytes.payload_bytes, 768, 0);
    CHECK_REL(it.calls[2].bytes.payload_bytes, 512, 0);
    const gcsim_step *st = &it.steps[0];
    /* encode: the law on each factored matrix; unpack: per vector (4 BN vectors, 100 us);
     * between: half of it; decode: the bucket at twice the GPU work, plus the host sync */
    CHECK_REL(st[0].codec_s, lin_v100_s(4096) + lin_v100_s(8192), 1e-12);
    CHECK_REL(st[2].codec_s, 4 * 100e-6, 1e-12);
    CHECK_REL(st[4].codec_s, 0.5 * (lin_v100_s(4096) + lin_v100_s(8192)), 1e-12);
    double elems = 4096 + 128 + 8192 + 256;
    double dec_us = 10 + 2 * (0.01 * (elems - 1000)) * 3350.0 / 900.0;
    CHECK_REL(st[6].codec_s, fmax(20, dec_us) * 1e-6 + 3e-6, 1e-12);
    gcsim_iteration_free(&it);
    gcsim_payload_plan_free(&plan);
    /* the hook's factors are all-reduced: an all-gather of them is refused */
    gcsim_error err;
    gcsim_payload_plan p2;
    CHECK(gcsim_payload_plan_build("powersgd:rank=1", &model, &p2, &err) == 0);
    CHECK(gcsim_stack_setup_init(&ss, &platform, stack, p2.spec, GCSIM_EXCHANGE_ALLGATHER, NULL,
                                 &err) != 0);
    CHECK_STR_CONTAINS(err.message, "runs PowerSGD as all-reduces");
    gcsim_payload_plan_free(&p2);
    /* a compressor the stack refuses, with its reason */
    CHECK(gcsim_payload_plan_build("orq", &model, &p2, &err) == 0);
    CHECK(gcsim_stack_setup_init(&ss, &platform, stack, p2.spec, GCSIM_EXCHANGE_AUTO, NULL,
                                 &err) != 0);
    CHECK_STR_CONTAINS(err.message, "stack t cannot run orq: no measurement");
    gcsim_payload_plan_free(&p2);
}

/* test_stack_json as a tensor-group stack: the given granularity (unit tensor), decodes
 * deferred, a 128-byte readiness agreement; 0 or -1. */
static int tensor_stack_of(const char *granularity, gcsim_stack *out)
{
    size_t cap = strlen(test_stack_json) + 512;
    char *json = malloc(cap);
    gcsim_error err;
    if (!json)
        return -1;
    snprintf(json, cap, "%s", test_stack_json);
    char *g = strstr(json, "\"granularity\"");
    char *end = strchr(g, '}');
    char repl[320];
    snprintf(repl, sizeof repl, "\"granularity\": {\"unit\": \"tensor\", %s, \"source\": \"s\"}, "
             "\"deferred_decode\": true", granularity);
    memmove(g + strlen(repl), end + 1, strlen(end + 1) + 1);
    memcpy(g, repl, strlen(repl));
    const char *costs = "\"sync\": \"3us\",";
    char *c = strstr(json, costs);
    const char *add = " \"negotiation_bytes\": 128,";
    memmove(c + strlen(costs) + strlen(add), c + strlen(costs), strlen(c + strlen(costs)) + 1);
    memcpy(c + strlen(costs), add, strlen(add));
    int rc = gcsim_stack_parse(json, "tensor-test", out, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.message);
    free(json);
    return rc;
}

/* Horovod-like tensor groups: layer B (the last, backward 15 ms) is ready at 25 ms, A at
 * 30 ms (forward 10 ms). With a 4 ms cycle they fall in cycles 6 and 7: two groups; with a
 * 11 ms one in cycles 2 and 2: one group. Decodes are deferred to the optimizer step.
 * With a readiness agreement of 128 B, DGC's one group (11 ms cycle) is three calls: the
 * blocking size exchange, a request of its own, waits half a cycle (5.5 ms) besides the
 * call's 7 us (and NCCL's latency); the group's agreement waits once; its all-gather,
 * issued in the same cycle, only pays the call (and NCCL's latency). */
static void test_tensor_groups(void)
{
    gcsim_stack *tensor_stack = malloc(sizeof *tensor_stack);
    for (int k = 0; k < 2; k++) {
        const char *cycle = k == 0 ? "4ms" : "11ms";
        char granularity[96];
        snprintf(granularity, sizeof granularity, "\"fusion_bytes\": \"64MiB\", \"cycle\": \"%s\"",
                 cycle);
        if (tensor_stack_of(granularity, tensor_stack)) {
            check_failures++;
            break;
        }
        gcsim_stack *saved = stack;
        stack = tensor_stack;
        gcsim_iteration it;
        gcsim_payload_plan plan;
        gcsim_stack_setup ss;
        if (build("topk:ratio=0.01", GCSIM_EXCHANGE_AUTO, 4, &it, &plan, &ss) == 0) {
            CHECK(it.n_buckets == (k == 0 ? 2 : 1));
            CHECK(it.buckets[0].last_layer == 1);
            CHECK(it.buckets[it.n_buckets - 1].first_layer == 0);
            for (int b = 0; b < it.n_buckets; b++)
                CHECK(it.buckets[b].n_deferred == 1 &&
                      it.steps[it.buckets[b].first_step + it.buckets[b].n_steps - 1].cls ==
                          GCSIM_CODEC_DECODE);
            gcsim_iteration_free(&it);
            gcsim_payload_plan_free(&plan);
        } else {
            check_failures++;
        }
        /* uncompressed, a 4 ms cycle: forward 10 ms, backward's 20 ms ready B at 25 ms
         * (cycle 6) and A at 30 ms (cycle 7): two groups, ONE fused collective each, no readiness
         * all-reduce of their own; each released half a cycle (2 ms) + ceil(log2 4) = 2 NIC
         * latencies (1 us) after its group is ready, the call itself costing 7 us + NCCL's */
        if (k == 0 && build("none", GCSIM_EXCHANGE_AUTO, 4, &it, &plan, &ss) == 0) {
            CHECK(it.n_buckets == 2 && it.n_calls == 2);
            for (int c = 0; c < it.n_calls; c++) {
                CHECK(it.calls[c].bucket == c && !it.calls[c].blocking);
                CHECK_REL(it.calls[c].release_s, 2e-3 + 2e-6, 1e-12);
                CHECK(it.calls[c].overhead_s > 7e-6 && it.calls[c].overhead_s < 7e-6 + 1e-4);
            }
            CHECK_REL(it.calls[0].bytes.dense_bytes, 4.0 * (8192 + 256), 1e-12);
            CHECK_REL(it.calls[1].bytes.dense_bytes, 4.0 * (4096 + 128), 1e-12);
            gcsim_iteration_free(&it);
            gcsim_payload_plan_free(&plan);
        } else if (k == 0) {
            check_failures++;
        }
        if (k == 1 && build("dgc:ratio=0.01", GCSIM_EXCHANGE_AUTO, 4, &it, &plan, &ss) == 0) {
            /* the size exchange, in the hook: its cycle waited on the spot (half of 11 ms);
             * then the group's all-gather, released at its cycle + the readiness agreement
             * on the controller (ceil(log2 4) = 2 hops of the NIC's 1 us), no NCCL call of
             * its own (issue 43: it was a 128-byte all-reduce on the stream) */
            CHECK(it.n_buckets == 1 && it.n_calls == 2);
            CHECK(it.calls[0].blocking && it.calls[0].bytes.payload_bytes == 8);
            CHECK_REL(it.calls[0].overhead_s, 7e-6 + 5.5e-3 + NCCL_ALLGATHER_2NODES_S, 1e-12);
            CHECK(it.calls[0].release_s == 0);
            CHECK(!it.calls[1].blocking && it.calls[1].collective == COLLECTIVE_ALLGATHER);
            CHECK_REL(it.calls[1].overhead_s, 7e-6 + NCCL_ALLGATHER_2NODES_S, 1e-12);
            CHECK_REL(it.calls[1].release_s, 5.5e-3 + 2e-6, 1e-12);
            gcsim_iteration_free(&it);
            gcsim_payload_plan_free(&plan);
        } else if (k == 1) {
            check_failures++;
        }
        stack = saved;
    }
    free(tensor_stack);
}

/* "wait_for_data": "thread" (Horovod <= 0.22, gcsim_stack_fuses_ahead): the groups are cut
 * by the fusion threshold alone, whatever the cycle, and released when ready. Forward
 * 10 ms; backward's 20 ms ready B (33,792 B of fp32 gradient) at 25 ms and A (16,896 B)
 * at 30 ms.
 *   - 4 ms cycle, 64 MiB: B and A fall in cycles 6 and 7 (two groups under "stream",
 *     test_tensor_groups), but one group here: 50,688 B, no release; its one call starts
 *     when A is ready, so with a 3 ms call the iteration is 30 + 3 = 33 ms.
 *   - 11 ms cycle (one cycle for both), 50,000 B: B alone is 33,792 B, B + A 50,688 B would
 *     pass the threshold, so A starts a second group (FuseResponses adds a tensor only
 *     while the sum stays within it): two groups of 33,792 and 16,896 B, no release.
 *   - DGC (a blocking size exchange in the hook: the host waits for the GPU), 4 ms cycle,
 *     64 MiB: the cycle's groups as under "stream", two, each all-gather released half a
 *     cycle (2 ms) + ceil(log2 4) = 2 NIC hops (1 us each) after its group is ready. */
static void test_thread_wait_groups(void)
{
    static const char *const grans[3] = {
        "\"fusion_bytes\": \"64MiB\", \"cycle\": \"4ms\", \"wait_for_data\": \"thread\"",
        "\"fusion_bytes\": \"50000B\", \"cycle\": \"11ms\", \"wait_for_data\": \"thread\"",
        "\"fusion_bytes\": \"64MiB\", \"cycle\": \"4ms\", \"wait_for_data\": \"thread\""};
    static const char *const specs[3] = {"none", "none", "dgc:ratio=0.01"};
    gcsim_stack *tensor_stack = malloc(sizeof *tensor_stack);
    for (int k = 0; k < 3 && tensor_stack; k++) {
        if (tensor_stack_of(grans[k], tensor_stack)) {
            check_failures++;
            continue;
        }
        CHECK(tensor_stack->wait_on_thread);
        gcsim_stack *saved = stack;
        stack = tensor_stack;
        gcsim_iteration it;
        gcsim_payload_plan plan;
        gcsim_stack_setup ss;
        if (build(specs[k], GCSIM_EXCHANGE_AUTO, 4, &it, &plan, &ss)) {
            check_failures++;
            stack = saved;
            continue;
        }
        if (k == 0) {
            /* an encode that waits for the GPU in the hook ("host_sync") keeps the host in
             * step: its groups stay per cycle; an uncompressed group is not affected */
            gcsim_stack_entry e;
            memset(&e, 0, sizeof e);
            CHECK(gcsim_stack_fuses_ahead(tensor_stack, &e, true, false));
            e.host_sync = true;
            CHECK(!gcsim_stack_fuses_ahead(tensor_stack, &e, true, false));
            CHECK(gcsim_stack_fuses_ahead(tensor_stack, &e, false, false));
            CHECK(it.n_buckets == 1 && it.n_calls == 1);
            CHECK(it.buckets[0].last_layer == 1 && it.buckets[0].first_layer == 0);
            CHECK_REL(it.calls[0].bytes.dense_bytes, 4.0 * (8192 + 256 + 4096 + 128), 1e-12);
            CHECK(it.calls[0].release_s == 0);
            double call_s[1] = {3e-3};
            gcsim_timeline t;
            gcsim_error err;
            if (gcsim_timeline_run(&it, call_s, NULL, &t, &err) == 0) {
                CHECK_REL(t.iteration_s, 33e-3, 1e-9);
                CHECK_REL(t.comm_s, 3e-3, 1e-12);
            } else {
                fprintf(stderr, "%s\n", err.message);
                check_failures++;
            }
        } else if (k == 1) {
            CHECK(it.n_buckets == 2 && it.n_calls == 2);
            CHECK(it.buckets[0].first_layer == 1 && it.buckets[0].last_layer == 1);
            CHECK(it.buckets[1].first_layer == 0 && it.buckets[1].last_layer == 0);
            CHECK_REL(it.calls[0].bytes.dense_bytes, 4.0 * (8192 + 256), 1e-12);
            CHECK_REL(it.calls[1].bytes.dense_bytes, 4.0 * (4096 + 128), 1e-12);
            CHECK(it.calls[0].release_s == 0 && it.calls[1].release_s == 0);
        } else {
            CHECK(it.n_buckets == 2);
            int gathers = 0;
            for (int c = 0; c < it.n_calls; c++)
                if (!it.calls[c].blocking) {
                    gathers++;
                    CHECK_REL(it.calls[c].release_s, 2e-3 + 2e-6, 1e-12);
                }
            CHECK(gathers == 2);
        }
        gcsim_iteration_free(&it);
        gcsim_payload_plan_free(&plan);
        stack = saved;
    }
    free(tensor_stack);
}

/* ---- the host model and a batched decode of gathered payloads (issue 43) ---- */

/* The test stack with `extra` (top-level keys, each followed by a comma) before its laws and
 * a signsgd entry (a quantized payload) decoded per payload with "lin"; NULL on failure. */
static gcsim_stack *variant(const char *extra)
{
    const char *at = " \"laws\": {";
    const char *sign = "  \"signsgd\": {\"exchange\": \"allgather\", \"encode\": [{\"law\": \"lin\","
                       " \"per\": \"unit\"}], \"decode\": [{\"law\": \"lin\", \"per\": \"unit\","
                       " \"payloads\": true}], \"source\": \"s\"},";
    const char *comps = " \"compressors\": {";
    size_t size = strlen(test_stack_json) + strlen(extra) + strlen(sign) + 16;
    char *json = malloc(size);
    gcsim_stack *st = malloc(sizeof *st);
    const char *l = strstr(test_stack_json, at), *c = strstr(test_stack_json, comps);
    snprintf(json, size, "%.*s%s%.*s%s%s", (int)(l - test_stack_json), test_stack_json, extra,
             (int)(c - l) + (int)strlen(comps), l, sign, c + strlen(comps));
    gcsim_error err;
    if (gcsim_stack_parse(json, "variant", st, &err)) {
        fprintf(stderr, "%s\n", err.message);
        free(st);
        st = NULL;
    }
    free(json);
    return st;
}

/* The law "lin" on a v100, its GPU part alone (no host floor). */
static double lin_v100_gpu_s(double n)
{
    return (10 + 0.01 * (n - 1000) * 3350.0 / 900.0) * 1e-6;
}

static void test_graph_host(void)
{
    gcsim_stack *g = variant("\"host\": {\"framework\": \"graph\", \"op_us\": 2, \"source\": \"s\"},");
    if (!g) {
        check_failures++;
        return;
    }
    const gcsim_gpu_params *h100;
    gcsim_error err;
    CHECK(gcsim_gpu_params_find("h100", &h100, &err) == 0);
    CHECK(g->graph_host && g->graph_op_host_s == 2e-6);
    /* "lin": its host part 2 us, under the GPU's 10 us floor (eager: 20 us) */
    CHECK_REL(gcsim_stack_law_s(g, &g->laws[0], 500, NULL, 1, 1, h100), 10e-6, 1e-12);
    CHECK_REL(gcsim_stack_law_s(stack, &stack->laws[0], 500, NULL, 1, 1, h100), 20e-6, 1e-12);
    /* "host": 100 us of Python per call eager, 2 us as a graph (GPU 1 us) */
    CHECK_REL(gcsim_stack_law_s(g, &g->laws[1], 500, NULL, 1, 1, h100), 2e-6, 1e-12);
    gcsim_stack *saved = stack;
    stack = g;
    gcsim_iteration it;
    gcsim_payload_plan plan;
    gcsim_stack_setup ss;
    if (build("topk:ratio=0.01", GCSIM_EXCHANGE_AUTO, 4, &it, &plan, &ss) == 0) {
        /* 4 payloads x 6 tensors x max(2 us, GPU 1 us): 48 us, eager 2,400 us */
        CHECK_REL(it.steps[2].codec_s, 4 * 6 * 2e-6, 1e-12);
        CHECK(strstr(ss.description, "host time 2 us per op (a graph-executed framework") != NULL);
        gcsim_iteration_free(&it);
        gcsim_payload_plan_free(&plan);
    } else {
        check_failures++;
    }
    stack = saved;
    free(g);
}

/* "hook_host": {"runs": "queued"} (stack_hook.c): an encode in the hook is charged its GPU
 * part, and its host part only where it exceeds the backward queued ahead of it. */
static void test_hook_host(void)
{
    gcsim_stack *q = variant("\"hook_host\": {\"runs\": \"queued\", \"source\": \"s\"},");
    if (!q) {
        check_failures++;
        return;
    }
    CHECK(q->hook_host_queued && !stack->hook_host_queued);
    const gcsim_stack_entry *topk = NULL, *dgc = NULL;
    gcsim_error err;
    CHECK(gcsim_stack_entry_for(q, "topk:ratio=0.01", &topk, &err) == 0);
    CHECK(gcsim_stack_entry_for(q, "dgc:ratio=0.001", &dgc, &err) == 0);
    if (topk && dgc) {
        /* 100 us priced (host-bound), 2 us of GPU: 1 ms of backward queued hides the host
         * part (2 us charged); 30 us queued leaves 70 us of it; none queued, all 100 */
        CHECK_REL(gcsim_stack_hook_encode_s(q, topk, 100e-6, 2e-6, 1e-3), 2e-6, 1e-12);
        CHECK_REL(gcsim_stack_hook_encode_s(q, topk, 100e-6, 2e-6, 30e-6), 70e-6, 1e-12);
        CHECK_REL(gcsim_stack_hook_encode_s(q, topk, 100e-6, 2e-6, 0), 100e-6, 1e-12);
        /* GPU-bound (priced = GPU part): unchanged */
        CHECK_REL(gcsim_stack_hook_encode_s(q, topk, 50e-6, 50e-6, 1e-3), 50e-6, 1e-12);
        /* DGC's entry all-gathers its sizes in the hook (a host wait): serial */
        CHECK_REL(gcsim_stack_hook_encode_s(q, dgc, 100e-6, 2e-6, 1e-3), 100e-6, 1e-12);
        /* a stack without "hook_host": serial */
        CHECK_REL(gcsim_stack_hook_encode_s(stack, topk, 100e-6, 2e-6, 1e-3), 100e-6, 1e-12);
    }
    /* "host_sync": the encode reads the GPU on the host in the hook (GRACE's and MergeComp's
     * 1-bit: a boolean-mask index, `if num0 > 0`), so nothing queued hides its host part:
     * the same 100 us priced / 2 us of GPU with 1 ms queued is charged 100 us, not 2 */
    {
        const char *from = "\"decode_own\": true, \"source\": \"s\"}";
        const char *to = "\"decode_own\": true, \"host_sync\": true, \"source\": \"s\"}";
        const char *hook = "\"hook_host\": {\"runs\": \"queued\", \"source\": \"s\"}, ";
        const char *laws = strstr(test_stack_json, "\"laws\": {");
        const char *at = strstr(test_stack_json, from);
        char json[8192];
        snprintf(json, sizeof json, "%.*s%s%.*s%s%s", (int)(laws - test_stack_json),
                 test_stack_json, hook, (int)(at - laws), laws, to, at + strlen(from));
        gcsim_stack *hs = malloc(sizeof *hs);
        const gcsim_stack_entry *synced = NULL;
        if (gcsim_stack_parse(json, "host-sync", hs, &err) == 0 &&
            gcsim_stack_entry_for(hs, "topk:ratio=0.01", &synced, &err) == 0) {
            CHECK(synced->host_sync && hs->hook_host_queued);
            CHECK_REL(gcsim_stack_hook_encode_s(hs, synced, 100e-6, 2e-6, 1e-3), 100e-6, 1e-12);
            CHECK_REL(gcsim_stack_hook_encode_s(hs, synced, 100e-6, 2e-6, 0), 100e-6, 1e-12);
            /* GPU-bound: the GPU part, as without the mark */
            CHECK_REL(gcsim_stack_hook_encode_s(hs, synced, 50e-6, 50e-6, 1e-3), 50e-6, 1e-12);
        } else {
            fprintf(stderr, "%s\n", err.message);
            check_failures++;
        }
        free(hs);
        /* the entry without the mark, in the same stack: hidden (2 us), as above */
        CHECK(topk && !topk->host_sync);
    }
    /* "lin" at 1,000 elements on the h100: host 20 us, GPU 10 us; GPU part alone 10 us */
    const gcsim_gpu_params *h100;
    CHECK(gcsim_gpu_params_find("h100", &h100, &err) == 0);
    CHECK_REL(gcsim_stack_law_s(q, &q->laws[0], 1000, NULL, 1, 1, h100), 20e-6, 1e-12);
    CHECK_REL(gcsim_stack_law_gpu_s(q, &q->laws[0], 1000, NULL, 1, 1, h100), 10e-6, 1e-12);
    /* in a program: top-k's encode ("lin" on the whole bucket, 12,672 elements) is GPU-bound
     * on the v100, so queued or serial it costs the same */
    gcsim_stack *saved = stack;
    stack = q;
    gcsim_iteration it;
    gcsim_payload_plan plan;
    gcsim_stack_setup ss;
    if (build("topk:ratio=0.01", GCSIM_EXCHANGE_AUTO, 4, &it, &plan, &ss) == 0) {
        CHECK_REL(it.steps[0].codec_s, lin_v100_s(4096 + 128 + 8192 + 256), 1e-12);
        gcsim_iteration_free(&it);
        gcsim_payload_plan_free(&plan);
    } else {
        check_failures++;
    }
    stack = saved;
    free(q);
    /* a host-bound encode: top-k's encode as the "host" law per tensor (100 us of host,
     * about 1 us of GPU each); the bucket (both layers) has 20 ms of backward queued */
    const char *from = "\"encode\": [{\"law\": \"lin\", \"per\": \"unit\"}]";
    const char *to = "\"encode\": [{\"law\": \"host\", \"per\": \"tensor\"}]";
    const char *hook = "\"hook_host\": {\"runs\": \"queued\", \"source\": \"s\"}, ";
    const char *at = strstr(test_stack_json, from), *laws = strstr(test_stack_json, "\"laws\": {");
    char json[8192];
    snprintf(json, sizeof json, "%.*s%s%.*s%s%s", (int)(laws - test_stack_json), test_stack_json,
             hook, (int)(at - laws), laws, to, at + strlen(from));
    gcsim_stack *h = malloc(sizeof *h);
    if (gcsim_stack_parse(json, "host-encode", h, &err)) {
        fprintf(stderr, "%s\n", err.message);
        check_failures++;
        free(h);
        return;
    }
    stack = h;
    /* GPU parts on the v100: 4 tensors under 1,000 elements at the 1 us floor; A's 4,096 and
     * B's 8,192 weights 1 us + the part above it x 3350/900 (as test_batched_decode) */
    double gpu_us = 4 * 1.0 + (1 + 3096.0 / 99000 * 3350 / 900) +
                    (1 + 7192.0 / 99000 * 3350 / 900);
    if (build("topk:ratio=0.01", GCSIM_EXCHANGE_AUTO, 4, &it, &plan, &ss) == 0) {
        CHECK(it.buckets[0].backward_s > 6 * 100e-6);
        CHECK_REL(it.steps[0].codec_s, gpu_us * 1e-6, 1e-9); /* serial: 6 x 100 us */
        CHECK(strstr(ss.description, "host time charged only beyond the backward") != NULL);
        gcsim_iteration_free(&it);
        gcsim_payload_plan_free(&plan);
    } else {
        check_failures++;
    }
    h->hook_host_queued = false; /* the same stack, serial: 6 calls of 100 us */
    if (build("topk:ratio=0.01", GCSIM_EXCHANGE_AUTO, 4, &it, &plan, &ss) == 0) {
        CHECK_REL(it.steps[0].codec_s, 6 * 100e-6, 1e-12);
        gcsim_iteration_free(&it);
        gcsim_payload_plan_free(&plan);
    } else {
        check_failures++;
    }
    stack = saved;
    free(h);
}

static void test_batched_decode(void)
{
    gcsim_stack *b = variant("\"gathered_decode\": \"batched\",");
    if (!b) {
        check_failures++;
        return;
    }
    CHECK(b->batched_decode && !b->graph_host);
    gcsim_stack *saved = stack;
    stack = b;
    gcsim_iteration it;
    gcsim_payload_plan plan;
    gcsim_stack_setup ss;
    double elems = 4096 + 128 + 8192 + 256;
    /* quantized (sign), 3 payloads of the bucket: one call (host 20 us or GPU, the larger)
     * + 2 more payloads' GPU work; looped it was 3 calls */
    if (build("signsgd", GCSIM_EXCHANGE_AUTO, 4, &it, &plan, &ss) == 0) {
        double dec = it.steps[it.buckets[0].n_steps - 1].codec_s;
        CHECK_REL(dec, lin_v100_s(elems) + 2 * lin_v100_gpu_s(elems), 1e-12);
        /* "lin" is GPU-bound at this size: batching saves the host part only, nothing here */
        CHECK_REL(dec, 3 * lin_v100_s(elems), 1e-12);
        CHECK(strstr(ss.description, "decoded in one batched pass") != NULL);
        gcsim_iteration_free(&it);
        gcsim_payload_plan_free(&plan);
    } else {
        check_failures++;
    }
    /* sparse (top-k, its own payload decoded too: 4): per tensor one call of "host" (100 us)
     * + 3 payloads x the payload's share of the dense bytes x its GPU part (1 us below
     * 1,000 elements; at n > 1,000: 1 + (n - 1000) / 99000 us on the h100, the part above
     * 1 us x 3350/900 on the v100) */
    if (build("topk:ratio=0.01", GCSIM_EXCHANGE_AUTO, 4, &it, &plan, &ss) == 0) {
        double share = it.buckets[0].bytes.payload_bytes / it.buckets[0].bytes.dense_bytes;
        double gpu_us = 4 * 1.0 + (1 + 3096.0 / 99000 * 3350 / 900) +
                        (1 + 7192.0 / 99000 * 3350 / 900);
        CHECK(share > 0 && share < 0.05);
        CHECK_REL(it.steps[2].codec_s, 6 * 100e-6 + 3 * share * gpu_us * 1e-6, 1e-12);
        gcsim_iteration_free(&it);
        gcsim_payload_plan_free(&plan);
    } else {
        check_failures++;
    }
    stack = saved;
    free(b);
}

/* The test stack with one string replaced, parsed (NULL on a parse error). */
static gcsim_stack *replaced(const char *from, const char *to)
{
    const char *at = strstr(test_stack_json, from);
    if (!at)
        return NULL;
    size_t size = strlen(test_stack_json) + strlen(to) + 1;
    char *json = malloc(size);
    snprintf(json, size, "%.*s%s%s", (int)(at - test_stack_json), test_stack_json, to,
             at + strlen(from));
    gcsim_stack *st = malloc(sizeof *st);
    gcsim_error err;
    if (gcsim_stack_parse(json, "replaced", st, &err)) {
        fprintf(stderr, "%s\n", err.message);
        free(st);
        st = NULL;
    }
    free(json);
    return st;
}

/* Ops per weight tensor (dim > 1) and per 1-D tensor, as DGC's code splits them
 * (train.py: param.dim() > 1 sparsified, the rest all-reduced dense): top-k's encode
 * "lin" on A's 4,096 and B's 8,192 weights only (not the 4 BN vectors, which "tensor"
 * would add at 20 us each), its decode "host" on the 4 BN vectors only (4 x 100 us; not
 * per payload, "tensor" would make it 6 x 100). */
static void test_weight_and_1d_ops(void)
{
    gcsim_stack *w = replaced(
        "\"encode\": [{\"law\": \"lin\", \"per\": \"unit\"}],"
        "            \"decode\": [{\"law\": \"host\", \"per\": \"tensor\", \"payloads\": true}]",
        "\"encode\": [{\"law\": \"lin\", \"per\": \"weight\"}],"
        "            \"decode\": [{\"law\": \"host\", \"per\": \"1d\"}]");
    if (!w) {
        check_failures++;
        return;
    }
    gcsim_stack *saved = stack;
    stack = w;
    gcsim_iteration it;
    gcsim_payload_plan plan;
    gcsim_stack_setup ss;
    if (build("topk:ratio=0.01", GCSIM_EXCHANGE_AUTO, 4, &it, &plan, &ss) == 0) {
        const gcsim_step *st = &it.steps[0];
        CHECK(it.buckets[0].n_steps == 3 && st[0].cls == GCSIM_CODEC_ENCODE &&
              st[2].cls == GCSIM_CODEC_DECODE);
        CHECK_REL(st[0].codec_s, lin_v100_s(4096) + lin_v100_s(8192), 1e-12);
        CHECK_REL(st[2].codec_s, 4 * 100e-6, 1e-12);
        gcsim_iteration_free(&it);
        gcsim_payload_plan_free(&plan);
    } else {
        check_failures++;
    }
    stack = saved;
    free(w);
}

/* ---- the timeline, on programs written by hand ---- */

/* Two buckets, each one call of call_ms released release_ms after the bucket is ready:
 * forward 2 ms, bucket 0 ready at 6 ms, bucket 1 at 10 ms. */
static double run_released(double call_ms, double release_ms)
{
    gcsim_bucket buckets[2] = {{.backward_s = 4e-3, .first_step = 0, .n_steps = 1,
                                .ready_block = 1},
                               {.backward_s = 4e-3, .first_step = 1, .n_steps = 1,
                                .ready_block = 2}};
    gcsim_call calls[2] = {{.collective = COLLECTIVE_RING, .bucket = 0,
                            .release_s = release_ms * 1e-3},
                           {.collective = COLLECTIVE_RING, .bucket = 1,
                            .release_s = release_ms * 1e-3}};
    gcsim_step steps[2] = {{.kind = GCSIM_STEP_CALL, .call = 0},
                           {.kind = GCSIM_STEP_CALL, .call = 1}};
    gcsim_block blocks[3] = {{.seconds = 2e-3, .gate = -1}, {.seconds = 4e-3, .gate = -1},
                             {.seconds = 4e-3, .gate = -1}};
    gcsim_iteration it = {.compute_s = 10e-3, .forward_s = 2e-3, .n_buckets = 2,
                          .buckets = buckets, .overlap = true, .n_steps = 2, .n_calls = 2,
                          .steps = steps, .calls = calls, .n_blocks = 3, .blocks = blocks};
    double call_s[2] = {call_ms * 1e-3, call_ms * 1e-3};
    gcsim_timeline t;
    gcsim_error err;
    if (gcsim_timeline_run(&it, call_s, NULL, &t, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    CHECK_REL(t.comm_s, 2 * call_ms * 1e-3, 1e-12); /* the wait is not communication */
    return t.iteration_s;
}

/* A release is a moment, not a cost (Horovod's cycle, program_stack.c): with an idle
 * stream the call waits for it; behind a busy one the wait is already over. */
static void test_release(void)
{
    /* 3 ms calls: 6 + 1 -> 7-10; 10 + 1 -> 11-14 */
    CHECK_REL(run_released(3, 1), 14e-3, 1e-12);
    /* 5 ms calls: 7-12; bucket 1 released at 11, the stream free at 12: 12-17, where an
     * overhead of 1 ms would have given 18 */
    CHECK_REL(run_released(5, 1), 17e-3, 1e-12);
    /* no release: 6-11, 11-16 */
    CHECK_REL(run_released(5, 0), 16e-3, 1e-12);
}

static double run_timeline(bool blocking, bool deferred, gcsim_timeline *out)
{
    /* forward 2 ms; two buckets of 4 ms backward each */
    gcsim_bucket buckets[2] = {{.backward_s = 4e-3}, {.backward_s = 4e-3}};
    gcsim_call calls[2] = {{.collective = COLLECTIVE_RING, .blocking = blocking},
                           {.collective = COLLECTIVE_RING}};
    gcsim_step steps[8];
    int n = 0;
    /* bucket 0: encode 2 ms, call 1 ms [, decode 3 ms deferred] */
    buckets[0].first_step = n;
    steps[n++] = (gcsim_step){.kind = GCSIM_STEP_CODEC, .cls = GCSIM_CODEC_ENCODE, .codec_s = 2e-3};
    steps[n++] = (gcsim_step){.kind = GCSIM_STEP_CALL, .call = 0};
    if (deferred)
        steps[n++] = (gcsim_step){.kind = GCSIM_STEP_CODEC, .cls = GCSIM_CODEC_DECODE, .codec_s = 3e-3};
    buckets[0].n_steps = n;
    buckets[0].n_deferred = deferred;
    /* bucket 1: [encode 2 ms,] call 1 ms [, decode 1 ms deferred] */
    buckets[1].first_step = n;
    if (!deferred)
        steps[n++] = (gcsim_step){.kind = GCSIM_STEP_CODEC, .cls = GCSIM_CODEC_ENCODE, .codec_s = 2e-3};
    steps[n++] = (gcsim_step){.kind = GCSIM_STEP_CALL, .call = 1};
    if (deferred)
        steps[n++] = (gcsim_step){.kind = GCSIM_STEP_CODEC, .cls = GCSIM_CODEC_DECODE, .codec_s = 1e-3};
    buckets[1].n_steps = n - buckets[1].first_step;
    buckets[1].n_deferred = deferred;
    gcsim_block blocks[3] = {{.seconds = 2e-3, .gate = -1}, {.seconds = 4e-3, .gate = -1},
                             {.seconds = 4e-3, .gate = -1}};
    buckets[0].ready_block = 1;
    buckets[1].ready_block = 2;
    gcsim_iteration it = {.compute_s = 10e-3, .forward_s = 2e-3, .n_buckets = 2,
                          .buckets = buckets, .overlap = true, .n_steps = n, .n_calls = 2,
                          .steps = steps, .calls = calls, .n_blocks = 3, .blocks = blocks};
    double call_s[2] = {1e-3, 1e-3};
    gcsim_error err;
    if (gcsim_timeline_run(&it, call_s, NULL, out, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    return out->iteration_s;
}

static void test_timeline(void)
{
    gcsim_timeline t;
    /* forward 0-2, backward 0 2-6; at 6 encode 0 and backward 1 share the GPU: encode ends
     * at 10 (2 ms at half speed), backward 1 has 2 ms left, done alone at 12; call 0 10-11;
     * bucket 1 ready at 12: encode 12-14, call 14-15 */
    CHECK_REL(run_timeline(false, false, &t), 15e-3, 1e-12);
    CHECK_REL(t.compute_end_s, 12e-3, 1e-12);
    CHECK_REL(t.encode_s, 4e-3, 1e-12);
    CHECK_REL(t.comm_s, 2e-3, 1e-12);
    /* call 0 blocks backward 10-11: backward 1 ends at 13, then 13-15 encode, 15-16 call */
    CHECK_REL(run_timeline(true, false, &t), 16e-3, 1e-12);
    CHECK_REL(t.compute_end_s, 13e-3, 1e-12);
    /* deferred decodes: backward done at 12 (shared with encode 0 as above); call 0 10-11,
     * call 1 12-13; the step actor decodes bucket 0 from 12 (alone: 12-15), then bucket 1
     * 15-16 */
    CHECK_REL(run_timeline(false, true, &t), 16e-3, 1e-12);
    CHECK_REL(t.decode_s, 4e-3, 1e-12);
}

/* ---- strict reading ---- */

static void expect_bad(const char *from, const char *to, const char *message)
{
    char *json = malloc(strlen(test_stack_json) + 512);
    const char *at = strstr(test_stack_json, from);
    if (!at) {
        fprintf(stderr, "test bug: \"%s\" not in the test stack\n", from);
        check_failures++;
        free(json);
        return;
    }
    int pre = (int)(at - test_stack_json);
    snprintf(json, strlen(test_stack_json) + 512, "%.*s%s%s", pre, test_stack_json, to,
             at + strlen(from));
    gcsim_stack *s = malloc(sizeof *s);
    gcsim_error err;
    CHECK(gcsim_stack_parse(json, "bad.json", s, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "bad.json: ");
    CHECK_STR_CONTAINS(err.message, message);
    free(s);
    free(json);
}

/* ---- Horovod's all-gather through host memory and OpenMPI (issues 42, 43) ---- */

/* "allgather": "mpi-host-staged": top-k on 4 GPUs (2 machines of 2) runs its all-gather as
 * mpi-host-allgather, with the stack's call cost and no NCCL latency; after the call, a
 * deferred GPU step for the copies on the default stream: the payload to the host and the
 * 4 gathered payloads back at the platform's gpu_to_host (100 Gbps = 12.5e9 B/s), 1 us of
 * intra-node latency each: 2 us + 5 x payload / 12.5e9 (by hand). Without the key, or
 * with "nccl", the NCCL all-gather as before; bad values refused naming the path. */
static void test_staged_allgather(void)
{
    gcsim_stack *keep = stack, *st = variant(
        "\"deferred_decode\": true, \"allgather\": {\"transport\": \"mpi-host-staged\","
        " \"source\": \"s\"},");
    gcsim_iteration it;
    gcsim_payload_plan plan;
    gcsim_stack_setup ss;
    CHECK(st != NULL && keep->allgather == COLLECTIVE_ALLGATHER);
    if (!st)
        return;
    CHECK(st->allgather == COLLECTIVE_MPI_HOST_ALLGATHER);
    stack = st;
    int rc = build("topk:ratio=0.01", GCSIM_EXCHANGE_AUTO, 4, &it, &plan, &ss);
    stack = keep;
    CHECK(rc == 0);
    if (rc == 0) {
        CHECK_STR_CONTAINS(ss.cs.exchange.why, "runs it as mpi-host-allgather");
        CHECK(it.n_calls == 1 && it.calls[0].collective == COLLECTIVE_MPI_HOST_ALLGATHER);
        CHECK_REL(it.calls[0].overhead_s, 7e-6, 1e-12);
        CHECK(it.buckets[0].n_steps == 4 && it.buckets[0].n_deferred == 2);
        const gcsim_step *copy = &it.steps[2];
        CHECK(copy->kind == GCSIM_STEP_CODEC && copy->cls == GCSIM_CODEC_DECODE &&
              strcmp(copy->name, "copies on the stream") == 0);
        CHECK_REL(copy->codec_s, 2e-6 + 5 * plan.total_bytes / 12.5e9, 1e-12);
        gcsim_iteration_free(&it);
        gcsim_payload_plan_free(&plan);
    }
    free(st);
    st = variant("\"allgather\": {\"transport\": \"nccl\", \"source\": \"s\"},");
    CHECK(st != NULL && st->allgather == COLLECTIVE_ALLGATHER);
    free(st);
    expect_bad("\"codec\": \"laws\",",
               "\"codec\": \"laws\", \"allgather\": {\"transport\": \"mpi\", \"source\": \"s\"},",
               "$.allgather.transport: expected one of nccl | mpi-host-staged, got \"mpi\"");
    expect_bad("\"codec\": \"laws\",",
               "\"codec\": \"laws\", \"allgather\": {\"transport\": \"mpi-host-staged\"},",
               "$.allgather.source");
    expect_bad("\"codec\": \"laws\",",
               "\"codec\": \"laws\", \"allgather\": {\"transport\": \"nccl\", \"source\": \"\"},",
               "$.allgather.source: must say where the transport comes from");
    expect_bad("\"codec\": \"laws\",",
               "\"codec\": \"laws\", \"allgather\": {\"transport\": \"nccl\", \"source\": \"s\","
               " \"rate\": 1},",
               "rate");
    expect_bad("\"codec\": \"laws\",", "\"codec\": \"laws\", \"allgather\": \"mpi-host-staged\",",
               "$.allgather");
}

static void test_strict(void)
{
    expect_bad("\"schema\": \"gcsim-stack/1\"", "\"schema\": \"gcsim-stack/2\"",
               "$.schema: expected \"gcsim-stack/1\"");
    expect_bad("\"codec\": \"laws\",", "\"codec\": \"laws\", \"colour\": 1,", "colour");
    expect_bad("{\"law\": \"host\", \"per\": \"tensor\"", "{\"law\": \"nope\", \"per\": \"tensor\"",
               "$.compressors.topk.decode[0].law: no law \"nope\"");
    expect_bad("[1000, 100000], \"host_us\": [20, 20]", "[1000, 1000], \"host_us\": [20, 20]",
               "$.laws.lin.elements[1]: element counts must be >= 1 and increase");
    expect_bad("\"gpu\": \"h100\", \"elements\": [1000, 100000], \"host_us\": [20, 20]",
               "\"gpu\": \"tpu\", \"elements\": [1000, 100000], \"host_us\": [20, 20]",
               "$.laws.lin.gpu");
    expect_bad("\"none\": {\"exchange\": \"allreduce\", \"source\": \"s\"},", "",
               "$.compressors.none: missing");
    expect_bad("\"orq\": {\"refuse\"", "\"orqq\": {\"refuse\"", "$.compressors.orqq: not a compressor");
    expect_bad("\"refuse\": \"no measurement\", \"source\": \"s\"}",
               "\"refuse\": \"no measurement\", \"exchange\": \"allgather\", \"source\": \"s\"}",
               "a refused compressor has no exchange");
    expect_bad("\"per\": \"vector\"", "\"per\": \"layer\"", "unpack[0].per");
    expect_bad("\"decode_own\": true", "\"decode_own\": 1", "decode_own: expected true or false");
    expect_bad("\"decode_own\": true", "\"decode_own\": true, \"host_sync\": \"yes\"",
               "$.compressors.topk.host_sync: expected true or false");
    expect_bad("\"unit\": \"bucket\", \"bucket_bytes\": \"1GiB\"", "\"unit\": \"bucket\"",
               "$.granularity.bucket_bytes");
    expect_bad("\"none\": {\"exchange\": \"allreduce\"", "\"none\": {\"exchange\": \"powersgd-hook\"",
               "$.compressors.none.exchange: powersgd-hook runs PowerSGD only");
    /* a law without settings may say how it was obtained when not measured, not emptily */
    expect_bad("\"lin\": {\"gpu\": \"h100\",", "\"lin\": {\"gpu\": \"h100\", \"basis\": \"\",",
               "$.laws.lin.basis: must say how the law was obtained");
    expect_bad("\"lin\": {\"gpu\": \"h100\",", "\"lin\": {\"gpu\": \"h100\", \"basis\": 2,",
               "$.laws.lin.basis: expected a string");
    gcsim_stack *s = malloc(sizeof *s);
    gcsim_error err;
    CHECK(gcsim_stack_load("no-such-stack", s, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "stack \"no-such-stack\": no such stack in the catalog (fused, "
                                    "pytorch-ddp, horovod, horovod-tf, bagua, byteps, deepspeed)");
    /* the shipped stacks load, and every compressor of the library has an entry in each
     * (a cost or a refusal) */
    for (const char *const *name = gcsim_stack_catalog(); *name; name++) {
        if (gcsim_stack_load(*name, s, &err)) {
            fprintf(stderr, "%s\n", err.message);
            check_failures++;
            continue;
        }
        if (s->codec_model)
            continue;
        for (const char *const *c = gc_compressor_names(); *c; c++) {
            bool found = false;
            for (int k = 0; k < s->n_entries; k++)
                found = found || strcmp(s->entries[k].compressor, *c) == 0;
            if (!found)
                fprintf(stderr, "stack %s: no entry for %s\n", *name, *c);
            CHECK(found);
        }
    }
    free(s);
}

/* Whether stack s's entry for compressor c runs law `law` in its encode. */
static bool encode_runs(const gcsim_stack *s, const char *c, const char *law)
{
    for (int k = 0; k < s->n_entries; k++)
        if (strcmp(s->entries[k].compressor, c) == 0)
            for (int i = 0; i < s->entries[k].encode.n; i++)
                if (strcmp(s->laws[s->entries[k].encode.ops[i].law].name, law) == 0)
                    return true;
    return false;
}

/* One torch.randperm(n) on the GPU as docs/stacks.md derives it ("Random-k drawn with
 * torch.randperm"), by hand: bits = ceil(log2(n + (6 n^2 + 1) / (-12 ln 0.9))), int64 keys
 * above 32 bits, passes = ceil(bits / 8); bytes per element 8 (arange) + 8 (keys) + 8
 * (histogram) + 32 per pass + 8 (duplicate keys); kernels 6 + 2 x passes. At 1,048,576
 * elements: 43 bits, 6 passes, 224 B, 18 kernels; at 16,777,216: 51 bits, 7 passes, 256 B,
 * 20 kernels. Each kernel 1.017 us, bytes at copy_d2d's 8 B x 67,108,864 in 178.833 us
 * (bench/gpu/results/h100-codec.json); the law's table is rounded to 0.1 us. */
static double randperm_h100_us(double n, int kernels, double bytes)
{
    return kernels * 1.017 + bytes * n / (8.0 * 67108864 / 178.833);
}

static void test_randperm_law(const char *source_dir)
{
    gcsim_stack *s = malloc(sizeof *s);
    gcsim_error err;
    const gcsim_gpu_params *h100;
    CHECK(gcsim_gpu_params_find("h100", &h100, &err) == 0);
    CHECK(gcsim_stack_load("horovod", s, &err) == 0);
    int l = -1;
    for (int k = 0; k < s->n_laws; k++)
        if (strcmp(s->laws[k].name, "randperm.sort") == 0)
            l = k;
    CHECK(l >= 0);
    if (l < 0) {
        free(s);
        return;
    }
    const gcsim_stack_law *law = &s->laws[l];
    double small = gcsim_stack_law_s(s, law, 1048576, NULL, 1, 1, h100);
    double big = gcsim_stack_law_s(s, law, 16777216, NULL, 1, 1, h100);
    CHECK_REL(small, randperm_h100_us(1048576, 18, 224) * 1e-6, 1e-3); /* 96.55 us */
    CHECK_REL(big, randperm_h100_us(16777216, 20, 256) * 1e-6, 1e-3);  /* 1451.0 us */
    /* indexed by the tensor's elements, not by k: 16x the elements, 15x the time; the same
     * at any density */
    CHECK(big > 14 * small);
    gcsim_stack_setting sparse = {.density = 0.001}, dense = {.density = 0.5};
    CHECK_REL(gcsim_stack_law_s(s, law, 1048576, &sparse, 1, 1, h100),
              gcsim_stack_law_s(s, law, 1048576, &dense, 1, 1, h100), 1e-12);
    /* GRACE's PyTorch random-k and MergeComp's draw with randperm; the TF one and a DDP
     * hook with torch.randint do not */
    CHECK(encode_runs(s, "randomk", "randperm.sort"));
    gcsim_stack_setup ss;
    CHECK(gcsim_stack_setup_init(&ss, &platform, s, "randomk:ratio=0.01", GCSIM_EXCHANGE_AUTO,
                                 NULL, &err) == 0);
    CHECK_STR_CONTAINS(ss.description,
                       "not measured: randperm.sort modelled from its kernels' passes");
    CHECK(gcsim_stack_load("horovod-tf", s, &err) == 0);
    CHECK(!encode_runs(s, "randomk", "randperm.sort"));
    CHECK(gcsim_stack_load("pytorch-ddp", s, &err) == 0);
    CHECK(!encode_runs(s, "randomk", "randperm.sort"));
    if (source_dir) {
        char path[1024];
        snprintf(path, sizeof path, "%s/tests/validation/stacks/horovod-0.19.json", source_dir);
        CHECK(gcsim_stack_load(path, s, &err) == 0);
        CHECK(encode_runs(s, "randomk", "randperm.sort"));
    }
    free(s);
}

/* A codec-model stack (no laws) still says where its framework closes buckets (iteration.c):
 * DeepSpeed's engine all-reduces once backward is done in 5e8-element buffers
 * (platforms/stacks/deepspeed.json). Backward produces B (8,192 + 256 = 8,448 elements,
 * 33,792 fp32 bytes) and then A (4,096 + 128 = 4,224 elements, 16,896 bytes). */
static int model_stack_buckets(const char *granularity, int *n_buckets, int *first_last_layer)
{
    char json[1024];
    snprintf(json, sizeof json,
             "{\"schema\": \"gcsim-stack/1\", \"name\": \"m\", \"description\": \"d\","
             " \"source\": \"s\", \"codec\": \"model\", \"granularity\": {%s}}",
             granularity);
    gcsim_stack *st = malloc(sizeof *st);
    gcsim_error err;
    gcsim_payload_plan plan;
    gcsim_iteration it;
    int rc = -1;
    if (!st || gcsim_stack_parse(json, "model-stack", st, &err) ||
        gcsim_payload_plan_build("none", &model, &plan, &err)) {
        fprintf(stderr, "%s\n", st ? err.message : "out of memory");
        free(st);
        return -1;
    }
    gcsim_scenario s = {.platform = &platform, .model = &model, .payload = &plan,
                        .scaling = SCALING_WEAK, .batch = 8, .overlap = true, .stack = st,
                        .collective = COLLECTIVE_RING};
    if (gcsim_platform_place(&platform, 4, &s.placement, &err) ||
        gcsim_iteration_build(&it, &s, &err)) {
        fprintf(stderr, "%s\n", err.message);
    } else {
        *n_buckets = it.n_buckets;
        *first_last_layer = it.buckets[0].first_layer;
        gcsim_iteration_free(&it);
        rc = 0;
    }
    gcsim_payload_plan_free(&plan);
    free(st);
    return rc;
}

static void test_model_stack_buckets(void)
{
    int n = 0, first = -1;
    /* 25 MiB (the fused stack's): both layers in one bucket */
    CHECK(model_stack_buckets("\"unit\": \"bucket\", \"bucket_bytes\": \"25MiB\", "
                              "\"source\": \"s\"", &n, &first) == 0);
    CHECK(n == 1 && first == 0);
    /* 20,000 B: B's 33,792 bytes close the first bucket, A is the second */
    CHECK(model_stack_buckets("\"unit\": \"bucket\", \"bucket_bytes\": \"20000B\", "
                              "\"source\": \"s\"", &n, &first) == 0);
    CHECK(n == 2 && first == 1);
    /* a first bucket of 1,000 B holds B alone, then A fits the 1 MiB cap */
    CHECK(model_stack_buckets("\"unit\": \"bucket\", \"bucket_bytes\": \"1MiB\", "
                              "\"first_bucket_bytes\": \"1000B\", \"source\": \"s\"",
                              &n, &first) == 0);
    CHECK(n == 2 && first == 1);
    /* DeepSpeed's 2 GB buffer: one bucket */
    CHECK(model_stack_buckets("\"unit\": \"bucket\", \"bucket_bytes\": \"2GB\", "
                              "\"source\": \"s\"", &n, &first) == 0);
    CHECK(n == 1 && first == 0);
}

/* The exchanges a stack implements (stack_exchanges.c, issue 43). */
#define GOOD_EXCHANGES                                                                     \
    "\"exchanges\": {\"summable\": [\"allreduce\", \"allgather\"], \"low-rank\": "           \
    "[\"allreduce\"], \"sparse\": [\"allgather\", \"ps\"], \"quantized\": [\"allgather\"], "   \
    "\"source\": \"s\"},"

static void expect_exchanges_bad(const char *exchanges, const char *message)
{
    char to[512];
    snprintf(to, sizeof to, "\"codec\": \"laws\", %s", exchanges);
    expect_bad("\"codec\": \"laws\",", to, message);
}

static void test_exchanges(void)
{
    /* every compressor of the library has the kind its payload is */
    static const struct { const char *spec; gcsim_stack_payload kind; } kinds[] = {
        {"none", STACK_PAYLOAD_SUMMABLE},      {"fp16", STACK_PAYLOAD_SUMMABLE},
        {"bf16", STACK_PAYLOAD_SUMMABLE},      {"randomk", STACK_PAYLOAD_SUMMABLE},
        {"powersgd", STACK_PAYLOAD_LOW_RANK},  {"topk", STACK_PAYLOAD_SPARSE},
        {"dgc", STACK_PAYLOAD_SPARSE},         {"threshold", STACK_PAYLOAD_SPARSE},
        {"qsgd", STACK_PAYLOAD_QUANTIZED},     {"terngrad", STACK_PAYLOAD_QUANTIZED},
        {"signsgd", STACK_PAYLOAD_QUANTIZED},  {"onebit", STACK_PAYLOAD_QUANTIZED},
        {"ecq", STACK_PAYLOAD_QUANTIZED},      {"orq", STACK_PAYLOAD_QUANTIZED},
        {"linear", STACK_PAYLOAD_QUANTIZED},   {"bingrad-b", STACK_PAYLOAD_QUANTIZED},
        {"bingrad-pb", STACK_PAYLOAD_QUANTIZED}, {"ef+topk:ratio=0.01", STACK_PAYLOAD_SPARSE}};
    int n_kinds = (int)(sizeof kinds / sizeof kinds[0]);
    gcsim_error err;
    for (int k = 0; k < n_kinds; k++) {
        gcsim_stack_payload got = STACK_PAYLOAD_KINDS;
        CHECK(gcsim_stack_payload_of(kinds[k].spec, &got, &err) == 0 && got == kinds[k].kind);
    }
    /* the table covers the library */
    for (const char *const *c = gc_compressor_names(); *c; c++) {
        bool listed = false;
        for (int k = 0; k < n_kinds; k++)
            listed = listed || strcmp(kinds[k].spec, *c) == 0;
        if (!listed)
            fprintf(stderr, "compressor %s: no expected payload kind\n", *c);
        CHECK(listed);
    }
    CHECK(gcsim_stack_payload_of("nope", &(gcsim_stack_payload){0}, &err) != 0);

    /* no list: each kind gets what the stack's compressors of that kind run with */
    CHECK(!stack->exchanges_listed);
    CHECK(gcsim_stack_implements(stack, "none", GCSIM_EXCHANGE_ALLREDUCE));
    CHECK(!gcsim_stack_implements(stack, "none", GCSIM_EXCHANGE_ALLGATHER));
    CHECK(gcsim_stack_implements(stack, "topk", GCSIM_EXCHANGE_ALLGATHER));
    CHECK(gcsim_stack_implements(stack, "dgc", GCSIM_EXCHANGE_ALLGATHER));
    CHECK(!gcsim_stack_implements(stack, "topk", GCSIM_EXCHANGE_PS));
    CHECK(!gcsim_stack_implements(stack, "topk", GCSIM_EXCHANGE_ALLREDUCE));
    CHECK(gcsim_stack_implements(stack, "powersgd", GCSIM_EXCHANGE_ALLREDUCE));
    CHECK(!gcsim_stack_implements(stack, "qsgd", GCSIM_EXCHANGE_ALLGATHER)); /* no entry */
    /* the stack's own and the papers' patterns are never refused here */
    CHECK(gcsim_stack_implements(stack, "qsgd", GCSIM_EXCHANGE_AUTO));
    CHECK(gcsim_stack_implements(stack, "qsgd", GCSIM_EXCHANGE_PATTERN));
    char why[384] = "";
    CHECK(gcsim_stack_unimplemented(stack, "topk:ratio=0.01", GCSIM_EXCHANGE_PS, why,
                                    sizeof why) == 1);
    CHECK(strcmp(why, "stack t does not implement ps for sparse payloads (topk); it "
                      "implements allgather") == 0);
    CHECK(gcsim_stack_unimplemented(stack, "topk", GCSIM_EXCHANGE_ALLGATHER, why, sizeof why) == 0);

    /* a list: as written */
    const char *at = strstr(test_stack_json, "\"codec\": \"laws\",");
    size_t len = strlen(test_stack_json) + 512;
    char *json = malloc(len);
    gcsim_stack *s = malloc(sizeof *s);
    snprintf(json, len, "%.*s\"codec\": \"laws\", " GOOD_EXCHANGES "%s",
             (int)(at - test_stack_json), test_stack_json, at + strlen("\"codec\": \"laws\","));
    CHECK(gcsim_stack_parse(json, "listed", s, &err) == 0);
    CHECK(s->exchanges_listed);
    CHECK(gcsim_stack_implements(s, "fp16", GCSIM_EXCHANGE_ALLGATHER));
    CHECK(!gcsim_stack_implements(s, "fp16", GCSIM_EXCHANGE_PS));
    CHECK(gcsim_stack_implements(s, "dgc", GCSIM_EXCHANGE_PS));
    CHECK(!gcsim_stack_implements(s, "qsgd", GCSIM_EXCHANGE_ALLREDUCE));
    CHECK(gcsim_stack_implements(s, "qsgd", GCSIM_EXCHANGE_ALLGATHER));

    /* a named exchange the stack does not implement runs, marked; the stack's own not */
    gcsim_payload_plan plan;
    gcsim_stack_setup ss;
    CHECK(gcsim_payload_plan_build("topk", &model, &plan, &err) == 0);
    CHECK(gcsim_stack_setup_init(&ss, &platform, stack, plan.spec, GCSIM_EXCHANGE_AUTO, NULL,
                                 &err) == 0 && ss.unimplemented[0] == '\0');
    CHECK(gcsim_stack_setup_init(&ss, &platform, stack, plan.spec, GCSIM_EXCHANGE_PS, NULL,
                                 &err) == 0 && ss.cs.exchange.exchange == GCSIM_EXCHANGE_PS);
    CHECK_STR_CONTAINS(ss.unimplemented, "stack t does not implement ps for sparse payloads");
    gcsim_payload_plan_free(&plan);

    /* strict */
    expect_exchanges_bad("\"exchanges\": {\"summable\": [\"allreduce\"], \"low-rank\": "
                         "[\"allreduce\"], \"sparse\": [\"allgather\"], \"source\": \"s\"},",
                         "$.exchanges.quantized: expected a non-empty array");
    expect_exchanges_bad("\"exchanges\": {\"summable\": [\"allreduce\"], \"low-rank\": "
                         "[\"allreduce\"], \"sparse\": [\"allgather\"], \"quantized\": [], "
                         "\"source\": \"s\"},",
                         "$.exchanges.quantized: expected a non-empty array");
    expect_exchanges_bad("\"exchanges\": {\"summable\": [\"allreduce\", \"butterfly\"], "
                         "\"low-rank\": [\"allreduce\"], \"sparse\": [\"allgather\"], "
                         "\"quantized\": [\"allgather\"], \"source\": \"s\"},",
                         "$.exchanges.summable[1]: expected allreduce, allgather or ps");
    expect_exchanges_bad("\"exchanges\": {\"summable\": [\"auto\"], "
                         "\"low-rank\": [\"allreduce\"], \"sparse\": [\"allgather\"], "
                         "\"quantized\": [\"allgather\"], \"source\": \"s\"},",
                         "$.exchanges.summable[0]: expected allreduce, allgather or ps");
    expect_exchanges_bad("\"exchanges\": {\"summable\": [\"allreduce\", \"allreduce\"], "
                         "\"low-rank\": [\"allreduce\"], \"sparse\": [\"allgather\"], "
                         "\"quantized\": [\"allgather\"], \"source\": \"s\"},",
                         "$.exchanges.summable[1]: allreduce listed twice");
    expect_exchanges_bad("\"exchanges\": {\"summable\": [\"allreduce\"], "
                         "\"low-rank\": [\"allreduce\"], \"sparse\": [\"allgather\"], "
                         "\"quantized\": [\"allgather\"]},",
                         "$.exchanges.source");
    expect_exchanges_bad("\"exchanges\": {\"summable\": [\"allreduce\"], "
                         "\"low-rank\": [\"allreduce\"], \"sparse\": [\"allgather\"], "
                         "\"quantised\": [\"allgather\"], \"source\": \"s\"},",
                         "quantised");
    /* the stack's own exchange must be in its kind's list */
    expect_exchanges_bad("\"exchanges\": {\"summable\": [\"allreduce\"], "
                         "\"low-rank\": [\"allreduce\"], \"sparse\": [\"ps\"], "
                         "\"quantized\": [\"allgather\"], \"source\": \"s\"},",
                         "$.compressors.topk.exchange: the stack runs topk by allgather, which "
                         "$.exchanges.sparse does not list");
    expect_exchanges_bad("\"exchanges\": {\"summable\": [\"allgather\"], "
                         "\"low-rank\": [\"allreduce\"], \"sparse\": [\"allgather\"], "
                         "\"quantized\": [\"allgather\"], \"source\": \"s\"},",
                         "$.compressors.none.exchange: the stack runs none by allreduce");

    /* the shipped stacks: what their implementations have (platforms/stacks) */
    for (const char *const *name = gcsim_stack_catalog(); *name; name++) {
        if (gcsim_stack_load(*name, s, &err)) {
            fprintf(stderr, "%s\n", err.message);
            check_failures++;
            continue;
        }
        CHECK(s->exchanges_listed);
        bool fused = strcmp(*name, "fused") == 0, bagua = strcmp(*name, "bagua") == 0;
        bool deepspeed = strcmp(*name, "deepspeed") == 0;
        /* BytePS sums every payload on its servers (decode, sum, re-encode: byteps-ps) and
         * has no all-gather */
        bool byteps = strcmp(*name, "byteps") == 0;
        /* Horovod and DDP have no parameter server, and cannot all-reduce a payload that
         * does not add as sent; Bagua all-reduces quantized payloads (its leaders decode,
         * sum and re-encode), as does DeepSpeed's 1-bit compressed_allreduce (its server
         * chunk re-encodes); the ideal stack runs every exchange gcsim models */
        CHECK(gcsim_stack_implements(s, "qsgd", GCSIM_EXCHANGE_PS) == fused);
        CHECK(gcsim_stack_implements(s, "topk", GCSIM_EXCHANGE_ALLREDUCE) == (fused || byteps));
        CHECK(gcsim_stack_implements(s, "signsgd", GCSIM_EXCHANGE_ALLREDUCE) ==
              (fused || bagua || deepspeed || byteps));
        CHECK(gcsim_stack_implements(s, "none", GCSIM_EXCHANGE_PS) == fused);
        CHECK(gcsim_stack_implements(s, "powersgd", GCSIM_EXCHANGE_ALLGATHER) == fused);
        CHECK(gcsim_stack_implements(s, "qsgd", GCSIM_EXCHANGE_ALLGATHER) == !byteps);
        CHECK(gcsim_stack_implements(s, "topk", GCSIM_EXCHANGE_ALLGATHER) == !byteps);
        CHECK(gcsim_stack_implements(s, "fp16", GCSIM_EXCHANGE_ALLREDUCE));
        CHECK(gcsim_stack_implements(s, "randomk", GCSIM_EXCHANGE_ALLREDUCE));
        CHECK(gcsim_stack_implements(s, "powersgd", GCSIM_EXCHANGE_ALLREDUCE));
    }
    free(s);
    free(json);
}

int main(int argc, char **argv)
{
    gcsim_error err;
    stack = malloc(sizeof *stack);
    if (gcsim_platform_parse(platform_json, "test", &platform, &err) ||
        gcsim_model_parse(model_json, "test", &model, &err) ||
        gcsim_stack_parse(test_stack_json, "test-stack", stack, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    test_laws();
    test_allgather_program();
    test_powersgd_hook();
    test_tensor_groups();
    test_thread_wait_groups();
    test_timeline();
    test_release();
    test_graph_host();
    test_batched_decode();
    test_weight_and_1d_ops();
    test_hook_host();
    test_strict();
    test_staged_allgather();
    test_exchanges();
    test_model_stack_buckets();
    test_randperm_law(argc > 1 ? argv[1] : NULL);
    gcsim_model_free(&model);
    free(stack);
    CHECK_DONE();
}
