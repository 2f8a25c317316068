/*
 * sim/planning/number_text.c: "%.17g" without glibc's multi-precision path, and "%lld"
 * (number_text.h).
 *
 * %.17g of a finite v != 0 is D = |v| x 10^(16 - X) rounded to the nearest integer (ties
 * to even), 10^16 <= D < 10^17, written as the digits of D with the point after X + 1 of
 * them, or in e-notation when X < -4 or X >= 17, trailing zeros removed (C11 7.21.6.1).
 *
 * The fast path computes y = |v| x 10^(16 - X) in x87 extended precision (64-bit
 * mantissa): |v| is exact there, 10^k is read correctly rounded by strtold (relative error
 * <= 2^-64), and the product rounds once more (<= 2^-64), so |y - exact| <= y x 2^-63 <
 * 10^17 x 1.1e-19 = 0.011. Rounding y to the nearest integer gives the exact D whenever
 * y's fraction is further than that from one half; the path takes only fractions at
 * least 1/64 (0.016) from one half and y at least 1 away from 10^16 and 10^17 (where X itself
 * could be off by one), and leaves everything else to strfromd.
 */
/* strfromd (ISO/IEC TS 18661-1, glibc 2.25) */
#define _GNU_SOURCE
#include "number_text.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <threads.h>

static int slow(char out[NUMBER_TEXT_MAX], double v)
{
    return strfromd(out, NUMBER_TEXT_MAX, "%.17g", v);
}

#if LDBL_MANT_DIG >= 64

/* 10^k for every k a finite nonzero double needs: X from -324 to 308, k = 16 - X. */
enum { POW_MIN = 16 - 308, POW_MAX = 16 + 324 };
static long double pow10_table[POW_MAX - POW_MIN + 1];
static once_flag pow10_once = ONCE_FLAG_INIT;
/* Set (release) once the table is filled: a number after the first reads it with one
 * acquire load instead of call_once's ~26 instructions (a sweep row has 15 numbers,
 * issue 47); the first ones of each thread still go through call_once. */
static atomic_bool pow10_ready;

static void pow10_fill(void)
{
    for (int k = POW_MIN; k <= POW_MAX; k++) {
        char text[16];
        snprintf(text, sizeof text, "1e%d", k);
        pow10_table[k - POW_MIN] = strtold(text, NULL); /* correctly rounded */
    }
    atomic_store_explicit(&pow10_ready, true, memory_order_release);
}

/* The 17 digits of 10^16 <= D < 10^17 written to d[0..16]; returns how many remain once trailing
 * zeros are dropped (at least 1). */
/* "00" to "99": two digits per division */
static const char two_digits[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

static int digits_of(long long D, char d[17])
{
    /* two halves of 32-bit arithmetic: the low 9 digits (4 pairs and one), then the high 8
     * (4 pairs) */
    uint32_t low = (uint32_t)(D % 1000000000), high = (uint32_t)(D / 1000000000);
    for (int i = 15; i >= 9; i -= 2) {
        memcpy(d + i, two_digits + 2 * (low % 100), 2);
        low /= 100;
    }
    d[8] = (char)('0' + low);
    for (int i = 6; i >= 0; i -= 2) {
        memcpy(d + i, two_digits + 2 * (high % 100), 2);
        high /= 100;
    }
    int n = 17;
    while (n > 1 && d[n - 1] == '0')
        n--;
    return n;
}

/* llrintl(y): glibc's x86-64 llrintl is this one fistpll (the current rounding mode, round
 * to nearest); inline, it saves the call through the PLT, a fifth of this function's
 * cycles on the sweep (issue 47). */
static inline long long nearest_ll(long double y)
{
#if defined(__x86_64__) && defined(__GNUC__)
    long long d;
    __asm__("fistpll %0" : "=m"(d) : "t"(y) : "st");
    return d;
#else
    return llrintl(y);
#endif
}

int number_text_g17(char out[NUMBER_TEXT_MAX], double v)
{
    if (v == 0) { /* "%.17g" of a zero: its sign, then one digit (a sweep writes many) */
        int n = 0;
        if (signbit(v))
            out[n++] = '-';
        out[n++] = '0';
        out[n] = '\0';
        return n;
    }
    if (!isfinite(v))
        return slow(out, v);
    if (!atomic_load_explicit(&pow10_ready, memory_order_acquire))
        call_once(&pow10_once, pow10_fill);
    long double a = fabsl((long double)v);
    /* X estimated from the binary exponent (log10(2) = 0.30103); corrected once below */
    /* (ilogb and floor without libm's calls for a normal v, the same values: the binary
     * exponent read from the bits, and floor of r in [-330, 310] as truncation, one less
     * below zero when r was cut; issue 47) */
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int exp2 = (int)((bits >> 52) & 0x7ff);
    double r = (double)(exp2 ? exp2 - 1023 : ilogb(v)) * 0.30102999566398120;
    int X = (int)r;
    if (r < (double)X)
        X--;
    const long double lo = 1e16L, hi = 1e17L;
    long double y = 0;
    bool settled = false;
    for (int tries = 0; tries < 3 && !settled; tries++) {
        int k = 16 - X;
        if (k < POW_MIN || k > POW_MAX)
            return slow(out, v);
        y = a * pow10_table[k - POW_MIN];
        if (y >= hi)
            X++;
        else if (y < lo)
            X--;
        else
            settled = true;
    }
    if (!settled || y < lo + 1 || y >= hi - 1)
        return slow(out, v);
    /* the nearest integer (fistp in the current, nearest, rounding mode: no switch of the
     * control word as a cast's truncation needs), and how far y is from it, exactly */
    long long D = nearest_ll(y);
    if (fabsl(y - (long double)D) > 0.5L - 1.0L / 64)
        return slow(out, v);

    char d[17];
    int nd = digits_of(D, d), n = 0;
    if (signbit(v))
        out[n++] = '-';
    if (X < -4 || X >= 17) { /* d.ddde+XX */
        out[n++] = d[0];
        if (nd > 1) {
            out[n++] = '.';
            memcpy(out + n, d + 1, (size_t)nd - 1);
            n += nd - 1;
        }
        out[n++] = 'e';
        out[n++] = X < 0 ? '-' : '+';
        int e = X < 0 ? -X : X;
        if (e >= 100)
            out[n++] = (char)('0' + e / 100);
        out[n++] = (char)('0' + e / 10 % 10);
        out[n++] = (char)('0' + e % 10);
    } else if (X >= 0) { /* X + 1 integer digits, then the fraction's */
        memcpy(out + n, d, (size_t)X + 1);
        n += X + 1;
        if (nd > X + 1) {
            out[n++] = '.';
            memcpy(out + n, d + X + 1, (size_t)(nd - X - 1));
            n += nd - X - 1;
        }
    } else { /* 0.000ddd, -X - 1 zeros after the point */
        out[n++] = '0';
        out[n++] = '.';
        for (int z = 0; z < -X - 1; z++)
            out[n++] = '0';
        memcpy(out + n, d, (size_t)nd);
        n += nd;
    }
    out[n] = '\0';
    return n;
}

#else /* no extended precision to decide the digits with: glibc's exact path for all */

int number_text_g17(char out[NUMBER_TEXT_MAX], double v)
{
    return slow(out, v);
}

#endif

int number_text_lld(char out[NUMBER_TEXT_MAX], long long v)
{
    char d[24], *p = d + sizeof d; /* the digits, written backwards */
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        *--p = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--p = '-';
    int n = (int)(d + sizeof d - p);
    memcpy(out, p, (size_t)n);
    out[n] = '\0';
    return n;
}
