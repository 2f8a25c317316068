/* compressors/c_dense.c: the dense baselines none (fp32), fp16 and bf16.
 * Bodies: n little-endian fp32 / IEEE binary16 / bfloat16 values. Rounding is to nearest,
 * ties to even; values beyond the fp16 range become +-Inf, as a framework cast would. */
#include <stdlib.h>

#include "internal.h"

/* ---- conversions (branch-free so that the block loops below vectorize) ---- */

/* fp32 -> fp16 bits, round to nearest even; *bad |= 1 for NaN/Inf input. */
static inline uint32_t f32_to_f16(float f, uint32_t *bad)
{
    uint32_t u = gc_f2u(f);
    uint32_t sign = (u >> 16) & 0x8000u;
    int32_t a = (int32_t)(u & 0x7fffffffu); /* |f| bits; < 2^31, so signed compares work */
    *bad |= a >= 0x7f800000;
    /* normal halves: rebias the exponent, round to nearest even on the 13 dropped bits */
    int32_t normal = (int32_t)(((uint32_t)a + 0xc8000fffu + (((uint32_t)a >> 13) & 1u)) >> 13);
    /* subnormal halves (|f| < 2^-14): adding 0.5 puts the half's mantissa in the low bits
     * and lets the FPU round to nearest even */
    int32_t sub = (int32_t)gc_f2u(gc_u2f((uint32_t)a) + 0.5f) - 0x3f000000;
    /* selects as masks, so that the loop stays free of branches */
    int32_t is_sub = -(int32_t)(a < 0x38800000), is_inf = -(int32_t)(a >= 0x477ff000);
    int32_t r = (sub & is_sub) | (normal & ~is_sub);
    r = (0x7c00 & is_inf) | (r & ~is_inf); /* rounds to >= 65536: Inf */
    return (uint32_t)r | sign;
}

static inline float f16_to_f32(uint16_t h)
{
    uint32_t o = (uint32_t)(h & 0x7fffu) << 13;
    uint32_t e = o & 0x0f800000u;
    o += 0x38000000u; /* (127 - 15) << 23 */
    uint32_t inf = o + 0x38000000u;
    float sub = gc_u2f(o + 0x00800000u) - gc_u2f(0x38800000u);
    uint32_t is_inf = 0u - (uint32_t)(e == 0x0f800000u), is_sub = 0u - (uint32_t)(e == 0);
    uint32_t r = (inf & is_inf) | (o & ~is_inf);
    r = (gc_f2u(sub) & is_sub) | (r & ~is_sub);
    return gc_u2f(r | (uint32_t)(h & 0x8000u) << 16);
}

static inline uint16_t f32_to_bf16(float f, uint32_t *bad)
{
    uint32_t u = gc_f2u(f);
    *bad |= (u & 0x7f800000u) == 0x7f800000u;
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

static inline float bf16_to_f32(uint16_t h) { return gc_u2f((uint32_t)h << 16); }

#define BLOCK 64

/* Converts and returns nonzero when g holds NaN or Inf (checked in the same pass). */
GC_HOT static uint32_t to_half(const float *restrict g, size_t n, uint8_t *restrict d, int bf)
{
    size_t i = 0;
    uint16_t t[BLOCK];
    uint32_t bad = 0;
    for (; i + BLOCK <= n; i += BLOCK) {
        uint32_t b = 0;
        if (bf)
            for (int j = 0; j < BLOCK; j++)
                t[j] = f32_to_bf16(g[i + j], &b);
        else {
            uint32_t t32[BLOCK]; /* 32-bit lanes throughout, one narrowing pass after */
            for (int j = 0; j < BLOCK; j++)
                t32[j] = f32_to_f16(g[i + j], &b);
            for (int j = 0; j < BLOCK; j++)
                t[j] = (uint16_t)t32[j];
        }
        bad |= b;
#if GC_LITTLE_ENDIAN
        memcpy(d + 2 * i, t, sizeof t);
#else
        for (int j = 0; j < BLOCK; j++) { /* payloads are little-endian */
            d[2 * (i + j)] = (uint8_t)t[j];
            d[2 * (i + j) + 1] = (uint8_t)(t[j] >> 8);
        }
#endif
    }
    for (; i < n; i++) {
        uint16_t h = bf ? f32_to_bf16(g[i], &bad) : (uint16_t)f32_to_f16(g[i], &bad);
        d[2 * i] = (uint8_t)h;
        d[2 * i + 1] = (uint8_t)(h >> 8);
    }
    return bad;
}

GC_HOT static void from_half(const uint8_t *restrict s, size_t n, float *restrict out, int bf)
{
    size_t i = 0;
    for (; i + BLOCK <= n; i += BLOCK) {
        if (bf)
            for (int j = 0; j < BLOCK; j++)
                out[i + j] = bf16_to_f32((uint16_t)(s[2 * (i + j)] | s[2 * (i + j) + 1] << 8));
        else
            for (int j = 0; j < BLOCK; j++)
                out[i + j] = f16_to_f32((uint16_t)(s[2 * (i + j)] | s[2 * (i + j) + 1] << 8));
    }
    for (; i < n; i++) {
        uint16_t h = (uint16_t)(s[2 * i] | s[2 * i + 1] << 8);
        out[i] = bf ? bf16_to_f32(h) : f16_to_f32(h);
    }
}

static bool never(const double *p) { (void)p; return false; }
static bool always(const double *p) { (void)p; return true; }

static int none_encode(const double *p, gc_tstate *st, const float *g, size_t n, gc_rng *rng,
                       gc_bytes *out, float *q, char *err, size_t err_len)
{
    (void)p, (void)st, (void)rng;
    uint8_t *d = gc_bytes_extend(out, 4 * n);
    if (!d) {
        gc_errf(err, err_len, "out of memory");
        return -1;
    }
    gc_store_f32_array(d, g, n);
    if (q && n)
        memcpy(q, g, 4 * n);
    return 0;
}

static int none_decode(const double *p, gc_reader *r, float *out, size_t n, char *err,
                       size_t err_len)
{
    (void)p;
    return gc_get_f32_array(r, out, n, "fp32 values", err, err_len);
}

static int half_encode(int bf, gc_tstate *st, const float *g, size_t n, gc_bytes *out,
                       float *q, char *err, size_t err_len)
{
    (void)st;
    uint8_t *d = gc_bytes_extend(out, 2 * n);
    if (!d) {
        gc_errf(err, err_len, "out of memory");
        return -1;
    }
    if (to_half(g, n, d, bf))
        return gc_nonfinite_error(g, n, err, err_len);
    if (q)
        from_half(d, n, q, bf);
    return 0;
}

static int half_decode(int bf, gc_reader *r, float *out, size_t n, char *err, size_t err_len)
{
    if (n > SIZE_MAX / 2) {
        gc_errf(err, err_len, "element count %zu too large", n);
        return -1;
    }
    const uint8_t *s = gc_get_bytes(r, 2 * n, bf ? "bf16 values" : "fp16 values", err, err_len);
    if (!s)
        return -1;
    from_half(s, n, out, bf);
    return 0;
}

static int fp16_encode(const double *p, gc_tstate *st, const float *g, size_t n, gc_rng *rng,
                       gc_bytes *out, float *q, char *err, size_t err_len)
{
    (void)p, (void)rng;
    return half_encode(0, st, g, n, out, q, err, err_len);
}
static int bf16_encode(const double *p, gc_tstate *st, const float *g, size_t n, gc_rng *rng,
                       gc_bytes *out, float *q, char *err, size_t err_len)
{
    (void)p, (void)rng;
    return half_encode(1, st, g, n, out, q, err, err_len);
}
static int fp16_decode(const double *p, gc_reader *r, float *out, size_t n, char *err,
                       size_t err_len)
{
    (void)p;
    return half_decode(0, r, out, n, err, err_len);
}
static int bf16_decode(const double *p, gc_reader *r, float *out, size_t n, char *err,
                       size_t err_len)
{
    (void)p;
    return half_decode(1, r, out, n, err, err_len);
}

static bool fixed4(const double *p, size_t n, size_t *b) { (void)p; *b = 4 * n; return true; }
static bool fixed2(const double *p, size_t n, size_t *b) { (void)p; *b = 2 * n; return true; }

const gc_codec gc_codec_none = {
    .name = "none", .format_id = 1, .agg = GC_AGG_DENSE_SUMMABLE, .unbiased = always,
    .encode = none_encode, .decode = none_decode, .fixed_body = fixed4,
};
const gc_codec gc_codec_fp16 = {
    .name = "fp16", .format_id = 2, .agg = GC_AGG_DENSE_SUMMABLE, .unbiased = never,
    .encode = fp16_encode, .decode = fp16_decode, .fixed_body = fixed2, .checks_finite = true,
};
const gc_codec gc_codec_bf16 = {
    .name = "bf16", .format_id = 3, .agg = GC_AGG_DENSE_SUMMABLE, .unbiased = never,
    .encode = bf16_encode, .decode = bf16_decode, .fixed_body = fixed2, .checks_finite = true,
};
