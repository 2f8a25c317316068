/* Both engines on ECMP collisions and network jitter (issue 41): the analytic engine's
 * expectation (sim/analytic/fabric_expect.h) against the DES's mean over seeds
 * (sim/des/des_fabric.h). Platforms: 1 GPU and one 1.25e9 B/s NIC per node, fat tree 1:1.
 *
 * Tolerance: the DES's per-seed times are independent draws (the seed sets every hash or
 * delay); their mean must lie within 4 standard errors of the analytic expectation (the
 * sample's standard deviation over sqrt(seeds)), plus 1e-9 relative, where the analytic
 * form is exact:
 *  1. ECMP, halving-doubling over 4 GPUs on 2 leaves of 2, 2 spines, 400 seeds: the
 *     analytic T0 + 15/16 x S/B (tests/analytic/test_fabric_expect.c derives it).
 *  2. ECMP, halving-doubling over 8 GPUs on 2 leaves of 4, 4 spines, 300 seeds: the
 *     distance-4 steps put 4 flows per leaf link in 4 bins; every step crossing leaves has
 *     the same endpoints, so the same K sets it.
 *  3. Jitter, a 2-GPU all-gather (one step, one message each), M = 50 us, 400 seeds: T0 +
 *     E[max(J0, J1)] = T0 + 1.5 M.
 *  4. Jitter, ring all-reduce over 8 GPUs (14 steps of 8 messages), M = 50 us, 100 seeds:
 *     the analytic M x 14 H(8) = 38.05 M treats every step as a barrier, an upper estimate;
 *     the DES waits along its chains of steps, at least one delay per step (14 M). Checked:
 *     14 M - 4 SE <= DES extra <= 38.05 M + 4 SE, and the ratio is printed. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "analytic.h"
#include "collectives.h"
#include "des.h"
#include "des_test_platform.h"
#include "../bare_topology.h"

#define SIZE (64.0 * 1024 * 1024)

static gcsim_platform tree(int nodes, int nodes_per_leaf)
{
    gcsim_platform p = des_test_platform(nodes, 1);
    strcpy(p.name, "fabric-engines-test");
    p.fabric.topology = FABRIC_FAT_TREE;
    p.fabric.nodes_per_leaf = nodes_per_leaf;
    p.fabric.oversubscription = 1;
    p.fabric.switch_latency_s = 0;
    return p;
}

static double time_s(const gcsim_platform *p, int gpus, gcsim_op op, gcsim_collective c,
                     bool des)
{
    gcsim_error err = {.internal = 0};
    double t = -1;
    int rc = des ? bare_des_op_time(p, gpus, op, c, SIZE, NULL, &t, NULL, &err)
                 : bare_analytic_op_time(p, gpus, op, c, SIZE, &t, &err);
    if (rc != 0)
        printf("%s: %s\n", des ? "des" : "analytic", err.message);
    return t;
}

/* The DES's mean over seeds 1..n and its standard error. */
static void des_mean(gcsim_platform p, int gpus, gcsim_op op, gcsim_collective c, int n,
                     bool jitter, double *mean, double *se)
{
    double s = 0, s2 = 0;
    for (int k = 1; k <= n; k++) {
        if (jitter)
            p.jitter.seed = (unsigned long long)k;
        else
            p.ecmp.seed = (unsigned long long)k;
        double t = time_s(&p, gpus, op, c, true);
        s += t;
        s2 += t * t;
    }
    *mean = s / n;
    double var = (s2 - s * s / n) / (n - 1);
    *se = sqrt(var > 0 ? var : 0) / sqrt((double)n);
}

static void ecmp_case(const char *what, int nodes, int per_leaf, int spines, int seeds)
{
    gcsim_platform p = tree(nodes, per_leaf);
    double t0 = time_s(&p, nodes, GCSIM_OP_ALLREDUCE, COLLECTIVE_HALVING_DOUBLING, false);
    p.ecmp.spines = spines;
    p.ecmp.seed = 1;
    double a = time_s(&p, nodes, GCSIM_OP_ALLREDUCE, COLLECTIVE_HALVING_DOUBLING, false);
    double m, se;
    des_mean(p, nodes, GCSIM_OP_ALLREDUCE, COLLECTIVE_HALVING_DOUBLING, seeds, false, &m, &se);
    printf("%s: no ECMP %.6f s; analytic %.6f s, DES mean %.6f s (SE %.6f, %d seeds), "
           "gap %.2f%%\n", what, t0, a, m, se, seeds, 100.0 * (m - a) / a);
    CHECK(a > t0);
    CHECK(fabs(m - a) <= 4 * se + 1e-9 * a);
}

int main(void)
{
    ecmp_case("ECMP, halving-doubling, 4 GPUs, 2 leaves, 2 spines", 4, 2, 2, 400);
    ecmp_case("ECMP, halving-doubling, 8 GPUs, 2 leaves, 4 spines", 8, 4, 4, 300);

    const double M = 50e-6;
    /* 3 */
    gcsim_platform p2 = tree(2, 2);
    double t0 = time_s(&p2, 2, GCSIM_OP_ALLGATHER, COLLECTIVE_RING, false);
    p2.jitter.mean_s = M;
    p2.jitter.seed = 1;
    double a = time_s(&p2, 2, GCSIM_OP_ALLGATHER, COLLECTIVE_RING, false);
    double m, se;
    des_mean(p2, 2, GCSIM_OP_ALLGATHER, COLLECTIVE_RING, 400, true, &m, &se);
    printf("jitter 50 us, all-gather, 2 GPUs: no jitter %.9f s; analytic %.9f s (+%.2f M), "
           "DES mean %.9f s (+%.3f M, SE %.3f M)\n", t0, a, (a - t0) / M, m, (m - t0) / M,
           se / M);
    CHECK_REL(a - t0, 1.5 * M, 1e-9);
    CHECK(fabs(m - a) <= 4 * se + 1e-9 * a);

    /* 4 */
    gcsim_platform p8 = tree(8, 2);
    t0 = time_s(&p8, 8, GCSIM_OP_ALLREDUCE, COLLECTIVE_RING, false);
    double d0 = time_s(&p8, 8, GCSIM_OP_ALLREDUCE, COLLECTIVE_RING, true);
    p8.jitter.mean_s = M;
    p8.jitter.seed = 1;
    a = time_s(&p8, 8, GCSIM_OP_ALLREDUCE, COLLECTIVE_RING, false);
    des_mean(p8, 8, GCSIM_OP_ALLREDUCE, COLLECTIVE_RING, 100, true, &m, &se);
    printf("jitter 50 us, ring all-reduce, 8 GPUs: analytic +%.3f M (hand 38.05), DES mean "
           "+%.3f M (SE %.3f M): the analytic extra is %.2fx the DES's\n", (a - t0) / M,
           (m - d0) / M, se / M, (a - t0) / (m - d0));
    CHECK_REL(a - t0, 38.05 * M, 1e-9);
    CHECK(m - d0 >= 14 * M - 4 * se);
    CHECK(m - d0 <= 38.05 * M + 4 * se);
    CHECK_DONE();
}
