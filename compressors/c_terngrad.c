/* compressors/c_terngrad.c: TernGrad (Wen et al. 2017), Eq. 1-3 with the scaler of Eq. 2
 * taken per tensor (layer-wise ternarizing) or per bucket, gradient clipping at c*sigma
 * (Eq. 21, c = 2.5 as in the paper), scaler sharing (Eq. 4) and 2-bit codes. Optionally
 * sends small tensors and the last layer as fp32, as the paper does for AlexNet's last
 * layer (Section 4.2).
 *
 * Body: mode byte (0 ternary, 1 fp32); mode 1: n fp32. Mode 0: one fp32 scaler per
 * bucket, then ceil(n/4) bytes of 2-bit codes, element i in bits 2*(i%4) of byte i/4,
 * code 0 -> 0, 1 -> +s, 2 -> -s (3 is invalid; unused padding bits are 0). */
#include <math.h>
#include <stdlib.h>

#include "ublock.h"

enum { K_CLIP, K_BUCKET, K_MIN_SIZE, K_LAST };
static const char *const last_choices[] = {"fp32", "tern", NULL};
static const gc_key keys[] = {
    {"clip", GK_REAL, "2.5", 0, 1e6, NULL},
    {"bucket", GK_INT, "0", 0, 4294967295.0, NULL},
    {"min_size", GK_INT, "0", 0, 4294967295.0, NULL},
    {"last", GK_ENUM, "fp32", 0, 0, last_choices},
};

/* Scaler of one bucket: max |clip(g)| = min(max|g|, c*sigma) (Eq. 2 and 21); *limit gets
 * c*sigma (Inf without clipping); *bad is set when g holds NaN or Inf. */
static float bucket_scale(const float *g, size_t m, double c, float *limit, uint32_t *bad)
{
    double sum, sumsq;
    float mx;
    *bad = gc_stats(g, m, &sum, &sumsq, &mx);
    *limit = INFINITY;
    if (c > 0 && m > 0) {
        double mean = sum / (double)m, var = sumsq / (double)m - mean * mean;
        float lim = (float)(c * sqrt(var > 0 ? var : 0));
        *limit = lim;
        if (lim < mx)
            mx = lim;
    }
    return mx;
}

/* Ternary code of one element: 1 = +s, 2 = -s, with probability min(|x|, limit)/s (Eq. 3 on
 * the clipped gradient, Eq. 21); k24 = 2^24/s, lim24 = limit * k24, u a 24-bit uniform. */
static inline uint32_t tern_code(float v, int32_t uu, float k24, float lim24)
{
    uint32_t neg = gc_f2u(v) >> 31;
    float t = fabsf(v) * k24;
    t = t < lim24 ? t : lim24;
    uint32_t hit = (float)uu < t;
    return hit + (hit & neg);
}

static void tern_codes(const float *restrict x, const int32_t *restrict u, size_t cnt,
                       float k24, float lim24, uint32_t *restrict c)
{
    for (size_t j = 0; j < cnt; j++)
        c[j] = tern_code(x[j], u[j], k24, lim24);
}

/* A full block starting at an element index divisible by 4: codes straight to packed bytes.
 * Fixed counts and byte codes let the compiler vectorize both loops at -O2. */
GC_HOT static void tern_block_packed(gc_ulanes *restrict lanes, const float *restrict x,
                                     float k24, float lim24, uint8_t *restrict d)
{
    int32_t u[GC_UBLK];
    gc_ulanes_fill(lanes, u);
    uint8_t c[GC_UBLK];
    uint32_t w[GC_UBLK / 4];
    for (size_t j = 0; j < GC_UBLK; j++)
        c[j] = (uint8_t)tern_code(x[j], u[j], k24, lim24);
    memcpy(w, c, sizeof c);
    /* codes at bits 0, 8, 16, 24 of a little-endian word -> bits 0, 2, 4, 6 of a byte */
    for (size_t b = 0; b < GC_UBLK / 4; b++)
        d[b] = (uint8_t)(w[b] | w[b] >> 6 | w[b] >> 12 | w[b] >> 18);
}

static bool send_fp32(const double *p, const gc_tstate *st, size_t n)
{
    return n < (size_t)p[K_MIN_SIZE] || (st && st->last_layer && (int)p[K_LAST] == 0);
}

static size_t bucket_of(const double *p, size_t n)
{
    size_t b = (size_t)p[K_BUCKET];
    return b == 0 || b > n ? n : b;
}

static int encode(const double *p, gc_tstate *st, const float *g, size_t n, gc_rng *rng,
                  gc_bytes *out, float *q, char *err, size_t err_len)
{
    if (send_fp32(p, st, n)) {
        uint32_t bad = 0;
        for (size_t i = 0; i < n; i++)
            bad |= gc_nonfinite_bit(gc_f2u(g[i]));
        if (bad)
            return gc_nonfinite_error(g, n, err, err_len);
        uint8_t *d = gc_bytes_extend(out, 1 + 4 * n);
        if (!d)
            goto oom;
        d[0] = 1;
        gc_store_f32_array(d + 1, g, n);
        if (q && n)
            memcpy(q, g, 4 * n);
        return 0;
    }
    size_t bucket = bucket_of(p, n), nb = gc_nbuckets(n, bucket);
    uint8_t *d = gc_bytes_extend(out, 1 + 4 * nb + (n + 3) / 4);
    if (!d)
        goto oom;
    d[0] = 0;
    /* every code byte is assigned below (gc_pack_codes keeps only the bits of earlier
     * elements in a shared first byte), so the area needs no clearing */
    uint8_t *scales = d + 1, *codes = d + 1 + 4 * nb;
    gc_ulanes lanes;
    gc_ulanes_seed(&lanes, rng);
    int32_t u[GC_UBLK];
    uint32_t cb[GC_UBLK];
    double c = p[K_CLIP];
    for (size_t b = 0; b < nb; b++) {
        size_t i0 = b * bucket, m = n - i0 < bucket ? n - i0 : bucket;
        const float *x = g + i0;
        uint32_t bad;
        float limit, s = bucket_scale(x, m, c, &limit, &bad);
        if (bad)
            return gc_nonfinite_error(g, n, err, err_len);
        if (nb == 1 && st->has_shared_scale) {
            s = st->shared_scale; /* Eq. 4: the maximum over workers, set by the caller */
            st->has_shared_scale = false; /* it applies to this encode only */
        }
        gc_store_f32(scales + 4 * b, s);
        if (!(s > 0)) { /* all-zero bucket (or zero shared scale): every code is 0 */
            memset(cb, 0, sizeof cb);
            for (size_t j = 0; j < m; j += GC_UBLK)
                gc_pack_codes(codes, i0 + j, cb, m - j < GC_UBLK ? m - j : GC_UBLK, 2);
            if (q)
                memset(q + i0, 0, m * sizeof *q);
            continue;
        }
        float k24 = 16777216.0f / s, lim24 = limit * k24;
        lim24 = lim24 < 16777216.0f ? lim24 : 16777216.0f; /* |g| > s when shared s is small */
        for (size_t j = 0; j < m; j += GC_UBLK) {
            size_t cnt = m - j < GC_UBLK ? m - j : GC_UBLK;
            if (cnt == GC_UBLK && (i0 + j) % 4 == 0 && !q && k24 < INFINITY) {
                tern_block_packed(&lanes, x + j, k24, lim24, codes + (i0 + j) / 4);
                continue;
            }
            gc_ulanes_fill(&lanes, u);
            if (!(k24 < INFINITY)) { /* subnormal scaler: 2^24/s overflows float */
                for (size_t t = 0; t < cnt; t++) {
                    double a = fmin(fabs((double)x[j + t]), (double)limit);
                    uint32_t hit = (double)u[t] < a / s * 16777216.0;
                    cb[t] = hit + (hit & (gc_f2u(x[j + t]) >> 31));
                }
            } else {
                tern_codes(x + j, u, cnt, k24, lim24, cb);
                gc_pack_codes(codes, i0 + j, cb, cnt, 2);
            }
            if (q)
                for (size_t t = 0; t < cnt; t++)
                    q[i0 + j + t] = cb[t] == 0 ? 0.0f : cb[t] == 1 ? s : -s;
        }
    }
    return 0;
oom:
    gc_errf(err, err_len, "out of memory");
    return -1;
}

/* codes -> {0, s, -s} branch-free; returns nonzero if an invalid code 3 occurs */
GC_HOT static uint32_t tern_expand(const uint8_t *restrict codes, size_t i0, size_t i1, float s,
                                   float *restrict out)
{
    uint32_t sb = gc_f2u(s), nb = sb ^ 0x80000000u, bad = 0;
    for (size_t i = i0; i < i1; i++) {
        uint32_t code = (uint32_t)(codes[i >> 2] >> (2 * (i & 3))) & 3u;
        uint32_t m1 = 0u - (uint32_t)(code == 1), m2 = 0u - (uint32_t)(code == 2);
        out[i] = gc_u2f((sb & m1) | (nb & m2));
        bad |= code == 3;
    }
    return bad;
}

static int decode(const double *p, gc_reader *r, float *out, size_t n, char *err,
                  size_t err_len)
{
    uint8_t mode;
    size_t at = r->pos;
    if (gc_get_u8(r, &mode, "terngrad mode byte", err, err_len) != 0)
        return -1;
    if (mode == 1)
        return gc_get_f32_array(r, out, n, "fp32 values", err, err_len);
    if (mode != 0) {
        gc_errf(err, err_len, "bad terngrad mode %u at byte offset %zu", mode, at);
        return -1;
    }
    size_t bucket = bucket_of(p, n), nb = gc_nbuckets(n, bucket);
    size_t sc_at = r->pos;
    const uint8_t *scales = gc_get_bytes(r, 4 * nb, "terngrad scalers", err, err_len);
    if (!scales)
        return -1;
    size_t code_at = r->pos;
    const uint8_t *codes = gc_get_bytes(r, (n + 3) / 4, "terngrad 2-bit codes", err, err_len);
    if (!codes)
        return -1;
    for (size_t b = 0; b < nb; b++) {
        float s = gc_load_f32(scales + 4 * b);
        if (!(s >= 0) || !isfinite(s)) {
            gc_errf(err, err_len, "bad terngrad scaler at byte offset %zu: %g", sc_at + 4 * b,
                    (double)s);
            return -1;
        }
        size_t i0 = b * bucket, i1 = n - i0 < bucket ? n : i0 + bucket;
        if (tern_expand(codes, i0, i1, s, out))
            for (size_t i = i0; i < i1; i++)
                if ((codes[i >> 2] >> (2 * (i & 3)) & 3u) == 3) {
                    gc_errf(err, err_len, "bad terngrad code 3 at byte offset %zu (element %zu)",
                            code_at + (i >> 2), i);
                    return -1;
                }
    }
    if (n % 4 && codes[n / 4] >> (2 * (n % 4))) {
        gc_errf(err, err_len, "nonzero padding bits at byte offset %zu", code_at + n / 4);
        return -1;
    }
    return 0;
}

static bool fixed_body(const double *p, size_t n, size_t *bytes)
{
    /* assumes the tensor is not flagged as the last layer */
    if (send_fp32(p, NULL, n))
        *bytes = 1 + 4 * n;
    else
        *bytes = 1 + 4 * gc_nbuckets(n, bucket_of(p, n)) + (n + 3) / 4;
    return true;
}

static bool fixed_body_last(const double *p, size_t n, size_t *bytes)
{
    if ((int)p[K_LAST] == 0)
        *bytes = 1 + 4 * n; /* last=fp32 */
    else
        fixed_body(p, n, bytes);
    return true;
}

static bool unbiased(const double *p) { return p[K_CLIP] == 0; }
static int levels(const double *p) { (void)p; return 3; }
static size_t bucket(const double *p, size_t n) { return bucket_of(p, n); }

static bool local_scale(const double *p, const float *g, size_t n, float *scale)
{
    float limit;
    uint32_t bad = 0;
    *scale = n ? bucket_scale(g, n, p[K_CLIP], &limit, &bad) : 0.0f;
    return !bad;
}

const gc_codec gc_codec_terngrad = {
    .name = "terngrad", .format_id = 4, .keys = keys, .nkeys = 4,
    .agg = GC_AGG_SHARED_SCALE, .unbiased = unbiased, .encode = encode, .decode = decode,
    .fixed_body = fixed_body, .fixed_body_last = fixed_body_last, .levels = levels, .bucket = bucket, .local_scale = local_scale,
    .checks_finite = true,
};
