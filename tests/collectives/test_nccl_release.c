/*
 * tests/collectives/test_nccl_release.c: the NCCL release a platform names ("nccl_version")
 * and the tuning tables the tuner takes for it (tuner_model.c, gcsim_nccl_caps_of_release),
 * against hand values from each release's src/graph/tuning.cc (the tags and lines are in
 * tuner_model.c): the version code, the platform key and its refusals, the Blackwell
 * per-channel caps per release, the other generations unchanged, and the pick on the
 * 20-rack GB200 platform.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "platform.h"
#include "platform_nccl_version.h"
#include "protocol.h"
#include "tuner_model.h"

static const char *const base_json =
    "{\"name\": \"t\", \"nodes\": 2, \"gpus_per_node\": 4, %s"
    "\"gpu\": {\"type\": \"gb200\", \"speed\": \"1Tflops\"},"
    "\"intra_node\": {\"kind\": \"nvswitch\", \"gpu_to_host\": \"50GBps\","
    " \"gpu_to_gpu\": \"700GBps\", \"latency\": \"5us\"},"
    "\"nic\": {\"kind\": \"infiniband\", \"bandwidth\": \"400Gbps\", \"latency\": \"2us\","
    " \"per_node\": 4},"
    "\"fabric\": {\"topology\": \"star\", \"switch_latency\": \"0.5us\"}}";

static int parse_with(const char *member, gcsim_platform *p, gcsim_error *err)
{
    char text[2048];
    snprintf(text, sizeof text, base_json, member);
    return gcsim_platform_parse(text, "t.json", p, err);
}

int main(int argc, char **argv)
{
    /* NCCL_VERSION_CODE: X x 10000 + Y x 100 + Z; NCCL's "+cuda" suffix ignored */
    CHECK(gcsim_nccl_version_code("2.26.2") == 22602);
    CHECK(gcsim_nccl_version_code("2.29.2+cuda13.1") == 22902);
    CHECK(gcsim_nccl_version_code("2.8.4") == 20804);
    CHECK(gcsim_nccl_version_code("2.26") == -1);
    CHECK(gcsim_nccl_version_code("v2.26.2") == -1);
    CHECK(gcsim_nccl_version_code("2.100.1") == -1);
    CHECK(gcsim_nccl_version_code("2.26.2x") == -1);
    CHECK(gcsim_nccl_version_code("") == -1);

    /* The platform key: absent 0, given its code, refused with its path when malformed */
    gcsim_platform p;
    gcsim_error err;
    CHECK(parse_with("", &p, &err) == 0);
    CHECK(p.nccl_version == 0);
    CHECK(parse_with("\"nccl_version\": \"2.26.2\",", &p, &err) == 0);
    CHECK(p.nccl_version == 22602);
    CHECK(parse_with("\"nccl_version\": \"2.26\",", &p, &err) != 0);
    CHECK(strstr(err.message, "$.nccl_version") != NULL);
    CHECK(parse_with("\"nccl_version\": 2.26,", &p, &err) != 0);

    /* Blackwell caps per release, 20 nodes (column N4) and 2 nodes (N2), 15 channels */
    gcsim_nccl_caps c;
    gcsim_nccl_caps_of_release("gb200", 22602, 20, 15, &c); /* 2.25.1-2.27.x: 2 x Hopper's */
    CHECK_REL(c.ring_ll128_busbw_Bps, 15 * 73.4e9, 1e-12);
    CHECK_REL(c.tree_ll128_busbw_Bps, 15 * 58.0e9, 1e-12);
    CHECK_REL(c.tree_busbw_Bps, 15 * 72.0e9, 1e-12);
    CHECK_REL(c.ll_max_busbw_Bps, 20.4e9, 1e-12); /* llMaxBws: the same in every release */
    gcsim_nccl_caps_of_release("gb200", 22602, 2, 15, &c);
    CHECK_REL(c.tree_busbw_Bps, 15 * 82.8e9, 1e-12);
    CHECK_REL(c.tree_ll128_busbw_Bps, 15 * 73.4e9, 1e-12);
    gcsim_nccl_caps_of_release("gb200", 20804, 20, 15, &c); /* before 2.25.1: its row */
    CHECK_REL(c.tree_busbw_Bps, 15 * 72.0e9, 1e-12);
    gcsim_nccl_caps_of_release("gb200", 22803, 20, 15, &c); /* 2.28.3 */
    CHECK_REL(c.ring_ll128_busbw_Bps, 15 * 73.4e9, 1e-12);
    CHECK_REL(c.tree_ll128_busbw_Bps, 15 * 20.0e9, 1e-12);
    CHECK_REL(c.tree_busbw_Bps, 15 * 24.0e9, 1e-12);
    gcsim_nccl_caps_of_release("gb200", 22809, 2, 15, &c); /* 2.28.7-2.28.9: N2 34.6 */
    CHECK_REL(c.ring_ll128_busbw_Bps, 15 * 34.6e9, 1e-12);
    CHECK_REL(c.tree_busbw_Bps, 15 * 42.8e9, 1e-12);
    gcsim_nccl_caps_of_release("gb200", 22809, 20, 15, &c);
    CHECK_REL(c.ring_ll128_busbw_Bps, 15 * 73.4e9, 1e-12);
    gcsim_nccl_caps_of_release("gb200", 22902, 20, 15, &c); /* 2.29.2-2.29.3 */
    CHECK_REL(c.ring_ll128_busbw_Bps, 15 * 34.5e9, 1e-12);
    gcsim_nccl_caps_of_release("gb200", 22907, 20, 15, &c); /* 2.29.7: as current, but NVLS-tree */
    CHECK_REL(c.ring_ll128_busbw_Bps, 15 * 40.0e9, 1e-12);
    /* 0 (not named) and a later release: the current tables, as gcsim_nccl_caps_of */
    gcsim_nccl_caps cur, later;
    gcsim_nccl_caps_of_release("gb200", 0, 20, 15, &c);
    gcsim_nccl_caps_of("gb200", 20, 15, &cur);
    gcsim_nccl_caps_of_release("gb200", 23007, 20, 15, &later);
    CHECK(memcmp(&c, &cur, sizeof c) == 0 && memcmp(&later, &cur, sizeof c) == 0);
    CHECK_REL(cur.tree_busbw_Bps, 15 * 24.0e9, 1e-12);
    /* The other generations' rows did not change between these releases, but for the
     * NVLS-tree cap, which 2.28.3 added (below) */
    const char *others[] = {"h100", "a100", "v100"};
    for (int k = 0; k < 3; k++)
        for (int nodes = 1; nodes <= 8; nodes *= 2) {
            gcsim_nccl_caps_of_release(others[k], 22602, nodes, 8, &c);
            gcsim_nccl_caps_of(others[k], nodes, 8, &cur);
            CHECK(c.nvls_tree_busbw_Bps == 0);
            c.nvls_tree_busbw_Bps = cur.nvls_tree_busbw_Bps;
            CHECK(memcmp(&c, &cur, sizeof c) == 0);
        }

    /* NVLS-tree's per-channel cap (perChMaxNVLSTreeBws), channels x NCCL's figure: none
     * before 2.28.3 (2.27.5 here) nor on one node; Hopper {-, 57.7, 45.5} in every release
     * that has it; Blackwell 3+ nodes 43.1 (2.28.3-2.28.9), 43.8 (2.29.2-2.29.7), 80.0
     * (current), 2 nodes 96.0. At 2 nodes and at 180 nodes (column N4: 3 or more). */
    gcsim_nccl_caps_of_release("h100", 22705, 180, 8, &c);
    CHECK(c.nvls_tree_busbw_Bps == 0);
    gcsim_nccl_caps_of_release("h100", 22803, 2, 8, &c);
    CHECK_REL(c.nvls_tree_busbw_Bps, 8 * 57.7e9, 1e-12);
    gcsim_nccl_caps_of("h100", 2, 8, &c);
    CHECK_REL(c.nvls_tree_busbw_Bps, 461.6e9, 1e-12);
    gcsim_nccl_caps_of("h100", 180, 8, &c);
    CHECK_REL(c.nvls_tree_busbw_Bps, 364.0e9, 1e-12);
    gcsim_nccl_caps_of("h100", 1, 8, &c);
    CHECK(c.nvls_tree_busbw_Bps == 0);
    gcsim_nccl_caps_of_release("gb200", 22602, 180, 15, &c);
    CHECK(c.nvls_tree_busbw_Bps == 0);
    gcsim_nccl_caps_of_release("gb200", 22803, 180, 15, &c);
    CHECK_REL(c.nvls_tree_busbw_Bps, 15 * 43.1e9, 1e-12);
    gcsim_nccl_caps_of_release("gb200", 22902, 2, 15, &c);
    CHECK_REL(c.nvls_tree_busbw_Bps, 1440e9, 1e-12);
    gcsim_nccl_caps_of_release("gb200", 22902, 180, 15, &c);
    CHECK_REL(c.nvls_tree_busbw_Bps, 657e9, 1e-12);
    gcsim_nccl_caps_of_release("gb200", 22907, 180, 15, &c);
    CHECK_REL(c.nvls_tree_busbw_Bps, 657e9, 1e-12);
    gcsim_nccl_caps_of_release("gb200", 23003, 180, 15, &c); /* 2.30.3 on: as current */
    CHECK_REL(c.nvls_tree_busbw_Bps, 1200e9, 1e-12);
    gcsim_nccl_caps_of("gb200", 180, 15, &c);
    CHECK_REL(c.nvls_tree_busbw_Bps, 1200e9, 1e-12);
    /* The rank of an NVLS-tree all-reduce of 1 GiB, latency 50 us, the ring's Simple
     * bandwidth time 2 ms. On 2 nodes x 8 H100 (16 GPUs): NCCL doubles the network's
     * bandwidth, 1 ms, against the cap's 2^30 x 2 x 15/16 / 461.6 GB/s = 4.3615 ms: the cap
     * binds. On 180 nodes (1,440 GPUs): 2 ms against 2^30 x 2 x 1439/1440 / 364 GB/s =
     * 5.8956 ms. Under 2.27.5 (no cap): 1 ms and 2 ms. */
    {
        const double g = 1073741824.0;
        gcsim_nccl_caps_of("h100", 2, 8, &c);
        CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_NVLS_TREE, GCSIM_PROTO_SIMPLE, 16, 2, g,
                                            9.0, 50e-6, 2e-3, &c),
                  50e-6 + 4.3614946e-3, 1e-7);
        gcsim_nccl_caps_of("h100", 180, 8, &c);
        CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_NVLS_TREE, GCSIM_PROTO_SIMPLE, 1440, 180,
                                            g, 9.0, 50e-6, 2e-3, &c),
                  50e-6 + 5.8955834e-3, 1e-7);
        gcsim_nccl_caps_of_release("h100", 22705, 2, 8, &c);
        CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_NVLS_TREE, GCSIM_PROTO_SIMPLE, 16, 2, g,
                                            9.0, 50e-6, 2e-3, &c),
                  50e-6 + 1e-3, 1e-12);
        gcsim_nccl_caps_of_release("h100", 22705, 180, 8, &c);
        CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_NVLS_TREE, GCSIM_PROTO_SIMPLE, 1440, 180,
                                            g, 9.0, 50e-6, 2e-3, &c),
                  50e-6 + 2e-3, 1e-12);
    }

    /* The rank of a tree Simple all-reduce of 1 GiB on 1,440 GPUs, 20 nodes, 15 channels,
     * the ring's Simple bandwidth time 1 ms (bus bandwidth 2^30 x 2 x 1439/1440 / 1 ms =
     * 2.146 TB/s): under 2.26.2 0.92 x 2.146 TB/s capped at 15 x 72 = 1,080 GB/s, algorithm
     * bandwidth half of it; under the current tables capped at 15 x 24 = 360 GB/s. */
    const double gib = 1073741824.0;
    gcsim_nccl_caps_of_release("gb200", 22602, 20, 15, &c);
    CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_TREE, GCSIM_PROTO_SIMPLE, 1440, 20, gib, 9.0,
                                        6.9e-4, 1e-3, &c),
              6.9e-4 + gib / 540e9, 1e-12);
    gcsim_nccl_caps_of("gb200", 20, 15, &c);
    CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_TREE, GCSIM_PROTO_SIMPLE, 1440, 20, gib, 9.0,
                                        6.9e-4, 1e-3, &c),
              6.9e-4 + gib / 180e9, 1e-12);

    /* On the 20-rack GB200 platform (NCCL 2.26.2) at 16 GiB: the release's tree cap (72 GB/s
     * a channel) leaves the tree ranked ahead of the ring, as NCCL 2.26.2's own model ranks
     * it (its tree at 0.92 of the ring's bandwidth with a latency of a fraction of the
     * ring's); under the current tables' 24 GB/s the ring wins. */
    if (argc < 2) {
        fprintf(stderr, "usage: test_nccl_release SOURCE_DIR\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", argv[1],
             "tests/validation/nccl_logs/platforms/gb200-nvl72-ib-coreweave.json");
    if (gcsim_platform_load(path, &p, &err) != 0) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        return 1;
    }
    CHECK(p.nccl_version == 22602);
    gcsim_tuned t226, tcur;
    const double s16 = 16 * gib;
    CHECK(gcsim_tuner_choose(&p, 1440, GCSIM_OP_ALLREDUCE, s16, COLLECTIVE_COUNT,
                             GCSIM_PROTO_COUNT, &t226, &err) == 0);
    p.nccl_version = 0;
    CHECK(gcsim_tuner_choose(&p, 1440, GCSIM_OP_ALLREDUCE, s16, COLLECTIVE_COUNT,
                             GCSIM_PROTO_COUNT, &tcur, &err) == 0);
    CHECK(t226.algo == GCSIM_NCCL_TREE);
    CHECK(tcur.algo == GCSIM_NCCL_RING);
    CHECK_DONE();
}
