/* Rail-optimized against node-placed fat trees (issue 41, fabric.placement), both engines.
 *
 * Platform (built in code): 4 nodes of 2 GPUs on an NVSwitch (100e9 B/s, 1 us), 2 NICs per
 * node of B = 1.25e9 B/s (20 us), switch latency 0. Leaf switches of equal radix, 4 NIC ports
 * down and 4:1 oversubscribed (o = 4):
 *   node  (npl 2, o 4): 2 leaves, each holding both NICs of 2 nodes; uplink 2 x 2 x B / 4 = B;
 *   rail  (npl 4, o 4): one rail group, leaf r holding NIC r of the 4 nodes; uplink 4 B / 4 = B;
 *   flat  (npl 4, o 1, node placement): one leaf, no uplink on any route: the NIC bound.
 * M = 64 MiB, N = 8 GPUs, j = 4 nodes, i = R = 2. Bare collectives (no NCCL protocol), whose
 * time is the sum over steps of latency + bytes / (the flow's part of its tightest link), a
 * ring's phase its steps' bytes so plus one chunk's route latency (gcsim_ring_route_s), so
 * the differences below are the bandwidth terms alone (latencies and intra-node hops
 * cancel), but where a PXN relay puts an NVLink hop (1 us) on a ring's route:
 *
 *  1. Hierarchical all-reduce: its inter-node ring of local rank l runs over GPU l of every
 *     node, NIC l to NIC l, 2(j-1) = 6 steps of M/(i j) = 8 MiB. Rail: same rail, same group:
 *     no uplink, the NIC bound: T_rail = T_flat exactly. Node: the hop out of each leaf
 *     carries the R = 2 rank rings' flows on an uplink of B: B/2 each, so
 *     T_node - T_flat = 6 x 8 MiB x (2 - 1) / B = 40.2653184 ms.
 *  2. Ring all-reduce (one ring per rail, 2(N-1) = 14 steps of M/(N R) = 4 MiB per NIC).
 *     Node placement: ring r leaves each node on NIC r and enters the next on NIC r+1; the
 *     leaf uplink carries 2 flows, B/2: T_node - T_flat = 14 x 4 MiB x (2 - 1)/B =
 *     46.9762048 ms. Rail placement: ring r enters and leaves every node on rail r, as
 *     NCCL's default search (crossNic 0) with PXN: with i = R = 2 the exit GPU hands its hop
 *     over NVLink to the node's GPU on rail r (the schedule is checked flow by flow in
 *     check_rail_ring): no hop leaves its rail leaf: T_rail = T_flat (NVLink's 2 x 4 MiB at
 *     100e9 B/s is far below a NIC's 4 MiB at B), but each of the cycle's 4 crossings
 *     takes the relay's 1 us too: 2 phases x 4 us later. Before (and still on PCIe-switch nodes,
 *     no PXN) every hop between nodes changed rails: leaf r's uplink carried 4 flows, B/4:
 *     T - T_flat = 14 x 4 MiB x 3/B = 140.9286144 ms. Two rail groups of 2 nodes at 4:1
 *     (uplink 2B/4): the hop between groups, one per rail leaf, gets B/2: the node-placed
 *     figure. 2 nodes of 4 GPUs on 2 NICs: GPU 2r in, GPU 2r+1 out, both NIC r, no relay:
 *     the one-leaf time. All-gather (7 steps of M/R per NIC): flat 7 M/2/B plus the
 *     route of 7 hops (a cycle of 4 NVLink hops of 1 us and 4 crossings of 20 us, less one
 *     NVLink hop: 83 us); rail: the same bytes, the relays' 4 us more.
 *  3. Parameter server, 4 shards (one per node CPU, NIC 0), push then pull, each GPU sending
 *     M/4 to each other node's CPU. Flat: NIC 0 down of a CPU carries 6 flows, B/6 each:
 *     M/4 x 6/B per direction. Rail: the 4 rail-1 GPUs' flows to 3 other CPUs change rails:
 *     leaf 1 up and leaf 0 down carry 12, B/12: T_rail - T_flat = 2 x M/4 x (12 - 6)/B =
 *     3 M/B = 161.0612736 ms. Node: a leaf's 4 GPUs send to the other leaf's 2 CPUs, 8 flows
 *     per uplink: T_node - T_flat = 2 x M/4 x (8 - 6)/B = M/B = 53.6870912 ms.
 *  4. Parameter server, 1 shard (CPU 0, NIC 0 talking to all): NIC 0 down carries the 6
 *     other nodes' GPUs (B/6) and no uplink is tighter (rail: leaf 1 up carries 3, leaf 0
 *     down 3; node: 4 each): the same time in all three.
 *  5. Background load f = 0.5 on the leaf links (DES only): the rail ring and hierarchical
 *     all-reduce of one group cross no leaf link: unchanged; the two-group ring's hops
 *     between groups get B/4: T - T_flat = 14 x 4 MiB x 3/B (+ the relays' 8 us, 2).
 *  6. ECMP, rail npl 4 o 1 (uplink 4 B), 4 spines of B: no ring hop leaves its rail leaf,
 *     so hashing leaves the ring at the NIC bound; two rail groups at 1:1 with 2 spines of
 *     B: one hop per rail leaf and direction, no collision: the NIC bound. The 4-shard
 *     parameter server (rail-1 GPUs' flows to other CPUs climb; 4 endpoints per rail leaf
 *     hashed onto 4 spine links): the analytic expectation against the DES's mean over 200
 *     seeds, within 4 standard errors; both above the unhashed time.
 *  7. Engines' agreement only (no hand value) on two rail groups (npl 2, 2:1: routes between
 *     groups and the DES's group zones) with 8 and 7 GPUs (a short last node: its rail 1
 *     absent), ring, hierarchical, double tree, parameter server (4 shards): within 1e-6,
 *     but the parameter server on 7 GPUs within 5%: its unequal flows share a link by
 *     max-min in the DES and in proportion to their shares in the analytic engine, a
 *     difference of the engines, not of the placement (node placement, one leaf: DES
 *     -4.0%, as before rail placement existed; here -2.4%). Then 1:1 with 2 ECMP spines:
 *     both engines run (the analytic an expectation, the DES one hash).
 * Absolute: flat ring 14 x 4 MiB / B + 2 x 83 us = 47.1422048 ms (lock-step, every step
 * its 20 us: 47.2562048); flat 1-shard parameter server
 * 2 (20 us + 6 M / B) = 644.2850944 ms.
 * Every figure is asked of both engines; they agree within 1e-6 (the DES's max-min solver). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "analytic.h"
#include "collectives.h"
#include "des.h"
#include "des_test_platform.h"
#include "../bare_topology.h"

#define M (64.0 * 1024 * 1024)
#define B 1.25e9

static gcsim_platform tree(int per_leaf, double oversub, bool rail)
{
    gcsim_platform p = des_test_platform(4, 2);
    strcpy(p.name, "rail-placement-test");
    p.intra.kind = INTRA_NVSWITCH;
    p.nic.per_node = 2;
    p.fabric.topology = FABRIC_FAT_TREE;
    p.fabric.nodes_per_leaf = per_leaf;
    p.fabric.oversubscription = oversub;
    p.fabric.placement = rail ? FABRIC_PLACEMENT_RAIL : FABRIC_PLACEMENT_NODE;
    return p;
}

/* The analytic time, checked against the DES's (within 1e-6). */
static double both(const char *what, const gcsim_platform *p, gcsim_collective c, int shards)
{
    gcsim_error err = {.internal = 0};
    double a = -1, d = -1;
    if (bare_analytic_collective_time(p, 8, c, M, shards, &a, &err) != 0)
        printf("analytic: %s\n", err.message);
    if (bare_des_collective_time(p, 8, c, M, shards, NULL, &d, NULL, &err) != 0)
        printf("des: %s\n", err.message);
    printf("%-34s analytic %.10f s  DES %.10f s\n", what, a, d);
    CHECK(a > 0);
    CHECK_REL(d, a, 1e-6);
    return a;
}

static double des_only(const char *what, const gcsim_platform *p, gcsim_collective c)
{
    gcsim_error err = {.internal = 0};
    double d = -1;
    if (bare_des_collective_time(p, 8, c, M, 0, NULL, &d, NULL, &err) != 0)
        printf("des: %s\n", err.message);
    printf("%-34s DES %.10f s\n", what, d);
    return d;
}

/* The rail ring's schedule (item 2): every flow between nodes goes from NIC r to NIC r
 * (no leaf link on its route), each NIC carries one such flow each way, of M/(N R) = 4 MiB
 * in a reduce-scatter step; the exit GPU's hop reaches the rail through the node's GPU on it
 * (PXN): GPU 1 of node k sends ring 0's data to GPU 0 (NVLink), which sends it to GPU 0 of
 * node k + 1. */
static void check_rail_ring(const gcsim_platform *p)
{
    gcsim_topology t;
    gcsim_schedule s = {0};
    gcsim_error err = {.internal = 0};
    CHECK(gcsim_topology_init(&t, p, 8, &err) == 0);
    CHECK(gcsim_schedule_build(&s, COLLECTIVE_RING, &t, 0, 1, &err) == 0);
    CHECK(s.n_phases == 2);
    int up[8] = {0}, down[8] = {0}, between = 0, relays = 0;
    const gcsim_phase *ph = &s.phases[0];
    for (int f = 0; f < ph->n_flows; f++) {
        const gcsim_flow *x = &ph->flows[f];
        int ns = gcsim_topology_node_of(&t, x->src), nd = gcsim_topology_node_of(&t, x->dst);
        if (ns == nd) {
            relays += x->src % 2 == 1 && x->dst % 2 == 0; /* GPU 1 -> GPU 0 */
            continue;
        }
        between++;
        int links[GCSIM_ROUTE_MAX_LINKS];
        double lat;
        CHECK(gcsim_topology_route(&t, x->src, x->dst, links, &lat) == 4);
        CHECK(gcsim_topology_nic_of(&t, x->src) == gcsim_topology_nic_of(&t, x->dst));
        CHECK_REL(x->share, 1.0 / 16, 1e-15);
        up[2 * ns + gcsim_topology_nic_of(&t, x->src)]++;
        down[2 * nd + gcsim_topology_nic_of(&t, x->dst)]++;
    }
    CHECK(between == 8);
    CHECK(relays == 4); /* ring 0's exit GPU 1 -> GPU 0 in each of the 4 nodes */
    for (int k = 0; k < 8; k++)
        CHECK(up[k] == 1 && down[k] == 1);
    gcsim_schedule_free(&s);
    gcsim_topology_free(&t);
}

int main(void)
{
    gcsim_platform flat = tree(4, 1, false), node = tree(2, 4, false), rail = tree(4, 4, true);

    /* the topology: leaves, uplink capacity, routes */
    gcsim_topology t;
    gcsim_error err = {.internal = 0};
    CHECK(gcsim_topology_init(&t, &rail, 8, &err) == 0);
    CHECK(t.leaves == 2);
    CHECK(gcsim_topology_leaf_nics(&t) == 4);
    CHECK_REL(gcsim_topology_capacity_Bps(&t, gcsim_topology_leaf_link(&t, 1, 0)), B, 1e-15);
    int links[GCSIM_ROUTE_MAX_LINKS];
    double lat;
    /* GPU 1 (NIC 1) of node 0 to GPU 3 (NIC 1) of node 1: PCIe, NIC, NIC, PCIe */
    CHECK(gcsim_topology_route(&t, 1, 3, links, &lat) == 4);
    /* GPU 1 (NIC 1) to GPU 2 (NIC 0) of node 1: through leaf 1 up and leaf 0 down */
    CHECK(gcsim_topology_route(&t, 1, 2, links, &lat) == 6);
    CHECK(links[2] == gcsim_topology_leaf_link(&t, 1, 0));
    CHECK(links[3] == gcsim_topology_leaf_link(&t, 0, 1));
    CHECK(gcsim_topology_leaf_of(&t, 8) == 0 && gcsim_topology_leaf_of(&t, 7) == 1);
    gcsim_topology_free(&t);
    CHECK(gcsim_topology_init(&t, &node, 8, &err) == 0);
    CHECK(t.leaves == 2 && gcsim_topology_leaf_nics(&t) == 4);
    CHECK_REL(gcsim_topology_capacity_Bps(&t, gcsim_topology_leaf_link(&t, 0, 0)), B, 1e-15);
    gcsim_topology_free(&t);

    /* 1 */
    double hf = both("hierarchical, flat", &flat, COLLECTIVE_HIERARCHICAL, 0);
    double hn = both("hierarchical, node npl 2 o 4", &node, COLLECTIVE_HIERARCHICAL, 0);
    double hr = both("hierarchical, rail npl 4 o 4", &rail, COLLECTIVE_HIERARCHICAL, 0);
    CHECK_REL(hr, hf, 1e-12);
    CHECK_REL(hn - hf, 6 * (M / 8) / B, 1e-9);

    /* 2 */
    double rf = both("ring, flat", &flat, COLLECTIVE_RING, 0);
    double rn = both("ring, node npl 2 o 4", &node, COLLECTIVE_RING, 0);
    double rr = both("ring, rail npl 4 o 4", &rail, COLLECTIVE_RING, 0);
    CHECK_REL(rr - rf, 2 * 4 * 1e-6, 1e-6); /* the relays' NVLink hops on the route */
    CHECK_REL(rn - rf, 14 * (M / 16) * 1 / B, 1e-9);
    check_rail_ring(&rail);
    gcsim_platform two4 = tree(2, 4, true);
    double r2 = both("ring, rail npl 2 o 4 (two groups)", &two4, COLLECTIVE_RING, 0);
    CHECK_REL(r2 - rf, 14 * (M / 16) * 1 / B + 2 * 4 * 1e-6, 1e-9);
    gcsim_platform pcie = rail;
    pcie.intra.kind = INTRA_PCIE_SWITCH;
    double rp = both("ring, rail, PCIe switch (no PXN)", &pcie, COLLECTIVE_RING, 0);
    CHECK_REL(rp - rf, 14 * (M / 16) * 3 / B, 1e-9);
    /* the all-gather's rings are the same: rail at 4:1 = one leaf */
    double af = both("allgather, flat", &flat, COLLECTIVE_ALLGATHER, 0);
    double ar = both("allgather, rail npl 4 o 4", &rail, COLLECTIVE_ALLGATHER, 0);
    CHECK_REL(ar - af, 4e-6, 1e-6);                 /* the relays, as above */
    CHECK_REL(af, 7 * (M / 2 / B) + 83e-6, 1e-12); /* N-1 steps of M/R per NIC, a route */
    /* 2 nodes of 4 GPUs on 2 NICs: ring r enters at GPU 2r and leaves from GPU 2r + 1, both
     * on NIC r, no relay; one rail group at 4:1 against one leaf at 1:1: the same time */
    gcsim_platform wide = rail, wide_flat = flat;
    wide.nodes = wide_flat.nodes = 2;
    wide.gpus_per_node = wide_flat.gpus_per_node = 4;
    wide.fabric.nodes_per_leaf = wide_flat.fabric.nodes_per_leaf = 2;
    double rw = both("ring, 4 GPUs/node, rail npl 2 o 4", &wide, COLLECTIVE_RING, 0);
    double rwf = both("ring, 4 GPUs/node, flat", &wide_flat, COLLECTIVE_RING, 0);
    CHECK_REL(rw, rwf, 1e-12);

    /* 3 */
    double pf = both("ps 4 shards, flat", &flat, COLLECTIVE_PARAMETER_SERVER, 4);
    double pn = both("ps 4 shards, node npl 2 o 4", &node, COLLECTIVE_PARAMETER_SERVER, 4);
    double pr = both("ps 4 shards, rail npl 4 o 4", &rail, COLLECTIVE_PARAMETER_SERVER, 4);
    CHECK_REL(pr - pf, 3 * M / B, 1e-9);
    CHECK_REL(pn - pf, M / B, 1e-9);

    /* 4 */
    double qf = both("ps 1 shard, flat", &flat, COLLECTIVE_PARAMETER_SERVER, 1);
    double qn = both("ps 1 shard, node npl 2 o 4", &node, COLLECTIVE_PARAMETER_SERVER, 1);
    double qr = both("ps 1 shard, rail npl 4 o 4", &rail, COLLECTIVE_PARAMETER_SERVER, 1);
    CHECK_REL(qn, qf, 1e-12);
    CHECK_REL(qr, qf, 1e-12);

    /* 5 */
    gcsim_platform loaded = rail;
    loaded.background.fraction = 0.5;
    loaded.background.links = GCSIM_BACKGROUND_LEAF_UPLINKS;
    double rl = des_only("ring, rail, leaf links half taken", &loaded, COLLECTIVE_RING);
    double hl = des_only("hierarchical, rail, leaf links half", &loaded, COLLECTIVE_HIERARCHICAL);
    CHECK_REL(rl, rr, 1e-6);
    CHECK_REL(hl, hr, 1e-6);
    gcsim_platform loaded2 = two4;
    loaded2.background = loaded.background;
    double rl2 = des_only("ring, two groups, leaf links half", &loaded2, COLLECTIVE_RING);
    CHECK_REL(rl2 - rf, 14 * (M / 16) * 3 / B + 2 * 4 * 1e-6, 1e-6);

    /* 6 */
    gcsim_platform ecmp = tree(4, 1, true);
    double e0 = both("ring, rail npl 4 o 1", &ecmp, COLLECTIVE_RING, 0);
    CHECK_REL(e0, rr, 1e-12); /* the rail ring, its relays included */
    ecmp.ecmp.spines = 4;
    ecmp.ecmp.seed = 1;
    double er = both("ring, rail npl 4 o 1, 4 spines", &ecmp, COLLECTIVE_RING, 0);
    CHECK_REL(er, rr, 1e-12); /* no hop leaves its rail leaf: nothing to hash */
    gcsim_platform two1 = tree(2, 1, true);
    two1.ecmp.seed = 1;
    two1.ecmp.spines = 2; /* at most npl / o */
    double e2 = both("ring, rail npl 2 o 1, 2 spines", &two1, COLLECTIVE_RING, 0);
    CHECK_REL(e2, rr, 1e-12); /* one hop per rail leaf and direction: no collision */
    gcsim_platform ps1 = tree(4, 1, true);
    double p0 = both("ps 4 shards, rail npl 4 o 1", &ps1, COLLECTIVE_PARAMETER_SERVER, 4);
    double ea = -1, s1 = 0, s2 = 0;
    CHECK(bare_analytic_collective_time(&ecmp, 8, COLLECTIVE_PARAMETER_SERVER, M, 4, &ea,
                                        &err) == 0);
    int seeds = 200;
    for (int k = 1; k <= seeds; k++) {
        ecmp.ecmp.seed = (unsigned long long)k;
        double d = -1;
        if (bare_des_collective_time(&ecmp, 8, COLLECTIVE_PARAMETER_SERVER, M, 4, NULL, &d,
                                     NULL, &err))
            printf("des: %s\n", err.message);
        s1 += d;
        s2 += d * d;
    }
    double mean = s1 / seeds, var = (s2 - s1 * s1 / seeds) / (seeds - 1);
    double se = sqrt(var > 0 ? var : 0) / sqrt((double)seeds);
    printf("ECMP 4 spines, ps 4 shards, rail: unhashed %.6f s, analytic %.6f s, DES mean %.6f s "
           "(SE %.6f, %d seeds)\n", p0, ea, mean, se, seeds);
    CHECK(ea > p0);
    CHECK(mean > p0);
    CHECK(fabs(mean - ea) <= 4 * se + 1e-9 * ea);

    /* 7 */
    gcsim_platform two = tree(2, 2, true);
    gcsim_platform two_ecmp = tree(2, 1, true);
    const gcsim_collective cs[] = {COLLECTIVE_RING, COLLECTIVE_HIERARCHICAL, COLLECTIVE_DOUBLE_TREE,
                                   COLLECTIVE_PARAMETER_SERVER};
    for (int spines = 0; spines <= 2; spines += 2)
        for (int gpus = 7; gpus <= 8; gpus++)
            for (int k = 0; k < 4; k++) {
                gcsim_platform *q = spines ? &two_ecmp : &two;
                q->ecmp.spines = spines;
                q->ecmp.seed = 3;
                double a = -1, d = -1;
                if (bare_analytic_collective_time(q, gpus, cs[k], M, 4, &a, &err) ||
                    bare_des_collective_time(q, gpus, cs[k], M, 4, NULL, &d, NULL, &err))
                    printf("%s\n", err.message);
                printf("two rail groups, %d GPUs, %s, %d spines: analytic %.10f s  DES %.10f s\n",
                       gpus, gcsim_collective_name(cs[k]), spines, a, d);
                CHECK(a > 0 && d > 0);
                /* with ECMP the analytic is an expectation, the DES one hash */
                bool uneven = gpus == 7 && cs[k] == COLLECTIVE_PARAMETER_SERVER;
                if (spines == 0)
                    CHECK_REL(d, a, uneven ? 0.05 : 1e-6);
            }

    /* absolute */
    CHECK_REL(rf, 14 * (M / 16 / B) + 2 * 83e-6, 1e-12);
    CHECK_REL(qf, 2 * (20e-6 + 6 * M / B), 1e-12);
    CHECK_DONE();
}
