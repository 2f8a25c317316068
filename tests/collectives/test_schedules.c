/*
 * tests/collectives/test_schedules.c: the shared definitions of sim/collectives against
 * hand-computed values on platforms U and R (test_platforms.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "collectives.h"
#include "test_platforms.h"

static double cost(const gcsim_platform *p, int gpus, gcsim_collective c, double bytes)
{
    gcsim_topology t;
    gcsim_schedule s;
    gcsim_error err;
    if (gcsim_topology_init(&t, p, gpus, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return NAN;
    }
    if (gcsim_schedule_build(&s, c, &t, 0, gcsim_pipeline_chunks(c, bytes), &err)) {
        fprintf(stderr, "(expected where a test says so) %s\n", err.message);
        gcsim_topology_free(&t);
        return NAN;
    }
    gcsim_bucket_bytes b = {.dense_bytes = bytes, .payload_bytes = bytes};
    double x = gcsim_schedule_time_s(&s, &t, &b);
    gcsim_schedule_free(&s);
    gcsim_topology_free(&t);
    return x;
}

/* One bucket of a sparse payload (dense_bytes of fp32 gradient, payload_bytes sent). */
static double cost_sparse(const gcsim_platform *p, int gpus, gcsim_collective c, double dense,
                          double payload)
{
    gcsim_topology t;
    gcsim_schedule s;
    gcsim_error err;
    if (gcsim_topology_init(&t, p, gpus, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return NAN;
    }
    if (gcsim_schedule_build(&s, c, &t, 0, 1, &err)) {
        fprintf(stderr, "%s\n", err.message);
        gcsim_topology_free(&t);
        return NAN;
    }
    gcsim_bucket_bytes b = {.dense_bytes = dense, .payload_bytes = payload,
                            .aggregation = PAYLOAD_SPARSE, .compressed = true};
    double x = gcsim_schedule_time_s(&s, &t, &b);
    gcsim_schedule_free(&s);
    gcsim_topology_free(&t);
    return x;
}

int main(void)
{
    /* ---- the aggregation rule: a 4000-element bucket, D = 16000 B ---- */
    gcsim_bucket_bytes b = {.dense_bytes = 16000, .payload_bytes = 1000, .compressed = true,
                            .aggregation = PAYLOAD_SHARED_SCALE};
    CHECK_REL(gcsim_hop_bytes(&b, 1), 1000, 1e-12);                  /* 3 levels in 2 bits */
    CHECK_REL(gcsim_hop_bytes(&b, 2), 1000 * log2(5) / 2, 1e-12);    /* 5 levels: 2.32 bits */
    CHECK_REL(gcsim_hop_bytes(&b, 512), 1000 * log2(1025) / 2, 1e-12);
    CHECK_REL(gcsim_hop_bytes(&b, 1e12), 16000, 1e-12);              /* never above fp32 */
    b.fixed_bytes = 600; /* a layer sent in fp32 never grows: min(15400, 400 log2(9)/2) + 600 */
    CHECK_REL(gcsim_hop_bytes(&b, 4), 400 * log2(9) / 2 + 600, 1e-12);
    b.fixed_bytes = 0;
    b.aggregation = PAYLOAD_SPARSE;
    b.payload_bytes = 100;
    CHECK_REL(gcsim_hop_bytes(&b, 4), 400, 1e-12);    /* supports may not overlap */
    CHECK_REL(gcsim_hop_bytes(&b, 1000), 16000, 1e-12);
    b.aggregation = PAYLOAD_PER_WORKER_SCALE;
    CHECK_REL(gcsim_hop_bytes(&b, 64), 100, 1e-12);   /* decoded, summed, re-encoded */
    b.aggregation = PAYLOAD_SPARSE;
    b.compressed = false;
    CHECK_REL(gcsim_hop_bytes(&b, 64), 100, 1e-12);   /* nothing grows uncompressed */

    /* ---- routes ---- */
    gcsim_platform u = platform_u(), r = platform_r();
    gcsim_topology t;
    gcsim_error err;
    int links[GCSIM_ROUTE_MAX_LINKS];
    double lat;
    CHECK(gcsim_topology_init(&t, &r, 16, &err) == 0);
    CHECK(gcsim_topology_route(&t, 0, 1, links, &lat) == 2 && lat == 5e-6); /* two ports */
    CHECK(gcsim_topology_route(&t, 3, 11, links, &lat) == 4);             /* pcie nic nic pcie */
    CHECK_REL(lat, 1e-6 + 2 * 0.13e-6, 1e-12);
    CHECK(gcsim_topology_nic_of(&t, 3) == 3 && gcsim_topology_nic_of(&t, 11) == 3);
    CHECK(gcsim_topology_route(&t, 16, 17, links, &lat) == 2);             /* CPU: NIC 0 */
    gcsim_topology_free(&t);
    r.nic.per_node = 3;
    CHECK(gcsim_topology_init(&t, &r, 16, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "$.nic.per_node");
    r.nic.per_node = 8;

    /* ---- closed forms, dense S = 200e6 B ---- */
    double S = 200e6;
    /* Ring over U's 16 GPUs: every step has a 1/16 chunk (12.5e6 B) crossing a 1 Gb/s NIC,
     * and each phase one chunk's route of 15 hops (gcsim_ring_route_s: the cycle's 12 hops
     * of 5 us inside nodes and 4 of 50 us between them, less a 5 us hop):
     *   2 (N-1) S/(N B) + 2 x 255e-6 = 30 x 12.5e6/125e6 + 0.00051 = 3.00051 s */
    CHECK_REL(cost(&u, 16, COLLECTIVE_RING, S), 3.00051, 1e-12);
    /* Inside one node the route is the steps' hops: 2 x 3 x (5e-6 + 50e6/10e9) = 0.03003 s */
    CHECK_REL(cost(&u, 4, COLLECTIVE_RING, S), 0.03003, 1e-12);
    /* Hierarchical on U: node reduce-scatter 3 x (5e-6 + 50e6/10e9); across nodes, the 4
     * rails share each NIC: 2 x 3 x (50e-6 + 12.5e6/(125e6/4)); node all-gather as the
     * reduce-scatter: 6 x 0.005005 + 6 x 0.40005 = 2.43033 s */
    CHECK_REL(cost(&u, 16, COLLECTIVE_HIERARCHICAL, S), 2.43033, 1e-12);
    /* ... and on one node it is the ring. */
    CHECK_REL(cost(&u, 4, COLLECTIVE_HIERARCHICAL, S), cost(&u, 4, COLLECTIVE_RING, S), 1e-12);
    /* All-gather: 15 x S/125e6 forwarding whole payloads, and one 255 us route. */
    CHECK_REL(cost(&u, 16, COLLECTIVE_ALLGATHER, 12.5e6), 15 * 0.1 + 255e-6, 1e-12);
    /* Halving-doubling over 16 = 2^4 GPUs: distances 8 and 4 cross nodes with the 4 GPUs
     * of a node sharing its NIC; distances 2 and 1 stay inside. Halving sends S/2, S/4,
     * S/8, S/16 and doubling mirrors it:
     *   2 [50e-6 + 100e6/(125e6/4)] + 2 [50e-6 + 50e6/(125e6/4)]
     * + 2 [5e-6 + 25e6/10e9] + 2 [5e-6 + 12.5e6/10e9] */
    double hd = 2 * (50e-6 + 100e6 / 31.25e6) + 2 * (50e-6 + 50e6 / 31.25e6) +
                2 * (5e-6 + 25e6 / 10e9) + 2 * (5e-6 + 12.5e6 / 10e9);
    CHECK_REL(cost(&u, 16, COLLECTIVE_HALVING_DOUBLING, S), hd, 1e-12);
    /* Parameter server, 4 shards on the 4 CPUs: a GPU pushes S/4 to each; a CPU's NIC
     * receives 12 remote pushes (NIC 125e6/12 each), its node's GPUs send 3 remote pushes
     * each through the shared NIC (125e6/12 too): push = 50e-6 + 50e6/(125e6/12); the pull
     * mirrors it: 2 x (50e-6 + 4.8) = 9.6001 s */
    CHECK_REL(cost(&u, 16, COLLECTIVE_PARAMETER_SERVER, S), 2 * (50e-6 + 4.8), 1e-12);
    /* A pipelined chain of 4 GPUs (one node, 3 -> 2 -> 1 -> 0) with C = 64 chunks of x =
     * S/64, reduce and broadcast in one pipeline: GPU 3 sends up in steps 0..63, GPU 2 in
     * 1..64, GPU 1 in 2..65; the root has chunk c after step 2 + c and sends it down in
     * steps 3..66, GPU 1 in 4..67, GPU 2 in 5..68: 69 steps. In steps 3..65 some port
     * carries an upward and a downward flow (GPU 1's up port: to 0 and to 2), 5 GB/s each;
     * steps 0..2 and 66..68 have one flow per port:
     *   6 (5e-6 + x/10e9) + 63 (5e-6 + x/5e9). */
    CHECK(gcsim_pipeline_chunks(COLLECTIVE_TREE, S) == 64);
    double x = S / 64;
    CHECK_REL(cost(&u, 4, COLLECTIVE_TREE, S), 6 * (5e-6 + x / 10e9) + 63 * (5e-6 + x / 5e9),
              1e-12);

    /* Rails: a ring over R's 2 x 8 GPUs runs 8 rings; each step a GPU sends 7/8 of its
     * chunk S/16 over its NVSwitch port and 1/8 over its own NIC:
     *   max((7/8)(S/16)/300e9, (1/8)(S/16)/25e9) per step, 30 steps, and per phase one
     * chunk's route: every ring's cycle has 14 NVSwitch hops of 5 us and 2 crossings of
     * 1.26 us, less a crossing: 70 + 1.26 us. */
    double step = fmax(7.0 / 8 * S / 16 / 300e9, 1.0 / 8 * S / 16 / 25e9);
    CHECK_REL(cost(&r, 16, COLLECTIVE_RING, S), 30 * step + 2 * (14 * 5e-6 + 1.26e-6), 1e-9);
    /* Trees per rail on R (NCCL: one tree per channel, channel r on NIC r): 8 trees with
     * S/8 each (tree), or 16 with S/16 (double-tree, the mirrored one rooted on node 1).
     * Every GPU heads one chain per tree set and ends one, so its NVSwitch port carries
     * 14 of 16 chain hops up and down: 1.75 S; each NIC carries S/8 each way (a tree's
     * reduce one way, its broadcast the other, at once); each PCIe link S/8. The bound is
     * the busiest link: max(1.75 S / 300e9, (S/8) / 25e9, (S/8) / 31.5e9). Pipelined in
     * 64 chunks, the fill and drain of the 9-deep trees keep it within 15% of the bound. */
    double big = 1073741824.0;
    double bound = fmax(1.75 * big / 300e9, fmax(big / 8 / 25e9, big / 8 / 31.5e9));
    for (int c = COLLECTIVE_TREE; c <= COLLECTIVE_DOUBLE_TREE; c++) {
        double tree_s = cost(&r, 16, (gcsim_collective)c, big);
        printf("%s on 2 x 8 rails, 1 GiB: %.3f ms, bound %.3f ms (%.1f%% above)\n",
               gcsim_collective_name((gcsim_collective)c), tree_s * 1e3, bound * 1e3,
               100 * (tree_s / bound - 1));
        CHECK(tree_s >= bound && tree_s <= 1.15 * bound);
    }
    /* Before rails, every tree left a node through NIC 0: at least S / 25e9 for that NIC
     * alone, 5x the bound above. */
    CHECK(cost(&r, 16, COLLECTIVE_DOUBLE_TREE, big) < 0.25 * big / 25e9);
    /* On 4 x 8 the trees across nodes are NCCL's (ncclGetDtree, tree_nodes.h): tree 0 is
     * 0-2-{1,3}, tree 1 3-1-{2,0}, both on every rail. Nodes 1 and 2 are interior in one
     * tree (a parent and two children) and a leaf in the other: each of their NICs sends
     * and receives 4 x S/16 = S/4 (a heap pair, 0-{1,2}-3 and its mirror, gave every NIC
     * 3 x S/16, which NCCL's logs do not reach). The head GPU's PCIe link carries the same
     * S/4 at 31.5e9, the NVSwitch ports 1.75 S: the NICs bound it, S/4 / 25e9. */
    double bound4 = big / 4 / 25e9;
    r.nodes = 4;
    double dtree4_s = cost(&r, 32, COLLECTIVE_DOUBLE_TREE, big);
    r.nodes = 2;
    printf("double-tree on 4 x 8 rails, 1 GiB: %.3f ms, bound %.3f ms (%.1f%% above)\n",
           dtree4_s * 1e3, bound4 * 1e3, 100 * (dtree4_s / bound4 - 1));
    CHECK(dtree4_s >= bound4 && dtree4_s <= 1.15 * bound4);
    /* NVLS on one node of R whose switch reduces at 274 GB/s per port each way: 7 steps
     * (NCCL's 25 us NVLS latency in 5 us hops, about) each moving S/7 at that rate:
     *   7 x 5e-6 + S / 274e9. Across nodes, or without nvls_bandwidth, it is refused. */
    r.intra.nvls_Bps = 274e9;
    CHECK_REL(cost(&r, 8, COLLECTIVE_NVLS, S), 7 * 5e-6 + S / 274e9, 1e-12);
    CHECK(isnan(cost(&r, 16, COLLECTIVE_NVLS, S)));
    r.intra.nvls_Bps = 0;
    CHECK(isnan(cost(&r, 8, COLLECTIVE_NVLS, S)));
    /* Hierarchical on R: each rail ring (2 nodes) moves S/16 over its own NIC:
     *   node RS/AG 2 x 7 x (5e-6 + S/8/300e9), rails 2 x 1 x (1.26e-6 + S/16/25e9) */
    CHECK_REL(cost(&r, 16, COLLECTIVE_HIERARCHICAL, S),
              14 * (5e-6 + S / 8 / 300e9) + 2 * (1.26e-6 + S / 16 / 25e9), 1e-9);

    /* A compressed sparse payload grows along the ring: step s of the reduce-scatter moves
     * s payload chunks (capped at dense); the all-gather the N-fold sum. */
    gcsim_schedule s;
    CHECK(gcsim_topology_init(&t, &u, 4, &err) == 0);
    CHECK(gcsim_schedule_build(&s, COLLECTIVE_RING, &t, 0, 1, &err) == 0);
    CHECK(s.n_phases == 2 && s.phases[0].steps == 3 && s.phases[1].steps == 3);
    gcsim_bucket_bytes sp = {.dense_bytes = S, .payload_bytes = S / 100, .compressed = true,
                             .aggregation = PAYLOAD_SPARSE};
    double ring_sparse = 0;
    for (int k = 1; k <= 3; k++)
        ring_sparse += 5e-6 + k * S / 100 / 4 / 10e9;
    ring_sparse += 3 * (5e-6 + 4 * S / 100 / 4 / 10e9);
    CHECK_REL(gcsim_schedule_time_s(&s, &t, &sp), ring_sparse, 1e-12);
    /* Per-worker scales re-encoded at each reducing hop: 3 steps pay (1/4) of the bucket's
     * encode + decode seconds. */
    sp.aggregation = PAYLOAD_PER_WORKER_SCALE;
    sp.encode_s = 3e-3;
    sp.decode_s = 1e-3;
    CHECK_REL(gcsim_schedule_time_s(&s, &t, &sp),
              6 * (5e-6 + S / 100 / 4 / 10e9) + 3 * 0.25 * 4e-3, 1e-12);
    /* Around the exchange: one encode, one decode of the reduced bucket. */
    CHECK(gcsim_bucket_encode_s(&sp) == 3e-3 && gcsim_bucket_decode_s(&sp, &s) == 1e-3);
    gcsim_schedule_free(&s);
    gcsim_topology_free(&t);

    /* A prepared schedule (classes computed once per topology) costs exactly the same. */
    CHECK(gcsim_topology_init(&t, &r, 16, &err) == 0);
    CHECK(gcsim_schedule_build(&s, COLLECTIVE_HIERARCHICAL, &t, 0, 1, &err) == 0);
    gcsim_bucket_bytes fp = {.dense_bytes = S, .payload_bytes = S};
    double before = gcsim_schedule_time_s(&s, &t, &fp);
    CHECK(gcsim_schedule_prepare(&s, &t) == 0);
    CHECK(s.phases[0].n_classes > 0);
    CHECK(gcsim_schedule_time_s(&s, &t, &fp) == before);
    gcsim_schedule_free(&s);
    gcsim_topology_free(&t);
    /* The papers' patterns on U (16 GPUs), a sparse bucket: 200e6 B dense, 1e6 B sent.
     * Both: 2 node doubling steps over the PCIe switch ports (5 us, 10 GB/s), the node's
     * sum to its CPU (5 us, 12.5 GB/s), 2 host doubling steps over the NICs (50 us,
     * 125e6 B/s). terngrad keeps the payload (TernGrad's model):
     *   2 (5e-6 + 1e6/10e9) + (5e-6 + 1e6/12.5e9) + 2 (50e-6 + 1e6/125e6)
     *   = 210e-6 + 85e-6 + 16.1e-3 = 16.395 ms;
     * dgc-paper sends the sum of k sparse payloads, k = 1, 2 | 4 | 4, 8 (DGC Sec. 5):
     *   (5e-6 + 1e6/10e9) + (5e-6 + 2e6/10e9) + (5e-6 + 4e6/12.5e9)
     *   + (50e-6 + 4e6/125e6) + (50e-6 + 8e6/125e6)
     *   = 105e-6 + 205e-6 + 325e-6 + 32.05e-3 + 64.05e-3 = 96.735 ms. */
    u = platform_u();
    CHECK_REL(cost_sparse(&u, 16, COLLECTIVE_TERNGRAD, 200e6, 1e6), 16.395e-3, 1e-9);
    CHECK_REL(cost_sparse(&u, 16, COLLECTIVE_DGC_PAPER, 200e6, 1e6), 96.735e-3, 1e-9);
    /* Dense payloads do not grow: the two patterns are one schedule. */
    CHECK_REL(cost_sparse(&u, 16, COLLECTIVE_DGC_PAPER, 200e6, 200e6),
              cost_sparse(&u, 16, COLLECTIVE_TERNGRAD, 200e6, 200e6), 1e-12);
    CHECK_DONE();
}
