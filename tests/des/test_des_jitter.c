/* Network jitter in the DES (issue 41; sim/des/des_fabric.h): every message arrives an
 * exponential extra latency of mean M after the network delivered it.
 *  1. Hand: an all-gather over 2 GPUs of two nodes is one step in which each GPU receives
 *     one message (its first: draw index 0, lane 0, iteration 0); each GPU's step ends when
 *     its message has arrived, so the operation takes T0 + max(J(GPU 0), J(GPU 1)) exactly,
 *     J read from des_fabric_jitter_s, for five seeds.
 *  2. Bounds: a ring all-reduce over 8 GPUs (2 (N - 1) = 14 steps) is never faster with
 *     jitter, T >= T0, and slower by at most the sum over its steps of the largest draw of
 *     any message of the step, bounded here by 14 x the largest draw of all.
 *  3. The draws: over 100,000 draws the mean is M within 0.013 M (4 standard errors of an
 *     exponential's mean, SD M / sqrt(n)), and P(J > M) = e^-1 within 0.006 (4 standard
 *     errors of a proportion near 0.37). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "collectives.h"
#include "des.h"
#include "des_fabric.h"
#include "des_test_platform.h"
#include "../bare_topology.h"

#define SIZE (4.0 * 1024 * 1024)

static double des_s(const gcsim_platform *p, int gpus, gcsim_op op)
{
    gcsim_error err = {.internal = 0};
    double t = 0;
    if (bare_des_op_time(p, gpus, op, COLLECTIVE_RING, SIZE, NULL, &t, NULL, &err) != 0)
        printf("des: %s\n", err.message);
    return t;
}

int main(void)
{
    const double M = 50e-6;
    gcsim_platform p = des_test_platform(8, 1);
    double t0 = des_s(&p, 2, GCSIM_OP_ALLGATHER);
    CHECK(t0 > 0);
    for (unsigned long long seed = 1; seed <= 5; seed++) {
        p.jitter.mean_s = M;
        p.jitter.seed = seed;
        double t = des_s(&p, 2, GCSIM_OP_ALLGATHER);
        double j0 = des_fabric_jitter_s(seed, M, 0, 0, 0, 0);
        double j1 = des_fabric_jitter_s(seed, M, 0, 1, 0, 0);
        printf("all-gather 2 GPUs, seed %llu: %.9f s = %.9f + max(%.9f, %.9f) (hand %.9f)\n",
               seed, t, t0, j0, j1, t0 + fmax(j0, j1));
        CHECK_REL(t, t0 + fmax(j0, j1), 1e-9);
    }

    gcsim_platform q = des_test_platform(8, 1);
    double r0 = des_s(&q, 8, GCSIM_OP_ALLREDUCE);
    q.jitter.mean_s = M;
    q.jitter.seed = 3;
    double r = des_s(&q, 8, GCSIM_OP_ALLREDUCE);
    double biggest = 0;
    for (int e = 0; e < 8; e++)
        for (int k = 0; k < 14; k++)
            biggest = fmax(biggest, des_fabric_jitter_s(3, M, 0, e, 0, k));
    printf("ring all-reduce 8 GPUs: %.9f s without jitter, %.9f s with mean %.0f us "
           "(+%.1f us; at most 14 steps x the largest draw %.1f us)\n", r0, r, M * 1e6,
           (r - r0) * 1e6, biggest * 1e6);
    CHECK(r >= r0);
    CHECK(r - r0 <= 14 * biggest * (1 + 1e-9));

    const int n = 100000;
    double sum = 0;
    int above = 0;
    for (int k = 0; k < n; k++) {
        double j = des_fabric_jitter_s(7, M, k % 10, k % 97, 0, k);
        sum += j;
        above += j > M;
    }
    printf("draws: mean %.4f M (1 +- 0.013), P(J > M) %.4f (e^-1 = %.4f +- 0.006)\n",
           sum / n / M, (double)above / n, exp(-1));
    CHECK(fabs(sum / n / M - 1) < 0.013);
    CHECK(fabs((double)above / n - exp(-1)) < 0.006);
    CHECK_DONE();
}
