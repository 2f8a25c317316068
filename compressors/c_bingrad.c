/* compressors/c_bingrad.c: BinGrad (ORQ/BinGrad paper, Section 3.2), per bucket.
 *
 * bingrad-pb (Eq. 14/15): levels {-b1, b1}; values beyond them are clipped, values between
 * are rounded stochastically (unbiased inside). b1 solves Eq. 15 for the folded (symmetric)
 * distribution: b1 * d = sum_{|v| >= b1} |v| over the bucket's d values, taken exactly in the
 * segment between sorted magnitudes where the root lies (or the data point minimizing the
 * difference when the root falls on a jump).
 * bingrad-b (Eq. 16/17): deterministic; b0 = (b-1 + b1)/2, b-1 and b1 the means of the values
 * below / at or above b0, iterated from b0 = mean until the split is stable (the paper sets
 * b0 to the mean "for ease of implementation"; iterating reaches the fixed point of Eq. 17).
 *
 * Bodies: per bucket fp32 b1 (pb) or fp32 b-1 then fp32 b1 (b); then ceil(n/8) bytes, bit
 * i%8 of byte i/8 set when element i takes the upper level. */
#include <math.h>
#include <stdlib.h>

#include "ublock.h"

enum { K_BUCKET };
static const gc_key keys[] = {
    {"bucket", GK_INT, "512", 0, 4294967295.0, NULL},
};

static size_t bucket_len(const double *p, size_t n)
{
    size_t b = (size_t)p[K_BUCKET];
    return b == 0 || b > n ? n : b;
}

/* Eq. 15 on magnitudes a sorted ascending (m values). */
static float solve_pb(const float *a, size_t m)
{
    if (m == 0 || a[m - 1] == 0)
        return 0;
    double S = 0, md = (double)m, best_f = INFINITY;
    float best = a[m - 1];
    /* j = number of magnitudes >= b, taken from the top; in the segment
     * (a_(j+1), a_(j)] the root of b m = S_j is S_j / m */
    for (size_t j = 1; j <= m; j++) {
        float top = a[m - j];
        S += top;
        if (j < m && a[m - j - 1] == top) /* ties: all equal to top are >= b */
            continue;
        double below = j < m ? a[m - j - 1] : 0.0;
        if (S <= (double)top * md && S > below * md)
            return (float)(S / md); /* the root lies in this segment: f(b) = 0 */
        double f = fabs((double)top * md - S); /* otherwise the jump at b = top */
        if (f < best_f) {
            best_f = f;
            best = top;
        }
    }
    return best;
}

/* Count of x < b0, the sum of those and the sum of all (8 float lanes, branch-free). */
GC_HOT static size_t split_sums(const float *restrict x, size_t m, float b0, double *slo,
                                double *stot)
{
    double lo = 0, tot = 0;
    size_t cnt = 0, i = 0;
    for (; i + 64 <= m; i += 64) {
        float al[8] = {0}, at[8] = {0};
        uint32_t ac[8] = {0};
        for (int jj = 0; jj < 64; jj += 8)
            GC_LANE_LOOP
            for (int l = 0; l < 8; l++) {
                float v = x[i + (size_t)(jj + l)];
                uint32_t below = v < b0;
                al[l] += below ? v : 0.0f;
                at[l] += v;
                ac[l] += below;
            }
        for (int l = 0; l < 8; l++) {
            lo += al[l];
            tot += at[l];
            cnt += ac[l];
        }
    }
    for (; i < m; i++) {
        int below = x[i] < b0;
        lo += below ? x[i] : 0.0f;
        tot += x[i];
        cnt += (size_t)below;
    }
    *slo = lo;
    *stot = tot;
    return cnt;
}

/* Eq. 17 fixed point; returns b-1 and b1. */
static void solve_b(const float *x, size_t m, float *lo, float *hi)
{
    if (m == 0) {
        *lo = *hi = 0;
        return;
    }
    double sum = 0;
    for (size_t i = 0; i < m; i++)
        sum += x[i];
    float b0 = (float)(sum / (double)m);
    size_t prev_nlo = (size_t)-1;
    for (int it = 0; it < 100; it++) {
        double slo, stot;
        size_t nlo = split_sums(x, m, b0, &slo, &stot);
        double shi = stot - slo;
        float mhi = m > nlo ? (float)(shi / (double)(m - nlo)) : (float)(slo / (double)nlo);
        float mlo = nlo ? (float)(slo / (double)nlo) : mhi;
        *lo = mlo;
        *hi = mhi;
        float nb0 = (mlo + mhi) / 2;
        if (nlo == prev_nlo && nb0 == b0)
            break;
        prev_nlo = nlo;
        b0 = nb0;
    }
}

/* Eq. 14 as clamped stochastic rounding: P(up) = clamp((v - b-1) / (b1 - b-1), 0, 1), which
 * is 1 for v >= b1 and 0 for v < b-1 (the deterministic branches), branch-free. */
GC_HOT static void pb_round(const float *restrict x, const int32_t *restrict u, float lo,
                            float inv, uint8_t *restrict up)
{
    for (size_t t = 0; t < GC_UBLK; t++) { /* fixed count: vectorizes */
        /* no clamp needed: u in [0, 2^24) never falls below a negative bound and always
         * below one >= 2^24 */
        float pr = (x[t] - lo) * inv;
        up[t] = (uint8_t)((float)u[t] < pr * 16777216.0f);
    }
}

/* 256 0/1 bytes -> 32 bytes of bits (bit t%8 of byte t/8), 8 at a time by a multiply */
static void pack_bits256(const uint8_t *restrict up, uint8_t *restrict d)
{
    uint64_t w[GC_UBLK / 8];
    memcpy(w, up, GC_UBLK);
    for (size_t k = 0; k < GC_UBLK / 8; k++)
        d[k] = (uint8_t)((w[k] * 0x0102040810204080ull) >> 56);
}

static int encode_any(int pb, const double *p, const float *g, size_t n, gc_rng *rng,
                      gc_bytes *out, float *q, char *err, size_t err_len)
{
    size_t bucket = bucket_len(p, n), nb = gc_nbuckets(n, bucket);
    size_t per = pb ? 4 : 8;
    uint8_t *d = gc_bytes_extend(out, per * nb + (n + 7) / 8);
    float *a = pb ? malloc((bucket ? bucket : 1) * sizeof *a) : NULL;
    uint32_t *tmp = pb ? malloc((2 * bucket + 1) * sizeof *tmp) : NULL;
    if (!d || (pb && (!a || !tmp))) {
        free(a), free(tmp);
        gc_errf(err, err_len, "out of memory");
        return -1;
    }
    uint8_t *bits = d + per * nb;
    memset(bits, 0, (n + 7) / 8);
    gc_ulanes lanes;
    gc_ulanes_seed(&lanes, rng);
    int32_t u[GC_UBLK];
    for (size_t k = 0; k < nb; k++) {
        size_t i0 = k * bucket, m = n - i0 < bucket ? n - i0 : bucket;
        const float *x = g + i0;
        float lo, hi;
        if (pb) {
            for (size_t i = 0; i < m; i++)
                a[i] = fabsf(x[i]);
            gc_sort_floats(a, m, tmp);
            hi = solve_pb(a, m);
            lo = -hi;
            gc_store_f32(d + 4 * k, hi);
        } else {
            solve_b(x, m, &lo, &hi);
            gc_store_f32(d + 8 * k, lo);
            gc_store_f32(d + 8 * k + 4, hi);
        }
        float b0 = (lo + hi) / 2, span = hi - lo;
        float inv = span > 0 ? 1.0f / span : 0.0f;
        for (size_t j = 0; j < m; j += GC_UBLK) {
            size_t cnt = m - j < GC_UBLK ? m - j : GC_UBLK;
            uint8_t up[GC_UBLK];
            if (pb) {
                gc_ulanes_fill(&lanes, u);
                if (cnt == GC_UBLK) {
                    pb_round(x + j, u, lo, inv, up);
                } else { /* tail: through a padded copy */
                    float xt[GC_UBLK] = {0};
                    memcpy(xt, x + j, cnt * sizeof *xt);
                    pb_round(xt, u, lo, inv, up);
                }
            } else {
                for (size_t t = 0; t < cnt; t++) /* Eq. 16 */
                    up[t] = (uint8_t)(x[j + t] >= b0);
            }
            size_t idx0 = i0 + j;
            if (idx0 % 8 == 0 && cnt == GC_UBLK)
                pack_bits256(up, bits + idx0 / 8);
            else
                for (size_t t = 0; t < cnt; t++)
                    bits[(idx0 + t) >> 3] |= (uint8_t)(up[t] << ((idx0 + t) & 7));
            if (q)
                for (size_t t = 0; t < cnt; t++)
                    q[idx0 + t] = up[t] ? hi : lo;
        }
    }
    free(a), free(tmp);
    return 0;
}

static int decode_any(int pb, const double *p, gc_reader *r, float *out, size_t n, char *err,
                      size_t err_len)
{
    size_t bucket = bucket_len(p, n), nb = gc_nbuckets(n, bucket), per = pb ? 4 : 8;
    size_t at = r->pos;
    const uint8_t *lv = gc_get_bytes(r, per * nb, "bucket levels", err, err_len);
    if (!lv)
        return -1;
    size_t bits_at = r->pos;
    const uint8_t *bits = gc_get_bytes(r, (n + 7) / 8, "sign bits", err, err_len);
    if (!bits)
        return -1;
    for (size_t k = 0; k < nb; k++) {
        float lo, hi;
        if (pb) {
            hi = gc_load_f32(lv + 4 * k);
            lo = -hi;
        } else {
            lo = gc_load_f32(lv + 8 * k);
            hi = gc_load_f32(lv + 8 * k + 4);
        }
        if (gc_check_finite_at(lo, at + per * k, "level", err, err_len) ||
            gc_check_finite_at(hi, at + per * k + per - 4, "level", err, err_len))
            return -1;
        size_t i0 = k * bucket, i1 = n - i0 < bucket ? n : i0 + bucket;
        gc_expand_bits(bits, i0, i1, lo, hi, out);
    }
    if (n % 8 && bits[n / 8] >> (n % 8)) {
        gc_errf(err, err_len, "nonzero padding bits at byte offset %zu", bits_at + n / 8);
        return -1;
    }
    return 0;
}

static int pb_encode(const double *p, gc_tstate *st, const float *g, size_t n, gc_rng *rng,
                     gc_bytes *out, float *q, char *err, size_t err_len)
{
    (void)st;
    return encode_any(1, p, g, n, rng, out, q, err, err_len);
}
static int b_encode(const double *p, gc_tstate *st, const float *g, size_t n, gc_rng *rng,
                    gc_bytes *out, float *q, char *err, size_t err_len)
{
    (void)st;
    return encode_any(0, p, g, n, rng, out, q, err, err_len);
}
static int pb_decode(const double *p, gc_reader *r, float *out, size_t n, char *err,
                     size_t err_len)
{
    return decode_any(1, p, r, out, n, err, err_len);
}
static int b_decode(const double *p, gc_reader *r, float *out, size_t n, char *err,
                    size_t err_len)
{
    return decode_any(0, p, r, out, n, err, err_len);
}
static bool pb_fixed(const double *p, size_t n, size_t *bytes)
{
    *bytes = 4 * gc_nbuckets(n, bucket_len(p, n)) + (n + 7) / 8;
    return true;
}
static bool b_fixed(const double *p, size_t n, size_t *bytes)
{
    *bytes = 8 * gc_nbuckets(n, bucket_len(p, n)) + (n + 7) / 8;
    return true;
}
static bool no(const double *p) { (void)p; return false; }
static int two(const double *p) { (void)p; return 2; }
static size_t bucket(const double *p, size_t n) { return bucket_len(p, n); }

const gc_codec gc_codec_bingrad_pb = {
    .name = "bingrad-pb", .format_id = 13, .keys = keys, .nkeys = 1,
    .agg = GC_AGG_PER_WORKER_SCALE, .unbiased = no, .encode = pb_encode, .decode = pb_decode,
    .fixed_body = pb_fixed, .levels = two, .bucket = bucket,
};
const gc_codec gc_codec_bingrad_b = {
    .name = "bingrad-b", .format_id = 12, .keys = keys, .nkeys = 1,
    .agg = GC_AGG_PER_WORKER_SCALE, .unbiased = no, .encode = b_encode, .decode = b_decode,
    .fixed_body = b_fixed, .levels = two, .bucket = bucket,
};
