/* compressors/bitio.h: LSB-first bit writer and bounds-checked bit reader for packed
 * payloads (QSGD/ECQ fixed-width and Elias codes, ORQ/linear codes), and the two Elias
 * integer codes QSGD/ECQ use: omega (recursive, QSGD's) and gamma. */
#ifndef GCSIM_COMPRESSORS_BITIO_H
#define GCSIM_COMPRESSORS_BITIO_H

#include "internal.h"

typedef struct {
    uint8_t *d;   /* next byte to write; caller guarantees room */
    uint64_t acc;
    int bits;
} gc_bitw;

/* Append the low w bits of v (w <= 32). */
static inline void gc_bitw_put(gc_bitw *w, uint32_t v, int nbits)
{
    w->acc |= (uint64_t)v << w->bits;
    w->bits += nbits;
    if (w->bits >= 32) {
        gc_store_u32(w->d, (uint32_t)w->acc);
        w->d += 4;
        w->acc >>= 32;
        w->bits -= 32;
    }
}
/* Flush the partial word; returns the end pointer. */
static inline uint8_t *gc_bitw_flush(gc_bitw *w)
{
    while (w->bits > 0) {
        *w->d++ = (uint8_t)w->acc;
        w->acc >>= 8;
        w->bits -= 8;
    }
    w->bits = 0;
    return w->d;
}

typedef struct {
    const uint8_t *p;  /* first byte of the bit stream */
    size_t nbits;      /* bits available */
    size_t pos;        /* bits consumed */
    size_t base;       /* byte offset of p in the payload, for messages */
} gc_bitr;

/* Read nbits (<= 32); -1 with an error naming the byte offset when past the end. */
static inline int gc_bitr_get(gc_bitr *r, int nbits, uint32_t *v, const char *what, char *err,
                              size_t err_len)
{
    if (r->nbits - r->pos < (size_t)nbits) {
        gc_errf(err, err_len, "payload truncated at byte offset %zu: expected %s",
                r->base + r->pos / 8, what);
        return -1;
    }
    uint64_t x = 0;
    size_t byte = r->pos >> 3;
    int shift = (int)(r->pos & 7);
    int need = shift + nbits, got = 0;
    for (int k = 0; got < need; k++, got += 8)
        x |= (uint64_t)r->p[byte + (size_t)k] << got;
    x >>= shift;
    *v = nbits == 32 ? (uint32_t)x : (uint32_t)(x & ((1ull << nbits) - 1));
    r->pos += (size_t)nbits;
    return 0;
}

/* Reverse the order of the low 64 bits of v. */
static inline uint64_t gc_bitrev64(uint64_t v)
{
    v = __builtin_bswap64(v);
    v = (v & 0x0f0f0f0f0f0f0f0full) << 4 | (v >> 4 & 0x0f0f0f0f0f0f0f0full);
    v = (v & 0x3333333333333333ull) << 2 | (v >> 2 & 0x3333333333333333ull);
    v = (v & 0x5555555555555555ull) << 1 | (v >> 1 & 0x5555555555555555ull);
    return v;
}

/* Append the low nbits (1..64) of v most significant bit first (codes are defined as bit
 * strings read left to right; the stream itself fills bytes LSB first). */
static inline void gc_bitw_put_msb(gc_bitw *w, uint64_t v, int nbits)
{
    uint64_t r = gc_bitrev64(v) >> (64 - nbits);
    if (nbits > 32) {
        gc_bitw_put(w, (uint32_t)r, 32);
        gc_bitw_put(w, (uint32_t)(r >> 32), nbits - 32);
    } else {
        gc_bitw_put(w, (uint32_t)r, nbits);
    }
}

static inline int gc_bitlen64(uint64_t x) { return 64 - __builtin_clzll(x); }

/* Elias gamma of x >= 1: bitlen(x) - 1 zero bits, then x's bits. Length 2 bitlen(x) - 1. */
static inline int gc_gamma_bits(uint64_t x) { return 2 * gc_bitlen64(x) - 1; }
static inline void gc_put_gamma(gc_bitw *w, uint64_t x)
{
    int L = gc_bitlen64(x);
    for (int k = L - 1; k > 0; k -= 32)
        gc_bitw_put(w, 0, k > 32 ? 32 : k);
    gc_bitw_put_msb(w, x, L);
}

/* Elias omega of x >= 1 (Elias 1975; QSGD's "recursive Elias coding"): the code of x is the
 * code of bitlen(x) - 1 (recursively, stopping at 1, which contributes nothing) followed by
 * x's bits, and a final 0 bit. 1 -> 0, 2 -> 10 0, 4 -> 10 100 0, 16 -> 10 100 10000 0.
 * Groups: x, bitlen(x) - 1, ... while > 1; at most 4 for 64-bit x (x, 63, 5, 2). */
static inline int gc_omega_bits(uint64_t x)
{
    int n = 1;
    for (; x > 1; x = (uint64_t)gc_bitlen64(x) - 1)
        n += gc_bitlen64(x);
    return n;
}
static inline void gc_put_omega(gc_bitw *w, uint64_t x)
{
    uint64_t grp[8];
    int ng = 0;
    for (; x > 1; x = (uint64_t)gc_bitlen64(x) - 1)
        grp[ng++] = x;
    while (ng > 0) { /* innermost (shortest) group first */
        uint64_t g = grp[--ng];
        gc_bitw_put_msb(w, g, gc_bitlen64(g));
    }
    gc_bitw_put(w, 0, 1);
}

/* Read up to 64 bits as an MSB-first number. */
static inline int gc_bitr_get_msb(gc_bitr *r, int nbits, uint64_t *v, const char *what,
                                  char *err, size_t err_len)
{
    uint32_t lo = 0, hi = 0;
    int n1 = nbits > 32 ? 32 : nbits;
    if (gc_bitr_get(r, n1, &lo, what, err, err_len) != 0 ||
        (nbits > 32 && gc_bitr_get(r, nbits - 32, &hi, what, err, err_len) != 0))
        return -1;
    uint64_t lsb_first = (uint64_t)lo | (uint64_t)hi << 32;
    *v = gc_bitrev64(lsb_first) >> (64 - nbits);
    return 0;
}

/* Decode one gamma code of a value below 2^64: more than 63 leading zeros are rejected, so a
 * stream of zero bytes cannot make the loop run on. */
static inline int gc_get_gamma(gc_bitr *r, uint64_t *x, const char *what, char *err,
                               size_t err_len)
{
    size_t at = r->pos;
    int L = 0;
    uint32_t bit = 0;
    for (;;) {
        if (gc_bitr_get(r, 1, &bit, what, err, err_len) != 0)
            return -1;
        if (bit)
            break;
        if (++L > 63) {
            gc_errf(err, err_len,
                    "bad %s at byte offset %zu: Elias gamma code of a value above 2^64", what,
                    r->base + at / 8);
            return -1;
        }
    }
    uint64_t v = 0;
    if (L > 0 && gc_bitr_get_msb(r, L, &v, what, err, err_len) != 0)
        return -1;
    *x = (uint64_t)1 << L | v;
    return 0;
}

/* Decode one omega code. Each group is read as n + 1 bits starting with the 1 just seen,
 * where n is the previous group's value (starting at 1), and its value becomes the next n;
 * a 0 where a group would start ends the code. n grows at least as 2, 4, 16, 65536 and a
 * group longer than 64 bits is rejected, so at most 4 groups are read whatever the input. */
static inline int gc_get_omega(gc_bitr *r, uint64_t *x, const char *what, char *err,
                               size_t err_len)
{
    size_t at = r->pos;
    uint64_t n = 1;
    for (;;) {
        uint32_t bit;
        if (gc_bitr_get(r, 1, &bit, what, err, err_len) != 0)
            return -1;
        if (!bit)
            break;
        if (n > 63) {
            gc_errf(err, err_len,
                    "bad %s at byte offset %zu: Elias omega code of a value above 2^64",
                    what, r->base + at / 8);
            return -1;
        }
        uint64_t v;
        if (gc_bitr_get_msb(r, (int)n, &v, what, err, err_len) != 0)
            return -1;
        n = (uint64_t)1 << n | v;
    }
    *x = n;
    return 0;
}

#endif
