/* xoshiro256** by Blackman and Vigna (public domain algorithm), seeded with splitmix64. */
#include "rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void gc_rng_seed(gc_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}


uint64_t gc_rng_next(gc_rng *r)
{
    return gc_rng_next_inline(r);
}

double gc_rng_uniform(gc_rng *r) { return (double)(gc_rng_next(r) >> 11) * 0x1.0p-53; }

float gc_rng_uniform_f(gc_rng *r) { return (float)(gc_rng_next(r) >> 40) * 0x1.0p-24f; }

double gc_rng_normal(gc_rng *r)
{
    double u1 = gc_rng_uniform(r), u2 = gc_rng_uniform(r);
    if (u1 <= 0.0)
        u1 = 0x1.0p-53;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2);
}

uint64_t gc_rng_below(gc_rng *r, uint64_t bound)
{
    /* Rejection: draw until the value falls below the largest multiple of bound. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
    uint64_t x;
    do
        x = gc_rng_next(r);
    while (x >= limit);
    return x % bound;
}
