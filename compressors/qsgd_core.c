/* compressors/qsgd_core.c: QSGD stochastic quantization with s levels per bucket and its
 * fixed-width and Elias (omega or gamma) encodings.
 *
 * Per bucket of d elements with scale ||x|| (l2 or l-inf), element x_i goes to level
 * l or l+1 where l = floor(s |x_i| / ||x||), up with probability s |x_i|/||x|| - l (ECQ-SGD
 * Eq. 9), so E[Q(x)] = x; the reconstruction is sign(x_i) ||x|| level / s (Eq. 8).
 *
 * Body: one fp32 scale per bucket, then a bit stream (LSB first), padded to a byte:
 *  fixed: per element, signed level + s in ceil(log2(2s+1)) bits;
 *  elias: per bucket, E(nnz + 1), then per non-zero element E(index gap from the previous
 *         non-zero, the first counted from -1, i.e. the run of zeros before it plus one), one
 *         sign bit (1 = negative) and E(|level|). E is Elias omega, the recursive Elias code
 *         of QSGD's encoding Code_s (Alistarh et al. 2017); code=gamma uses Elias gamma
 *         instead. Both are in bitio.h. The scales come first (all buckets) rather than
 *         interleaved, and the per-bucket count makes each bucket self-delimiting; otherwise
 *         this is Code_s: norm, then (gap, sign, level) per non-zero. */
#include <math.h>
#include <stdlib.h>

#include "bitio.h"
#include "qsgd_core.h"
#include "ublock.h"

const char *const gc_norm_choices[] = {"l2", "linf", NULL};
const char *const gc_code_choices[] = {"fixed", "elias", "gamma", NULL};

int gc_qsgd_width(int s)
{
    int w = 0;
    while ((1L << w) < 2L * s + 1)
        w++;
    return w;
}

static inline float level_value(float scale, uint32_t level, int s)
{
    return (float)((double)scale * level / s);
}

/* ||x||_2 or ||x||_inf of a bucket; *bad set when x holds NaN or Inf. */
static float bucket_norm(const float *x, size_t m, int linf, uint32_t *bad)
{
    return linf ? gc_maxabs(x, m, bad) : (float)sqrt(gc_sumsq(x, m, bad));
}

/* Signed levels of cnt elements: l = floor(r) + Bernoulli(r - floor(r)), r = |x| s/||x||,
 * written as code s + l (or s - l for negative x). k = s/||x||. */
#define QSGD_LEVELS(CNT)                                                   \
    for (size_t j = 0; j < (CNT); j++) {                                   \
        float r = fabsf(x[j]) * k;                                         \
        int32_t l = (int32_t)r;                                            \
        float frac = r - (float)l;                                         \
        l += (float)u[j] < frac * 16777216.0f;                             \
        l = l < s ? l : s;                                                 \
        int32_t neg = (int32_t)(gc_f2u(x[j]) >> 31);                       \
        c[j] = (uint32_t)(s + l - 2 * (l & -neg));                         \
    }
static void qsgd_codes(const float *restrict x, const int32_t *restrict u, size_t cnt, float k,
                       int32_t s, uint32_t *restrict c)
{
    QSGD_LEVELS(cnt)
}

/* A full block's uniforms and codes in one hot function, so that the generator runs
 * vectorized as in the packed path (ECQ, which needs Q, and other widths come here); with
 * lvt, also Q's values from the bucket's level table, as the general loop writes them. */
GC_HOT static void qsgd_fill_codes_full(gc_ulanes *restrict lanes, const float *restrict x,
                                        float k, int32_t s, uint32_t *restrict c,
                                        const float *restrict lvt, float *restrict q)
{
    int32_t u[GC_UBLK];
    gc_ulanes_fill(lanes, u);
    QSGD_LEVELS(GC_UBLK) /* fixed count: vectorizes at -O2 */
    if (lvt)
        for (size_t j = 0; j < GC_UBLK; j++) {
            uint32_t l = c[j] >= (uint32_t)s ? c[j] - (uint32_t)s : (uint32_t)s - c[j];
            float v = lvt[l];
            q[j] = c[j] < (uint32_t)s ? -v : v;
        }
}

/* A full block at an even element index with 4-bit codes (s = 4..7): straight to bytes. */
GC_HOT static void qsgd_block_w4(gc_ulanes *restrict lanes, const float *restrict x, float k,
                                 int32_t s, uint8_t *restrict d)
{
    int32_t u[GC_UBLK];
    gc_ulanes_fill(lanes, u);
    uint8_t c8[GC_UBLK];
    uint16_t h[GC_UBLK / 2];
    for (size_t j = 0; j < GC_UBLK; j++) {
        float r = fabsf(x[j]) * k;
        int32_t l = (int32_t)r;
        float frac = r - (float)l;
        l += (float)u[j] < frac * 16777216.0f;
        l = l < s ? l : s;
        int32_t neg = (int32_t)(gc_f2u(x[j]) >> 31);
        c8[j] = (uint8_t)(s + l - 2 * (l & -neg));
    }
    memcpy(h, c8, sizeof c8);
    for (size_t b = 0; b < GC_UBLK / 2; b++) /* codes at bits 0 and 8 -> bits 0 and 4 */
        d[b] = (uint8_t)(h[b] | h[b] >> 4);
}

static size_t bucket_len(const gc_qsgd_params *qp, size_t n)
{
    return qp->bucket == 0 || qp->bucket > n ? n : qp->bucket;
}

/* Bits of the code the params select for x >= 1 (both codes grow with x, so the code of a
 * bound bounds every code below it). */
static int elias_bits(const gc_qsgd_params *qp, uint64_t x)
{
    return qp->code == GC_QSGD_GAMMA ? gc_gamma_bits(x) : gc_omega_bits(x);
}
static inline void put_elias(const gc_qsgd_params *qp, gc_bitw *w, uint64_t x)
{
    if (qp->code == GC_QSGD_GAMMA)
        gc_put_gamma(w, x);
    else
        gc_put_omega(w, x);
}
static int get_elias(const gc_qsgd_params *qp, gc_bitr *r, uint64_t *x, const char *what,
                     char *err, size_t err_len)
{
    return qp->code == GC_QSGD_GAMMA ? gc_get_gamma(r, x, what, err, err_len)
                                     : gc_get_omega(r, x, what, err, err_len);
}

int gc_qsgd_encode_body(const gc_qsgd_params *qp, const float *x, size_t n, gc_rng *rng,
                        gc_bytes *out, float *q, char *err, size_t err_len)
{
    size_t bucket = bucket_len(qp, n), nb = gc_nbuckets(n, bucket);
    int s = qp->s, w = gc_qsgd_width(s);
    /* worst case: fixed width, or per element E(gap) + sign + E(level), gap <= d and
     * level <= s, plus per bucket E(nnz + 1), nnz <= d; 16 bytes of flush slack */
    int elias = qp->code != GC_QSGD_FIXED;
    size_t maxbits = n * (size_t)w;
    if (elias)
        maxbits = n * (size_t)(elias_bits(qp, (uint64_t)bucket | 1) + 1 +
                               elias_bits(qp, (uint64_t)s)) +
                  nb * (size_t)elias_bits(qp, (uint64_t)bucket + 1);
    size_t start = out->len;
    if (gc_bytes_reserve(out, 4 * nb + maxbits / 8 + 16) != 0) {
        gc_errf(err, err_len, "out of memory");
        return -1;
    }
    uint8_t *scales = out->data + start;
    uint8_t *area = out->data + start + 4 * nb;
    gc_bitw bw = {area, 0, 0};
    gc_ulanes lanes;
    gc_ulanes_seed(&lanes, rng);
    int32_t u[GC_UBLK];
    uint32_t c[GC_UBLK];
    int32_t *lev = elias ? malloc(bucket * sizeof *lev) : NULL;
    if (elias && n && !lev) {
        gc_errf(err, err_len, "out of memory");
        return -1;
    }
    float *lvtab = q && (size_t)s < bucket ? malloc(((size_t)s + 1) * sizeof *lvtab) : NULL;
    /* fixed width: every code byte is assigned (no clearing needed), see gc_pack_codes */
    for (size_t b = 0; b < nb; b++) {
        size_t i0 = b * bucket, m = n - i0 < bucket ? n - i0 : bucket;
        const float *xb = x + i0;
        uint32_t bad;
        float norm = bucket_norm(xb, m, qp->linf, &bad);
        if (bad) {
            free(lev);
            free(lvtab);
            return gc_nonfinite_error(x, n, err, err_len);
        }
        gc_store_f32(scales + 4 * b, norm);
        float k = norm > 0 ? (float)s / norm : 0.0f;
        size_t nnz = 0;
        /* Q's values as a table of the bucket's s + 1 levels, the same floats level_value
         * gives, when the bucket has more elements than levels: a double multiply and
         * divide per element made ECQ's encode (which needs Q) compute-bound */
        float *lvt = q && lvtab && (size_t)s < m ? lvtab : NULL;
        if (lvt)
            for (int l = 0; l <= s; l++)
                lvt[l] = level_value(norm, (uint32_t)l, s);
        for (size_t j0 = 0; j0 < m; j0 += GC_UBLK) {
            size_t cnt = m - j0 < GC_UBLK ? m - j0 : GC_UBLK;
            if (cnt == GC_UBLK && w == 4 && !elias && (i0 + j0) % 2 == 0 && !q &&
                k < INFINITY) {
                qsgd_block_w4(&lanes, xb + j0, k, s, area + (i0 + j0) / 2);
                continue;
            }
            if (cnt == GC_UBLK && k < INFINITY) {
                qsgd_fill_codes_full(&lanes, xb + j0, k, s, c, q ? lvt : NULL,
                                     q ? q + i0 + j0 : NULL);
            } else if (gc_ulanes_fill(&lanes, u), !(k < INFINITY)) {
                /* subnormal norm: s/norm overflows float, go through double */
                for (size_t j = 0; j < cnt; j++) {
                    double r = fabs((double)xb[j0 + j]) * s / norm;
                    int32_t l = (int32_t)r;
                    l += (double)u[j] < (r - l) * 16777216.0;
                    l = l < s ? l : s;
                    c[j] = (uint32_t)(xb[j0 + j] < 0 ? s - l : s + l);
                }
            } else {
                qsgd_codes(xb + j0, u, cnt, k, s, c);
            }
            if (elias)
                for (size_t j = 0; j < cnt; j++) {
                    lev[j0 + j] = (int32_t)c[j] - s;
                    nnz += c[j] != (uint32_t)s;
                }
            else
                gc_pack_codes(area, i0 + j0, c, cnt, w);
            bool q_done = cnt == GC_UBLK && k < INFINITY && lvt;
            if (q && !q_done) /* as decoded: a zero level is +0 whatever the sign */
                for (size_t j = 0; j < cnt; j++) {
                    uint32_t l = c[j] >= (uint32_t)s ? c[j] - (uint32_t)s : (uint32_t)s - c[j];
                    float v = lvt ? lvt[l] : level_value(norm, l, s);
                    q[i0 + j0 + j] = c[j] < (uint32_t)s ? -v : v;
                }
        }
        if (elias) {
            put_elias(qp, &bw, (uint64_t)nnz + 1);
            size_t prev = (size_t)-1;
            for (size_t j = 0; j < m; j++) {
                if (!lev[j])
                    continue;
                put_elias(qp, &bw, (uint64_t)(j - prev));
                gc_bitw_put(&bw, lev[j] < 0, 1);
                put_elias(qp, &bw, (uint64_t)(lev[j] < 0 ? -lev[j] : lev[j]));
                prev = j;
            }
        }
    }
    free(lvtab);
    if (!elias) {
        free(lev);
        out->len = start + 4 * nb + gc_packed_bytes(n, w);
        return 0;
    }
    free(lev);
    uint8_t *end = gc_bitw_flush(&bw);
    out->len = (size_t)(end - out->data);
    return 0;
}

int gc_qsgd_decode_body(const gc_qsgd_params *qp, gc_reader *r, float *out, size_t n,
                        char *err, size_t err_len)
{
    size_t bucket = bucket_len(qp, n), nb = gc_nbuckets(n, bucket);
    int s = qp->s, w = gc_qsgd_width(s), elias = qp->code != GC_QSGD_FIXED;
    if (nb > (SIZE_MAX - r->pos) / 4) {
        gc_errf(err, err_len, "element count %zu too large", n);
        return -1;
    }
    size_t sc_at = r->pos;
    const uint8_t *scales = gc_get_bytes(r, 4 * nb, "bucket scales", err, err_len);
    if (!scales)
        return -1;
    size_t rest = r->len - r->pos;
    if (!elias && rest != gc_packed_bytes(n, w)) {
        gc_errf(err, err_len,
                "bad payload length: %zu code bytes at byte offset %zu, expected %zu", rest,
                r->pos, gc_packed_bytes(n, w));
        return -1;
    }
    if (rest > SIZE_MAX / 8) {
        gc_errf(err, err_len, "payload too large");
        return -1;
    }
    gc_bitr br = {r->p + r->pos, rest * 8, 0, r->pos};
    for (size_t b = 0; b < nb; b++) {
        float norm = gc_load_f32(scales + 4 * b);
        if (!(norm >= 0) || !isfinite(norm)) {
            gc_errf(err, err_len, "bad bucket scale at byte offset %zu: %g", sc_at + 4 * b,
                    (double)norm);
            return -1;
        }
        size_t i0 = b * bucket, m = n - i0 < bucket ? n - i0 : bucket;
        if (!elias) {
            for (size_t j = 0; j < m; j++) {
                uint32_t code;
                if (gc_bitr_get(&br, w, &code, "level code", err, err_len) != 0)
                    return -1;
                if (code > 2u * (uint32_t)s) {
                    gc_errf(err, err_len, "bad level code %u at byte offset %zu (element %zu)",
                            code, br.base + (br.pos - (size_t)w) / 8, i0 + j);
                    return -1;
                }
                float v = level_value(norm, code >= (uint32_t)s ? code - (uint32_t)s
                                                                 : (uint32_t)s - code, s);
                out[i0 + j] = code < (uint32_t)s ? -v : v;
            }
            continue;
        }
        memset(out + i0, 0, m * sizeof *out);
        uint64_t nnz1;
        if (get_elias(qp, &br, &nnz1, "non-zero count", err, err_len) != 0)
            return -1;
        if (nnz1 - 1 > m) {
            gc_errf(err, err_len, "bad non-zero count %llu at byte offset %zu (bucket of %zu)",
                    (unsigned long long)(nnz1 - 1), br.base + br.pos / 8, m);
            return -1;
        }
        uint64_t idx = (uint64_t)-1;
        for (uint64_t e = 0; e + 1 < nnz1; e++) {
            uint64_t gap, level;
            uint32_t neg;
            if (get_elias(qp, &br, &gap, "index gap", err, err_len) != 0 ||
                gc_bitr_get(&br, 1, &neg, "sign bit", err, err_len) != 0 ||
                get_elias(qp, &br, &level, "level", err, err_len) != 0)
                return -1;
            /* gap <= m first: a gap near 2^64 would wrap idx back into the bucket */
            if (gap <= m)
                idx += gap;
            if (gap > m || idx >= m || level > (uint64_t)s) {
                gc_errf(err, err_len, "bad %s at byte offset %zu",
                        gap > m || idx >= m ? "index gap" : "level", br.base + br.pos / 8);
                return -1;
            }
            float v = level_value(norm, (uint32_t)level, s);
            out[i0 + idx] = neg ? -v : v;
        }
    }
    /* the stream ends at the next byte boundary, padded with zeros */
    size_t used = (br.pos + 7) / 8;
    if (used != rest) {
        gc_errf(err, err_len, "%zu trailing bytes at byte offset %zu", rest - used,
                r->pos + used);
        return -1;
    }
    if (br.pos % 8 && (r->p[r->pos + used - 1] >> (br.pos % 8))) {
        gc_errf(err, err_len, "nonzero padding bits at byte offset %zu", r->pos + used - 1);
        return -1;
    }
    r->pos += rest;
    return 0;
}

bool gc_qsgd_fixed_body(const gc_qsgd_params *qp, size_t n, size_t *bytes)
{
    if (qp->code != GC_QSGD_FIXED)
        return false;
    *bytes = 4 * gc_nbuckets(n, bucket_len(qp, n)) + gc_packed_bytes(n, gc_qsgd_width(qp->s));
    return true;
}

double gc_qsgd_variance_bound(const gc_qsgd_params *qp, const float *x, size_t n)
{
    size_t bucket = bucket_len(qp, n), nb = gc_nbuckets(n, bucket);
    double s = qp->s, total = 0;
    for (size_t b = 0; b < nb; b++) {
        size_t i0 = b * bucket, m = n - i0 < bucket ? n - i0 : bucket;
        uint32_t bad;
        double nrm = bucket_norm(x + i0, m, qp->linf, &bad), d = (double)m;
        if (qp->linf) /* each element's rounding variance is at most (norm/s)^2 / 4 */
            total += d * nrm * nrm / (4 * s * s);
        else /* QSGD Lemma 3.1: min(d/s^2, sqrt(d)/s) ||x||^2 */
            total += fmin(d / (s * s), sqrt(d) / s) * nrm * nrm;
    }
    return total;
}
