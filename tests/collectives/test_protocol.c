/*
 * tests/collectives/test_protocol.c: NCCL's protocols as changes of the platform's links,
 * and the tuner (sim/collectives/protocol.h), against hand-computed values on platforms U
 * and R (test_platforms.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "protocol.h"
#include "test_platforms.h"

int main(void)
{
    gcsim_protocol pr;
    CHECK(gcsim_protocol_parse("LL128", &pr) == 0 && pr == GCSIM_PROTO_LL128);
    CHECK(gcsim_protocol_parse("simple", &pr) == 0 && pr == GCSIM_PROTO_SIMPLE);
    CHECK(gcsim_protocol_parse("ll12", &pr) != 0 && gcsim_protocol_parse("lll", &pr) != 0);

    gcsim_platform u = platform_u(), r = platform_r(), q;
    /* LL128 needs NVLink in the node; Simple and LL run everywhere. */
    CHECK(!gcsim_protocol_available(&u, GCSIM_PROTO_LL128));
    CHECK(gcsim_protocol_available(&r, GCSIM_PROTO_LL128));
    CHECK(gcsim_protocol_available(&u, GCSIM_PROTO_LL));

    /* Simple is the platform as written. */
    gcsim_protocol_platform(&r, COLLECTIVE_RING, 2, GCSIM_PROTO_SIMPLE, &q);
    CHECK(memcmp(&q, &r, sizeof q) == 0);
    /* Ring LL across nodes: NVLink hop 0.6/3.4 of Simple's, x1.8 as NCCL counts LL's
     * intra-node hop in a multi-node collective; the wire's latencies stay; half the
     * bandwidth. */
    gcsim_protocol_platform(&r, COLLECTIVE_RING, 2, GCSIM_PROTO_LL, &q);
    CHECK_REL(q.intra.latency_s, 5e-6 * 0.6 / 3.4 * 1.8, 1e-12);
    CHECK(q.nic.latency_s == 1e-6 && q.fabric.switch_latency_s == 0.13e-6);
    CHECK_REL(q.intra.gpu_to_gpu_Bps, 150e9, 1e-12);
    CHECK_REL(q.nic.bandwidth_Bps, 12.5e9, 1e-12);
    /* Tree LL128 across nodes: NVLink 1.25/4, 120/128 of the bandwidth; on one node 7/9. */
    gcsim_protocol_platform(&r, COLLECTIVE_DOUBLE_TREE, 2, GCSIM_PROTO_LL128, &q);
    CHECK_REL(q.intra.latency_s, 5e-6 * 1.25 / 4, 1e-12);
    CHECK_REL(q.nic.bandwidth_Bps, 25e9 * 120 / 128, 1e-12);
    gcsim_protocol_platform(&r, COLLECTIVE_DOUBLE_TREE, 1, GCSIM_PROTO_LL128, &q);
    CHECK_REL(q.intra.gpu_to_gpu_Bps, 300e9 * 7 / 9, 1e-12);
    /* PCIe hops use NCCL's PCIe ratios: ring LL 1.0/5.7. */
    gcsim_protocol_platform(&u, COLLECTIVE_RING, 1, GCSIM_PROTO_LL, &q);
    CHECK_REL(q.intra.latency_s, 5e-6 / 5.7, 1e-12);

    /* The tuner on one node of U (4 GPUs, ring or double tree). A ring all-reduce of S
     * takes 6 (a + S/4 / B). At 8 B LL wins on latency: 6 x 5e-6/5.7 (+ 2 B / 5 GB/s)
     * against Simple's 6 x 5e-6; the double tree on one node has 2 x (3 + C - 1) + ...
     * steps, more than the ring's 6, so the ring's LL is the pick. */
    gcsim_error err;
    gcsim_tuned t;
    CHECK(gcsim_tuner_choose(&u, 4, GCSIM_OP_ALLREDUCE, 8, COLLECTIVE_COUNT, GCSIM_PROTO_COUNT,
                             &t, &err) == 0);
    CHECK(t.collective == COLLECTIVE_RING && t.protocol == GCSIM_PROTO_LL);
    CHECK_REL(t.time_s, 6 * (5e-6 / 5.7 + 2.0 / 5e9), 1e-9);
    /* At 400 MB Simple wins on bandwidth: LL's 6 x 1e8 / 5e9 = 0.12 s against 0.06. */
    CHECK(gcsim_tuner_choose(&u, 4, GCSIM_OP_ALLREDUCE, 400e6, COLLECTIVE_RING, GCSIM_PROTO_COUNT,
                             &t, &err) == 0);
    CHECK(t.protocol == GCSIM_PROTO_SIMPLE);
    CHECK_REL(t.time_s, 6 * (5e-6 + 1e8 / 10e9), 1e-9);
    /* The crossover where both take the same time: 6 (5e-6 + x/10e9) = 6 (5e-6/5.7 +
     * x/5e9), x = S/4 = 5e-6 (1 - 1/5.7) x 1e10 = 41,228 B: a little below, LL; above,
     * Simple. */
    double cross = 4 * 5e-6 * (1 - 1 / 5.7) * 1e10;
    CHECK(gcsim_tuner_choose(&u, 4, GCSIM_OP_ALLREDUCE, 0.98 * cross, COLLECTIVE_RING,
                             GCSIM_PROTO_COUNT, &t, &err) == 0 && t.protocol == GCSIM_PROTO_LL);
    CHECK(gcsim_tuner_choose(&u, 4, GCSIM_OP_ALLREDUCE, 1.02 * cross, COLLECTIVE_RING,
                             GCSIM_PROTO_COUNT, &t, &err) == 0 && t.protocol == GCSIM_PROTO_SIMPLE);
    /* LL128 is never picked without NVLink; a protocol the user names is used as is. */
    for (double s = 8; s <= 1e9; s *= 8) {
        CHECK(gcsim_tuner_choose(&u, 16, GCSIM_OP_ALLREDUCE, s, COLLECTIVE_COUNT,
                                 GCSIM_PROTO_COUNT, &t, &err) == 0);
        CHECK(t.protocol != GCSIM_PROTO_LL128);
    }
    CHECK(gcsim_tuner_choose(&u, 16, GCSIM_OP_ALLREDUCE, 8, COLLECTIVE_RING, GCSIM_PROTO_SIMPLE,
                             &t, &err) == 0 && t.protocol == GCSIM_PROTO_SIMPLE);
    /* The rank: a tree without NVLS ranks at the larger of its time and its latency plus
     * the ring's bandwidth time x N/(2(N-1)) / 0.46 (NCCL's model: 16 GPUs, 1.1594); any
     * other algorithm, or a tree with NVLS across nodes, at its time. */
    CHECK_REL(gcsim_tuner_rank_s(COLLECTIVE_DOUBLE_TREE, 16, false, 1.0, 0.1, 2.0, 0.2),
              0.1 + 1.8 * (16.0 / 30) / 0.46, 1e-12);
    CHECK(gcsim_tuner_rank_s(COLLECTIVE_DOUBLE_TREE, 16, false, 5.0, 0.1, 2.0, 0.2) == 5.0);
    CHECK(gcsim_tuner_rank_s(COLLECTIVE_DOUBLE_TREE, 16, true, 1.0, 0.1, 2.0, 0.2) == 1.0);
    CHECK(gcsim_tuner_rank_s(COLLECTIVE_RING, 16, false, 2.0, 0.2, 2.0, 0.2) == 2.0);
    /* On R the tuner's pick ranks no worse than any single candidate, at every size, and
     * its time is the closed form of what it picked. */
    for (double s = 8; s <= 8e9; s *= 4) {
        CHECK(gcsim_tuner_choose(&r, 16, GCSIM_OP_ALLREDUCE, s, COLLECTIVE_COUNT,
                                 GCSIM_PROTO_COUNT, &t, &err) == 0);
        for (int c = 0; c < 2; c++)
            for (int p = 0; p < GCSIM_PROTO_COUNT; p++) {
                gcsim_tuned one;
                CHECK(gcsim_tuner_choose(&r, 16, GCSIM_OP_ALLREDUCE, s,
                                         c ? COLLECTIVE_DOUBLE_TREE : COLLECTIVE_RING,
                                         (gcsim_protocol)p, &one, &err) == 0);
                CHECK(t.rank_s <= one.rank_s);
                if (one.collective == t.collective && one.protocol == t.protocol)
                    CHECK(one.time_s == t.time_s);
            }
    }
    /* Large messages on R without NVLS: the ring with Simple, as NCCL ranks it, though
     * gcsim's railed double tree (each NIC crossed once each way) would be faster; with
     * NVLS (NVLS-tree across nodes) the double tree. Small messages: a tree. */
    CHECK(gcsim_tuner_choose(&r, 16, GCSIM_OP_ALLREDUCE, 8e9, COLLECTIVE_COUNT,
                             GCSIM_PROTO_COUNT, &t, &err) == 0);
    CHECK(t.collective == COLLECTIVE_RING && t.protocol == GCSIM_PROTO_SIMPLE);
    gcsim_tuned tree;
    CHECK(gcsim_tuner_choose(&r, 16, GCSIM_OP_ALLREDUCE, 8e9, COLLECTIVE_DOUBLE_TREE,
                             GCSIM_PROTO_SIMPLE, &tree, &err) == 0);
    CHECK(tree.time_s < 0.7 * t.time_s); /* NVSwitch-bound at 300 GB/s: 0.62 */
    CHECK(gcsim_tuner_choose(&r, 16, GCSIM_OP_ALLREDUCE, 65536, COLLECTIVE_COUNT,
                             GCSIM_PROTO_COUNT, &t, &err) == 0);
    CHECK(t.collective == COLLECTIVE_DOUBLE_TREE);
    r.intra.nvls_Bps = 274e9;
    CHECK(gcsim_tuner_choose(&r, 16, GCSIM_OP_ALLREDUCE, 8e9, COLLECTIVE_COUNT,
                             GCSIM_PROTO_COUNT, &t, &err) == 0);
    CHECK(t.collective == COLLECTIVE_DOUBLE_TREE && t.protocol == GCSIM_PROTO_SIMPLE);
    /* On one node with NVLS, the switch reduces large messages. */
    CHECK(gcsim_tuner_choose(&r, 8, GCSIM_OP_ALLREDUCE, 8e9, COLLECTIVE_COUNT,
                             GCSIM_PROTO_COUNT, &t, &err) == 0);
    CHECK(t.collective == COLLECTIVE_NVLS);
    CHECK_DONE();
}
