/*
 * tests/collectives/test_nccl_release.c: the NCCL release a platform names ("nccl_version")
 * and the tuning tables the tuner takes for it (tuner_model.c, gcsim_nccl_caps_of_release),
 * against hand values from each release's src/graph/tuning.cc (the tags and lines are in
 * tuner_model.c): the version code, the platform key and its refusals, the Blackwell
 * per-channel caps per release, the other generations unchanged, and the pick on the
 * 20-rack GB200 platform; then NCCL 2.8's whole model (tuner_release.c, v2.8.4-1's lines
 * there): latencies, efficiencies, caps, tree correction, plateau, the LL128 rule, the
 * tree and ring ranks at 2 and 16 nodes, and the DGX-2 platform that names 2.8.4; and LL128
 * across nodes whose NICs hang off the CPU over C2C (nic.attach), off before 2.27.3.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "platform.h"
#include "platform_nccl_version.h"
#include "protocol.h"
#include "tuner_model.h"
#include "tuner_release.h"

static const char *const base_json =
    "{\"name\": \"t\", \"nodes\": 2, \"gpus_per_node\": 4, %s"
    "\"gpu\": {\"type\": \"gb200\", \"speed\": \"1Tflops\"},"
    "\"intra_node\": {\"kind\": \"nvswitch\", \"gpu_to_host\": \"50GBps\","
    " \"gpu_to_gpu\": \"700GBps\", \"latency\": \"5us\"},"
    "\"nic\": {\"kind\": \"infiniband\", \"bandwidth\": \"400Gbps\", \"latency\": \"2us\","
    " \"per_node\": 4},"
    "\"fabric\": {\"topology\": \"star\", \"switch_latency\": \"0.5us\"}}";

/* the four caps equal (their release may differ) */
static bool same_caps(const gcsim_nccl_caps *a, const gcsim_nccl_caps *b)
{
    return a->ll_max_busbw_Bps == b->ll_max_busbw_Bps &&
           a->ring_ll128_busbw_Bps == b->ring_ll128_busbw_Bps &&
           a->tree_busbw_Bps == b->tree_busbw_Bps &&
           a->tree_ll128_busbw_Bps == b->tree_ll128_busbw_Bps;
}

static int parse_with(const char *member, gcsim_platform *p, gcsim_error *err)
{
    char text[2048];
    snprintf(text, sizeof text, base_json, member);
    return gcsim_platform_parse(text, "t.json", p, err);
}

/* LL128 across nodes whose NICs the GPU reaches over C2C (nic.attach "cpu-c2c"): off before
 * NCCL 2.27.3 (v2.26.2-1 tuning.cc line 429: typeInter PHB > PXN), on from it and with the
 * current tables; on one node NCCL drops the NICs and LL128 stays on (tuner_release.c). */
static void check_ll128_over_c2c(const char *source_dir)
{
    CHECK(gcsim_nccl_ll128_over_c2c_release(0));
    CHECK(!gcsim_nccl_ll128_over_c2c_release(20804));
    CHECK(!gcsim_nccl_ll128_over_c2c_release(22602));
    CHECK(!gcsim_nccl_ll128_over_c2c_release(22606));
    CHECK(gcsim_nccl_ll128_over_c2c_release(22703));
    CHECK(gcsim_nccl_ll128_over_c2c_release(22902));

    /* the key: base_json's NIC with "attach" (2 nodes of 4 GB200s on an NVSwitch) */
    char text[2048], json[2100];
    snprintf(text, sizeof text, base_json, "\"nccl_version\": \"2.26.2\",");
    const char *at = strstr(text, "\"per_node\": 4}");
    CHECK(at != NULL);
    if (!at)
        return;
    gcsim_platform p;
    gcsim_error err;
    int head = (int)(at - text);
    snprintf(json, sizeof json, "%.*s\"per_node\": 4, \"attach\": \"cpu-c2c\"}%s", head, text,
             at + strlen("\"per_node\": 4}"));
    CHECK(gcsim_platform_parse(json, "t.json", &p, &err) == 0);
    CHECK(p.nic.cpu_c2c && p.nccl_version == 22602);
    CHECK(gcsim_protocol_available(&p, GCSIM_PROTO_LL128, 4));  /* one node */
    CHECK(!gcsim_protocol_available(&p, GCSIM_PROTO_LL128, 8)); /* two nodes, 2.26.2 */
    CHECK(gcsim_protocol_available(&p, GCSIM_PROTO_LL, 8) &&
          gcsim_protocol_available(&p, GCSIM_PROTO_SIMPLE, 8));
    p.nccl_version = 22703;
    CHECK(gcsim_protocol_available(&p, GCSIM_PROTO_LL128, 8));
    p.nccl_version = 0;
    CHECK(gcsim_protocol_available(&p, GCSIM_PROTO_LL128, 8));
    /* without the key (a NIC a PCIe switch away, as before): on under 2.26.2 */
    CHECK(parse_with("\"nccl_version\": \"2.26.2\",", &p, &err) == 0);
    CHECK(!p.nic.cpu_c2c && gcsim_protocol_available(&p, GCSIM_PROTO_LL128, 8));
    /* a value that is neither choice is refused, naming the key */
    snprintf(json, sizeof json, "%.*s\"per_node\": 4, \"attach\": \"cpu\"}%s", head, text,
             at + strlen("\"per_node\": 4}"));
    CHECK(gcsim_platform_parse(json, "t.json", &p, &err) != 0 &&
          strstr(err.message, "$.nic.attach") != NULL);

    /* CoreWeave's 2 racks (128 GPUs, NCCL 2.26.2, NICs over C2C) at 1 GiB: the double tree
     * with Simple, where the same platform with the NIC a PCIe switch away takes LL128 */
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", source_dir,
             "tests/validation/nccl_logs/platforms/gb200-nvl72-ib-coreweave-16pr.json");
    if (gcsim_platform_load(path, &p, &err) != 0) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        check_failures++;
        return;
    }
    CHECK(p.nic.cpu_c2c && p.nccl_version == 22602);
    gcsim_tuned t;
    const double gib = 1073741824.0;
    CHECK(gcsim_tuner_choose(&p, 128, GCSIM_OP_ALLREDUCE, gib, COLLECTIVE_COUNT,
                             GCSIM_PROTO_COUNT, &t, &err) == 0);
    CHECK(t.algo == GCSIM_NCCL_TREE && t.protocol == GCSIM_PROTO_SIMPLE);
    p.nic.cpu_c2c = false;
    CHECK(gcsim_tuner_choose(&p, 128, GCSIM_OP_ALLREDUCE, gib, COLLECTIVE_COUNT,
                             GCSIM_PROTO_COUNT, &t, &err) == 0);
    CHECK(t.algo == GCSIM_NCCL_TREE && t.protocol == GCSIM_PROTO_LL128);
}

/* NCCL 2.8 (2.8.3, 2.8.4: tuner_release.c, v2.8.4-1 src/graph/tuning.cc, lines there)
 * against the current tables, by hand. */
static void check_release_2_8(const char *source_dir)
{
    const int v = 20804;
    CHECK(gcsim_nccl_release_2_8(20803) && gcsim_nccl_release_2_8(20804));
    CHECK(!gcsim_nccl_release_2_8(20708) && !gcsim_nccl_release_2_8(21003) &&
          !gcsim_nccl_release_2_8(0));
    /* the 2.9 series keeps 2.8's tuning.cc in what gcsim models (git diff v2.8.4-1 v2.9.9-1
     * -- src/graph/tuning.cc: CollNet and thread counts only) */
    CHECK(gcsim_nccl_release_2_8(20906) && gcsim_nccl_release_2_8(20909));
    {
        /* NCCL 2.9.9 on two nodes of 8 A100 (AWS p4d, tests/validation/nccl_logs), by hand
         * from v2.9.9-1 src/graph/tuning.cc: tree Simple 2 x ((8 - 1) x 28 + 1 x 28) = 448
         * us (hwLat lines 63-70, latency lines 156-157); perChMaxTreeBws Ampere two nodes
         * 22.5 GB/s a channel (line 76): 4 search channels, 90 GB/s; ll128MaxBwPerCh
         * all-reduce 16.9 (line 74): 67.6 GB/s */
        gcsim_nccl_latency l9;
        gcsim_nccl_latency_of_release(20909, GCSIM_NCCL_TREE, GCSIM_PROTO_SIMPLE,
                                      GCSIM_OP_ALLREDUCE, true, 16, 2, &l9);
        CHECK_REL(l9.latency_s, 448e-6, 1e-12);
        gcsim_nccl_caps c9;
        gcsim_nccl_release_caps("a100", 20909, 2, 4, &c9);
        CHECK_REL(c9.tree_busbw_Bps, 90e9, 1e-12);
        CHECK_REL(c9.ring_ll128_busbw_Bps, 67.6e9, 1e-12);
        CHECK_REL(c9.tree_ll128_busbw_Bps, 67.6e9, 1e-12);
    }

    /* Latency (lines 56, 63-70, 141, 152, 155-156), all-reduce on NVLink nodes of 16 GPUs.
     * Tree Simple: base 0, every hop 28 us: 2 x (15 + log2 nodes) hops: 2 nodes 32 hops,
     * 896 us; 16 nodes 38 hops, 1,064 us (current: 8.4 + 30 x 4.0 + 8 x 14 = 240.4 us). */
    gcsim_nccl_latency l;
    gcsim_nccl_latency_of_release(v, GCSIM_NCCL_TREE, GCSIM_PROTO_SIMPLE, GCSIM_OP_ALLREDUCE,
                                  true, 32, 2, &l);
    CHECK_REL(l.latency_s, 896e-6, 1e-12);
    CHECK(l.hops == 32 && l.inter_hops == 2);
    gcsim_nccl_latency_of_release(v, GCSIM_NCCL_TREE, GCSIM_PROTO_SIMPLE, GCSIM_OP_ALLREDUCE,
                                  true, 256, 16, &l);
    CHECK_REL(l.latency_s, 1064e-6, 1e-12);
    CHECK_REL(l.base_s + l.inter_hops * l.inter_hop_s, 8 * 28e-6, 1e-12);
    gcsim_nccl_latency_of_release(0, GCSIM_NCCL_TREE, GCSIM_PROTO_SIMPLE, GCSIM_OP_ALLREDUCE,
                                  true, 256, 16, &l);
    CHECK_REL(l.latency_s, 240.4e-6, 1e-12);
    /* Tree LL128: 4.4 + 30 x 1.25 + 8 x 8.5 = 109.9 us; 2 nodes 4.4 + 30 x 1.25 + 2 x 8.5 */
    gcsim_nccl_latency_of_release(v, GCSIM_NCCL_TREE, GCSIM_PROTO_LL128, GCSIM_OP_ALLREDUCE,
                                  true, 256, 16, &l);
    CHECK_REL(l.latency_s, 109.9e-6, 1e-12);
    gcsim_nccl_latency_of_release(v, GCSIM_NCCL_TREE, GCSIM_PROTO_LL128, GCSIM_OP_ALLREDUCE,
                                  true, 32, 2, &l);
    CHECK_REL(l.latency_s, 58.9e-6, 1e-12);
    /* Ring Simple: 8.4 + (510 - 30) x 3.4 + 30 x 9.6 = 1,928.4 us; 2 nodes 8.4 + 60 x 3.4 +
     * 2 x 9.6 = 231.6 us; no net-overhead floor */
    gcsim_nccl_latency_of_release(v, GCSIM_NCCL_RING, GCSIM_PROTO_SIMPLE, GCSIM_OP_ALLREDUCE,
                                  true, 256, 16, &l);
    CHECK_REL(l.latency_s, 1928.4e-6, 1e-12);
    CHECK(l.intra_floor_s == 0);
    gcsim_nccl_latency_of_release(v, GCSIM_NCCL_RING, GCSIM_PROTO_SIMPLE, GCSIM_OP_ALLREDUCE,
                                  true, 32, 2, &l);
    CHECK_REL(l.latency_s, 231.6e-6, 1e-12);
    /* Ring LL across nodes: the intra hop 0.47 x 1.8: 3.6 + 60 x 0.846 + 2 x 2.7 = 59.76 us */
    gcsim_nccl_latency_of_release(v, GCSIM_NCCL_RING, GCSIM_PROTO_LL, GCSIM_OP_ALLREDUCE, true,
                                  32, 2, &l);
    CHECK_REL(l.latency_s, 59.76e-6, 1e-12);
    /* Ring LL128, one GPU per node: the ring's own network figure (4.0 us), 10 + 2 x 4 */
    gcsim_nccl_latency_of_release(v, GCSIM_NCCL_RING, GCSIM_PROTO_LL128, GCSIM_OP_ALLREDUCE,
                                  true, 2, 2, &l);
    CHECK_REL(l.latency_s, 18e-6, 1e-12);

    /* Efficiencies (lines 125-129) */
    CHECK_REL(gcsim_nccl_ring_bw_factor_release(v, GCSIM_PROTO_LL, GCSIM_OP_ALLREDUCE, 1, 8),
              0.25, 1e-15);
    CHECK_REL(gcsim_nccl_ring_bw_factor_release(v, GCSIM_PROTO_LL, GCSIM_OP_ALLGATHER, 1, 8),
              1.0 / 3.0, 1e-15);
    CHECK_REL(gcsim_nccl_ring_bw_factor_release(v, GCSIM_PROTO_LL, GCSIM_OP_ALLGATHER, 2, 8),
              0.25, 1e-15);
    CHECK_REL(gcsim_nccl_ring_bw_factor_release(v, GCSIM_PROTO_LL128, GCSIM_OP_ALLREDUCE, 2, 1),
              0.7, 1e-15);
    CHECK_REL(gcsim_nccl_ring_bw_factor_release(0, GCSIM_PROTO_LL, GCSIM_OP_ALLREDUCE, 2, 8),
              0.5, 1e-15);
    CHECK_REL(gcsim_nccl_tree_bw_factor_release(v, GCSIM_PROTO_LL128, 16), 0.92 * 0.915, 1e-15);
    CHECK_REL(gcsim_nccl_tree_bw_factor_release(0, GCSIM_PROTO_LL128, 16), 0.92 * 120 / 128,
              1e-15);
    /* Tree correction (lines 265-269): LL128 at 8 MiB (index 17) 0.7, current 0.9; at 256
     * MiB (index 22) 0.92, current 1.0; Simple unchanged */
    CHECK_REL(gcsim_nccl_tree_correction_release(v, GCSIM_PROTO_LL128, 8388608.0), 0.7, 1e-15);
    CHECK_REL(gcsim_nccl_tree_correction_release(0, GCSIM_PROTO_LL128, 8388608.0), 0.9, 1e-15);
    CHECK_REL(gcsim_nccl_tree_correction_release(v, GCSIM_PROTO_LL128, 268435456.0), 0.92,
              1e-15);
    CHECK_REL(gcsim_nccl_tree_correction_release(v, GCSIM_PROTO_LL128, 536870912.0), 1.0, 1e-15);
    CHECK_REL(gcsim_nccl_tree_correction_release(v, GCSIM_PROTO_SIMPLE, 8388608.0), 0.8, 1e-15);
    /* Plateau (lines 280-281): 1.9 on an A100 too (current 1.4) */
    CHECK_REL(gcsim_nccl_ring_plateau_factor_release(v, GCSIM_NCCL_RING, GCSIM_PROTO_SIMPLE,
                                                     GCSIM_OP_ALLREDUCE, false, 256, 16, 1 << 30),
              1.9, 1e-15);
    CHECK_REL(gcsim_nccl_ring_plateau_factor_release(0, GCSIM_NCCL_RING, GCSIM_PROTO_SIMPLE,
                                                     GCSIM_OP_ALLREDUCE, false, 256, 16, 1 << 30),
              1.4, 1e-15);
    /* LL128 by default (lines 192-195): compute capability 7.0 or 8.0 only */
    CHECK(gcsim_nccl_ll128_default_release(v, "v100") && gcsim_nccl_ll128_default_release(v, "a100"));
    CHECK(!gcsim_nccl_ll128_default_release(v, "h100") &&
          !gcsim_nccl_ll128_default_release(v, "rtx3090"));
    CHECK(gcsim_nccl_ll128_default_release(0, "h100"));

    /* Caps (lines 74-76, 93-100): V100, 8 channels: LL128 16.9 a channel (current 20),
     * the tree 10 a channel on 16 nodes, 18.5 on 2, llMaxBw 20.4 across 3+ nodes; A100 on
     * 2 nodes 22.5 a tree channel (current 23.6), one node llMaxBw 87.7 */
    gcsim_nccl_caps c;
    gcsim_nccl_release_caps("v100", v, 16, 8, &c);
    CHECK_REL(c.ring_ll128_busbw_Bps, 8 * 16.9e9, 1e-12);
    CHECK_REL(c.tree_ll128_busbw_Bps, 8 * 16.9e9, 1e-12);
    CHECK_REL(c.tree_busbw_Bps, 8 * 10.0e9, 1e-12);
    CHECK_REL(c.ll_max_busbw_Bps, 20.4e9, 1e-12);
    CHECK(c.release == v);
    gcsim_nccl_release_caps("a100", v, 2, 8, &c);
    CHECK_REL(c.tree_busbw_Bps, 8 * 22.5e9, 1e-12);
    gcsim_nccl_release_caps("a100", v, 1, 8, &c);
    CHECK_REL(c.ll_max_busbw_Bps, 87.7e9, 1e-12);
    gcsim_nccl_release_caps("h100", v, 1, 8, &c);
    CHECK_REL(c.ll_max_busbw_Bps, 39.0e9, 1e-12);

    /* Ranks (gcsim_tuner_rank_capped_s with the 2.8 caps: their release's efficiencies) */
    const double mib32 = 33554432.0, gib = 1073741824.0;
    double bus = 2.0 * 255 / 256; /* all-reduce bus factor on 256 GPUs */
    gcsim_nccl_caps v28, cur;
    gcsim_nccl_release_caps("v100", v, 16, 8, &v28);
    gcsim_nccl_release_caps("v100", 0, 16, 8, &cur);
    /* Tree LL128 on 16 nodes, 32 MiB, the ring at 80 GB/s bus bandwidth, latency 100 us:
     * min(0.92 x 80, 8 x 10) = 73.6, x 0.915 = 67.344 (below 8 x 16.9), correction 0.9:
     * 100 us + 32 MiB / (0.5 x 0.9 x 67.344 GB/s); current x 120/128 = 69.0 */
    double ring_s = mib32 * bus / 80e9;
    CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_TREE, GCSIM_PROTO_LL128, 256, 16, mib32, 9,
                                        1e-4, ring_s, &v28),
              1e-4 + mib32 / (0.5 * 0.9 * 67.344e9), 1e-12);
    CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_TREE, GCSIM_PROTO_LL128, 256, 16, mib32, 9,
                                        1e-4, ring_s, &cur),
              1e-4 + mib32 / (0.5 * 0.9 * 69.0e9), 1e-12);
    /* Tree LL128 on 2 nodes (32 GPUs), 1 GiB, the ring at 200 GB/s: min(184, 8 x 18.5) =
     * 148, x 0.915 = 135.42, capped at 8 x 16.9 = 135.2 (current: 138.75, below 8 x 20) */
    gcsim_nccl_caps v28n2, curn2;
    gcsim_nccl_release_caps("v100", v, 2, 8, &v28n2);
    gcsim_nccl_release_caps("v100", 0, 2, 8, &curn2);
    ring_s = gib * (2.0 * 31 / 32) / 200e9;
    CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_TREE, GCSIM_PROTO_LL128, 32, 2, gib, 9, 5e-5,
                                        ring_s, &v28n2),
              5e-5 + gib / (0.5 * 135.2e9), 1e-12);
    CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_TREE, GCSIM_PROTO_LL128, 32, 2, gib, 9, 5e-5,
                                        ring_s, &curn2),
              5e-5 + gib / (0.5 * 138.75e9), 1e-12);
    /* Tree Simple there: min(184, 148) = 148 in both (the Volta row did not change) */
    CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_TREE, GCSIM_PROTO_SIMPLE, 32, 2, gib, 9,
                                        896e-6, ring_s, &v28n2),
              896e-6 + gib / (0.5 * 148e9), 1e-12);
    /* Ring LL128 on 16 nodes, 4 channels, the ring at 100 GB/s, time 5 ms: 0.92 x 100 = 92
     * capped at 4 x 16.9 = 67.6 (current 80): 5 ms + 32 MiB x bus x (1/67.6 - 1/92) */
    gcsim_nccl_caps v28c4, curc4;
    gcsim_nccl_release_caps("v100", v, 16, 4, &v28c4);
    gcsim_nccl_release_caps("v100", 0, 16, 4, &curc4);
    ring_s = mib32 * bus / 100e9;
    CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_RING, GCSIM_PROTO_LL128, 256, 16, mib32,
                                        5e-3, 0, ring_s, &v28c4),
              5e-3 + mib32 * bus * (1 / 67.6e9 - 1 / 92e9), 1e-9);
    CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_RING, GCSIM_PROTO_LL128, 256, 16, mib32,
                                        5e-3, 0, ring_s, &curc4),
              5e-3 + mib32 * bus * (1 / 80e9 - 1 / 92e9), 1e-9);
    /* Ring LL there: 100 / 4 = 25 above llMaxBw 20.4 (current 100 / 2 = 50) */
    CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_RING, GCSIM_PROTO_LL, 256, 16, mib32, 5e-3, 0,
                                        ring_s, &v28c4),
              5e-3 + mib32 * bus * (1 / 20.4e9 - 1 / 25e9), 1e-9);
    CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_RING, GCSIM_PROTO_LL, 256, 16, mib32, 5e-3, 0,
                                        ring_s, &curc4),
              5e-3 + mib32 * bus * (1 / 20.4e9 - 1 / 50e9), 1e-9);

    /* The DGX-2 platform names 2.8.4 (its log's header); LL128 is NCCL 2.8's default there
     * (V100), not on the same platform with H100s, where the tuner then never picks it */
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", source_dir,
             "tests/validation/nccl_logs/platforms/v100-dgx2-edr.json");
    gcsim_platform p;
    gcsim_error err;
    if (gcsim_platform_load(path, &p, &err) != 0) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        check_failures++;
        return;
    }
    CHECK(p.nccl_version == 20804);
    CHECK(gcsim_protocol_available(&p, GCSIM_PROTO_LL128, 32));
    strcpy(p.gpu.type, "h100");
    CHECK(!gcsim_protocol_available(&p, GCSIM_PROTO_LL128, 32));
    gcsim_tuned t;
    for (double bytes = 65536; bytes <= gib; bytes *= 32) {
        CHECK(gcsim_tuner_choose(&p, 32, GCSIM_OP_ALLREDUCE, bytes, COLLECTIVE_COUNT,
                                 GCSIM_PROTO_COUNT, &t, &err) == 0);
        CHECK(t.protocol != GCSIM_PROTO_LL128);
    }
    /* forcing it stays NCCL_PROTO's: allowed on NVLink */
    CHECK(gcsim_tuner_choose(&p, 32, GCSIM_OP_ALLREDUCE, gib, COLLECTIVE_COUNT,
                             GCSIM_PROTO_LL128, &t, &err) == 0);
    CHECK(t.protocol == GCSIM_PROTO_LL128);
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
    gcsim_nccl_caps_of_release("gb200", 20909, 20, 15, &c); /* before 2.25.1: its row */
    CHECK_REL(c.tree_busbw_Bps, 15 * 72.0e9, 1e-12);
    /* 2.8 (tuner_release.c) knows no Blackwell: every GPU but compute capability 8.0 takes
     * its Volta row (v2.8.4-1 tuning.cc lines 76, 93, 100), 10 GB/s a tree channel on 3+
     * nodes */
    gcsim_nccl_release_caps("gb200", 20804, 20, 15, &c);
    CHECK_REL(c.tree_busbw_Bps, 15 * 10.0e9, 1e-12);
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
    CHECK(same_caps(&c, &cur) && same_caps(&later, &cur));
    CHECK_REL(cur.tree_busbw_Bps, 15 * 24.0e9, 1e-12);
    /* The other generations' rows did not change between these releases, but for the
     * NVLS-tree cap, which 2.28.3 added (below) */
    const char *others[] = {"h100", "a100", "v100"};
    for (int k = 0; k < 3; k++)
        for (int nodes = 1; nodes <= 8; nodes *= 2) {
            gcsim_nccl_caps_of_release(others[k], 22602, nodes, 8, &c);
            gcsim_nccl_caps_of(others[k], nodes, 8, &cur);
            CHECK(c.nvls_tree_busbw_Bps == 0); /* before 2.28.3: no NVLS-tree cap */
            CHECK(same_caps(&c, &cur));
        }

    /* NVLS-tree's per-channel cap (perChMaxNVLSTreeBws), channels x NCCL's figure: none
     * before 2.28.3 (2.27.5 here) nor on one node; Hopper {-, 57.7, 45.5} in every release
     * that has it; Blackwell 3+ nodes 43.1 (2.28.3-2.28.9), 43.8 (2.29.2-2.29.7), 80.0
     * (current), 2 nodes 96.0. At 2 nodes and at 180 nodes (column N4: 3 or more). */
    gcsim_nccl_caps_of_release("h100", 22705, 180, 8, &c);
    CHECK(c.nvls_tree_busbw_Bps == 0);
    c.nvls_tree_busbw_Bps = -1; /* 2.8's own tables: no NVLS, so no cap, whatever was there */
    gcsim_nccl_release_caps("h100", 20804, 2, 8, &c);
    CHECK(c.nvls_tree_busbw_Bps == 0 && c.release == 20804);
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
    check_release_2_8(argv[1]);
    check_ll128_over_c2c(argv[1]);
    CHECK_DONE();
}
