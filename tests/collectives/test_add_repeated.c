/*
 * tests/collectives/test_add_repeated.c: gcsim_add_repeated gives exactly what adding x
 * n times one by one gives: for step times of every magnitude gcsim costs (1 ns to 100 s),
 * totals starting at 0 and elsewhere, counts up to 10^6, increments that tie (x = (q +
 * 1/2) ulps of the total's binade, which round to even and so alternate) and increments
 * below half an ulp (which add nothing). Compared bit for bit.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "collectives.h"

static int failures, checks;

static double loop_sum(double total, double x, long long n)
{
    for (long long k = 0; k < n; k++)
        total += x;
    return total;
}

static void check(double total, double x, long long n)
{
    double a = gcsim_add_repeated(total, x, n), b = loop_sum(total, x, n);
    checks++;
    if (memcmp(&a, &b, sizeof a) != 0) {
        failures++;
        if (failures <= 10)
            printf("FAIL: total %.17g + %.17g x %lld: %.17g, loop %.17g\n", total, x, n, a, b);
    }
}

/* xorshift: reproducible without libc's rand */
static uint64_t state = 88172645463325252ull;
static double uniform(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (double)(state >> 11) / 9007199254740992.0;
}

int main(void)
{
    const long long counts[] = {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 24, 25, 40, 255, 1000, 65535,
                                1000000};
    for (int c = 0; c < (int)(sizeof counts / sizeof *counts); c++)
        for (int r = 0; r < 200; r++) {
            double x = pow(10, -9 + 11 * uniform()); /* 1 ns .. 100 s */
            double total = r % 3 == 0 ? 0 : pow(10, -9 + 12 * uniform());
            check(total, x, counts[c]);
        }
    /* ties: x = 1.5 ulps of the binade [1, 2) (ulp 2^-52), so each addition rounds to even */
    check(1.0, 1.5 * 0x1p-52, 100000);
    check(1.0 + 0x1p-52, 1.5 * 0x1p-52, 100000);
    check(1.0, 0.5 * 0x1p-52, 1000); /* exactly half an ulp: ties to even, adds nothing */
    check(1.0, 0.25 * 0x1p-52, 1000); /* below half an ulp */
    check(1e15, 0.1, 1000000); /* increments rounded to 1/8 */
    check(3.0, 1e-17, 1000);
    check(0.0, 1e-300, 1000); /* near subnormal */
    check(0.0, 5e-324, 100); /* subnormal */
    check(1e308, 1e300, 1000); /* to infinity */
    /* the ring's case: N - 1 steps of one step time, N up to 2^24 */
    check(0.0, 7.3313e-5, (1 << 24) - 1);
    check(0.0123, 2.5e-6 + 1e-9, (1 << 20) - 1);
    printf("%d of %d sums differ from the one-by-one loop\n", failures, checks);
    return failures != 0;
}
