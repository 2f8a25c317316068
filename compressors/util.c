/* compressors/util.c: byte buffers, LEB128, bounds-checked payload reading, error text. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

void gc_errf(char *err, size_t err_len, const char *fmt, ...)
{
    if (!err || err_len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

void gc_bytes_free(gc_bytes *b)
{
    if (!b)
        return;
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

int gc_bytes_reserve(gc_bytes *b, size_t extra)
{
    if (extra > SIZE_MAX - b->len)
        return -1;
    size_t need = b->len + extra;
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    uint8_t *d = realloc(b->data, cap);
    if (!d)
        return -1;
    b->data = d;
    b->cap = cap;
    return 0;
}

uint8_t *gc_bytes_extend(gc_bytes *b, size_t extra)
{
    if (gc_bytes_reserve(b, extra) != 0)
        return NULL;
    uint8_t *p = b->data + b->len;
    b->len += extra;
    return p;
}

int gc_put_u8(gc_bytes *b, uint8_t v)
{
    uint8_t *d = gc_bytes_extend(b, 1);
    if (!d)
        return -1;
    d[0] = v;
    return 0;
}

int gc_put_f32(gc_bytes *b, float v)
{
    uint8_t *d = gc_bytes_extend(b, 4);
    if (!d)
        return -1;
    gc_store_f32(d, v);
    return 0;
}

size_t gc_uleb_len(uint64_t v)
{
    size_t k = 1;
    while (v >= 0x80) {
        v >>= 7;
        k++;
    }
    return k;
}

int gc_put_uleb(gc_bytes *b, uint64_t v)
{
    uint8_t *d = gc_bytes_extend(b, gc_uleb_len(v));
    if (!d)
        return -1;
    while (v >= 0x80) {
        *d++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *d = (uint8_t)v;
    return 0;
}

int gc_get_u8(gc_reader *r, uint8_t *v, const char *what, char *err, size_t err_len)
{
    if (r->pos >= r->len) {
        gc_errf(err, err_len, "payload truncated at byte offset %zu: expected %s", r->pos, what);
        return -1;
    }
    *v = r->p[r->pos++];
    return 0;
}

int gc_get_f32(gc_reader *r, float *v, const char *what, char *err, size_t err_len)
{
    if (r->len - r->pos < 4 || r->pos > r->len) {
        gc_errf(err, err_len, "payload truncated at byte offset %zu: expected %s (4 bytes)",
                r->pos, what);
        return -1;
    }
    *v = gc_load_f32(r->p + r->pos);
    r->pos += 4;
    return 0;
}

int gc_get_uleb(gc_reader *r, uint64_t *v, const char *what, char *err, size_t err_len)
{
    uint64_t x = 0;
    size_t start = r->pos;
    for (int shift = 0;; shift += 7) {
        if (r->pos >= r->len) {
            gc_errf(err, err_len, "payload truncated at byte offset %zu: expected %s", r->pos,
                    what);
            return -1;
        }
        uint8_t byte = r->p[r->pos++];
        if (shift == 63 && (byte & 0x7e)) {
            gc_errf(err, err_len, "bad %s at byte offset %zu: varint overflows 64 bits", what,
                    start);
            return -1;
        }
        x |= (uint64_t)(byte & 0x7f) << shift;
        if (!(byte & 0x80))
            break;
        if (shift >= 63) {
            gc_errf(err, err_len, "bad %s at byte offset %zu: varint too long", what, start);
            return -1;
        }
    }
    *v = x;
    return 0;
}

const uint8_t *gc_get_bytes(gc_reader *r, size_t n, const char *what, char *err, size_t err_len)
{
    if (r->pos > r->len || r->len - r->pos < n) {
        gc_errf(err, err_len,
                "payload truncated at byte offset %zu: expected %s (%zu bytes, %zu left)",
                r->pos, what, n, r->pos > r->len ? (size_t)0 : r->len - r->pos);
        return NULL;
    }
    const uint8_t *p = r->p + r->pos;
    r->pos += n;
    return p;
}

int gc_get_f32_array(gc_reader *r, float *out, size_t n, const char *what, char *err,
                     size_t err_len)
{
    if (n > SIZE_MAX / 4) {
        gc_errf(err, err_len, "element count %zu too large", n);
        return -1;
    }
    const uint8_t *s = gc_get_bytes(r, 4 * n, what, err, err_len);
    if (!s)
        return -1;
#if GC_LITTLE_ENDIAN
    if (n)
        memcpy(out, s, 4 * n);
#else
    for (size_t i = 0; i < n; i++)
        out[i] = gc_load_f32(s + 4 * i);
#endif
    return 0;
}

void gc_store_f32_array(uint8_t *d, const float *g, size_t n)
{
#if GC_LITTLE_ENDIAN
    if (n)
        memcpy(d, g, 4 * n);
#else
    for (size_t i = 0; i < n; i++)
        gc_store_f32(d + 4 * i, g[i]);
#endif
}

int gc_check_finite_at(float v, size_t offset, const char *what, char *err, size_t err_len)
{
    if (!isfinite(v)) {
        gc_errf(err, err_len, "bad %s at byte offset %zu: not a finite number", what, offset);
        return -1;
    }
    return 0;
}

size_t gc_packed_bytes(size_t n, int width)
{
    /* n * width / 8 rounded up, without overflow for any realistic n */
    return n / 8 * (size_t)width + ((n % 8) * (size_t)width + 7) / 8;
}

/* Bytes are assigned, not OR-ed: only the low bits of a first byte shared with earlier
 * elements are kept, so calls in element order fill an uncleared area. */
void gc_pack_codes(uint8_t *area, size_t first, const uint32_t *restrict c, size_t cnt,
                   int w)
{
    size_t bit = first * (size_t)w;
    uint8_t *restrict d = area + bit / 8;
    int off = (int)(bit % 8);
    if (off == 0 && (w == 2 || w == 4 || w == 8) && cnt % (size_t)(8 / w) == 0) {
        /* byte-aligned fast paths */
        if (w == 8)
            for (size_t j = 0; j < cnt; j++)
                d[j] = (uint8_t)c[j];
        else if (w == 4)
            for (size_t j = 0; j < cnt / 2; j++)
                d[j] = (uint8_t)(c[2 * j] | c[2 * j + 1] << 4);
        else
            for (size_t j = 0; j < cnt / 4; j++)
                d[j] = (uint8_t)(c[4 * j] | c[4 * j + 1] << 2 | c[4 * j + 2] << 4 |
                                 c[4 * j + 3] << 6);
        return;
    }
    uint64_t acc = 0;
    int bits = off;
    uint8_t first_byte_keep = off ? (uint8_t)(d[0] & ((1u << off) - 1)) : 0;
    acc = first_byte_keep;
    for (size_t j = 0; j < cnt; j++) {
        acc |= (uint64_t)c[j] << bits;
        bits += w;
        while (bits >= 8) {
            *d++ = (uint8_t)acc;
            acc >>= 8;
            bits -= 8;
        }
    }
    if (bits > 0)
        *d = (uint8_t)acc;
}

GC_HOT uint32_t gc_stats(const float *restrict x, size_t m, double *sum, double *sumsq,
                         float *maxabs)
{
    /* 8 float lanes over blocks of 512 (64 values per lane, relative error ~1e-5, enough for
     * a norm, scaler or clipping threshold), flushed into doubles between blocks */
    enum { BLK = 512 };
    double s = 0, q = 0;
    float mx = 0;
    uint32_t bad = 0;
    size_t i = 0;
    for (; i + BLK <= m; i += BLK) {
        float as[8] = {0}, aq[8] = {0}, am[8] = {0};
        uint32_t ab[8] = {0};
        for (int jj = 0; jj < BLK; jj += 8)
            GC_LANE_LOOP
            for (int l = 0; l < 8; l++) { /* 8 independent lanes */
                float v = x[i + (size_t)(jj + l)], a = fabsf(v);
                as[l] += v;
                aq[l] += v * v;
                am[l] = a > am[l] ? a : am[l];
                ab[l] |= gc_nonfinite_bit(gc_f2u(v));
            }
        for (int l = 0; l < 8; l++) {
            s += as[l];
            q += aq[l];
            mx = am[l] > mx ? am[l] : mx;
            bad |= ab[l];
        }
    }
    for (; i < m; i++) {
        s += x[i];
        q += (double)x[i] * x[i];
        mx = fabsf(x[i]) > mx ? fabsf(x[i]) : mx;
        bad |= gc_nonfinite_bit(gc_f2u(x[i]));
    }
    *sum = s;
    *sumsq = q;
    *maxabs = mx;
    return bad;
}

int gc_nonfinite_error(const float *g, size_t n, char *err, size_t err_len)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(g[i])) {
            gc_errf(err, err_len, "gradient element %zu is %s", i, isnan(g[i]) ? "NaN" : "infinite");
            return -1;
        }
    gc_errf(err, err_len, "gradient holds NaN or Inf");
    return -1;
}

GC_HOT void gc_expand_bits(const uint8_t *restrict bits, size_t i0, size_t i1, float lo,
                           float hi, float *restrict out)
{
    uint32_t lb = gc_f2u(lo), hb = gc_f2u(hi);
    for (size_t i = i0; i < i1; i++) {
        uint32_t m = 0u - ((uint32_t)(bits[i >> 3] >> (i & 7)) & 1u); /* all ones when set */
        out[i] = gc_u2f((hb & m) | (lb & ~m));
    }
}

GC_HOT double gc_sumsq(const float *restrict x, size_t m, uint32_t *bad)
{
    double q = 0;
    uint32_t nb = 0;
    size_t i = 0;
    for (; i + 512 <= m; i += 512) {
        float aq[8] = {0};
        uint32_t ab[8] = {0};
        for (int jj = 0; jj < 512; jj += 8)
            GC_LANE_LOOP
            for (int l = 0; l < 8; l++) {
                float v = x[i + (size_t)(jj + l)];
                aq[l] += v * v;
                ab[l] |= gc_nonfinite_bit(gc_f2u(v));
            }
        for (int l = 0; l < 8; l++) {
            q += aq[l];
            nb |= ab[l];
        }
    }
    for (; i < m; i++) {
        q += (double)x[i] * x[i];
        nb |= gc_nonfinite_bit(gc_f2u(x[i]));
    }
    *bad = nb;
    return q;
}

GC_HOT float gc_maxabs(const float *restrict x, size_t m, uint32_t *bad)
{
    float mx = 0;
    uint32_t nb = 0;
    size_t i = 0;
    for (; i + 64 <= m; i += 64) {
        float am[8] = {0};
        uint32_t ab[8] = {0};
        for (int jj = 0; jj < 64; jj += 8)
            GC_LANE_LOOP
            for (int l = 0; l < 8; l++) {
                float v = x[i + (size_t)(jj + l)], a = fabsf(v);
                am[l] = a > am[l] ? a : am[l];
                ab[l] |= gc_nonfinite_bit(gc_f2u(v));
            }
        for (int l = 0; l < 8; l++) {
            mx = am[l] > mx ? am[l] : mx;
            nb |= ab[l];
        }
    }
    for (; i < m; i++) {
        mx = fabsf(x[i]) > mx ? fabsf(x[i]) : mx;
        nb |= gc_nonfinite_bit(gc_f2u(x[i]));
    }
    *bad = nb;
    return mx;
}
