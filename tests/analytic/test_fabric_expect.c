/* The analytic engine's expected ECMP collisions and network jitter (issue 41;
 * sim/analytic/fabric_expect.h), against hand-computed values.
 *
 *  1. Harmonic numbers: H(1) = 1, H(2) = 3/2, H(4) = 25/12, H(8) = 761/280; H(10^7) by the
 *     series ln n + gamma + 1/(2n) - 1/(12 n^2) = 16.695311365859855 (to 1e-12); the sum
 *     (to 1000) and the series (above) join: H(1001) - H(1000) = 1/1001.
 *  2. Balls into bins, by enumeration: 2 balls in 2 bins, P(max <= 1) = 1/2, E[max] = 3/2;
 *     3 in 3: of 27 placements 6 have max 1, 3 max 3, 18 max 2: E = 51/27; 4 in 4: of 256,
 *     24 have max 1, 180 max 2, 48 max 3 (4 x 4 x 3), 4 max 4: E = 544/256 = 2.125.
 *  3. Jitter: a ring all-reduce over 8 GPUs of one node each is 2 x 7 steps of 8 messages:
 *     the harmonic sum is 14 H(8) = 14 x 761/280 = 38.05, so jitter of mean M adds 38.05 M
 *     to the closed form.
 *  4. ECMP: halving-doubling over 4 GPUs on 2 leaves of 2 nodes (1 GPU, one NIC of
 *     B = 1.25e9 B/s each, 1:1, U = 2B) with 2 spines (links of B): its distance-2 steps
 *     send from GPUs 0 and 1 up leaf 0 (and 2, 3 up leaf 1), and down likewise: 4 links of 2
 *     flows in 2 bins, P(no collision anywhere) = (1/2)^4 = 1/16. With a collision the two
 *     flows of S/2 bytes share B in the first halving and the last doubling step:
 *     2 x (S/2) / B = S/B longer. Expected: T0 + 15/16 x S/B, S = 64 MiB, S/B = 0.0536870912 s.
 *     With one spine, or on the platform without ECMP, the time is T0.
 *  5. The topology gcsim_ecmp_expect hands each case (the caller's links re-pointed at the
 *     case's platform, analytic_bare.c's bare collectives being handed theirs) is the one
 *     gcsim_topology_init builds on that platform: on case 4's schedule, two cases
 *     (k = 1, 2 flows on the busiest spine link: oversubscription 1 x 2 x k / 2 = 1, 2),
 *     weights 1/16 and 15/16, ECMP cleared. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analytic.h"
#include "check.h"
#include "collectives.h"
#include "../des/des_test_platform.h"
#include "fabric_expect.h"
#include "../bare_topology.h"

#define SIZE (64.0 * 1024 * 1024)

/* des_test_platform's uniform nodes (one GPU, one NIC each), on leaves of a fat tree */
static gcsim_platform tree(int nodes, int nodes_per_leaf)
{
    gcsim_platform p = des_test_platform(nodes, 1);
    strcpy(p.name, "fabric-expect-test");
    p.fabric.topology = FABRIC_FAT_TREE;
    p.fabric.nodes_per_leaf = nodes_per_leaf;
    return p;
}

static double analytic_s(const gcsim_platform *p, int gpus, gcsim_collective c)
{
    gcsim_error err = {.internal = 0};
    double t = -1;
    if (bare_analytic_op_time(p, gpus, GCSIM_OP_ALLREDUCE, c, SIZE, &t, &err) != 0)
        printf("analytic: %s\n", err.message);
    return t;
}

/* 5: what each case of gcsim_ecmp_expect is handed */
typedef struct {
    int calls, same_as_init, ecmp_cleared;
    double oversub[4], weight[4];
} topo_probe;

static int probe(const gcsim_topology *tq, double w, void *ctx, gcsim_error *err)
{
    topo_probe *pr = ctx;
    gcsim_topology ref;
    if (gcsim_topology_init(&ref, tq->platform, tq->gpus, err) != 0)
        return -1;
    pr->same_as_init +=
        ref.platform == tq->platform && ref.gpus == tq->gpus &&
        ref.gpus_per_node == tq->gpus_per_node && ref.nodes == tq->nodes &&
        ref.nics_per_node == tq->nics_per_node && ref.leaves == tq->leaves &&
        ref.n_links == tq->n_links && ref.conn_base == tq->conn_base &&
        ref.host_base == tq->host_base && ref.socket_base == tq->socket_base &&
        ref.proxy_base == tq->proxy_base && ref.sockets == tq->sockets;
    pr->ecmp_cleared += tq->platform->ecmp.spines == 0;
    if (pr->calls < 4) {
        pr->oversub[pr->calls] = tq->platform->fabric.oversubscription;
        pr->weight[pr->calls] = w;
    }
    pr->calls++;
    gcsim_topology_free(&ref);
    return 0;
}

int main(void)
{
    /* 1 */
    CHECK_REL(gcsim_harmonic(1), 1.0, 1e-15);
    CHECK_REL(gcsim_harmonic(2), 1.5, 1e-15);
    CHECK_REL(gcsim_harmonic(4), 25.0 / 12, 1e-15);
    CHECK_REL(gcsim_harmonic(8), 761.0 / 280, 1e-15);
    CHECK_REL(gcsim_harmonic(10000000), 16.695311365859855, 1e-12);
    CHECK(gcsim_harmonic(0) == 0);
    /* the sum (up to 1000) and the series (above) join: H(1001) - H(1000) = 1/1001 */
    CHECK(fabs(gcsim_harmonic(1001) - gcsim_harmonic(1000) - 1.0 / 1001) < 1e-13);

    /* 2 */
    CHECK_REL(gcsim_ecmp_max_load_cdf(2, 2, 1), 0.5, 1e-12);
    CHECK_REL(gcsim_ecmp_expected_max_load(2, 2), 1.5, 1e-12);
    CHECK_REL(gcsim_ecmp_max_load_cdf(3, 3, 1), 6.0 / 27, 1e-12);
    CHECK_REL(gcsim_ecmp_max_load_cdf(3, 3, 2), 24.0 / 27, 1e-12);
    CHECK_REL(gcsim_ecmp_expected_max_load(3, 3), 51.0 / 27, 1e-12);
    CHECK_REL(gcsim_ecmp_max_load_cdf(4, 4, 1), 24.0 / 256, 1e-12);
    CHECK_REL(gcsim_ecmp_max_load_cdf(4, 4, 2), 204.0 / 256, 1e-12);
    CHECK_REL(gcsim_ecmp_expected_max_load(4, 4), 2.125, 1e-12);
    CHECK(gcsim_ecmp_max_load_cdf(5, 2, 2) == 0); /* 5 balls cannot fit 2 bins of 2 */
    CHECK_REL(gcsim_ecmp_expected_max_load(7, 1), 7.0, 1e-12);
    printf("E[max load]: 2 in 2 %.6f, 3 in 3 %.6f, 4 in 4 %.6f, 8 in 8 %.6f\n",
           gcsim_ecmp_expected_max_load(2, 2), gcsim_ecmp_expected_max_load(3, 3),
           gcsim_ecmp_expected_max_load(4, 4), gcsim_ecmp_expected_max_load(8, 8));

    /* 3 */
    gcsim_platform p8 = tree(8, 2);
    gcsim_topology t8;
    gcsim_schedule ring;
    gcsim_error err = {.internal = 0};
    CHECK(gcsim_topology_init(&t8, &p8, 8, &err) == 0);
    CHECK(gcsim_schedule_build(&ring, COLLECTIVE_RING, &t8, 0, 1, &err) == 0);
    double h = gcsim_jitter_harmonic_steps(&ring);
    printf("ring, 8 GPUs: harmonic sum of its steps %.6f (hand 38.05)\n", h);
    CHECK_REL(h, 14.0 * 761.0 / 280.0, 1e-12);
    double t0 = analytic_s(&p8, 8, COLLECTIVE_RING);
    gcsim_platform pj = p8;
    pj.jitter.mean_s = 10e-6;
    pj.jitter.seed = 1;
    double tj = analytic_s(&pj, 8, COLLECTIVE_RING);
    printf("ring, 8 GPUs, jitter 10 us: %.9f s against %.9f s (hand +%.9f)\n", tj, t0,
           38.05 * 10e-6);
    CHECK_REL(tj - t0, 38.05 * 10e-6, 1e-9);
    gcsim_schedule_free(&ring);
    gcsim_topology_free(&t8);

    /* 4 */
    gcsim_platform p4 = tree(4, 2);
    double base = analytic_s(&p4, 4, COLLECTIVE_HALVING_DOUBLING);
    gcsim_platform e1 = p4, e2 = p4;
    e1.ecmp.spines = 1;
    e2.ecmp.spines = 2;
    e1.ecmp.seed = e2.ecmp.seed = 1;
    double one = analytic_s(&e1, 4, COLLECTIVE_HALVING_DOUBLING);
    double two = analytic_s(&e2, 4, COLLECTIVE_HALVING_DOUBLING);
    double hand = base + 15.0 / 16.0 * SIZE / 1.25e9;
    printf("halving-doubling, 4 GPUs, 2 leaves: no ECMP %.9f s, 1 spine %.9f s, 2 spines "
           "%.9f s (hand %.9f)\n", base, one, two, hand);
    CHECK(base > 0);
    CHECK_REL(one, base, 1e-12);
    CHECK_REL(two, hand, 1e-9);
    /* more spines than a leaf's uplink ports of one NIC's rate: refused, as by the DES */
    gcsim_platform e3 = p4;
    e3.ecmp.spines = 3;
    double t3;
    CHECK(bare_analytic_op_time(&e3, 4, GCSIM_OP_ALLREDUCE, COLLECTIVE_HALVING_DOUBLING, SIZE,
                                &t3, &err) != 0);
    CHECK(strstr(err.message, "at most that many spines") != NULL);
    /* 5 */
    gcsim_topology t2;
    gcsim_schedule sch;
    CHECK(gcsim_topology_init(&t2, &e2, 4, &err) == 0);
    CHECK(gcsim_schedule_build(&sch, COLLECTIVE_HALVING_DOUBLING, &t2, 0,
                               gcsim_pipeline_chunks(COLLECTIVE_HALVING_DOUBLING, SIZE), &err) == 0);
    topo_probe pr = {0};
    CHECK(gcsim_ecmp_expect(&e2, &sch, &t2, probe, &pr, &err) == 0);
    gcsim_schedule_free(&sch);
    gcsim_topology_free(&t2);
    printf("ECMP cases: %d, oversubscription %g, %g, weights %g, %g\n", pr.calls, pr.oversub[0],
           pr.oversub[1], pr.weight[0], pr.weight[1]);
    CHECK(pr.calls == 2);
    CHECK(pr.same_as_init == 2);
    CHECK(pr.ecmp_cleared == 2);
    CHECK_REL(pr.oversub[0], 1.0, 1e-15);
    CHECK_REL(pr.oversub[1], 2.0, 1e-15);
    CHECK_REL(pr.weight[0], 1.0 / 16, 1e-12);
    CHECK_REL(pr.weight[1], 15.0 / 16, 1e-12);
    CHECK_DONE();
}
