/* compressors/c_orq.c: ORQ (optimized random quantization, Section 3.1 of the ORQ/BinGrad
 * paper) and its Linear baseline, per bucket.
 *
 * ORQ levels: b_min and b_max are the bucket's smallest and largest values (Corollary 1.1);
 * Algorithm 1 fills the levels in between recursively: the middle level of [b_l, b_r] solves
 * the discrete optimality condition Eq. 12,
 *     |{b_k <= v <= b_r}| = sum_{b_l <= v <= b_r} (v - b_l) / (b_r - b_l),
 * taken as the data value in [b_l, b_r] whose count of values at or above it (up to b_r) is
 * closest to the right-hand side.
 * s = 2^K + 1 levels (3, 5, 9, 17, ...).
 * Linear levels (the paper's baseline): the bucket's quantiles j/(s-1), j = 0..s-1.
 * Both round stochastically between neighbouring levels (Eq. 7), so E[Q(v)] = v.
 *
 * Body: per bucket s fp32 levels, ascending; then a bit stream (LSB first, padded to a byte)
 * with each element's level index in ceil(log2 s) bits. */
#include <math.h>
#include <stdlib.h>

#include "bitio.h"
#include "ublock.h"

enum { K_S, K_BUCKET };
static const gc_key orq_keys[] = {
    {"s", GK_INT, "3", 3, 4097, NULL},
    {"bucket", GK_INT, "512", 0, 4294967295.0, NULL},
};
static const gc_key linear_keys[] = {
    {"s", GK_INT, "3", 2, 4096, NULL},
    {"bucket", GK_INT, "512", 0, 4294967295.0, NULL},
};

/* Every bucket carries its s levels in fp32, so more levels than elements per bucket only
 * make the payload larger than fp32 itself. */
static int levels_fit_bucket(const char *name, const double *p, char *err, size_t err_len)
{
    long s = (long)p[K_S];
    double b = p[K_BUCKET];
    if (b > 0 && (double)s > b) {
        gc_errf(err, err_len, "compressor %s: key s: %ld levels for buckets of %.0f elements; "
                "s must not exceed bucket", name, s, b);
        return -1;
    }
    return 0;
}

static int orq_check(const double *p, char *err, size_t err_len)
{
    long s = (long)p[K_S];
    if (((s - 1) & (s - 2)) != 0) {
        gc_errf(err, err_len, "compressor orq: key s: %ld is not 2^K + 1 (3, 5, 9, 17, ...)", s);
        return -1;
    }
    return levels_fit_bucket("orq", p, err, err_len);
}

static int linear_check(const double *p, char *err, size_t err_len)
{
    return levels_fit_bucket("linear", p, err, err_len);
}

static int width_of(int s)
{
    int w = 0;
    while ((1L << w) < s)
        w++;
    return w;
}

static size_t bucket_len(const double *p, size_t n)
{
    size_t b = (size_t)p[K_BUCKET];
    return b == 0 || b > n ? n : b;
}

/* First index with x[i] >= v and last index with x[i] <= v in sorted x[0..m). */
static size_t lower_idx(const float *x, size_t m, float v)
{
    size_t lo = 0, hi = m;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (x[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Eq. 12 solved between levels a < c over sorted x with prefix sums ps. */
static float orq_solve(const float *x, const double *ps, size_t m, float a, float c)
{
    if (!(c > a))
        return a;
    size_t ia = lower_idx(x, m, a), ic = lower_idx(x, m, nextafterf(c, INFINITY));
    if (ic <= ia)
        return a;
    size_t cnt = ic - ia; /* values in [a, c]: x[ia..ic) */
    double r = (ps[ic] - ps[ia] - (double)cnt * a) / ((double)c - a);
    double rr = floor(r + 0.5);
    size_t mr = rr < 1 ? 1 : rr > (double)cnt ? cnt : (size_t)rr;
    /* with ties the value of rank mr may count more than mr values: compare with the next
     * larger distinct value and keep whichever count is closer to r */
    float v1 = x[ic - mr];
    size_t lo1 = lower_idx(x, m, v1), hi1 = lower_idx(x, m, nextafterf(v1, INFINITY));
    if (lo1 < ia)
        lo1 = ia;
    if (hi1 >= ic)
        return v1;
    double d1 = fabs((double)(ic - lo1) - r), d2 = fabs((double)(ic - hi1) - r);
    return d2 < d1 ? x[hi1] : v1;
}

static void orq_fill(float *b, int l, int r, const float *x, const double *ps, size_t m)
{
    if (r - l < 2)
        return;
    int mid = (l + r) / 2;
    b[mid] = orq_solve(x, ps, m, b[l], b[r]);
    orq_fill(b, l, mid, x, ps, m);
    orq_fill(b, mid, r, x, ps, m);
}

/* Levels of one bucket from its sorted values (ps: prefix sums, m+1 entries). */
static void levels_of(int orq, int s, const float *x, const double *ps, size_t m, float *b)
{
    if (m == 0) {
        for (int j = 0; j < s; j++)
            b[j] = 0;
        return;
    }
    b[0] = x[0];
    b[s - 1] = x[m - 1];
    if (orq) {
        orq_fill(b, 0, s - 1, x, ps, m);
        return;
    }
    for (int j = 1; j < s - 1; j++)
        b[j] = x[(size_t)floor((double)j * (double)(m - 1) / (s - 1) + 0.5)];
}

/* Stochastic rounding between neighbouring levels (Eq. 7): the interval [b_lo, b_lo+1]
 * holding v, then up with probability (v - b_lo) / (b_lo+1 - b_lo); ig holds the inverse
 * gaps (0 for empty intervals). Codes are level indices. */
GC_HOT static void orq_round(const float *restrict x, const int32_t *restrict u, size_t cnt,
                             const float *restrict b, const float *restrict ig, int s, int top,
                             uint32_t *restrict c)
{
    int32_t lo[GC_UBLK];
    if (s <= 17 && cnt == GC_UBLK) {
        /* interval index = count of interior levels <= v, one level at a time over the
         * block (fixed-count inner loops vectorize) */
        for (size_t t = 0; t < GC_UBLK; t++)
            lo[t] = 0;
        for (int k = 1; k <= s - 2; k++) {
            float bk = b[k];
            for (size_t t = 0; t < GC_UBLK; t++)
                lo[t] += x[t] >= bk;
        }
    } else {
        for (size_t t = 0; t < cnt; t++) { /* largest j <= s-2 with b[j] <= v, branch-free */
            int l = 0;
            for (int step = top; step > 0; step >>= 1) {
                int tt = l + step;
                l = (tt <= s - 2 && b[tt] <= x[t]) ? tt : l;
            }
            lo[t] = l;
        }
    }
    for (size_t t = 0; t < cnt; t++) {
        float pr = (x[t] - b[lo[t]]) * ig[lo[t]]; /* outside [0, 1] only by rounding */
        c[t] = (uint32_t)lo[t] + ((float)u[t] < pr * 16777216.0f);
    }
}

static int encode_any(int orq, const double *p, const float *g, size_t n, gc_rng *rng,
                      gc_bytes *out, float *q, char *err, size_t err_len)
{
    int s = (int)p[K_S], w = width_of(s);
    size_t bucket = bucket_len(p, n), nb = gc_nbuckets(n, bucket);
    size_t start = out->len;
    if (gc_bytes_reserve(out, 4 * (size_t)s * nb + gc_packed_bytes(n, w) + 16) != 0)
        goto oom;
    float *x = malloc((bucket ? bucket : 1) * sizeof *x), *b = malloc((size_t)s * sizeof *b);
    float *ig = malloc((size_t)s * sizeof *ig);
    uint32_t *tmp = malloc((2 * bucket + 1) * sizeof *tmp);
    double *ps = malloc((bucket + 1) * sizeof *ps);
    if (!x || !b || !ig || !tmp || !ps) {
        free(x), free(b), free(ig), free(tmp), free(ps);
        goto oom;
    }
    int top = 1; /* highest power of two <= s - 2 */
    while (top * 2 <= s - 2)
        top *= 2;
    uint8_t *lv = out->data + start, *area = lv + 4 * (size_t)s * nb;
    gc_ulanes lanes;
    gc_ulanes_seed(&lanes, rng);
    int32_t u[GC_UBLK];
    uint32_t c[GC_UBLK];
    for (size_t k = 0; k < nb; k++) {
        size_t i0 = k * bucket, m = n - i0 < bucket ? n - i0 : bucket;
        memcpy(x, g + i0, m * sizeof *x);
        gc_sort_floats(x, m, tmp);
        ps[0] = 0;
        for (size_t i = 0; i < m; i++)
            ps[i + 1] = ps[i] + x[i];
        levels_of(orq, s, x, ps, m, b);
        for (int j = 0; j < s; j++) {
            gc_store_f32(lv + 4 * ((size_t)s * k + (size_t)j), b[j]);
            float gap = j + 1 < s ? b[j + 1] - b[j] : 0.0f;
            ig[j] = gap > 0 ? 1.0f / gap : 0.0f;
        }
        for (size_t j0 = 0; j0 < m; j0 += GC_UBLK) {
            size_t cnt = m - j0 < GC_UBLK ? m - j0 : GC_UBLK;
            gc_ulanes_fill(&lanes, u);
            orq_round(g + i0 + j0, u, cnt, b, ig, s, top, c);
            gc_pack_codes(area, i0 + j0, c, cnt, w);
            if (q)
                for (size_t t = 0; t < cnt; t++)
                    q[i0 + j0 + t] = b[c[t]];
        }
    }
    free(x), free(b), free(ig), free(tmp), free(ps);
    out->len = start + 4 * (size_t)s * nb + gc_packed_bytes(n, w);
    return 0;
oom:
    gc_errf(err, err_len, "out of memory");
    return -1;
}

static int decode_any(const double *p, gc_reader *r, float *out, size_t n, char *err,
                      size_t err_len)
{
    int s = (int)p[K_S], w = width_of(s);
    size_t bucket = bucket_len(p, n), nb = gc_nbuckets(n, bucket);
    if (nb > (SIZE_MAX / 8) / (size_t)s) {
        gc_errf(err, err_len, "element count %zu too large", n);
        return -1;
    }
    size_t lv_at = r->pos;
    const uint8_t *lv = gc_get_bytes(r, 4 * (size_t)s * nb, "bucket levels", err, err_len);
    if (!lv)
        return -1;
    size_t need = gc_packed_bytes(n, w);
    size_t code_at = r->pos;
    const uint8_t *codes = gc_get_bytes(r, need, "level codes", err, err_len);
    if (!codes)
        return -1;
    for (size_t k = 0; k < nb * (size_t)s; k++)
        if (gc_check_finite_at(gc_load_f32(lv + 4 * k), lv_at + 4 * k, "level", err, err_len))
            return -1;
    gc_bitr br = {codes, need * 8, 0, code_at};
    for (size_t k = 0; k < nb; k++) {
        size_t i0 = k * bucket, m = n - i0 < bucket ? n - i0 : bucket;
        for (size_t i = 0; i < m; i++) {
            uint32_t j;
            if (gc_bitr_get(&br, w, &j, "level code", err, err_len) != 0)
                return -1;
            if (j >= (uint32_t)s) {
                gc_errf(err, err_len, "bad level code %u at byte offset %zu (element %zu)", j,
                        code_at + (br.pos - (size_t)w) / 8, i0 + i);
                return -1;
            }
            out[i0 + i] = gc_load_f32(lv + 4 * ((size_t)s * k + j));
        }
    }
    if (br.pos % 8 && codes[need - 1] >> (br.pos % 8)) {
        gc_errf(err, err_len, "nonzero padding bits at byte offset %zu", code_at + need - 1);
        return -1;
    }
    return 0;
}

static int orq_encode(const double *p, gc_tstate *st, const float *g, size_t n, gc_rng *rng,
                      gc_bytes *out, float *q, char *err, size_t err_len)
{
    (void)st;
    return encode_any(1, p, g, n, rng, out, q, err, err_len);
}
static int linear_encode(const double *p, gc_tstate *st, const float *g, size_t n,
                         gc_rng *rng, gc_bytes *out, float *q, char *err, size_t err_len)
{
    (void)st;
    return encode_any(0, p, g, n, rng, out, q, err, err_len);
}

static bool fixed_body(const double *p, size_t n, size_t *bytes)
{
    int s = (int)p[K_S];
    *bytes = 4 * (size_t)s * gc_nbuckets(n, bucket_len(p, n)) + gc_packed_bytes(n, width_of(s));
    return true;
}
static bool unbiased(const double *p) { (void)p; return true; }
static int levels(const double *p) { return (int)p[K_S]; }
static size_t bucket(const double *p, size_t n) { return bucket_len(p, n); }

const gc_codec gc_codec_orq = {
    .name = "orq", .format_id = 10, .keys = orq_keys, .nkeys = 2,
    .agg = GC_AGG_PER_WORKER_SCALE, .unbiased = unbiased, .check = orq_check,
    .encode = orq_encode, .decode = decode_any, .fixed_body = fixed_body, .levels = levels,
    .bucket = bucket,
};
const gc_codec gc_codec_linear = {
    .name = "linear", .format_id = 11, .keys = linear_keys, .nkeys = 2,
    .agg = GC_AGG_PER_WORKER_SCALE, .unbiased = unbiased, .check = linear_check,
    .encode = linear_encode,
    .decode = decode_any, .fixed_body = fixed_body, .levels = levels, .bucket = bucket,
};
