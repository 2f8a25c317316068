/*
 * tests/collectives/test_bagua_leader.c: Bagua's hierarchical low-precision all-reduce
 * (sim/collectives/bagua_leader.c) against hand-computed costs on platform U (4 nodes x 4
 * GPUs; GPU ports 10 GB/s, 5 us; one 125e6 B/s NIC per node, 50 us; test_platforms.h):
 * the fp32 reduce and broadcast inside the node, the compressed payload only on the
 * leaders' all-to-all and all-gather, the hop codec on the all-to-all alone; a partial
 * last node, one node, and the prepared closed form equal to the flow-by-flow one.
 */
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "collectives.h"
#include "test_platforms.h"

/* A 100 MB fp32 bucket as an 8-bit per-worker-scale payload of 25 MB, codec 4 ms + 2 ms. */
static gcsim_bucket_bytes bucket(bool compressed)
{
    return (gcsim_bucket_bytes){.dense_bytes = 1e8, .payload_bytes = compressed ? 2.5e7 : 1e8,
                                .aggregation = compressed ? PAYLOAD_PER_WORKER_SCALE
                                                          : PAYLOAD_DENSE_SUMMABLE,
                                .compressed = compressed, .encode_s = compressed ? 4e-3 : 0,
                                .decode_s = compressed ? 2e-3 : 0};
}

static void hand_case(void)
{
    gcsim_platform p = platform_u();
    gcsim_topology t;
    gcsim_schedule s;
    gcsim_error err;
    CHECK(gcsim_topology_init(&t, &p, 16, &err) == 0);
    CHECK(gcsim_schedule_build(&s, COLLECTIVE_BAGUA_LEADER, &t, 0, 1, &err) == 0);
    CHECK(s.n_phases == 4 && s.decodes == 1 && s.endpoints == 16);
    if (s.n_phases != 4)
        return;
    const char *names[4] = {"node reduce", "leader all-to-all", "leader all-gather",
                            "node broadcast"};
    const int flows[4] = {12, 12, 12, 12};
    for (int ph = 0; ph < 4; ph++) {
        CHECK(strcmp(s.phases[ph].name, names[ph]) == 0);
        CHECK(s.phases[ph].n_flows == flows[ph] && s.phases[ph].steps == 1);
        CHECK(s.phases[ph].uncompressed == (ph == 0 || ph == 3));
    }
    /* the chains: GPU 1 of node 2 (GPU 9) hands to its leader 8; 8 hands to 9 after */
    bool to_leader = false, from_leader = false, leader_sends_across = false;
    for (int f = 0; f < 12; f++) {
        const gcsim_flow *a = &s.phases[0].flows[f], *b = &s.phases[3].flows[f];
        to_leader |= a->src == 9 && a->dst == 8;
        from_leader |= b->src == 8 && b->dst == 9;
        CHECK(a->dst / 4 == a->src / 4 && b->dst / 4 == b->src / 4); /* inside a node */
        const gcsim_flow *x = &s.phases[1].flows[f];
        CHECK(x->src % 4 == 0 && x->dst % 4 == 0 && x->share == 0.25); /* leaders only */
        leader_sends_across |= x->src == 8 && x->dst == 12;
    }
    CHECK(to_leader && from_leader && leader_sends_across);

    /* compressed: each chain link carries the whole fp32 bucket over a 10 GB/s port, one
     * step: 5 us + 1e8 / 10e9 = 10.005 ms, twice; each leader sends 3 chunks of 25e6 / 4
     * through its NIC at a third of 125e6 B/s each: 50 us + 6.25e6 x 3 / 125e6 = 150.05 ms,
     * twice; the all-to-all's receivers decode, sum and re-encode a quarter of the bucket:
     * 0.25 x (4 + 2) ms = 1.5 ms. */
    gcsim_bucket_bytes c = bucket(true), d = bucket(false);
    CHECK_REL(gcsim_flow_bytes(&s.phases[0], &s.phases[0].flows[0], 0, &c), 1e8, 1e-15);
    CHECK_REL(gcsim_flow_bytes(&s.phases[1], &s.phases[1].flows[0], 0, &c), 6.25e6, 1e-15);
    CHECK(gcsim_hop_codec_s(&s.phases[0], &c, 1.0) == 0);
    CHECK_REL(gcsim_hop_codec_s(&s.phases[1], &c, 0.25), 1.5e-3, 1e-15);
    CHECK(gcsim_hop_codec_s(&s.phases[2], &c, 0.25) == 0);
    double expect_c = 2 * (5e-6 + 1e8 / 10e9) + 2 * (50e-6 + 6.25e6 * 3 / 125e6) + 1.5e-3;
    CHECK_REL(gcsim_schedule_time_s(&s, &t, &c), expect_c, 1e-12);
    /* uncompressed: the leaders' chunks are fp32, 2.5e7 each: 50 us + 0.6 s, twice */
    double expect_d = 2 * (5e-6 + 1e8 / 10e9) + 2 * (50e-6 + 2.5e7 * 3 / 125e6);
    CHECK_REL(gcsim_schedule_time_s(&s, &t, &d), expect_d, 1e-12);
    /* the prepared closed form gives the same numbers */
    CHECK(gcsim_schedule_prepare(&s, &t) == 0);
    CHECK_REL(gcsim_schedule_prepared_time_s(&s, &c), expect_c, 1e-12);
    CHECK_REL(gcsim_schedule_prepared_time_s(&s, &d), expect_d, 1e-12);
    gcsim_schedule_free(&s);
    gcsim_topology_free(&t);
}

/* 14 GPUs: the last node holds 2 (one chain link); 4 GPUs: one node, no leader exchange. */
static void partial_and_single(void)
{
    gcsim_platform p = platform_u();
    gcsim_topology t;
    gcsim_schedule s;
    gcsim_error err;
    CHECK(gcsim_topology_init(&t, &p, 14, &err) == 0);
    CHECK(gcsim_schedule_build(&s, COLLECTIVE_BAGUA_LEADER, &t, 0, 1, &err) == 0);
    CHECK(s.n_phases == 4 && s.phases[0].n_flows == 3 + 3 + 3 + 1);
    CHECK(gcsim_schedule_listed_flows(COLLECTIVE_BAGUA_LEADER, &t, 0, 0) >=
          s.phases[0].n_flows + s.phases[1].n_flows + s.phases[2].n_flows + s.phases[3].n_flows);
    gcsim_schedule_free(&s);
    gcsim_topology_free(&t);

    CHECK(gcsim_topology_init(&t, &p, 4, &err) == 0);
    CHECK(gcsim_schedule_build(&s, COLLECTIVE_BAGUA_LEADER, &t, 0, 1, &err) == 0);
    CHECK(s.n_phases == 2);
    gcsim_bucket_bytes c = bucket(true);
    /* the fp32 reduce and broadcast alone: no compressed byte moves, no hop codec */
    CHECK_REL(gcsim_schedule_time_s(&s, &t, &c), 2 * (5e-6 + 1e8 / 10e9), 1e-12);
    gcsim_schedule_free(&s);
    gcsim_topology_free(&t);
}

/* Against the flat ring on the same 16 GPUs: the leader schedule puts one payload's chunks
 * through each NIC instead of the ring's 2 (N - 1) / N, and re-encodes once instead of at
 * every one of the ring's 15 reducing steps; the ring must cost more here. */
static void beats_flat_ring_when_compressed(void)
{
    gcsim_platform p = platform_u();
    gcsim_topology t;
    gcsim_schedule leader, ring;
    gcsim_error err;
    CHECK(gcsim_topology_init(&t, &p, 16, &err) == 0);
    CHECK(gcsim_schedule_build(&leader, COLLECTIVE_BAGUA_LEADER, &t, 0, 1, &err) == 0);
    CHECK(gcsim_schedule_build(&ring, COLLECTIVE_RING, &t, 0, 1, &err) == 0);
    gcsim_bucket_bytes c = bucket(true);
    CHECK(gcsim_schedule_time_s(&leader, &t, &c) < gcsim_schedule_time_s(&ring, &t, &c));
    gcsim_schedule_free(&leader);
    gcsim_schedule_free(&ring);
    gcsim_topology_free(&t);
}

int main(void)
{
    hand_case();
    partial_and_single();
    beats_flat_ring_when_compressed();
    CHECK_DONE();
}
