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

#endif
