/*
 * tests/collectives/test_protocol.c: NCCL's protocols as changes of the platform's links,
 * and the tuner (sim/collectives/protocol.h), against hand-computed values on platforms U
 * and R (test_platforms.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "nccl_call.h"
#include "protocol.h"
#include "tuner_model.h"
#include "test_platforms.h"

int main(void)
{
    gcsim_protocol pr;
    CHECK(gcsim_protocol_parse("LL128", &pr) == 0 && pr == GCSIM_PROTO_LL128);
    CHECK(gcsim_protocol_parse("simple", &pr) == 0 && pr == GCSIM_PROTO_SIMPLE);
    CHECK(gcsim_protocol_parse("ll12", &pr) != 0 && gcsim_protocol_parse("lll", &pr) != 0);

    gcsim_platform u = platform_u(), r = platform_r(), q;
    /* LL128 needs NVLink in the node; Simple and LL run everywhere. */
    CHECK(!gcsim_protocol_available(&u, GCSIM_PROTO_LL128, 8));
    CHECK(gcsim_protocol_available(&r, GCSIM_PROTO_LL128, 8));
    CHECK(gcsim_protocol_available(&u, GCSIM_PROTO_LL, 8));

    /* Ring Simple on one node of R (8 GPUs, 14 hops): the link figures as written, and
     * NCCL's base latency 8.4 us spread over the ring's 14 steps on every hop's latency. */
    gcsim_protocol_platform(&r, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_RING, 8, GCSIM_PROTO_SIMPLE, 14, &q);
    CHECK_REL(q.intra.latency_s, 5e-6 + 8.4e-6 / 14, 1e-12);
    CHECK_REL(q.nic.latency_s, 1e-6 + 8.4e-6 / 14, 1e-12);
    CHECK(q.intra.gpu_to_gpu_Bps == r.intra.gpu_to_gpu_Bps && q.nic.bandwidth_Bps == 25e9);
    /* Ring Simple across R's 2 nodes (16 GPUs, 30 hops, 2 of them network hops at 14 us):
     * (8.4 + 2 x 14) / 30 us on every hop; the wire's latencies stay beside it. */
    gcsim_protocol_platform(&r, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_RING, 16, GCSIM_PROTO_SIMPLE, 30, &q);
    CHECK_REL(q.intra.latency_s, 5e-6 + (8.4e-6 + 2 * 14e-6) / 30, 1e-12);
    CHECK_REL(q.nic.latency_s, 1e-6 + (8.4e-6 + 2 * 14e-6) / 30, 1e-12);
    CHECK(q.fabric.switch_latency_s == 0.13e-6);
    /* Ring LL across nodes: NVLink hop 0.6/3.4 of Simple's, at least NCCL's 1 us net
     * overhead, plus (6.6 + 2 x 2.7) / 30 us; half the bandwidth. */
    gcsim_protocol_platform(&r, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_RING, 16, GCSIM_PROTO_LL, 30, &q);
    CHECK_REL(q.intra.latency_s, fmax(5e-6 * 0.6 / 3.4, 1e-6) + (6.6e-6 + 2 * 2.7e-6) / 30, 1e-12);
    CHECK_REL(q.intra.gpu_to_gpu_Bps, 150e9, 1e-12);
    CHECK_REL(q.nic.bandwidth_Bps, 12.5e9, 1e-12);
    /* Tree LL128 across nodes: NVLink 1.25/4, 120/128 of the bandwidth; hops 2 (7 + 1),
     * 2 of them network hops at 8.5 us, base 14 us; on one node 7/9 of the bandwidth. */
    gcsim_protocol_platform(&r, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_TREE, 16, GCSIM_PROTO_LL128, 16, &q);
    CHECK_REL(q.intra.latency_s, 5e-6 * 1.25 / 4 + (14e-6 + 2 * 8.5e-6) / 16, 1e-12);
    CHECK_REL(q.nic.bandwidth_Bps, 25e9 * 120 / 128, 1e-12);
    gcsim_protocol_platform(&r, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_TREE, 8, GCSIM_PROTO_LL128, 0, &q);
    CHECK_REL(q.intra.gpu_to_gpu_Bps, 300e9 * 7 / 9, 1e-12);
    /* PCIe hops use NCCL's PCIe ratios: ring LL 1.0/5.7 (4 GPUs, 6 hops, base 6.6 us). */
    gcsim_protocol_platform(&u, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_RING, 4, GCSIM_PROTO_LL, 6, &q);
    CHECK_REL(q.intra.latency_s, 5e-6 / 5.7 + 6.6e-6 / 6, 1e-12);
    /* A gcsim pattern keeps the protocol's ratios only; Simple leaves it as written. */
    gcsim_protocol_platform(&r, GCSIM_OP_ALLREDUCE, -1, 16, GCSIM_PROTO_SIMPLE, 30, &q);
    CHECK(memcmp(&q, &r, sizeof q) == 0);

    /* NCCL's latency model at depth (tuner_model.c): a ring all-reduce of 1024 GPUs on 128
     * nodes of 8 (Simple, NVLink): 8.4 + 1792 x max(3.4, 3) + 254 x 14 us; the tree:
     * 8.4 + 2 (7 x 4.0 + 7 x 14) us; one GPU per node charges the tree's network hop to
     * the ring (LL: 5.0, not 2.7). */
    gcsim_nccl_latency l;
    gcsim_nccl_latency_of(GCSIM_NCCL_RING, GCSIM_PROTO_SIMPLE, GCSIM_OP_ALLREDUCE, true, 1024, 128, &l);
    CHECK(l.hops == 2046 && l.inter_hops == 254);
    CHECK_REL(l.latency_s, (8.4 + 1792 * 3.4 + 254 * 14) * 1e-6, 1e-12);
    gcsim_nccl_latency_of(GCSIM_NCCL_TREE, GCSIM_PROTO_SIMPLE, GCSIM_OP_ALLREDUCE, true, 1024, 128, &l);
    CHECK(l.hops == 28 && l.inter_hops == 14);
    CHECK_REL(l.latency_s, (8.4 + 2 * (7 * 4.0 + 7 * 14)) * 1e-6, 1e-12);
    gcsim_nccl_latency_of(GCSIM_NCCL_RING, GCSIM_PROTO_LL, GCSIM_OP_ALLREDUCE, false, 4, 4, &l);
    CHECK(l.hops == 6 && l.inter_hops == 6);
    CHECK_REL(l.latency_s, (6.6 + 6 * 5.0) * 1e-6, 1e-12);
    gcsim_nccl_latency_of(GCSIM_NCCL_NVLS_TREE, GCSIM_PROTO_SIMPLE, GCSIM_OP_ALLREDUCE, true, 64, 8, &l);
    CHECK_REL(l.latency_s, (25 + 6 * 20.9) * 1e-6, 1e-12);
    /* NCCL's tree correction: Simple at 1 MiB (log2(2^20 / 64) = 14) 0.5, none from 512 MiB. */
    CHECK(gcsim_nccl_tree_correction(GCSIM_PROTO_SIMPLE, 1 << 20) == 0.5);
    CHECK(gcsim_nccl_tree_correction(GCSIM_PROTO_SIMPLE, 512.0 * (1 << 20)) == 1.0);

    /* NCCL's ring plateau (tuning.cc ncclTopoGetAlgoTime): a ring Simple all-reduce across
     * nodes from 64 bytes per channel and rank at NCCL's 64 channels on: on R's 16 GPUs
     * from 64 x 64 x 16 = 65536 B; x1.4 (Ampere on), x1.9 (below compute capability 8.0);
     * never for LL, one node or an all-gather. */
    CHECK(gcsim_nccl_ring_plateau_factor(GCSIM_NCCL_RING, GCSIM_PROTO_SIMPLE, GCSIM_OP_ALLREDUCE,
                                         false, 16, 2, 65536) == 1.4);
    CHECK(gcsim_nccl_ring_plateau_factor(GCSIM_NCCL_RING, GCSIM_PROTO_SIMPLE, GCSIM_OP_ALLREDUCE,
                                         false, 16, 2, 65535) == 1.0);
    CHECK(gcsim_nccl_ring_plateau_factor(GCSIM_NCCL_RING, GCSIM_PROTO_SIMPLE, GCSIM_OP_ALLREDUCE,
                                         true, 16, 2, 65536) == 1.9);
    CHECK(gcsim_nccl_ring_plateau_factor(GCSIM_NCCL_RING, GCSIM_PROTO_LL, GCSIM_OP_ALLREDUCE,
                                         false, 16, 2, 1e9) == 1.0);
    CHECK(gcsim_nccl_ring_plateau_factor(GCSIM_NCCL_RING, GCSIM_PROTO_SIMPLE, GCSIM_OP_ALLREDUCE,
                                         false, 8, 1, 1e9) == 1.0);
    CHECK(gcsim_nccl_ring_plateau_factor(GCSIM_NCCL_TREE, GCSIM_PROTO_SIMPLE, GCSIM_OP_ALLREDUCE,
                                         false, 16, 2, 1e9) == 1.0);
    CHECK(gcsim_nccl_ring_plateau_factor(GCSIM_NCCL_RING, GCSIM_PROTO_SIMPLE, GCSIM_OP_ALLGATHER,
                                         false, 16, 2, 1e9) == 1.0);
    CHECK(gcsim_nccl_pre_ampere("v100") && gcsim_nccl_pre_ampere("t4") &&
          !gcsim_nccl_pre_ampere("a100") && !gcsim_nccl_pre_ampere("gh200") &&
          !gcsim_nccl_pre_ampere(""));
    {
        /* On R (16 GPUs, 2 nodes, NVLink; gpu.type not pre-Ampere): NCCL's ring Simple
         * latency 8.4 + 28 x max(3.4, 3) + 2 x 14 = 131.6 us, so the plateau adds 0.4 x
         * 131.6 = 52.64 us, spread over the ring's 30 steps: a forced ring Simple takes
         * 52.64 us more at 65536 B than at 65535 B (one byte less: 30 x 1/16 B at 25 GB/s,
         * 0.08 ps, is below the tolerance). On V100s the factor is 1.9: 0.9 x 131.6 us. */
        gcsim_platform rr = platform_r();
        strcpy(rr.gpu.type, "a100");
        CHECK_REL(gcsim_protocol_plateau_s(&rr, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_RING, 16,
                                           GCSIM_PROTO_SIMPLE, 1 << 20), 52.64e-6, 1e-12);
        CHECK(gcsim_protocol_plateau_s(&rr, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_RING, 8,
                                       GCSIM_PROTO_SIMPLE, 1 << 20) == 0);
        gcsim_error perr;
        gcsim_tuned below, at;
        CHECK(gcsim_tuner_choose(&rr, 16, GCSIM_OP_ALLREDUCE, 65535, COLLECTIVE_RING,
                                 GCSIM_PROTO_SIMPLE, &below, &perr) == 0);
        CHECK(gcsim_tuner_choose(&rr, 16, GCSIM_OP_ALLREDUCE, 65536, COLLECTIVE_RING,
                                 GCSIM_PROTO_SIMPLE, &at, &perr) == 0);
        CHECK_REL(at.time_s - below.time_s, 52.64e-6, 1e-6);
        strcpy(rr.gpu.type, "v100");
        CHECK_REL(gcsim_protocol_plateau_s(&rr, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_RING, 16,
                                           GCSIM_PROTO_SIMPLE, 1 << 20), 0.9 * 131.6e-6, 1e-12);
        /* A training call that the tuner runs as a ring with Simple pays the same: its
         * fixed cost is NCCL's Simple overhead plus the plateau. On U (16 GPUs on 4 nodes
         * of 4, PCIe, 1 Gb/s NICs) a 400 MB call is a ring Simple one. */
        gcsim_platform uu = platform_u();
        gcsim_nccl_tuned_call tc;
        CHECK(gcsim_nccl_call_tune(&uu, 16, 400e6, &tc, &perr) == 0);
        CHECK(tc.algo == GCSIM_NCCL_RING && tc.protocol == GCSIM_PROTO_SIMPLE);
        CHECK_REL(tc.fixed_s,
                  gcsim_nccl_call_overhead_s(&uu, 16, COLLECTIVE_RING, GCSIM_NCCL_RING) +
                      gcsim_protocol_plateau_s(&uu, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_RING, 16,
                                               GCSIM_PROTO_SIMPLE, 400e6),
                  1e-12);
        /* by hand: NCCL's ring Simple latency on U's PCIe, 8.4 + 24 x max(5.7, 3) + 6 x 14
         * = 229.2 us ("testgpu": taken as Ampere or later), x 0.4 = 91.68 us */
        CHECK_REL(gcsim_protocol_plateau_s(&uu, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_RING, 16,
                                           GCSIM_PROTO_SIMPLE, 400e6), 91.68e-6, 1e-12);
    }

    /* The tuner on one node of U (4 GPUs, ring or double tree). A ring all-reduce of S
     * takes 6 (a + S/4 / B), a the hop latency with NCCL's base spread over 6 hops:
     * Simple 5 + 8.4/6 us, LL 5/5.7 + 6.6/6 us. At 8 B LL wins on latency; the double
     * tree on one node has more steps than the ring's 6, so the ring's LL is the pick. */
    double a_simple = 5e-6 + 8.4e-6 / 6, a_ll = 5e-6 / 5.7 + 6.6e-6 / 6;
    gcsim_error err;
    gcsim_tuned t;
    CHECK(gcsim_tuner_choose(&u, 4, GCSIM_OP_ALLREDUCE, 8, COLLECTIVE_COUNT, GCSIM_PROTO_COUNT,
                             &t, &err) == 0);
    CHECK(t.collective == COLLECTIVE_RING && t.protocol == GCSIM_PROTO_LL);
    CHECK_REL(t.time_s, 6 * (a_ll + 2.0 / 5e9), 1e-9);
    /* At 400 MB Simple wins on bandwidth: LL's 6 x 1e8 / 5e9 = 0.12 s against 0.06. */
    CHECK(gcsim_tuner_choose(&u, 4, GCSIM_OP_ALLREDUCE, 400e6, COLLECTIVE_RING, GCSIM_PROTO_COUNT,
                             &t, &err) == 0);
    CHECK(t.protocol == GCSIM_PROTO_SIMPLE);
    CHECK_REL(t.time_s, 6 * (a_simple + 1e8 / 10e9), 1e-9);
    /* The crossover where both take the same time: 6 (a_simple + x/10e9) = 6 (a_ll +
     * x/5e9), x = S/4 = (a_simple - a_ll) x 1e10: a little below, LL; above, Simple. */
    double cross = 4 * (a_simple - a_ll) * 1e10;
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
    /* The rank: a tree at its latency plus the ring's Simple bandwidth time x N/(2(N-1))
     * / (0.92 x 0.5 x protocol efficiency x NCCL's correction at the size): 16 GPUs on 2
     * nodes, 1 GiB (correction 1), Simple; NVLS-tree at its latency plus the ring's
     * bandwidth time, halved on 2 nodes; the ring at its time. */
    CHECK_REL(gcsim_tuner_rank_s(GCSIM_NCCL_TREE, GCSIM_PROTO_SIMPLE, 16, 2, 1 << 30, 1.0, 0.1, 1.8, 0),
              0.1 + 1.8 * (16.0 / 30) / 0.46, 1e-12);
    CHECK_REL(gcsim_tuner_rank_s(GCSIM_NCCL_TREE, GCSIM_PROTO_SIMPLE, 16, 2, 1 << 20, 1.0, 0.1, 1.8, 0),
              0.1 + 1.8 * (16.0 / 30) / (0.46 * 0.5), 1e-12);
    CHECK_REL(gcsim_tuner_rank_s(GCSIM_NCCL_NVLS_TREE, GCSIM_PROTO_SIMPLE, 16, 2, 1 << 30, 1.0, 0.1, 1.8, 0),
              0.1 + 0.9, 1e-12);
    CHECK_REL(gcsim_tuner_rank_s(GCSIM_NCCL_NVLS_TREE, GCSIM_PROTO_SIMPLE, 64, 8, 1 << 30, 1.0, 0.1, 1.8, 0),
              0.1 + 1.8, 1e-12);
    CHECK(gcsim_tuner_rank_s(GCSIM_NCCL_RING, GCSIM_PROTO_SIMPLE, 16, 2, 1 << 30, 2.0, 0.2, 1.8, 0) == 2.0);
    /* NCCL's tree on two nodes (tuner_model.h, gcsim_nccl_two_node_tree_bw_Bps): the tree
     * graph's bwIntra, raised by the search up to twice the network's; the ceiling is the
     * speed array's top (48 GB/s a channel; 96 from Blackwell) and, with more than one GPU
     * in a node, one GPU's links inside it. */
    CHECK_REL(gcsim_nccl_two_node_tree_bw_Bps("h100", 8, 8, 370e9), 370e9, 1e-12);
    CHECK_REL(gcsim_nccl_two_node_tree_bw_Bps("h100", 8, 8, 400e9), 384e9, 1e-12);
    CHECK_REL(gcsim_nccl_two_node_tree_bw_Bps("h100", 8, 1, 0), 384e9, 1e-12);
    CHECK_REL(gcsim_nccl_two_node_tree_bw_Bps("b200", 4, 8, 1e15), 384e9, 1e-12);
    CHECK(gcsim_nccl_two_node_tree_bw_Bps("h100", 0, 8, 370e9) == 0);
    {
        /* The tree's rank on 16 GPUs over 2 nodes, 1 GiB (correction 1), Simple, the ring's
         * bus bandwidth 200 GB/s (bandwidth time 2^30 x 30/16 / 200e9): from min(2 x 200,
         * 370) = 370 GB/s x 0.92 x 0.5 with the two-node ceiling; then also at most 8
         * channels x perChMaxTreeBw (Hopper, 2 nodes: 41.4 GB/s); without the ceiling (not
         * given), or on 3 nodes, from the ring's 200 GB/s as before. */
        double gib = 1 << 30, bw_s = gib * (30.0 / 16) / 200e9;
        gcsim_nccl_caps two = {.tree_two_node_bw_Bps = 370e9};
        CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_TREE, GCSIM_PROTO_SIMPLE, 16, 2, gib, 1.0,
                                            0.1, bw_s, &two),
                  0.1 + gib / (0.5 * 0.92 * 370e9), 1e-12);
        two.tree_busbw_Bps = 8 * 41.4e9;
        CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_TREE, GCSIM_PROTO_SIMPLE, 16, 2, gib, 1.0,
                                            0.1, bw_s, &two),
                  0.1 + gib / (0.5 * 8 * 41.4e9), 1e-12);
        gcsim_nccl_caps none = {0};
        CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_TREE, GCSIM_PROTO_SIMPLE, 16, 2, gib, 1.0,
                                            0.1, bw_s, &none),
                  0.1 + gib / (0.5 * 0.92 * 200e9), 1e-12);
        two.tree_busbw_Bps = 0;
        CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_TREE, GCSIM_PROTO_SIMPLE, 24, 3, gib, 1.0,
                                            0.1, gib * (46.0 / 24) / 200e9, &two),
                  0.1 + gib / (0.5 * 0.92 * 200e9), 1e-12);
        /* The switch point, by hand: ring at T0 + S x (30/16) / 200e9, tree at L + S /
         * (0.5 x 0.92 x 370e9); with L - T0 = 4.2 ms they meet at S* = 4.2e-3 / (9.375e-12
         * - 1 / 170.2e9) = 1.2002 GB (correction 1 from 2^29 x 64 B on). Below it the ring,
         * above it the tree; without the two-node ceiling the ring at every size. */
        double t0 = 0.4e-3, lat = 4.6e-3;
        double star = (lat - t0) / (30.0 / 16 / 200e9 - 1 / (0.5 * 0.92 * 370e9));
        CHECK_REL(star, 1.2002e9, 1e-4);
        for (int k = 0; k < 4; k++) {
            double sz = k == 0 ? star / 1.1 : k == 1 ? star * 1.1 : k == 2 ? star / 1.01 : star * 1.01;
            double rbw = sz * (30.0 / 16) / 200e9;
            double ring = gcsim_tuner_rank_capped_s(GCSIM_NCCL_RING, GCSIM_PROTO_SIMPLE, 16, 2, sz,
                                                    t0 + rbw, 0, rbw, &two);
            double tree = gcsim_tuner_rank_capped_s(GCSIM_NCCL_TREE, GCSIM_PROTO_SIMPLE, 16, 2, sz,
                                                    1.0, lat, rbw, &two);
            double old = gcsim_tuner_rank_capped_s(GCSIM_NCCL_TREE, GCSIM_PROTO_SIMPLE, 16, 2, sz,
                                                   1.0, lat, rbw, &none);
            CHECK(k % 2 == 0 ? ring < tree : tree < ring);
            CHECK(ring < old);
        }
    }
    {
        /* The tuner on a TCPXO-like platform without NVLS (2 x 8 H100 on NVSwitch, one GPU's
         * links 370 GB/s, 8 NICs of 25 GB/s): Simple picks the tree at 8 and 16 GiB (NCCL's
         * two-node rule; the ring's 8 x 25 GB/s bound is below the tree's), ranked from 8
         * channels x 41.4 GB/s (0.92 x 370 = 340.4 is above it): the ranks of 16 GiB and 8
         * GiB differ by 8 GiB / (0.5 x 331.2 GB/s), the tree correction being 1 there. */
        gcsim_platform x = platform_r();
        snprintf(x.gpu.type, sizeof x.gpu.type, "%s", "h100");
        x.intra.gpu_to_gpu_Bps = 370e9;
        x.intra.nvls_Bps = 0;
        gcsim_tuned a8, a16;
        gcsim_error e2 = {{0}, 0, 0};
        double g8 = 8.0 * (1 << 30);
        CHECK(gcsim_tuner_choose(&x, 16, GCSIM_OP_ALLREDUCE, g8, COLLECTIVE_COUNT,
                                 GCSIM_PROTO_SIMPLE, &a8, &e2) == 0);
        CHECK(gcsim_tuner_choose(&x, 16, GCSIM_OP_ALLREDUCE, 2 * g8, COLLECTIVE_COUNT,
                                 GCSIM_PROTO_SIMPLE, &a16, &e2) == 0);
        CHECK(a8.algo == GCSIM_NCCL_TREE && a16.algo == GCSIM_NCCL_TREE);
        CHECK_REL(a16.rank_s - a8.rank_s, g8 / (0.5 * 8 * 41.4e9), 1e-9);
    }
    /* NCCL's LL cap (llMaxBws, tuning.cc lines 178-183, 263-272, 332): GB/s of LL's model
     * bus bandwidth, by GPU generation on one node, by CPU (Intel/default row) across. */
    CHECK_REL(gcsim_nccl_ll_max_busbw_Bps("v100", 1), 39.0e9, 1e-12);
    CHECK_REL(gcsim_nccl_ll_max_busbw_Bps("a100", 1), 87.7e9, 1e-12);
    CHECK_REL(gcsim_nccl_ll_max_busbw_Bps("h100", 1), 141.0e9, 1e-12);
    CHECK_REL(gcsim_nccl_ll_max_busbw_Bps("gb200", 1), 282.0e9, 1e-12);
    CHECK_REL(gcsim_nccl_ll_max_busbw_Bps("h100", 2), 39.0e9, 1e-12);
    CHECK_REL(gcsim_nccl_ll_max_busbw_Bps("a100", 8), 20.4e9, 1e-12);
    CHECK_REL(gcsim_nccl_ll_max_busbw_Bps("gb200", 3), 20.4e9, 1e-12);
    /* A tree with LL at 1 MiB on 64 GPUs, 8 nodes: its model bus bandwidth, bytes / (ring
     * bandwidth time 10 us x 64/126 / (0.92/3.8)) = 49.6 GB/s, is capped at 20.4 GB/s;
     * algorithm bandwidth half of it x NCCL's LL correction at 1 MiB (0.5). Uncapped (cap 0)
     * and with LL128 (no cap) the formula above. */
    const double mib = 1 << 20, bw_s = 1e-5, per_busbw = bw_s * (64.0 / 126) / (0.92 / 3.8);
    CHECK_REL(gcsim_tuner_rank_s(GCSIM_NCCL_TREE, GCSIM_PROTO_LL, 64, 8, mib, 1.0, 1e-4, bw_s,
                                 20.4e9),
              1e-4 + (mib / 20.4e9) / (0.5 * 0.5), 1e-12);
    CHECK_REL(gcsim_tuner_rank_s(GCSIM_NCCL_TREE, GCSIM_PROTO_LL, 64, 8, mib, 1.0, 1e-4, bw_s, 0),
              1e-4 + per_busbw / (0.5 * 0.5), 1e-12);
    CHECK_REL(gcsim_tuner_rank_s(GCSIM_NCCL_TREE, GCSIM_PROTO_LL, 64, 8, mib, 1.0, 1e-4, bw_s,
                                 100e9),
              1e-4 + per_busbw / (0.5 * 0.5), 1e-12); /* a cap above it does not bind */
    CHECK_REL(gcsim_tuner_rank_s(GCSIM_NCCL_TREE, GCSIM_PROTO_LL128, 64, 8, mib, 1.0, 1e-4, bw_s,
                                 20.4e9),
              1e-4 + bw_s * (64.0 / 126) / (0.92 * 120.0 / 128) / (0.5 * 0.6), 1e-12);
    /* The tuner ranks with the cap: on R grown to 8 nodes (ring busbw far above 20.4 / (0.92
     * / 3.8) = 84 GB/s) a tree with LL never ranks faster than its bytes at half of 20.4
     * GB/s x the correction. */
    {
        gcsim_platform r8 = platform_r();
        r8.nodes = 8;
        for (double s = 1 << 16; s <= (1 << 26); s *= 4) {
            double floor_s = s / (20.4e9 * 0.5 * gcsim_nccl_tree_correction(GCSIM_PROTO_LL, s));
            CHECK(gcsim_tuner_choose(&r8, 64, GCSIM_OP_ALLREDUCE, s, COLLECTIVE_DOUBLE_TREE,
                                     GCSIM_PROTO_LL, &t, &err) == 0);
            CHECK(t.protocol == GCSIM_PROTO_LL && t.rank_s >= floor_s);
        }
        /* So at 256 KiB-1 MiB both tuners, `gcsim collective`'s and a training call's
         * (nccl_call.c), pick the tree with LL128 there (without the cap both picked LL: a
         * 1 MiB LL tree then ranked at its uncapped model bus bandwidth, R8's ring busbw x
         * 0.92/3.8); from 2 MiB on LL128 won before as well. */
        for (double s = 1 << 18; s <= (1 << 20); s *= 2) {
            gcsim_nccl_tuned_call tc;
            CHECK(gcsim_tuner_choose(&r8, 64, GCSIM_OP_ALLREDUCE, s, COLLECTIVE_COUNT,
                                     GCSIM_PROTO_COUNT, &t, &err) == 0);
            CHECK(t.algo == GCSIM_NCCL_TREE && t.protocol == GCSIM_PROTO_LL128);
            CHECK(gcsim_nccl_call_tune(&r8, 64, s, &tc, &err) == 0);
            CHECK(tc.algo == GCSIM_NCCL_TREE && tc.protocol == GCSIM_PROTO_LL128);
        }
    }
    /* NCCL's ring with LL (tuning.cc line 327 at commit 5067397): bus bandwidth min(llMaxBw,
     * half the ring's), converted x N/(2(N-1)). 64 GPUs on 8 nodes, 1 MiB, ring Simple
     * bandwidth time 10 us: gcsim's LL ring moves it in 20 us; capped at 20.4 GB/s it
     * takes 1 MiB x 126/64 / 20.4 GB/s = 101.2 us, so the rank is the time plus 81.2 us.
     * A cap above the ring's half (1,000 GB/s), no cap (0), LL128 or Simple: the time. */
    {
        const double capped_s = mib * (126.0 / 64) / 20.4e9;
        CHECK_REL(gcsim_tuner_rank_s(GCSIM_NCCL_RING, GCSIM_PROTO_LL, 64, 8, mib, 1.0, 0, bw_s,
                                     20.4e9),
                  1.0 + capped_s - 2 * bw_s, 1e-12);
        CHECK_REL(capped_s - 2 * bw_s, 81.2e-6, 1e-3);
        CHECK(gcsim_tuner_rank_s(GCSIM_NCCL_RING, GCSIM_PROTO_LL, 64, 8, mib, 1.0, 0, bw_s,
                                 1000e9) == 1.0);
        CHECK(gcsim_tuner_rank_s(GCSIM_NCCL_RING, GCSIM_PROTO_LL, 64, 8, mib, 1.0, 0, bw_s, 0) ==
              1.0);
        CHECK(gcsim_tuner_rank_s(GCSIM_NCCL_RING, GCSIM_PROTO_LL128, 64, 8, mib, 1.0, 0, bw_s,
                                 20.4e9) == 1.0);
        CHECK(gcsim_tuner_rank_s(GCSIM_NCCL_RING, GCSIM_PROTO_SIMPLE, 64, 8, mib, 1.0, 0, bw_s,
                                 20.4e9) == 1.0);
    }
    /* The tuner ranks the ring with it: on R grown to 8 nodes with 100 GB/s NICs (ring busbw
     * near 100 GB/s, so LL's half, 50, is above the 20.4 GB/s cap) a ring with LL ranks no
     * faster than its bytes x 126/64 at 20.4 GB/s, and above its time (gcsim's LL ring
     * moves the bytes faster than the cap: without the cap the rank is the time); its time
     * stays gcsim's schedule's. */
    {
        gcsim_platform r8 = platform_r();
        r8.nodes = 8;
        r8.nic.bandwidth_Bps = 100e9;
        for (double s = 1 << 20; s <= (1 << 26); s *= 4) {
            double floor_s = s * (126.0 / 64) / 20.4e9;
            CHECK(gcsim_tuner_choose(&r8, 64, GCSIM_OP_ALLREDUCE, s, COLLECTIVE_RING,
                                     GCSIM_PROTO_LL, &t, &err) == 0);
            CHECK(t.protocol == GCSIM_PROTO_LL && t.collective == COLLECTIVE_RING);
            CHECK(t.rank_s >= floor_s * (1 - 1e-12));
            CHECK(t.rank_s > t.time_s); /* the cap binds: its rank is above its time */
        }
        /* and neither tuner picks the ring with LL where the cap makes it lose: from 1 MiB
         * on, both pick the same algorithm and protocol, not ring/LL */
        for (double s = 1 << 20; s <= (1 << 26); s *= 4) {
            gcsim_nccl_tuned_call tc;
            CHECK(gcsim_tuner_choose(&r8, 64, GCSIM_OP_ALLREDUCE, s, COLLECTIVE_COUNT,
                                     GCSIM_PROTO_COUNT, &t, &err) == 0);
            CHECK(!(t.algo == GCSIM_NCCL_RING && t.protocol == GCSIM_PROTO_LL));
            CHECK(gcsim_nccl_call_tune(&r8, 64, s, &tc, &err) == 0);
            CHECK(!(tc.algo == GCSIM_NCCL_RING && tc.protocol == GCSIM_PROTO_LL));
        }
    }
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
    /* Under the current tables NVLS-tree's per-channel cap (R's GPU is no Hopper: its row
     * is NCCL's pre-Hopper one, 8 x 18.5 or 23.6 GB/s on 2 nodes, tuner_model.c) ranks it
     * behind the ring at 8 GB; under a
     * release before the cap (2.27.5) it wins, and the checks below follow that pick. */
    CHECK(gcsim_tuner_choose(&r, 16, GCSIM_OP_ALLREDUCE, 8e9, COLLECTIVE_COUNT,
                             GCSIM_PROTO_COUNT, &t, &err) == 0);
    CHECK(t.collective == COLLECTIVE_RING);
    r.nccl_version = 22705;
    CHECK(gcsim_tuner_choose(&r, 16, GCSIM_OP_ALLREDUCE, 8e9, COLLECTIVE_COUNT,
                             GCSIM_PROTO_COUNT, &t, &err) == 0);
    CHECK(t.collective == COLLECTIVE_NVLS_TREE && t.protocol == GCSIM_PROTO_SIMPLE);
    /* NVLS-tree across nodes (protocol.h: gcsim_nvls_tree_chain_Bps): the double tree's
     * chains run at 2 (i-1)/i x nvls, so that a node's part takes the switch's S / nvls:
     * 274 GB/s x 14/8 = 479.5 GB/s on 8 GPUs per node; none without NVLS or a chain. */
    CHECK_REL(gcsim_nvls_tree_chain_Bps(274e9, 8), 479.5e9, 1e-12);
    CHECK_REL(gcsim_nvls_tree_chain_Bps(100e9, 2), 100e9, 1e-12);
    CHECK(gcsim_nvls_tree_chain_Bps(0, 8) == 0 && gcsim_nvls_tree_chain_Bps(274e9, 1) == 0);
    {
        /* NVLS-tree's node rate is its schedule's (COLLECTIVE_NVLS_TREE, tree_nvls.c): the
         * schedule's flows inside a node run at 479.5 / 300 x the port's rate; its
         * protocol platform (no overheads spread) keeps the ports and takes the chain's 14
         * hops together at the switch's 7 intra-node latencies (5 us x 7/14 each); one
         * node, or no NVLS: the platform as for the tree */
        gcsim_platform q2, tr;
        gcsim_protocol_platform(&r, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_NVLS_TREE, 16,
                                GCSIM_PROTO_SIMPLE, 0, &q2);
        CHECK(q2.intra.gpu_to_gpu_Bps == r.intra.gpu_to_gpu_Bps);
        CHECK_REL(q2.intra.latency_s, 5e-6 * 7 / 14, 1e-12);
        CHECK(q2.nic.bandwidth_Bps == r.nic.bandwidth_Bps && q2.nic.latency_s == r.nic.latency_s);
        gcsim_protocol_platform(&r, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_NVLS_TREE, 8,
                                GCSIM_PROTO_SIMPLE, 0, &q2);
        gcsim_protocol_platform(&r, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_TREE, 8, GCSIM_PROTO_SIMPLE,
                                0, &tr);
        CHECK(memcmp(&q2, &tr, sizeof q2) == 0);
        CHECK_REL(gcsim_nvls_tree_port_scale(&r), 479.5 / 300, 1e-12);
        gcsim_platform none = platform_r();
        CHECK(gcsim_nvls_tree_port_scale(&none) == 1.0);
    }
    CHECK(t.algo == GCSIM_NCCL_NVLS_TREE);
    CHECK(t.platform.intra.gpu_to_gpu_Bps == r.intra.gpu_to_gpu_Bps);
    CHECK(t.platform.nic.bandwidth_Bps == r.nic.bandwidth_Bps);
    {
        /* A training call of the same size picks the same and runs the same schedule
         * (nccl_call.h), on the platform as written: NCCL's overheads lumped into its fixed
         * cost rather than spread over the steps, and the chain hops at the platform's
         * 5 us rather than the switch's 2.5 us: within 2% of `gcsim collective`'s time at
         * 8 GB; before, it ran the double tree's chains at 300 GB/s (1.6 x the switch's
         * time inside the node) */
        gcsim_nccl_tuned_call tc;
        CHECK(gcsim_nccl_call_tune(&r, 16, 8e9, &tc, &err) == 0);
        CHECK(tc.collective == COLLECTIVE_NVLS_TREE && tc.algo == GCSIM_NCCL_NVLS_TREE);
        CHECK(tc.time_s >= t.time_s && tc.time_s <= 1.02 * t.time_s);
        printf("NVLS-tree 8 GB on 2 x 8: collective %.4f ms, training call %.4f ms\n",
               t.time_s * 1e3, tc.time_s * 1e3);
    }
    {
        /* With the network (and the heads' PCIe to it) out of the way, a large NVLS-tree call takes the switch's time,
         * S / nvls (the chain's fill and drain: under 1% at 64 GB); the tree without NVLS
         * takes its chains' 2 (i-1)/i x S / gpu_to_gpu. Out of the way but not so fast that
         * NCCL's search would stop at one channel (topology.c, gcsim_topology_net_channels:
         * channels until they reach the NVLink total): NICs at gpu_to_gpu / 7.5 give 8
         * channels on the 8 NICs, 8 x 40 GB/s across nodes, against a switch at half the
         * platform's 274 GB/s (at 274 the two are close enough to pipeline at +3%). */
        gcsim_platform fast = r;
        fast.nic.bandwidth_Bps = fast.intra.gpu_to_gpu_Bps / 7.5;
        fast.intra.nvls_Bps = 137e9;
        fast.intra.gpu_to_host_Bps = 1e13; /* the head's PCIe to its NIC */
        double s = 64e9;
        CHECK(gcsim_tuner_choose(&fast, 16, GCSIM_OP_ALLREDUCE, s, COLLECTIVE_DOUBLE_TREE,
                                 GCSIM_PROTO_SIMPLE, &t, &err) == 0);
        CHECK(t.algo == GCSIM_NCCL_NVLS_TREE);
        CHECK(t.time_s >= s / 137e9 && t.time_s < 1.01 * s / 137e9);
        fast.intra.nvls_Bps = 0;
        CHECK(gcsim_tuner_choose(&fast, 16, GCSIM_OP_ALLREDUCE, s, COLLECTIVE_DOUBLE_TREE,
                                 GCSIM_PROTO_SIMPLE, &t, &err) == 0);
        CHECK(t.algo == GCSIM_NCCL_TREE);
        CHECK(t.time_s >= 2 * 7.0 / 8 * s / 300e9 && t.time_s < 1.01 * 2 * 7.0 / 8 * s / 300e9);
    }
    /* On one node with NVLS, the switch reduces large messages. */
    CHECK(gcsim_tuner_choose(&r, 8, GCSIM_OP_ALLREDUCE, 8e9, COLLECTIVE_COUNT,
                             GCSIM_PROTO_COUNT, &t, &err) == 0);
    CHECK(t.collective == COLLECTIVE_NVLS);
    /* The inter-node choice does not depend on a node property it has no use for: with
     * and without NVLS in R's nodes, on 2 and on 64 nodes, every size picks the same ring
     * or tree and protocol, except where NVLS-tree itself (a candidate only with NVLS) is
     * the pick. */
    for (int nodes = 2; nodes <= 64; nodes *= 32) {
        gcsim_platform with = platform_r(), without = platform_r();
        with.nodes = without.nodes = nodes;
        with.intra.nvls_Bps = 274e9;
        for (double s = 8; s <= 8e9; s *= 4) {
            gcsim_tuned a, b;
            CHECK(gcsim_tuner_choose(&with, 8 * nodes, GCSIM_OP_ALLREDUCE, s, COLLECTIVE_COUNT,
                                     GCSIM_PROTO_COUNT, &a, &err) == 0);
            CHECK(gcsim_tuner_choose(&without, 8 * nodes, GCSIM_OP_ALLREDUCE, s, COLLECTIVE_COUNT,
                                     GCSIM_PROTO_COUNT, &b, &err) == 0);
            CHECK(b.algo == GCSIM_NCCL_RING || b.algo == GCSIM_NCCL_TREE);
            if (a.algo != GCSIM_NCCL_NVLS_TREE)
                CHECK(a.algo == b.algo && a.protocol == b.protocol && a.time_s == b.time_s);
        }
    }
    CHECK_DONE();
}
