/* ECMP collisions on a fat tree's spines in the DES (issue 41; sim/des/des_fabric.h).
 *
 * Platform: 1 GPU and one 1.25e9 B/s NIC (B) per node, 2 nodes per leaf, 1:1, so a leaf's
 * uplink is U = 2B, and with S = 2 spines each spine link is B: one flow per spine runs at
 * its NIC's rate, two flows on one spine share B (each B/2).
 *  1. With one spine nothing can collide: every collective's time equals the run without
 *     ECMP (the one spine link is the aggregate uplink), to 1e-9.
 *  2. Two flows on one spine link: halving-doubling over 4 GPUs (2 leaves) exchanges S/2
 *     bytes between leaves in its first halving step and its last doubling step (distance
 *     2: GPUs 0 <-> 2 and 1 <-> 3), in both directions. A seed where GPUs 0 and 1 hash to one
 *     uplink spine, and nothing else collides, halves their rate in those two steps: the
 *     all-reduce takes 2 x (S/2) / B longer than with a seed where nothing collides, whose
 *     time is the no-ECMP one (hand: both steps' bandwidth term doubles, latency unchanged).
 *  3. Balls into bins: m endpoints of a leaf hashed onto S spines; a flow collides when
 *     another of the m shares its spine: expected fraction 1 - (1 - 1/S)^(m-1). Over 10,000
 *     seeds the mean fraction must be within 0.02 of it: the per-seed fraction lies in
 *     [0, 1], so its standard deviation is at most 0.5 and the mean's at most 0.005; 0.02 is
 *     4 of those. Each spine also gets 1/S of the endpoints within 0.01 (same argument). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "collectives.h"
#include "des.h"
#include "des_fabric.h"
#include "des_test_platform.h"
#include "../bare_topology.h"

#define SIZE (64.0 * 1024 * 1024)

static gcsim_platform tree(int nodes, int spines, unsigned long long seed)
{
    gcsim_platform p = des_test_platform(nodes, 1);
    strcpy(p.name, "ecmp-test");
    p.fabric.topology = FABRIC_FAT_TREE;
    p.fabric.nodes_per_leaf = 2;
    p.fabric.oversubscription = 1;
    p.fabric.switch_latency_s = 0;
    p.ecmp.spines = spines;
    p.ecmp.seed = seed;
    return p;
}

static double des_s(const gcsim_platform *p, int gpus, gcsim_collective c)
{
    gcsim_error err = {.internal = 0};
    double t = 0;
    if (bare_des_op_time(p, gpus, GCSIM_OP_ALLREDUCE, c, SIZE, NULL, &t, NULL, &err) != 0)
        printf("des: %s\n", err.message);
    return t;
}

int main(void)
{
    /* 1. one spine: no collision */
    static const gcsim_collective algos[] = {COLLECTIVE_RING, COLLECTIVE_DOUBLE_TREE,
                                             COLLECTIVE_HALVING_DOUBLING};
    for (int a = 0; a < 3; a++) {
        gcsim_platform p0 = tree(8, 0, 1), p1 = tree(8, 1, 7);
        double t0 = des_s(&p0, 8, algos[a]), t1 = des_s(&p1, 8, algos[a]);
        printf("%-16s 8 GPUs, 4 leaves: no ECMP %.9f s, one spine %.9f s\n",
               gcsim_collective_name(algos[a]), t0, t1);
        CHECK(t0 > 0);
        CHECK_REL(t1, t0, 1e-9);
    }

    /* 2. a hand-computed two-flow collision */
    unsigned long long clash = 0, clear = 0;
    for (unsigned long long seed = 1; seed < 1000 && (!clash || !clear); seed++) {
        int u0 = des_fabric_spine(seed, 0, 0, 2), u1 = des_fabric_spine(seed, 1, 0, 2);
        int u2 = des_fabric_spine(seed, 2, 0, 2), u3 = des_fabric_spine(seed, 3, 0, 2);
        int d0 = des_fabric_spine(seed, 0, 1, 2), d1 = des_fabric_spine(seed, 1, 1, 2);
        int d2 = des_fabric_spine(seed, 2, 1, 2), d3 = des_fabric_spine(seed, 3, 1, 2);
        bool rest_clear = u2 != u3 && d0 != d1 && d2 != d3;
        if (!clash && u0 == u1 && rest_clear)
            clash = seed;
        if (!clear && u0 != u1 && rest_clear)
            clear = seed;
    }
    CHECK(clash && clear);
    gcsim_platform none = tree(4, 0, 1), pc = tree(4, 2, clash), pf = tree(4, 2, clear);
    double tn = des_s(&none, 4, COLLECTIVE_HALVING_DOUBLING);
    double tc = des_s(&pc, 4, COLLECTIVE_HALVING_DOUBLING);
    double tf = des_s(&pf, 4, COLLECTIVE_HALVING_DOUBLING);
    double B = none.nic.bandwidth_Bps, extra = 2 * (SIZE / 2) / B;
    printf("halving-doubling 4 GPUs, 2 spines: no ECMP %.9f s, seed %llu (no collision) %.9f s, "
           "seed %llu (GPUs 0 and 1 on one spine) %.9f s: +%.9f s, hand +%.9f s\n",
           tn, clear, tf, clash, tc, tc - tf, extra);
    CHECK_REL(tf, tn, 1e-9);
    CHECK_REL(tc - tf, extra, 0.01);

    /* 3. balls into bins over seeds */
    const int m = 8, S = 8, seeds = 10000;
    double sum = 0, share0 = 0;
    for (int seed = 1; seed <= seeds; seed++) {
        int bins[8] = {0}, spine[8];
        for (int e = 0; e < m; e++)
            bins[spine[e] = des_fabric_spine((unsigned long long)seed, 100 + e, 0, S)]++;
        int collided = 0;
        for (int e = 0; e < m; e++)
            collided += bins[spine[e]] > 1;
        sum += (double)collided / m;
        share0 += bins[0] / (double)m;
    }
    double expect = 1 - pow(1 - 1.0 / S, m - 1), mean = sum / seeds;
    printf("balls into bins, %d flows on %d spines over %d seeds: colliding fraction %.4f, "
           "expected %.4f (tolerance 0.02); spine 0's share %.4f (1/S = %.4f)\n",
           m, S, seeds, mean, expect, share0 / seeds, 1.0 / S);
    CHECK(fabs(mean - expect) < 0.02);
    CHECK(fabs(share0 / seeds - 1.0 / S) < 0.01);

    /* more spines than a leaf's uplink ports: refused */
    gcsim_platform big = tree(4, 3, 1);
    gcsim_error err = {.internal = 0};
    double t = 0;
    CHECK(bare_des_op_time(&big, 4, GCSIM_OP_ALLREDUCE, COLLECTIVE_RING, SIZE, NULL, &t, NULL,
                           &err) != 0);
    CHECK(strstr(err.message, "at most that many spines") != NULL);
    CHECK_DONE();
}
