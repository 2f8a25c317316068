/*
 * compressors/rng.h: an explicit, seeded random generator (xoshiro256**, seeded with
 * splitmix64). The same seed gives the same stream on every machine; there is no hidden
 * global generator anywhere in gcsim.
 */
#ifndef GCSIM_COMPRESSORS_RNG_H
#define GCSIM_COMPRESSORS_RNG_H

#include <stdint.h>

typedef struct {
    uint64_t s[4];
} gc_rng;

void gc_rng_seed(gc_rng *r, uint64_t seed);
uint64_t gc_rng_next(gc_rng *r);
/* Uniform in [0, 1) with 53 random bits. */
double gc_rng_uniform(gc_rng *r);
/* Uniform in [0, 1) with 24 random bits, for float-precision stochastic rounding. */
float gc_rng_uniform_f(gc_rng *r);
/* Standard normal (Box-Muller, consumes two uniforms). */
double gc_rng_normal(gc_rng *r);
/* Uniform integer in [0, bound), bound > 0, without modulo bias. */
uint64_t gc_rng_below(gc_rng *r, uint64_t bound);

/* gc_rng_next's step, inline for loops that draw millions (the same stream). */
static inline uint64_t gc_rng_next_inline(gc_rng *r)
{
    uint64_t *s = r->s;
    uint64_t x = s[1] * 5, result = ((x << 7) | (x >> 57)) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

/* gc_rng_below for one bound drawn from many times, its two 64-bit divisions done once:
 * the same draws and the same values (issue 47: the divisions were most of a sweep's
 * start-up, which resamples payload pools of millions of values). The remainder is Lemire,
 * Kaser and Kurz's direct computation ("Faster remainder by direct computation", 2019,
 * Software: Practice and Experience 49(6)), exact for every 64-bit value and divisor with
 * a 128-bit multiplier. */
__extension__ typedef unsigned __int128 gc_u128;
typedef struct {
    uint64_t bound, limit;
    gc_u128 m;
} gc_rng_range;

static inline void gc_rng_range_init(gc_rng_range *g, uint64_t bound)
{
    g->bound = bound;
    g->limit = UINT64_MAX - UINT64_MAX % bound;
    g->m = ~(gc_u128)0 / bound + 1;
}

static inline uint64_t gc_rng_below_range(gc_rng *r, const gc_rng_range *g)
{
    uint64_t x;
    do
        x = gc_rng_next_inline(r);
    while (x >= g->limit);
    gc_u128 low = g->m * x; /* x / bound's fraction, scaled by 2^128 */
    return (uint64_t)(((low >> 64) * g->bound + (((low & UINT64_MAX) * g->bound) >> 64)) >> 64);
}

#endif
