/*
 * Sharded data parallelism (sim/step/sharding.c, sim/config/sharding.c and
 * memory.c), checked against closed forms computed by hand:
 *   - the grouped collectives' bytes per GPU and durations;
 *   - bytes each GPU sends per iteration under every strategy (ZeRO-3 moves 1.5x DDP's);
 *   - the timeline of a two-unit ZeRO-3 iteration, with and without checkpointing;
 *   - memory per strategy;
 *   - NCCL's per-call latency each sharded call is charged, per call group (nccl_call.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "analytic.h"
#include "step.h"
#include "memory.h"
#include "nccl_call.h"
#include "protocol.h"
#include "sharding.h"
#include "test_platforms.h"
#include "timeline.h"
#include "../bare_topology.h"

/* Bytes endpoint e sends over the whole schedule for bucket b. */
static double bytes_sent(const gcsim_schedule *s, int e, const gcsim_bucket_bytes *b)
{
    double sum = 0;
    for (int p = 0; p < s->n_phases; p++) {
        const gcsim_phase *ph = &s->phases[p];
        for (int f = 0; f < ph->n_flows; f++) {
            const gcsim_flow *fl = &ph->flows[f];
            if (fl->src != e)
                continue;
            for (int st = fl->first_step; st <= fl->last_step; st++)
                sum += gcsim_flow_bytes(ph, fl, st, b);
        }
    }
    return sum;
}

static void test_grouped_schedules(void)
{
    gcsim_platform p = platform_r(); /* 2 x 8 GPUs, NVSwitch 300 GB/s, 8 rails of 25 GB/s */
    gcsim_topology t;
    gcsim_error err;
    CHECK(gcsim_topology_init(&t, &p, 16, &err) == 0);
    double S = 64e6;
    gcsim_bucket_bytes dense = {.dense_bytes = S, .payload_bytes = S,
                                .aggregation = PAYLOAD_DENSE_SUMMABLE};
    gcsim_schedule rs, ring, ag, cross, hier;
    /* reduce-scatter over all 16: each GPU sends (N-1)/N of the bucket, and the ring's
     * first half costs what the whole reduce-scatter does */
    CHECK(gcsim_schedule_build_group(&rs, COLLECTIVE_REDUCE_SCATTER, &t, 0, &err) == 0);
    CHECK(gcsim_schedule_build(&ring, COLLECTIVE_RING, &t, 0, 1, &err) == 0);
    CHECK_REL(bytes_sent(&rs, 3, &dense), 15.0 / 16 * S, 1e-12);
    CHECK_REL(2 * gcsim_schedule_time_s(&rs, &t, &dense), gcsim_schedule_time_s(&ring, &t, &dense),
              1e-12);
    /* all-gather inside each node (group 8) of a 1 MB shard: 7 steps, each 5 us plus
     * 1 MB at 300 GB/s; each GPU sends its shard to 7 others in turn */
    gcsim_bucket_bytes shard = {.dense_bytes = 2e6, .payload_bytes = 1e6,
                                .aggregation = PAYLOAD_DENSE_SUMMABLE};
    CHECK(gcsim_schedule_build_group(&ag, COLLECTIVE_ALLGATHER, &t, 8, &err) == 0);
    CHECK(ag.decodes == 7);
    CHECK_REL(bytes_sent(&ag, 9, &shard), 7e6, 1e-12);
    CHECK_REL(gcsim_schedule_time_s(&ag, &t, &shard), 7 * (5e-6 + 1e6 / 300e9), 1e-9);
    /* replicas (group 8, 2 groups): GPU g and g + 8 all-reduce their bucket (each rank
     * its own slice) over rail g: one step of reduce-scatter and one of all-gather, half
     * the bucket each, alone on its NIC */
    CHECK(gcsim_schedule_build_group(&cross, COLLECTIVE_CROSS_GROUP_RING, &t, 8, &err) == 0);
    CHECK_REL(bytes_sent(&cross, 5, &dense), S, 1e-12);
    int links[GCSIM_ROUTE_MAX_LINKS];
    double lat;
    gcsim_topology_route(&t, 5, 13, links, &lat);
    CHECK_REL(gcsim_schedule_time_s(&cross, &t, &dense), 2 * (lat + S / 2 / 25e9), 1e-9);
    /* hierarchical reduce-scatter: inside the node (7/8 of S), then across the rails
     * (1/2 of its 1/8): what a flat reduce-scatter sends, in two levels */
    CHECK(gcsim_schedule_build_group(&hier, COLLECTIVE_HIER_REDUCE_SCATTER, &t, 0, &err) == 0);
    CHECK_REL(bytes_sent(&hier, 2, &dense), 7.0 / 8 * S + S / 16, 1e-12);
    /* groups that fit neither a node nor whole nodes, or do not divide the GPUs */
    CHECK(gcsim_group_check(&t, 3, &err) != 0);
    CHECK(gcsim_group_check(&t, 12, &err) != 0);
    CHECK(gcsim_group_check(&t, 4, &err) == 0);
    gcsim_schedule_free(&rs);
    gcsim_schedule_free(&ring);
    gcsim_schedule_free(&ag);
    gcsim_schedule_free(&cross);
    gcsim_schedule_free(&hier);
    gcsim_topology_free(&t);
}

/* A model of `units` transformer-like units of two layers ("uK.a", "uK.b") with `params`
 * parameters each layer and equal FLOPs, one profile point: batch 1 in `step_s`. */
static void tiny_model(gcsim_model *m, int units, long long params, double step_s)
{
    char json[8192];
    int n = snprintf(json, sizeof json,
                     "{\"name\": \"tiny\", \"batch_per_gpu\": 1, \"precision\": \"bf16\", "
                     "\"optimizer\": \"adam\", \"tokens_per_sample\": 16, "
                     "\"activation_bytes_per_sample\": 1000000, \"layers\": [");
    for (int u = 0; u < units; u++)
        for (int k = 0; k < 2; k++)
            n += snprintf(json + n, sizeof json - (size_t)n,
                          "%s{\"name\": \"u%d.%c\", \"kind\": \"fc\", \"weights\": %lld, "
                          "\"bias\": 0, \"fwd_flops\": 1000}",
                          u + k ? ", " : "", u, "ab"[k], params);
    snprintf(json + n, sizeof json - (size_t)n,
             "], \"profiles\": [{\"gpu\": \"testgpu\", \"precision\": \"bf16\", \"framework\": "
             "\"none\", \"source\": \"test\", \"points\": [{\"batch\": 1, \"time\": \"%gs\"}]}]}",
             step_s);
    gcsim_error err;
    if (gcsim_model_parse(json, "<tiny>", m, &err))
        fprintf(stderr, "%s\n", err.message);
}

typedef struct {
    gcsim_platform platform;
    gcsim_model model;
    gcsim_payload_plan plan;
    gcsim_scenario s;
} world;

static void world_init(world *w, int units, long long params, double step_s, const char *sharding,
                       int gpus)
{
    gcsim_error err;
    w->platform = platform_r();
    tiny_model(&w->model, units, params, step_s);
    CHECK(gcsim_payload_plan_build(NULL, &w->model, &w->plan, &err) == 0);
    char why[128];
    gcsim_sharding sh;
    CHECK(gcsim_sharding_parse(sharding, &sh, why, sizeof why) == 0);
    w->s = (gcsim_scenario){.platform = &w->platform, .model = &w->model, .payload = &w->plan,
                            .scaling = SCALING_WEAK, .collective = COLLECTIVE_RING, .batch = 1,
                            .overlap = true, .sharding = sh};
    CHECK(gcsim_platform_place(&w->platform, gpus, &w->s.placement, &err) == 0);
}

static void world_free(world *w)
{
    gcsim_payload_plan_free(&w->plan);
    gcsim_model_free(&w->model);
}

/* Bytes GPU 0 sends in one iteration: every call's schedule with the call's bytes. */
static double iteration_bytes(const gcsim_scenario *s)
{
    gcsim_iteration it;
    gcsim_topology t;
    gcsim_error err;
    if (gcsim_iteration_build(&it, s, &err) || gcsim_topology_init(&t, s->platform,
                                                                    s->placement.gpus, &err)) {
        fprintf(stderr, "%s\n", err.message);
        check_failures++;
        return -1;
    }
    double sum = 0;
    for (int c = 0; c < it.n_calls; c++) {
        gcsim_schedule sch;
        const gcsim_call *call = &it.calls[c];
        int rc = call->group > 0 || call->collective > COLLECTIVE_COUNT
                     ? gcsim_schedule_build_group(&sch, call->collective, &t, call->group, &err)
                     : gcsim_schedule_build(&sch, call->collective, &t, 0, 1, &err);
        CHECK(rc == 0);
        sum += bytes_sent(&sch, 0, &call->bytes);
        gcsim_schedule_free(&sch);
    }
    gcsim_topology_free(&t);
    gcsim_iteration_free(&it);
    return sum;
}

static void test_traffic(void)
{
    /* 4 units of 2 layers of 1e6 parameters: P = 8e6, bf16 gradients: 2P = 16 MB; 16 GPUs */
    double P = 8e6, N = 16, g = 2 * P;
    const char *specs[] = {"ddp", "zero1", "zero2", "fsdp", "hsdp"};
    double want[] = {
        2 * (N - 1) / N * g,                    /* ring all-reduce */
        (N - 1) / N * g + (N - 1) * (g / N),    /* reduce-scatter + parameter all-gather */
        (N - 1) / N * g + (N - 1) * (g / N),
        3 * (N - 1) / N * g,                    /* two all-gathers and a reduce-scatter */
        /* inside the node of 8: two all-gathers and a reduce-scatter; across: the 1/8
         * shard all-reduced between 2 replicas */
        3 * 7.0 / 8 * g + 2 * (1.0 / 2) * (g / 8)};
    for (int k = 0; k < 5; k++) {
        world w;
        world_init(&w, 4, 1000000, 1.0, specs[k], 16);
        CHECK_REL(iteration_bytes(&w.s), want[k], 1e-9);
        world_free(&w);
    }
    /* the same as DDP's all-reduce: the classic ZeRO-3 factor of 1.5 */
    CHECK_REL(want[3] / want[0], 1.5, 1e-12);
    /* gradient accumulation: ZeRO-2 reduces every micro-batch, ZeRO-1 and DDP once */
    world w;
    world_init(&w, 4, 1000000, 1.0, "zero2", 16);
    w.s.grad_accum = 3;
    CHECK_REL(iteration_bytes(&w.s), 3 * (N - 1) / N * g + (N - 1) * (g / N), 1e-9);
    w.s.sharding.strategy = GCSIM_SHARD_ZERO1;
    CHECK_REL(iteration_bytes(&w.s), (N - 1) / N * g + (N - 1) * (g / N), 1e-9);
    w.s.sharding.strategy = GCSIM_SHARD_DDP;
    CHECK_REL(iteration_bytes(&w.s), 2 * (N - 1) / N * g, 1e-9);
    /* ZeRO++ on ZeRO-3: int8 parameters (1 B + 4 B per 2,048) and int4 gradients (0.5 B +
     * 4 B per 2,048) through the hierarchical reduce-scatter (7/8 in the node, 1/16 across) */
    gcsim_sharding_parse("zero3+qwz+qgz", &w.s.sharding, (char[64]){0}, 64);
    w.s.grad_accum = 1;
    double q8 = P * (1 + 4.0 / 2048), q4 = P * (0.5 + 4.0 / 2048);
    CHECK_REL(iteration_bytes(&w.s), 2 * (N - 1) * (q8 / N) + (7.0 / 8 + 1.0 / 16) * q4, 1e-9);
    /* hpZ: the backward all-gather stays in the node of 8, from the node's copy sharded
     * in 8 */
    gcsim_sharding_parse("zero3+hpz", &w.s.sharding, (char[64]){0}, 64);
    CHECK_REL(iteration_bytes(&w.s), (N - 1) * (g / N) + 7 * (g / 8) + (N - 1) / N * g, 1e-9);
    world_free(&w);
}

/* Two units, forward 2 s and backward 4 s each (the profile's 12 s, backward 2/3), every
 * call 1 s: the timeline by hand (docs/sharding.md draws it). */
static void test_timeline(void)
{
    world w;
    world_init(&w, 2, 1000, 12.0, "fsdp", 16); /* FSDP: whole units, one ahead */
    for (int ckpt = 0; ckpt < 2; ckpt++) {
        w.s.act_ckpt = ckpt;
        gcsim_iteration it;
        gcsim_error err;
        CHECK(gcsim_iteration_build(&it, &w.s, &err) == 0);
        CHECK(it.n_blocks == (ckpt ? 6 : 4));
        CHECK(it.n_buckets == 6);
        double call_s[16];
        for (int k = 0; k < 16; k++)
            call_s[k] = 1.0;
        gcsim_timeline tl;
        CHECK(gcsim_timeline_run(&it, call_s, NULL, &tl, &err) == 0);
        /* no checkpointing: AG f0 0-1, f0 1-3, AG f1 1-2, f1 3-5, AG b1 5-6, b1 6-10,
         * AG b0 6-7, RS 1 10-11, b0 10-14, RS 0 14-15.
         * checkpointing: ... f1 3-5, AG b1 5-6, r1 6-8, AG b0 8-9, b1 8-12, RS 1 12-13,
         * r0 12-14, b0 14-18, RS 0 18-19 */
        CHECK_REL(tl.iteration_s, ckpt ? 19.0 : 15.0, 1e-12);
        CHECK_REL(tl.compute_end_s, ckpt ? 18.0 : 14.0, 1e-12);
        CHECK_REL(it.compute_s, ckpt ? 16.0 : 12.0, 1e-12);
        gcsim_iteration_free(&it);
    }
    world_free(&w);
}

/* DeepSpeed ZeRO-3 (zero3 as spelled): one all-gather per weight tensor (here per layer,
 * 2 per unit), issued as fetch_sub_module prefetches (sharding.c). Blocks, no
 * checkpointing: F0..F3 forward, B4 (u1.b) B5 (u1.a) B6 (u0.b) B7 (u0.a); fetch j gates
 * block j. With checkpointing: F0..F3, R4 R5 B6 B7 (unit 1), R8 R9 B10 B11 (unit 0),
 * fetches gate 0, 1, 2, 3, 4, 5, 8, 9. */
static void test_deepspeed_prefetch(void)
{
    struct {
        long long params;
        int ckpt;
        int ready[8];         /* ready_block of fetches 0..7, by hand */
        int buckets;          /* coalesced all-gathers + 2 reduce-scatters */
        double iteration_s;   /* every call 1 s, forward 1 s and backward 2 s a layer */
    } cases[] = {
        /* 1,000-element tensors: block 0 prefetches all 7 others (stage3_prefetch_bucket_size
         * 5e7 not reached), in two calls; the timeline is AG0-3 0-1, AG4-7 1-2, F 1-5,
         * B4 5-7, B5 7-9, RS1 9-10, B6 9-11, B7 11-13, RS0 13-14 */
        {1000, 0, {-1, -1, -1, -1, -1, -1, -1, -1}, 4, 14.0},
        /* 6e7 > the bucket: one tensor more per block, fetch j issued at block j - 1:
         * AG0-1 0-1, F0 1-2, AG2 2-3, F1 2-3, ..., AG7 9-10, RS1 10-11, B6 9-11, B7 11-13,
         * RS0 13-14 */
        {60000000, 0, {-1, -1, 0, 1, 2, 3, 4, 5}, 9, 14.0},
        /* checkpointing, 6e7: R4's tensor lives until B7; still under 1e9 live */
        {60000000, 1, {-1, -1, 0, 1, 2, 3, 4, 5}, 9, 18.0},
        /* 6e8: at R5 and B6 the live tensors (R4's and R5's, 1.2e9) exceed
         * stage3_max_live_parameters 1e9: no prefetch until B7 (R5's released after B6)
         * issues fetch 6 and R8 fetch 7 (R4's released after B7). Timeline: ... R5 6-7,
         * B6 7-9, AG6 9-10, B7 9-11, AG7 11-12, RS1 12-13, R8 11-12, R9 12-13, B10 13-15,
         * B11 15-17, RS0 17-18 (at 6e7 AG6 6-7 and AG7 7-8 instead, RS1 11-12: 18 too) */
        {600000000, 1, {-1, -1, 0, 1, 2, 3, 6, 7}, 9, 18.0},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        world w;
        world_init(&w, 2, cases[c].params, 12.0, "zero3", 16);
        w.s.act_ckpt = cases[c].ckpt;
        gcsim_iteration it;
        gcsim_error err;
        CHECK(gcsim_iteration_build(&it, &w.s, &err) == 0);
        CHECK(it.n_blocks == (cases[c].ckpt ? 12 : 8));
        /* the tensors one block issues go in one call (all_gather_coalesced): with 1,000
         * elements the forward's 4 and the backward's 4; otherwise fetches 0 and 1 */
        CHECK(it.n_buckets == cases[c].buckets);
        int k = 0;
        for (int b = 0; b < it.n_blocks; b++) {
            if (it.blocks[b].gate < 0)
                continue;
            const gcsim_bucket *bk = &it.buckets[it.blocks[b].gate];
            CHECK(k < 8 && bk->ready_block == cases[c].ready[k]);
            CHECK(bk->backward_s == 0);
            k++;
        }
        CHECK(k == 8);
        double call_s[32];
        for (int j = 0; j < 32; j++)
            call_s[j] = 1.0;
        gcsim_timeline tl;
        CHECK(gcsim_timeline_run(&it, call_s, NULL, &tl, &err) == 0);
        CHECK_REL(tl.iteration_s, cases[c].iteration_s, 1e-12);
        gcsim_iteration_free(&it);
        world_free(&w);
    }
}

static void test_memory(void)
{
    world w;
    world_init(&w, 4, 1000000, 1.0, "ddp", 16);
    double P = 8e6, act = 1e6;
    gcsim_memory m;
    const char *specs[] = {"ddp", "zero1", "zero2", "fsdp", "hsdp", "zero3"};
    /* bf16 + Adam: working 2, master 4, gradients 2, Adam 8 bytes per parameter; the
     * largest unit 2e6 parameters; reduce buckets 2 x 25 MiB / 4 x 2 B */
    double bucket = 2 * (25.0 * 1048576 / 4) * 2, unit = 2e6 * (2 * 2 + 2);
    double want[] = {16 * P + act,
                     (2 + 2) * P + (4 + 8) * P / 16 + bucket + act,
                     2 * P + (4 + 2 + 8) * P / 16 + bucket + act,
                     16 * P / 16 + unit + act,
                     16 * P / 8 + unit + act,
                     /* DeepSpeed: all 8e6 parameters live (under 1e9), a unit's gradient */
                     16 * P / 16 + P * 2 + 2e6 * 2 + act};
    for (int k = 0; k < 6; k++) {
        gcsim_sharding sh;
        CHECK(gcsim_sharding_parse(specs[k], &sh, (char[64]){0}, 64) == 0);
        gcsim_memory_estimate_sharded(&w.model, &w.platform, &sh, 16, 1, NULL, 0, &m);
        CHECK_REL(m.total_bytes, want[k], 1e-12);
    }
    /* 8 tensors of 6e8: DeepSpeed's live parameters stop at stage3_max_live_parameters
     * 1e9 plus the tensor that crosses it, 1.6e9 (FSDP: two units, 2.4e9); its gradients
     * at reduce_bucket_size 5e8 plus one tensor, 1.1e9 (FSDP: a unit, 1.2e9) */
    world big;
    world_init(&big, 4, 600000000, 1.0, "zero3", 16);
    gcsim_sharding ds;
    CHECK(gcsim_sharding_parse("zero3", &ds, (char[64]){0}, 64) == 0);
    gcsim_memory_estimate_sharded(&big.model, &big.platform, &ds, 16, 1, NULL, 0, &m);
    CHECK_REL(m.buffer_bytes, 1.6e9 * 2 + 1.1e9 * 2, 1e-12);
    CHECK(gcsim_sharding_parse("fsdp", &ds, (char[64]){0}, 64) == 0);
    gcsim_memory_estimate_sharded(&big.model, &big.platform, &ds, 16, 1, NULL, 0, &m);
    CHECK_REL(m.buffer_bytes, 1.2e9 * (2 * 2 + 2), 1e-12);
    world_free(&big);
    /* checkpointing keeps 2/34 of the activations plus one of the 4 units' */
    gcsim_sharding sh = {.strategy = GCSIM_SHARD_ZERO3};
    const gcsim_act_ckpt full = {.mode = GCSIM_CKPT_FULL};
    gcsim_memory_estimate_sharded(&w.model, &w.platform, &sh, 16, 1, &full, 0, &m);
    CHECK_REL(m.activation_bytes, act * (2.0 / 34 + 1.0 / 4), 1e-12);
    world_free(&w);
}

static void test_parse(void)
{
    gcsim_sharding s;
    char why[160], back[64];
    const char *good[] = {"ddp", "zero1", "zero2", "zero3", "fsdp", "hsdp", "hsdp:4",
                          "zero3+qwz+hpz+qgz", "fsdp+qgz"};
    for (size_t k = 0; k < sizeof good / sizeof *good; k++) {
        CHECK(gcsim_sharding_parse(good[k], &s, why, sizeof why) == 0);
        gcsim_sharding_format(&s, back, sizeof back);
        CHECK(strcmp(back, good[k]) == 0); /* round trip */
    }
    const char *bad[] = {"zero4", "", "hsdp:1", "hsdp:x", "zero2:8", "zero2+qwz", "fsdp+abc",
                         "hsdp:8+qwz"};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++)
        CHECK(gcsim_sharding_parse(bad[k], &s, why, sizeof why) != 0 && why[0]);
}

/* Every call named `name` of the iteration carries overhead_s == want_us (NCCL's Simple
 * figures, tuner_model.c: base 8.4 us, 14 us a network hop), and there is one at least. */
static void check_overhead(const gcsim_scenario *s, const char *name, double want_us)
{
    gcsim_iteration it;
    gcsim_error err;
    CHECK(gcsim_iteration_build(&it, s, &err) == 0);
    int seen = 0;
    for (int c = 0; c < it.n_calls; c++) {
        if (strcmp(it.calls[c].name, name) != 0)
            continue;
        seen++;
        CHECK_REL(it.calls[c].overhead_s, want_us * 1e-6, 1e-9);
    }
    if (!seen)
        fprintf(stderr, "no call named %s\n", name);
    CHECK(seen > 0);
    gcsim_iteration_free(&it);
}

/* world_init on `nodes` nodes of 8 GPUs; units of 2e8 parameters, so that every call is
 * large enough for NCCL's tuner to run it with Simple (the pick the sharded calls follow:
 * nccl_call.h gcsim_nccl_group_call_tune) and to pay Simple's
 * figures below; test_protocol has a small one */
static void world_nodes(world *w, const char *sharding, int gpus, int nodes)
{
    world_init(w, 2, 200000000, 1.0, sharding, 8);
    gcsim_error err;
    w->platform.nodes = nodes;
    CHECK(gcsim_platform_place(&w->platform, gpus, &w->s.placement, &err) == 0);
}

/* NCCL's latency per call, by hand from NCCL's model (Simple): an all-gather or
 * reduce-scatter (ring) 8.4 + (nodes - 1) x 14 us over the nodes of its group, an
 * all-reduce (ring) 8.4 + 2 (nodes - 1) x 14; qwZ gathers values and scales in two calls;
 * qgZ runs four all-to-alls per weight tensor, 8.4 inside the node and 8.4 + 14 across. */
static void test_nccl_latency(void)
{
    world w;
    /* FSDP on 16 GPUs (2 nodes): every call spans both */
    world_nodes(&w, "fsdp", 16, 2);
    check_overhead(&w.s, "forward all-gather", 22.4);
    check_overhead(&w.s, "backward all-gather", 22.4);
    check_overhead(&w.s, "reduce-scatter", 22.4);
    world_free(&w);
    /* one node: the base only */
    world_nodes(&w, "fsdp", 8, 1);
    check_overhead(&w.s, "reduce-scatter", 8.4);
    world_free(&w);
    /* ZeRO-2 on 4 nodes: the buckets' reduce-scatter and the parameter all-gather */
    world_nodes(&w, "zero2", 32, 4);
    check_overhead(&w.s, "reduce-scatter", 8.4 + 3 * 14);
    check_overhead(&w.s, "parameter all-gather", 8.4 + 3 * 14);
    world_free(&w);
    /* HSDP, a node per group, 4 nodes: the group's calls stay in the node; the replica
     * all-reduce is a ring of 4 GPUs on 4 nodes: 8.4 + 2 x 3 x 14 */
    world_nodes(&w, "hsdp", 32, 4);
    check_overhead(&w.s, "forward all-gather", 8.4);
    check_overhead(&w.s, "reduce-scatter", 8.4);
    check_overhead(&w.s, "replica all-reduce", 8.4 + 6 * 14);
    world_free(&w);
    /* groups of two nodes: the group's calls cross one network hop, the replica ring of 2
     * GPUs on 2 nodes two */
    world_nodes(&w, "hsdp:16", 32, 4);
    check_overhead(&w.s, "backward all-gather", 8.4 + 14);
    check_overhead(&w.s, "replica all-reduce", 8.4 + 2 * 14);
    world_free(&w);
    /* groups of 4 inside the nodes of 8, 16 GPUs: the 4 replicas lie on 2 nodes */
    world_nodes(&w, "hsdp:4", 16, 2);
    check_overhead(&w.s, "reduce-scatter", 8.4);
    check_overhead(&w.s, "replica all-reduce", 8.4 + 2 * 14);
    world_free(&w);
    /* ZeRO++ on 16 GPUs (2 nodes): qwZ's two all-gathers; hpZ's backward all-gathers in the
     * node; qgZ per unit of 2 one-tensor layers: 2 x (2 x 8.4 + 2 x (8.4 + 14)) */
    world_nodes(&w, "zero3+qwz+hpz+qgz", 16, 2);
    check_overhead(&w.s, "forward all-gather", 2 * 22.4);
    check_overhead(&w.s, "backward all-gather", 2 * 8.4);
    check_overhead(&w.s, "qgZ reduce-scatter", 2 * (2 * 8.4 + 2 * 22.4));
    world_free(&w);
    /* the analytic engine adds it to each call's time: FSDP on 2 nodes, every call 22.4 us
     * longer than the same iteration with the charge taken out */
    world_nodes(&w, "fsdp", 16, 2);
    gcsim_iteration it;
    gcsim_error err;
    CHECK(gcsim_iteration_build(&it, &w.s, &err) == 0);
    double *with = calloc((size_t)it.n_calls, sizeof *with);
    double *without = calloc((size_t)it.n_calls, sizeof *without);
    CHECK(with && without);
    CHECK(bare_analytic_call_times(w.s.platform, w.s.placement.gpus, w.s.ps_shards, &it, with, &err) == 0);
    for (int c = 0; c < it.n_calls; c++)
        it.calls[c].overhead_s = 0;
    CHECK(bare_analytic_call_times(w.s.platform, w.s.placement.gpus, w.s.ps_shards, &it, without, &err) == 0);
    for (int c = 0; c < it.n_calls; c++)
        CHECK_REL(with[c] - without[c], 22.4e-6, 1e-6);
    free(with);
    free(without);
    gcsim_iteration_free(&it);
    world_free(&w);
}

/* A small sharded call runs the protocol NCCL's closed-form model picks for its ring (issue
 * 42): FSDP on 2 nodes with units of 1e6 parameters: every all-gather and reduce-scatter
 * names a protocol, its fixed cost is gcsim_nccl_group_call_tune's, and the call alone
 * costs the model's time where that is at least the schedule's (the schedule's otherwise);
 * at least one is not Simple. */
static void test_protocol(void)
{
    world w;
    world_init(&w, 2, 1000000, 1.0, "fsdp", 8);
    gcsim_error err;
    w.platform.nodes = 2;
    CHECK(gcsim_platform_place(&w.platform, 16, &w.s.placement, &err) == 0);
    gcsim_iteration it;
    CHECK(gcsim_iteration_build(&it, &w.s, &err) == 0);
    double *call_s = calloc((size_t)it.n_calls, sizeof *call_s);
    CHECK(call_s && bare_analytic_call_times(w.s.platform, w.s.placement.gpus, w.s.ps_shards, &it, call_s, &err) == 0);
    int not_simple = 0;
    for (int c = 0; c < it.n_calls; c++) {
        const gcsim_call *k = &it.calls[c];
        CHECK(k->protocol != NULL);
        gcsim_nccl_tuned_call t;
        CHECK(gcsim_nccl_group_call_tune(&w.platform, 16, k->group, k->collective, &k->bytes,
                                         &t, &err) == 0);
        CHECK(k->protocol && strcmp(k->protocol, gcsim_protocol_name((gcsim_protocol)t.protocol)) == 0);
        CHECK_REL(k->overhead_s, t.fixed_s, 1e-12);
        CHECK_REL(call_s[c], fmax(t.time_s, t.schedule_s), 1e-9);
        not_simple += t.protocol != GCSIM_PROTO_SIMPLE;
    }
    CHECK(not_simple > 0);
    free(call_s);
    gcsim_iteration_free(&it);
    world_free(&w);
}

int main(void)
{
    test_grouped_schedules();
    test_traffic();
    test_timeline();
    test_deepspeed_prefetch();
    test_memory();
    test_parse();
    test_nccl_latency();
    test_protocol();
    CHECK_DONE();
}
