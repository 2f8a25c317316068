/*
 * sim/collectives/add_repeated.c: `total += x` done n times, in O(log) steps instead of n,
 * with the very same result (collectives.h).
 *
 * A phase of N - 1 equal steps (a ring) is costed by adding its step time N - 1 times, one
 * by one, as the DES and the flow-by-flow form did; at millions of GPUs, or a plan over
 * every count up to 65,536, those additions were most of the work. Multiplying instead
 * would change the last bit of the outputs. But while the running total stays inside one
 * binade [2^(e-1), 2^e), every addition rounds x to the same multiple of the binade's ulp
 * u (round to nearest: x = q u + f u with 0 <= f < 1 adds q u when f < 1/2, (q + 1) u when
 * f > 1/2; only f = 1/2, a tie, depends on the total's parity), so k such additions add
 * exactly k times that increment. Each binade is crossed with one real addition.
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "collectives.h"

/* 2^k, exactly as ldexp(1.0, k) gives it: built from its bits where it is a normal double
 * (a libm call per binade was a third of this function's time). */
static inline double pow2(int k)
{
    if (k < DBL_MIN_EXP - 1 || k > DBL_MAX_EXP - 1)
        return ldexp(1.0, k);
    uint64_t bits = (uint64_t)(k + 1023) << 52;
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* frexp's exponent of a positive normal double: v in [2^(e-1), 2^e). */
static inline int binade_of(double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return (int)((bits >> 52) & 0x7ff) - 1022;
}

double gcsim_add_repeated(double total, double x, long long n)
{
    /* a few additions (a pipeline's intervals are mostly one or two steps long) cost less
     * one by one than the binade arithmetic below */
    if (n <= 8) {
        for (; n > 0; n--)
            total += x;
        return total;
    }
    /* The first additions one by one as well: from a total of 0 (a phase's sum; the usual
     * call) the total's first binades hold one or two additions each, and x is as large as
     * their ulp times 2^52, which the loop below takes one at a time anyway, each after the
     * binade arithmetic. Sixteen plain additions cross those binades at a fraction of that
     * cost (issue 47: gcsim_add_repeated from 0, n 9-255, 150-160 -> 75 ns a call). */
    for (int i = 0; i < 16 && n > 0; i++, n--)
        total += x;
    while (n > 0) {
        if (!(total >= DBL_MIN) || !(x > 0) || !isfinite(total) || !isfinite(x)) {
            total += x; /* zero, subnormal, negative or non-finite: one at a time */
            n--;
            continue;
        }
        int e = binade_of(total);      /* total in [2^(e-1), 2^e): normal, positive */
        double u = pow2(e - DBL_MANT_DIG); /* its ulp */
        double q = floor(x / u), f = x / u - q; /* exact: u is a power of two */
        if (f == 0.5 || x / u >= 0x1p52 || e >= DBL_MAX_EXP) {
            /* a tie, x as large as the total's binade, or the last binade (2^e is not a
             * double): one at a time */
            total += x;
            n--;
            continue;
        }
        double inc = f < 0.5 ? q * u : (q + 1) * u;
        if (inc == 0) /* x below half an ulp: no addition changes the total */
            return total;
        /* Additions that stay below 2^e: the total, the top and the increment are whole
         * numbers of u below 2^53, so this is integer arithmetic. */
        int64_t room = (int64_t)((pow2(e) - total) / u) - 1; /* ulps below 2^e */
        int64_t step = (int64_t)(inc / u);
        int64_t k = room / step;
        if (k > n)
            k = n;
        total += (double)k * inc; /* exact: a multiple of u below 2^e */
        n -= k;
        if (n > 0) { /* the addition that crosses into the next binade */
            total += x;
            n--;
        }
    }
    return total;
}
