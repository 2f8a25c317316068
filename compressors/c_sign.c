/* compressors/c_sign.c: one bit per element.
 * signsgd: scaled sign, Q(G) = ||G||_1 / dim(G) * sign(G) (ORQ/BinGrad paper Eq. 13), per
 *   tensor (bucket=0) or per bucket. sign(+0) is sent as + (one bit cannot carry a zero).
 * onebit: 1-bit SGD with error feedback (Seide et al. 2014): v = g + residual, threshold 0,
 *   each bucket (Seide's "column") reconstructs the two sides as the means of its negative
 *   and non-negative values of v; residual <- v - Q(v).
 * Bodies: per bucket fp32 scale (signsgd) or fp32 negative mean then fp32 non-negative mean
 * (onebit); then ceil(n/8) bytes, bit i%8 of byte i/8 set when element i's sign bit is
 * clear (so -0.0 counts as negative). */
#include <math.h>
#include <stdlib.h>

#include "internal.h"

enum { K_BUCKET };
static const gc_key sign_keys[] = {
    {"bucket", GK_INT, "0", 0, 4294967295.0, NULL},
};
static const gc_key onebit_keys[] = {
    {"bucket", GK_INT, "512", 0, 4294967295.0, NULL},
};

static size_t bucket_len(const double *p, size_t n)
{
    size_t b = (size_t)p[K_BUCKET];
    return b == 0 || b > n ? n : b;
}

/* sum |x| with independent partial sums per block (vectorizable, accurate enough: blocks of
 * 64 in float, then double across blocks); *bad set when x holds NaN or Inf.
 * l1_blocks adds the full 64-element blocks of x[0..m) to *total in order and returns how
 * many elements it used; l1_tail adds the rest one by one. Called on consecutive pieces
 * (multiples of 64), then on the tail, they do the additions of one call on the whole. */
GC_HOT static size_t l1_blocks(const float *restrict x, size_t m, double *total, uint32_t *bad)
{
    double tot = *total;
    uint32_t nb = 0;
    size_t i = 0;
    for (; i + 64 <= m; i += 64) {
        float acc[8] = {0};
        uint32_t ab[8] = {0};
        for (int jj = 0; jj < 64; jj += 8)
            GC_LANE_LOOP
            for (int l = 0; l < 8; l++) {
                float v = x[i + (size_t)(jj + l)];
                acc[l] += fabsf(v);
                ab[l] |= gc_nonfinite_bit(gc_f2u(v));
            }
        tot += (double)((acc[0] + acc[1]) + (acc[2] + acc[3])) +
               (double)((acc[4] + acc[5]) + (acc[6] + acc[7]));
        nb |= ab[0] | ab[1] | ab[2] | ab[3] | ab[4] | ab[5] | ab[6] | ab[7];
    }
    *total = tot;
    *bad |= nb;
    return i;
}
static void l1_tail(const float *x, size_t m, double *total, uint32_t *bad)
{
    for (size_t i = 0; i < m; i++) {
        *total += fabsf(x[i]);
        *bad |= gc_nonfinite_bit(gc_f2u(x[i]));
    }
}

/* bit i of the stream = sign bit of x[i] clear, for m elements starting at element i0; the
 * bits are OR-ed into a zeroed area. From an element index divisible by 8, 64 at a time:
 * 0/1 bytes computed in a vectorizable loop, then 8 of them gathered into one byte by a
 * multiply (byte k of the word lands in bit k of the top byte). The 64-element step is
 * written here, not in a helper: GCC 12 at -O2 did not inline the helper, which was then
 * compiled once, for the baseline target, and called every 64 elements (issue 28). */
GC_HOT static void sign_bits(const float *restrict x, size_t i0, size_t m,
                             uint8_t *restrict bits)
{
    size_t i = 0;
    if ((i0 & 7) == 0)
        for (; i + 64 <= m; i += 64) {
            uint8_t b[64];
            uint64_t w[8];
            for (int j = 0; j < 64; j++)
                b[j] = (uint8_t)((~gc_f2u(x[i + (size_t)j])) >> 31);
            memcpy(w, b, sizeof b);
            uint8_t *d = bits + ((i0 + i) >> 3);
            for (int k = 0; k < 8; k++)
                d[k] = (uint8_t)((w[k] * 0x0102040810204080ull) >> 56);
        }
    for (; i < m; i++) {
        size_t idx = i0 + i;
        bits[idx >> 3] |= (uint8_t)(((~gc_f2u(x[i])) >> 31) << (idx & 7));
    }
}

/* Q by sign bit (as the payload bit): -scale or scale, branch-free (a branch on random
 * signs mispredicts every other element) */
GC_HOT static void sign_values(const float *restrict g, size_t m, float scale,
                               float *restrict q)
{
    uint32_t pb = gc_f2u(scale), nb = gc_f2u(-scale);
    for (size_t i = 0; i < m; i++) {
        uint32_t msk = 0u - (gc_f2u(g[i]) >> 31); /* all ones for a set sign bit */
        q[i] = gc_u2f((nb & msk) | (pb & ~msk));
    }
}

static int sign_encode(const double *p, gc_tstate *st, const float *g, size_t n, gc_rng *rng,
                       gc_bytes *out, float *q, char *err, size_t err_len)
{
    (void)st, (void)rng;
    size_t bucket = bucket_len(p, n), nb = gc_nbuckets(n, bucket);
    uint8_t *d = gc_bytes_extend(out, 4 * nb + (n + 7) / 8);
    if (!d) {
        gc_errf(err, err_len, "out of memory");
        return -1;
    }
    uint8_t *bits = d + 4 * nb;
    memset(bits, 0, (n + 7) / 8);
    for (size_t k = 0; k < nb; k++) {
        size_t i0 = k * bucket, m = n - i0 < bucket ? n - i0 : bucket;
        /* The norm and the sign bits in one sweep, a piece of 16,384 elements (64 KiB,
         * in L2) at a time: the bits are read back from cache, not from memory (two
         * passes over memory made signsgd 0.6 of memcpy, issue 28). */
        enum { PIECE = 16384 };
        double total = 0;
        uint32_t bad = 0;
        size_t done = 0;
        while (done < m) {
            size_t len = m - done < PIECE ? m - done : PIECE;
            size_t used = l1_blocks(g + i0 + done, len, &total, &bad);
            sign_bits(g + i0 + done, i0 + done, len, bits);
            done += len;
            if (used < len) { /* the last piece: its tail, element by element */
                l1_tail(g + i0 + done - (len - used), len - used, &total, &bad);
                break;
            }
        }
        if (bad)
            return gc_nonfinite_error(g, n, err, err_len);
        float scale = (float)(total / (double)m);
        gc_store_f32(d + 4 * k, scale);
        if (q)
            sign_values(g + i0, m, scale, q + i0);
    }
    return 0;
}

static int sign_decode(const double *p, gc_reader *r, float *out, size_t n, char *err,
                       size_t err_len)
{
    size_t bucket = bucket_len(p, n), nb = gc_nbuckets(n, bucket);
    size_t at = r->pos;
    const uint8_t *sc = gc_get_bytes(r, 4 * nb, "bucket scales", err, err_len);
    if (!sc)
        return -1;
    size_t bits_at = r->pos;
    const uint8_t *bits = gc_get_bytes(r, (n + 7) / 8, "sign bits", err, err_len);
    if (!bits)
        return -1;
    for (size_t k = 0; k < nb; k++) {
        float s = gc_load_f32(sc + 4 * k);
        if (!(s >= 0) || !isfinite(s)) {
            gc_errf(err, err_len, "bad scale at byte offset %zu: %g", at + 4 * k, (double)s);
            return -1;
        }
        size_t i0 = k * bucket, i1 = n - i0 < bucket ? n : i0 + bucket;
        gc_expand_bits(bits, i0, i1, -s, s, out);
    }
    if (n % 8 && bits[n / 8] >> (n % 8)) {
        gc_errf(err, err_len, "nonzero padding bits at byte offset %zu", bits_at + n / 8);
        return -1;
    }
    return 0;
}

/* v = g + res over a bucket, with the sums of its non-negative and negative values and the
 * count of non-negative ones (8 float lanes, branch-free). */
GC_HOT static size_t onebit_split(const float *restrict g, const float *restrict res, size_t m,
                                  float *restrict v, double *sp, double *sn)
{
    double p = 0, q = 0;
    size_t np = 0, i = 0;
    for (; i + 64 <= m; i += 64) {
        float ap[8] = {0}, an[8] = {0};
        uint32_t cn[8] = {0};
        for (int jj = 0; jj < 64; jj += 8)
            GC_LANE_LOOP
            for (int l = 0; l < 8; l++) {
                size_t k = i + (size_t)(jj + l);
                float x = g[k] + res[k];
                v[k] = x;
                uint32_t pos = (~gc_f2u(x)) >> 31; /* sign bit clear, as the payload bit */
                float px = (float)pos * x;         /* x or 0, no branch */
                ap[l] += px;
                an[l] += x - px;
                cn[l] += pos;
            }
        for (int l = 0; l < 8; l++) {
            p += ap[l];
            q += an[l];
            np += cn[l];
        }
    }
    for (; i < m; i++) {
        float x = g[i] + res[i];
        v[i] = x;
        uint32_t pos = (~gc_f2u(x)) >> 31;
        float px = (float)pos * x;
        p += px;
        q += x - px;
        np += pos;
    }
    *sp = p;
    *sn = q;
    return np;
}

/* reconstruction by sign bit (as the payload bit) and the new residual v - Q(v) */
GC_HOT static void onebit_apply(const float *restrict v, size_t m, float neg, float pos,
                                float *restrict res, float *restrict q)
{
    uint32_t nb = gc_f2u(neg), pb = gc_f2u(pos);
    for (size_t i = 0; i < m; i++) {
        uint32_t msk = 0u - (gc_f2u(v[i]) >> 31); /* all ones for a set sign bit */
        float rq = gc_u2f((nb & msk) | (pb & ~msk));
        res[i] = v[i] - rq;
        q[i] = rq;
    }
}

static int onebit_encode(const double *p, gc_tstate *st, const float *g, size_t n,
                         gc_rng *rng, gc_bytes *out, float *q, char *err, size_t err_len)
{
    (void)rng;
    size_t bucket = bucket_len(p, n), nb = gc_nbuckets(n, bucket);
    if (n && !st->a) {
        st->a = calloc(n, sizeof *st->a); /* residual */
        st->a_len = n;
    }
    uint8_t *d = gc_bytes_extend(out, 8 * nb + (n + 7) / 8);
    float *v = malloc((bucket ? bucket : 1) * sizeof *v);
    float *qb = malloc((bucket ? bucket : 1) * sizeof *qb);
    if (!d || !v || !qb || (n && !st->a)) {
        free(v), free(qb);
        gc_errf(err, err_len, "out of memory");
        return -1;
    }
    uint8_t *bits = d + 8 * nb;
    memset(bits, 0, (n + 7) / 8);
    float *res = st->a;
    for (size_t k = 0; k < nb; k++) {
        size_t i0 = k * bucket, m = n - i0 < bucket ? n - i0 : bucket;
        double sp, sn;
        size_t np = onebit_split(g + i0, res + i0, m, v, &sp, &sn);
        float pos = np ? (float)(sp / (double)np) : 0.0f;
        float neg = m > np ? (float)(sn / (double)(m - np)) : 0.0f;
        gc_store_f32(d + 8 * k, neg);
        gc_store_f32(d + 8 * k + 4, pos);
        sign_bits(v, i0, m, bits);
        onebit_apply(v, m, neg, pos, res + i0, q ? q + i0 : qb);
    }
    free(v), free(qb);
    return 0;
}

static int onebit_decode(const double *p, gc_reader *r, float *out, size_t n, char *err,
                         size_t err_len)
{
    size_t bucket = bucket_len(p, n), nb = gc_nbuckets(n, bucket);
    size_t at = r->pos;
    const uint8_t *sc = gc_get_bytes(r, 8 * nb, "bucket means", err, err_len);
    if (!sc)
        return -1;
    size_t bits_at = r->pos;
    const uint8_t *bits = gc_get_bytes(r, (n + 7) / 8, "sign bits", err, err_len);
    if (!bits)
        return -1;
    for (size_t k = 0; k < nb; k++) {
        float neg = gc_load_f32(sc + 8 * k), pos = gc_load_f32(sc + 8 * k + 4);
        if (gc_check_finite_at(neg, at + 8 * k, "negative mean", err, err_len) ||
            gc_check_finite_at(pos, at + 8 * k + 4, "non-negative mean", err, err_len))
            return -1;
        size_t i0 = k * bucket, i1 = n - i0 < bucket ? n : i0 + bucket;
        gc_expand_bits(bits, i0, i1, neg, pos, out);
    }
    if (n % 8 && bits[n / 8] >> (n % 8)) {
        gc_errf(err, err_len, "nonzero padding bits at byte offset %zu", bits_at + n / 8);
        return -1;
    }
    return 0;
}

static bool sign_fixed(const double *p, size_t n, size_t *bytes)
{
    *bytes = 4 * gc_nbuckets(n, bucket_len(p, n)) + (n + 7) / 8;
    return true;
}
static bool onebit_fixed(const double *p, size_t n, size_t *bytes)
{
    *bytes = 8 * gc_nbuckets(n, bucket_len(p, n)) + (n + 7) / 8;
    return true;
}
static bool no(const double *p) { (void)p; return false; }
static int two(const double *p) { (void)p; return 2; }
static size_t bucket(const double *p, size_t n) { return bucket_len(p, n); }

const gc_codec gc_codec_signsgd = {
    .name = "signsgd", .format_id = 14, .keys = sign_keys, .nkeys = 1,
    .agg = GC_AGG_PER_WORKER_SCALE, .unbiased = no, .encode = sign_encode,
    .decode = sign_decode, .fixed_body = sign_fixed, .levels = two, .bucket = bucket,
    .checks_finite = true,
};
const gc_codec gc_codec_onebit = {
    .name = "onebit", .format_id = 15, .keys = onebit_keys, .nkeys = 1,
    .agg = GC_AGG_PER_WORKER_SCALE, .unbiased = no, .encode = onebit_encode,
    .decode = onebit_decode, .fixed_body = onebit_fixed, .levels = two, .bucket = bucket,
};
