/*
 * tests/collectives/test_nccl_runtime.c: what NCCL does at run time beyond its tuning model,
 * and the caps its model ranks with (tuner_model.h, protocol.h), against hand-computed
 * values: the per-channel bus bandwidth caps (tuning.cc perChMax*), the run-time channel
 * count (connect.cc), the tree's chunk (enqueue.cc calcCollChunking) and the proxy's post
 * cost that caps a GPU's network traffic (tuner_model.c says where each figure is from).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "protocol.h"
#include "schedule_memo.h"
#include "tuner_model.h"
#include "test_platforms.h"

int main(void)
{
    /* Caps: channels x NCCL's per-channel GB/s, by generation and nodes (1, 2, 3+). */
    gcsim_nccl_caps c;
    gcsim_nccl_caps_of("gb200", 20, 15, &c);
    CHECK_REL(c.ring_ll128_busbw_Bps, 15 * 40.0e9, 1e-12);
    CHECK_REL(c.tree_busbw_Bps, 15 * 24.0e9, 1e-12);
    CHECK_REL(c.tree_ll128_busbw_Bps, 15 * 20.0e9, 1e-12);
    CHECK_REL(c.ll_max_busbw_Bps, 20.4e9, 1e-12);
    gcsim_nccl_caps_of("h100", 2, 8, &c);
    CHECK_REL(c.ring_ll128_busbw_Bps, 8 * 36.7e9, 1e-12);
    CHECK_REL(c.tree_busbw_Bps, 8 * 41.4e9, 1e-12);
    CHECK_REL(c.tree_ll128_busbw_Bps, 8 * 36.7e9, 1e-12);
    gcsim_nccl_caps_of("h100", 8, 8, &c);
    CHECK_REL(c.tree_ll128_busbw_Bps, 8 * 29.0e9, 1e-12);
    gcsim_nccl_caps_of("v100", 16, 4, &c);
    CHECK_REL(c.tree_busbw_Bps, 4 * 10.0e9, 1e-12);
    gcsim_nccl_caps_of("a100", 1, 4, &c);
    CHECK_REL(c.ring_ll128_busbw_Bps, 4 * 20.0e9, 1e-12);
    CHECK_REL(c.tree_busbw_Bps, 4 * 24.0e9, 1e-12);

    /* The rank with caps: a tree LL128 of 1 GiB on 1,440 GPUs, 20 nodes, 15 channels of
     * Blackwell, the ring's Simple bandwidth time 1 ms: the ring's bus bandwidth
     * 2^30 x 2 x 1439/1440 / 1 ms = 2.146 TB/s, x 0.92 capped at 360 GB/s, x 120/128 =
     * 337.5 capped at 300 GB/s; algorithm bandwidth half of it (correction 1 at 1 GiB). */
    const double gib = 1073741824.0;
    gcsim_nccl_caps_of("gb200", 20, 15, &c);
    CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_TREE, GCSIM_PROTO_LL128, 1440, 20, gib, 9.0,
                                        2.6e-4, 1e-3, &c),
              2.6e-4 + gib / 150e9, 1e-12);
    /* Tree Simple: 0.92 x 2.146 TB/s capped at 360 GB/s. */
    CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_TREE, GCSIM_PROTO_SIMPLE, 1440, 20, gib, 9.0,
                                        6.9e-4, 1e-3, &c),
              6.9e-4 + gib / 180e9, 1e-12);
    /* Ring LL128 across nodes: its time plus what the cap adds over gcsim's LL128 rate,
     * 2^30 x 2 x 1439/1440 / 600 GB/s - 1 ms / 0.92. */
    CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_RING, GCSIM_PROTO_LL128, 1440, 20, gib, 5e-3,
                                        0, 1e-3, &c),
              5e-3 + gib * 2 * 1439 / 1440 / 600e9 - 1e-3 / 0.92, 1e-12);
    /* Where the cap does not bind (a slow ring), nothing is added; and with no caps the rank
     * is gcsim_tuner_rank_s's. */
    CHECK(gcsim_tuner_rank_capped_s(GCSIM_NCCL_RING, GCSIM_PROTO_LL128, 1440, 20, gib, 5e-3, 0,
                                    1.0, &c) == 5e-3);
    gcsim_nccl_caps none = {0};
    CHECK_REL(gcsim_tuner_rank_capped_s(GCSIM_NCCL_TREE, GCSIM_PROTO_LL128, 16, 2, gib, 1.0, 0.1,
                                        1.8, &none),
              gcsim_tuner_rank_s(GCSIM_NCCL_TREE, GCSIM_PROTO_LL128, 16, 2, gib, 1.0, 0.1, 1.8, 0),
              1e-12);
    /* With the caps, NCCL's choice on 20 Blackwell nodes at 4 GiB goes to the ring: ring
     * LL128 at 5.56 ms (NCCL's latency) + its bandwidth time 1 ms / 0.92 x 4 plus the cap's
     * extra, against the tree LL128 at 0.26 ms + 4 GiB / 150 GB/s. */
    double ring4 = gcsim_tuner_rank_capped_s(GCSIM_NCCL_RING, GCSIM_PROTO_LL128, 1440, 20,
                                             4 * gib, 5.56e-3 + 4e-3 / 0.92, 0, 4e-3, &c);
    double tree4 = gcsim_tuner_rank_capped_s(GCSIM_NCCL_TREE, GCSIM_PROTO_LL128, 1440, 20,
                                             4 * gib, 0, 2.6e-4, 4e-3, &c);
    CHECK_REL(ring4, 5.56e-3 + 4 * gib * 2 * 1439 / 1440 / 600e9, 1e-12);
    CHECK(ring4 < tree4);

    /* Run-time channels: the search's doubled; doubled again on Hopper+ across nodes below
     * 16 where a search channel carries more than 45 GB/s in the node; at most 64. */
    CHECK(gcsim_nccl_runtime_channels(8, 8, true, 46e9) == 16);
    CHECK(gcsim_nccl_runtime_channels(4, 2, true, 50e9) == 16);
    CHECK(gcsim_nccl_runtime_channels(4, 2, true, 40e9) == 8);
    CHECK(gcsim_nccl_runtime_channels(4, 2, false, 50e9) == 8);
    CHECK(gcsim_nccl_runtime_channels(4, 1, true, 50e9) == 8);
    CHECK(gcsim_nccl_runtime_channels(40, 2, true, 50e9) == 64);

    /* Tree chunks: Simple 4 MiB / 8, LL 512 KiB / 8 / 2, LL128 614,400 x 15/16 = 576,000
     * halved by NCCL's rule. 8 MiB on 16 channels, 8 nodes of 8 (nsteps 1 + 3 + 0.8 = 4.8:
     * 38.4 and 9.6 chunks a channel): 524,288 B a channel; 576,000 -> 288,000 -> 144,000 ->
     * 72,000 (not above 128 KiB: stop), then 7 < 9.6 -> 36,000 (14: stop). 1 MiB: down to
     * 18,000 (36,000 > 32 KiB still: 1 < 9.6). 1 GiB: 116 chunks a channel, no halving.
     * 2 MiB on 2 nodes (nsteps 2.8: 22.4, 5.6): 72,000 (1) -> 36,000 (3) -> 18,000. */
    CHECK(gcsim_nccl_tree_chunk_bytes(GCSIM_PROTO_SIMPLE, 8 << 20, 16, 8, 8) == 524288);
    CHECK(gcsim_nccl_tree_chunk_bytes(GCSIM_PROTO_LL, 8 << 20, 16, 8, 8) == 32768);
    CHECK(gcsim_nccl_tree_chunk_bytes(GCSIM_PROTO_LL128, 8 << 20, 16, 8, 8) == 36000);
    CHECK(gcsim_nccl_tree_chunk_bytes(GCSIM_PROTO_LL128, 1 << 20, 16, 8, 8) == 18000);
    CHECK(gcsim_nccl_tree_chunk_bytes(GCSIM_PROTO_LL128, gib, 16, 8, 8) == 576000);
    CHECK(gcsim_nccl_tree_chunk_bytes(GCSIM_PROTO_LL128, 2 << 20, 16, 2, 8) == 18000);

    /* The proxy: a chunk per 1 us post, both directions together. */
    CHECK_REL(gcsim_nccl_proxy_post_Bps(18000), 18e9, 1e-12);
    CHECK(gcsim_nccl_proxy_post_Bps(0) == 0);

    /* On platform R (2 nodes of 8 NVSwitch GPUs at 300 GB/s, 8 NICs of 25 GB/s: NCCL's
     * search 8 channels, run 16): a tree LL128 all-reduce of 2 MiB on 16 GPUs posts
     * 18,000 B chunks, so each GPU's network traffic moves at most 18 GB/s; 1 GiB's
     * 576,000 B chunks, 576 GB/s. Only a tree all-reduce across nodes is capped. */
    gcsim_platform r = platform_r();
    CHECK_REL(gcsim_protocol_proxy_cap_Bps(&r, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_TREE, 16,
                                           GCSIM_PROTO_LL128, 2 << 20),
              18e9, 1e-12);
    CHECK_REL(gcsim_protocol_proxy_cap_Bps(&r, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_TREE, 16,
                                           GCSIM_PROTO_LL128, gib),
              576e9, 1e-12);
    CHECK(gcsim_protocol_proxy_cap_Bps(&r, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_RING, 16,
                                       GCSIM_PROTO_LL128, 2 << 20) == 0);
    CHECK(gcsim_protocol_proxy_cap_Bps(&r, GCSIM_OP_ALLREDUCE, GCSIM_NCCL_TREE, 8,
                                       GCSIM_PROTO_LL128, 2 << 20) == 0);
    CHECK(gcsim_protocol_proxy_cap_Bps(&r, GCSIM_OP_ALLGATHER, GCSIM_NCCL_TREE, 16,
                                       GCSIM_PROTO_LL128, 2 << 20) == 0);
    /* The tuner's platform for a forced double tree LL128 of 2 MiB carries it (the
     * topology's proxy link per GPU). gcsim's railed double tree on 2 nodes sends S/2 up
     * and receives S/2 down across nodes per tree and node, so each GPU's rail carries
     * S/8 each way, 512 KiB through its proxy: at least 29.1 us at 18 GB/s. Without the
     * cap (the same platform, no proxy link) the schedule is faster. */
    gcsim_tuned t;
    gcsim_error err = {0};
    const double s2 = 2 << 20;
    CHECK(gcsim_tuner_choose(&r, 16, GCSIM_OP_ALLREDUCE, s2, COLLECTIVE_DOUBLE_TREE,
                             GCSIM_PROTO_LL128, &t, &err) == 0);
    CHECK_REL(t.platform.nic.proxy_Bps, 18e9, 1e-12);
    gcsim_bucket_bytes b = {.dense_bytes = s2, .payload_bytes = s2,
                            .aggregation = PAYLOAD_DENSE_SUMMABLE};
    double with_s = 0, without_s = 0;
    gcsim_platform free_proxy = t.platform;
    free_proxy.nic.proxy_Bps = 0;
    int chunks = gcsim_pipeline_chunks(COLLECTIVE_DOUBLE_TREE, s2);
    CHECK(gcsim_schedule_memo_time_s(&t.platform, 16, COLLECTIVE_DOUBLE_TREE, 0, chunks, 0, &b,
                                     &with_s, &err) == 0);
    CHECK(gcsim_schedule_memo_time_s(&free_proxy, 16, COLLECTIVE_DOUBLE_TREE, 0, chunks, 0, &b,
                                     &without_s, &err) == 0);
    CHECK_REL(with_s, t.time_s, 1e-9);
    CHECK(with_s >= 2 * (s2 / 8) / 18e9);
    CHECK(with_s > without_s * 1.05);
    CHECK_DONE();
}
