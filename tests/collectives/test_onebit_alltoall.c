/*
 * tests/collectives/test_onebit_alltoall.c: DeepSpeed's compressed all-reduce of 1-bit Adam
 * (sim/collectives/onebit_alltoall.c) against hand-computed costs on platform U (4 nodes x 4
 * GPUs; GPU ports 10 GB/s, 5 us; one 125e6 B/s NIC per node, 50 us; test_platforms.h):
 * a flat all-to-all among all 16 GPUs, so each NIC carries its 4 GPUs' chunks (4 times what
 * Bagua's one leader per node puts through it), then NCCL's ring all-gather; the hop codec
 * on the all-to-all alone, the prepared closed form equal to the flow-by-flow one.
 */
#include <string.h>

#include "../check.h"
#include "collectives.h"
#include "test_platforms.h"

/* A 100 MB fp32 bucket as a per-worker-scale payload of 25 MB, codec 4 ms + 2 ms. */
static gcsim_bucket_bytes bucket(void)
{
    return (gcsim_bucket_bytes){.dense_bytes = 1e8, .payload_bytes = 2.5e7,
                                .aggregation = PAYLOAD_PER_WORKER_SCALE, .compressed = true,
                                .encode_s = 4e-3, .decode_s = 2e-3};
}

static void hand_case(void)
{
    gcsim_platform p = platform_u();
    gcsim_topology t;
    gcsim_schedule s;
    gcsim_error err;
    CHECK(gcsim_topology_init(&t, &p, 16, &err) == 0);
    CHECK(gcsim_schedule_build(&s, COLLECTIVE_ONEBIT_ALLTOALL, &t, 0, 1, &err) == 0);
    CHECK(s.n_phases == 2 && s.decodes == 1 && s.endpoints == 16);
    CHECK(strcmp(gcsim_collective_name(COLLECTIVE_ONEBIT_ALLTOALL), "onebit-alltoall") == 0);
    if (s.n_phases != 2)
        return;
    CHECK(strcmp(s.phases[0].name, "all-to-all") == 0 && s.phases[0].reduce);
    CHECK(strcmp(s.phases[1].name, "all-gather") == 0 && !s.phases[1].reduce);
    /* the all-to-all: every GPU to every other in one step, no intra-node reduce first
     * (GPU 9, not a node's first, sends across nodes) */
    CHECK(s.phases[0].steps == 1 && !s.phases[0].uncompressed);
    CHECK(s.phases[0].n_flows > 0 && s.phases[0].n_flows <= 16 * 15);
    bool across = false;
    for (int f = 0; f < s.phases[0].n_flows; f++) {
        const gcsim_flow *x = &s.phases[0].flows[f];
        CHECK(x->src != x->dst && x->share == 1.0 / 16);
        across |= x->src == 9 && x->dst == 14;
    }
    CHECK(across);
    /* the all-gather: NCCL's ring, 15 steps, one hop per GPU */
    CHECK(s.phases[1].steps == 15 && s.phases[1].n_flows == 16 && !s.phases[1].uncompressed);
    CHECK(gcsim_schedule_listed_flows(COLLECTIVE_ONEBIT_ALLTOALL, &t, 0, 0) == 16 * 15 + 16);

    /* all-to-all: each GPU sends 12 of its 15 chunks of 25e6 / 16 = 1.5625e6 B across
     * nodes, 48 flows through each NIC at 125e6 / 48 B/s: 50 us + 1.5625e6 x 48 / 125e6 =
     * 0.60005 s (the in-node flows, 3 per GPU over 10 GB/s ports, end long before); its
     * servers decode, sum and re-encode 1/16 of the bucket: (4 + 2) / 16 ms. Ring
     * all-gather: 15 steps in which one hop per node crosses its NIC with 1.5625e6 B:
     * 15 x (50 us + 12.5 ms). */
    gcsim_bucket_bytes c = bucket();
    CHECK_REL(gcsim_flow_bytes(&s.phases[0], &s.phases[0].flows[0], 0, &c), 1.5625e6, 1e-15);
    CHECK_REL(gcsim_hop_codec_s(&s.phases[0], &c, 1.0 / 16), 6e-3 / 16, 1e-15);
    CHECK(gcsim_hop_codec_s(&s.phases[1], &c, 1.0 / 16) == 0);
    double expect = (50e-6 + 1.5625e6 * 48 / 125e6) + 15 * (50e-6 + 1.5625e6 / 125e6) +
                    6e-3 / 16;
    CHECK_REL(gcsim_schedule_time_s(&s, &t, &c), expect, 1e-12);
    CHECK(gcsim_schedule_prepare(&s, &t) == 0);
    CHECK_REL(gcsim_schedule_prepared_time_s(&s, &c), expect, 1e-12);
    gcsim_schedule_free(&s);
    gcsim_topology_free(&t);
}

/* Against Bagua's leaders on the same 16 GPUs and compressed bucket: the flat exchange puts
 * 4 GPUs' chunks through each NIC where the leaders put one, and must cost more (the
 * leaders' fp32 in-node chain, 2 x 10 ms, is far under the 0.45 s of NIC time the flat
 * all-to-all adds). One GPU: nothing to exchange. */
static void flat_costs_more_than_leaders(void)
{
    gcsim_platform p = platform_u();
    gcsim_topology t;
    gcsim_schedule flat, leader;
    gcsim_error err;
    CHECK(gcsim_topology_init(&t, &p, 16, &err) == 0);
    CHECK(gcsim_schedule_build(&flat, COLLECTIVE_ONEBIT_ALLTOALL, &t, 0, 1, &err) == 0);
    CHECK(gcsim_schedule_build(&leader, COLLECTIVE_BAGUA_LEADER, &t, 0, 1, &err) == 0);
    gcsim_bucket_bytes c = bucket();
    CHECK(gcsim_schedule_time_s(&flat, &t, &c) > gcsim_schedule_time_s(&leader, &t, &c));
    gcsim_schedule_free(&flat);
    gcsim_schedule_free(&leader);
    gcsim_topology_free(&t);

    CHECK(gcsim_topology_init(&t, &p, 1, &err) == 0);
    CHECK(gcsim_schedule_build(&flat, COLLECTIVE_ONEBIT_ALLTOALL, &t, 0, 1, &err) == 0);
    CHECK(flat.n_phases == 0);
    gcsim_schedule_free(&flat);
    gcsim_topology_free(&t);
}

int main(void)
{
    hand_case();
    flat_costs_more_than_leaders();
    CHECK_DONE();
}
