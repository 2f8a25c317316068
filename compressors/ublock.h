/* compressors/ublock.h: uniform random numbers in blocks, for the stochastic-rounding hot
 * loops. Eight xoshiro128+ lanes (Blackman and Vigna's algorithm; its top 24 bits, the ones
 * used here, are its strong bits) seeded from the caller's
 * gc_rng at each encode, stepped together so the compiler can vectorize them; the same gc_rng
 * state gives the same numbers. Each value is a 24-bit uniform as an int32 in [0, 2^24), so
 * that a Bernoulli(p) draw is the exact float comparison (float)u < p * 2^24 (resolution
 * 2^-24, the precision of p itself). */
#ifndef GCSIM_COMPRESSORS_UBLOCK_H
#define GCSIM_COMPRESSORS_UBLOCK_H

#include "internal.h"

#define GC_UBLK 256
#define GC_ULANES 8

typedef struct {
    uint32_t s[4][GC_ULANES];
} gc_ulanes;

static inline void gc_ulanes_seed(gc_ulanes *L, gc_rng *r)
{
    for (int w = 0; w < 4; w++)
        for (int l = 0; l < GC_ULANES; l += 2) {
            uint64_t x = gc_rng_next(r);
            L->s[w][l] = (uint32_t)x;
            L->s[w][l + 1] = (uint32_t)(x >> 32);
        }
    for (int l = 0; l < GC_ULANES; l++) /* an all-zero state would stay zero */
        if (!(L->s[0][l] | L->s[1][l] | L->s[2][l] | L->s[3][l]))
            L->s[0][l] = 0x9E3779B9u + (uint32_t)l;
}

/* GC_UBLK uniforms in [0, 2^24) into out. With GCC/Clang the eight lanes are one vector
 * variable (vector extension), which keeps the state in registers across the loop. */
#if defined(__GNUC__)
typedef uint32_t gc_v8u __attribute__((vector_size(32)));
static inline void gc_ulanes_fill(gc_ulanes *restrict L, int32_t *restrict out)
{
    gc_v8u s0, s1, s2, s3;
    memcpy(&s0, L->s[0], sizeof s0);
    memcpy(&s1, L->s[1], sizeof s1);
    memcpy(&s2, L->s[2], sizeof s2);
    memcpy(&s3, L->s[3], sizeof s3);
    for (int b = 0; b < GC_UBLK / GC_ULANES; b++) {
        gc_v8u r = (s0 + s3) >> 8;
        memcpy(out + b * GC_ULANES, &r, sizeof r);
        gc_v8u t = s1 << 9;
        s2 ^= s0;
        s3 ^= s1;
        s1 ^= s2;
        s0 ^= s3;
        s2 ^= t;
        s3 = s3 << 11 | s3 >> 21;
    }
    memcpy(L->s[0], &s0, sizeof s0);
    memcpy(L->s[1], &s1, sizeof s1);
    memcpy(L->s[2], &s2, sizeof s2);
    memcpy(L->s[3], &s3, sizeof s3);
}
#else
static inline void gc_ulanes_fill(gc_ulanes *restrict L, int32_t *restrict out)
{
    uint32_t s0[GC_ULANES], s1[GC_ULANES], s2[GC_ULANES], s3[GC_ULANES];
    memcpy(s0, L->s[0], sizeof s0);
    memcpy(s1, L->s[1], sizeof s1);
    memcpy(s2, L->s[2], sizeof s2);
    memcpy(s3, L->s[3], sizeof s3);
    for (int b = 0; b < GC_UBLK / GC_ULANES; b++) {
        for (int l = 0; l < GC_ULANES; l++) {
            out[b * GC_ULANES + l] = (int32_t)((s0[l] + s3[l]) >> 8);
            uint32_t t = s1[l] << 9;
            s2[l] ^= s0[l];
            s3[l] ^= s1[l];
            s1[l] ^= s2[l];
            s0[l] ^= s3[l];
            s2[l] ^= t;
            s3[l] = s3[l] << 11 | s3[l] >> 21;
        }
    }
    memcpy(L->s[0], s0, sizeof s0);
    memcpy(L->s[1], s1, sizeof s1);
    memcpy(L->s[2], s2, sizeof s2);
    memcpy(L->s[3], s3, sizeof s3);
}
#endif

#endif
