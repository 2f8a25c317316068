/* Shared fabrics in the DES (issue 41): an oversubscribed fat tree and background load on
 * its leaf links (or on the NICs) slow ring and tree all-reduces as the cut bound says.
 *
 * The bound: a directed link of capacity C carries at most C x T bytes in T seconds, so an
 * operation whose schedule moves B_l bytes over link l takes
 *     T >= max_l B_l / C_l,
 * C_l being the capacity the collective sees ((1 - f) C on a link with background load f).
 * B_l is counted here from the schedule's flows and routes, independently of either
 * engine's timing. Where the leaf uplinks are the bottleneck (oversubscription large), the
 * DES must reach the bound within 10%; everywhere it must not beat it. For the ring the
 * count has a hand-computed form: each leaf's uplink carries, in each direction, one
 * ring edge, and every edge of the ring all-reduce moves 2 (n-1)/n S, so
 *     T_ring >= 2 (n-1)/n S / U,  i.e.  busbw <= U,
 * U = nodes_per_leaf x NICs x nic.bandwidth / oversubscription (topology.c).
 * Background load f on the bottleneck links: T(f) = T(0) / (1 - f) within 2%; on links
 * that are not the bottleneck, T(f) stays within 1% of T(0). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../check.h"
#include "collectives.h"
#include "des.h"
#include "des_fabric.h"
#include "des_test_platform.h"
#include "../bare_topology.h"

#define NODES 16
#define GPN 4
#define NPL 4 /* nodes per leaf: 4 leaves */
#define SIZE (256.0 * 1024 * 1024)

static gcsim_platform tree_platform(double oversub)
{
    gcsim_platform p = des_test_platform(NODES, GPN);
    strcpy(p.name, "fat-tree-test");
    p.fabric.topology = FABRIC_FAT_TREE;
    p.fabric.nodes_per_leaf = NPL;
    p.fabric.oversubscription = oversub;
    p.fabric.switch_latency_s = 0;
    return p;
}

/* max over links of the schedule's bytes on the link over the capacity the DES gives it */
static double cut_bound_s(const gcsim_platform *p, gcsim_collective c, double *leaf_bytes)
{
    gcsim_error err;
    gcsim_topology t;
    CHECK(gcsim_topology_init(&t, p, NODES * GPN, &err) == 0);
    gcsim_schedule s;
    double payload = SIZE;
    CHECK(gcsim_op_schedule_build(&s, GCSIM_OP_ALLREDUCE, c, &t, SIZE, &payload, &err) == 0);
    gcsim_bucket_bytes b = {.dense_bytes = payload, .payload_bytes = payload,
                            .aggregation = PAYLOAD_DENSE_SUMMABLE};
    double *load = calloc((size_t)t.n_links, sizeof *load);
    bool *is_nic = calloc((size_t)t.n_links, sizeof *is_nic);
    for (int ph = 0; ph < s.n_phases; ph++) {
        const gcsim_phase *P = &s.phases[ph];
        for (int k = 0; k < P->n_flows; k++) {
            const gcsim_flow *f = &P->flows[k];
            int links[GCSIM_ROUTE_MAX_LINKS];
            double lat;
            int n = gcsim_topology_route(&t, f->src, f->dst, links, &lat);
            double bytes = 0;
            for (int st = f->first_step; st <= f->last_step; st++)
                bytes += gcsim_flow_bytes(P, f, st, &b);
            for (int j = 0; j < n; j++)
                load[links[j]] += bytes;
            /* routes between nodes: [pcie, nic up, (leaf up, leaf down,) nic down, pcie] */
            if (n >= 4) {
                is_nic[links[1]] = true;
                is_nic[links[n - 2]] = true;
            }
        }
    }
    double worst = 0, leaf = 0;
    for (int l = 0; l < t.n_links; l++) {
        if (!(load[l] > 0))
            continue;
        /* leaf links are the last ids (topology.c): after every NIC link */
        bool leaf_link = !is_nic[l] && t.leaves && l >= t.n_links - 2 * t.leaves;
        double cap = leaf_link || is_nic[l] ? des_fabric_capacity_Bps(&t, l, is_nic[l])
                                            : gcsim_topology_capacity_Bps(&t, l);
        if (load[l] / cap > worst)
            worst = load[l] / cap;
        if (leaf_link && load[l] > leaf)
            leaf = load[l];
    }
    if (leaf_bytes)
        *leaf_bytes = leaf;
    free(load);
    free(is_nic);
    gcsim_schedule_free(&s);
    gcsim_topology_free(&t);
    return worst;
}

static double des_s(const gcsim_platform *p, gcsim_collective c)
{
    gcsim_error err = {.internal = 0};
    double t = 0;
    CHECK(bare_des_op_time(p, NODES * GPN, GCSIM_OP_ALLREDUCE, c, SIZE, NULL, &t, NULL,
                           &err) == 0);
    return t;
}

int main(void)
{
    const int n = NODES * GPN;
    static const gcsim_collective algos[] = {COLLECTIVE_RING, COLLECTIVE_DOUBLE_TREE};
    static const double oversubs[] = {1, 2, 4, 8, 16};
    for (int a = 0; a < 2; a++) {
        gcsim_collective c = algos[a];
        double t1 = 0;
        for (int k = 0; k < 5; k++) {
            gcsim_platform p = tree_platform(oversubs[k]);
            double leaf_bytes;
            double bound = cut_bound_s(&p, c, &leaf_bytes);
            double t = des_s(&p, c);
            double U = NPL * 1 * p.nic.bandwidth_Bps / oversubs[k];
            printf("%-11s oversubscription %2g: DES %.6f s, cut bound %.6f s (leaf bound %.6f s), "
                   "busbw %.4g GB/s, U %.4g GB/s\n", gcsim_collective_name(c), oversubs[k], t,
                   bound, leaf_bytes / U, 2.0 * (n - 1) / n * SIZE / t / 1e9, U / 1e9);
            CHECK(t >= bound * (1 - 1e-9));
            if (c == COLLECTIVE_RING) /* one ring edge per leaf uplink and direction */
                CHECK_REL(leaf_bytes, 2.0 * (n - 1) / n * SIZE, 1e-9);
            if (leaf_bytes / U >= bound * (1 - 1e-12) && oversubs[k] >= 4)
                CHECK(t <= 1.10 * bound); /* the uplinks bind: the DES reaches the bound */
            if (k == 0)
                t1 = t;
            else
                CHECK(t >= t1 * (1 - 1e-9)); /* oversubscription never speeds it up */
        }
    }

    /* Background load on the bottleneck (leaf links at 16:1): T(f) = T(0) / (1 - f) */
    static const double loads[] = {0.25, 0.5, 0.75};
    for (int a = 0; a < 2; a++) {
        gcsim_collective c = algos[a];
        gcsim_platform p = tree_platform(16);
        double t0 = des_s(&p, c);
        for (int k = 0; k < 3; k++) {
            p.background.fraction = loads[k];
            p.background.links = GCSIM_BACKGROUND_LEAF_UPLINKS;
            double t = des_s(&p, c);
            printf("%-11s 16:1, background %.2f on leaf links: DES %.6f s = %.4f x unloaded "
                   "(bound 1/(1-f) = %.4f)\n", gcsim_collective_name(c), loads[k], t, t / t0,
                   1 / (1 - loads[k]));
            CHECK(t >= cut_bound_s(&p, c, NULL) * (1 - 1e-9));
            CHECK_REL(t / t0, 1.0 / (1.0 - loads[k]), 0.02);
        }
        /* leaf links that are not the bottleneck (1:1, a ring): half of them taken costs
         * nothing; the NICs at 1:1 are the ring's bottleneck: 1/(1-f) again */
        if (c == COLLECTIVE_RING) {
            gcsim_platform q = tree_platform(1);
            double u0 = des_s(&q, c);
            q.background.fraction = 0.5;
            q.background.links = GCSIM_BACKGROUND_LEAF_UPLINKS;
            double u = des_s(&q, c);
            printf("ring 1:1, background 0.50 on leaf links: %.4f x\n", u / u0);
            CHECK_REL(u, u0, 0.01);
            q.background.links = GCSIM_BACKGROUND_NICS;
            u = des_s(&q, c);
            printf("ring 1:1, background 0.50 on NICs: %.4f x (bound 2)\n", u / u0);
            CHECK(u >= cut_bound_s(&q, c, NULL) * (1 - 1e-9));
            CHECK_REL(u / u0, 2.0, 0.02);
        }
    }
    CHECK_DONE();
}
