/* compressors/bitio.h: LSB-first bit writer and bounds-checked bit reader for packed
 * payloads (QSGD/ECQ fixed-width and Elias codes, ORQ/linear codes). */
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

#endif
