/*
 * tests/planning/test_number_text.c: number_text_g17 (sim/planning/number_text.c) against
 * snprintf's "%.17g", byte for byte, directly (no writer around it, so many more numbers
 * than test_sweep_output's): random bit patterns of every exponent (subnormals included),
 * random numbers of the sweep's magnitudes (1e-12 to 1e13), every power of ten a double
 * holds and its four neighbours each way, the exact halfway cases at the seventeenth digit
 * (ties to even, X = 0..15), numbers within 1e-6 to 1e-2 of a halfway case at every decimal
 * exponent (read by strtod from "<17 digits>5<digits>e<exp>"), integers about 2^53, and
 * subnormals of few bits. Usage: test_number_text [MILLIONS] (random patterns; default 4)
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "test_rng.h"
#include "number_text.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next_u64(void) { return test_xorshift64star(&rng); }

static long checked, bad;

static void same(double v)
{
    char got[NUMBER_TEXT_MAX], want[64];
    checked++;
    if (!isfinite(v))
        return;
    int n = number_text_g17(got, v);
    int w = snprintf(want, sizeof want, "%.17g", v);
    if (n != w || strcmp(got, want) != 0) {
        if (++bad <= 10)
            fprintf(stderr, "%a: got \"%s\" (%d), want \"%s\" (%d)\n", v, got, n, want, w);
    }
}

int main(int argc, char **argv)
{
    long millions = argc > 1 ? atol(argv[1]) : 4;
    /* random bit patterns: every exponent, both signs, subnormals */
    for (long k = 0; k < millions * 1000000; k++) {
        uint64_t u = next_u64();
        double v;
        memcpy(&v, &u, sizeof v);
        same(v);
    }
    /* the sweep's magnitudes: 10^U(-12, 13), full random mantissas */
    for (long k = 0; k < millions * 250000; k++) {
        double v = pow(10.0, -12 + 25 * (double)(next_u64() >> 11) / 0x1p53);
        uint64_t u;
        memcpy(&u, &v, sizeof u);
        u ^= next_u64() & ((1ull << 30) - 1); /* low bits random too */
        memcpy(&v, &u, sizeof v);
        same(v);
        same(-v);
    }
    /* powers of ten and their neighbours */
    for (int e = -323; e <= 308; e++) {
        double p = pow(10.0, e), lo = p, hi = p;
        same(p);
        for (int i = 0; i < 4; i++) {
            lo = nextafter(lo, 0);
            hi = nextafter(hi, INFINITY);
            same(lo);
            same(hi);
        }
    }
    /* exact halfway cases: v x 10^(16 - X) = n + 1/2 needs v = m x 2^-(17 - X), m odd */
    for (int X = 0; X <= 15; X++) {
        double lo_m = pow(10.0, X) * ldexp(1.0, 17 - X), span = 9 * lo_m;
        for (int k = 0; k < 20000; k++) {
            double m = lo_m + (double)(next_u64() % (uint64_t)span);
            if (fmod(m, 2.0) == 0)
                m += 1;
            double v = ldexp(m, -(17 - X));
            same(v);
            same(-v);
            same(nextafter(v, 0));
            same(nextafter(v, INFINITY));
        }
    }
    /* near halfway at every decimal exponent: "<17 digits>5<tail>e<exp>" */
    static const char *const tails[] = {"000001", "00001", "0001", "001", "01",
                                        "999999", "99999", "9999", "999", "99"};
    for (int e = -340; e <= 300; e++)
        for (int k = 0; k < 200; k++) {
            char text[64];
            uint64_t digits = 10000000000000000ull + next_u64() % 90000000000000000ull;
            snprintf(text, sizeof text, "%llu%s%se%d", (unsigned long long)digits,
                     k % 2 ? "5" : "4", tails[k % 10], e);
            same(strtod(text, NULL));
        }
    /* integers about 2^53, and subnormals of few bits */
    for (long k = -100000; k <= 100000; k++) {
        same(0x1p53 + (double)k);
        same(0x1p56 + 8.0 * (double)k);
        same(1e17 + 16.0 * (double)k);
        same(1e16 + 2.0 * (double)k);
    }
    for (int bits = 1; bits <= 52; bits++)
        for (int k = 0; k < 2000; k++) {
            uint64_t u = next_u64() >> (64 - bits);
            double v;
            memcpy(&v, &u, sizeof v);
            same(v);
        }
    printf("%ld numbers, %ld differ from snprintf's %%.17g\n", checked, bad);
    CHECK(bad == 0);
    CHECK_DONE();
}
