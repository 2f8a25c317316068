/* compressors/c_sparse.c: sparsifiers. topk (exact, or DGC's sampled threshold), dgc (Lin et
 * al. 2018: momentum correction Eq. 7, local gradient clipping Eq. 12, momentum factor
 * masking, warm-up sparsity schedule, sampled threshold with adjustment and exact
 * fallback), randomk (k uniform indices, scaled by n/k so E[Q(g)] = g) and threshold (a
 * fixed magnitude threshold).
 *
 * Bodies (key code):
 *  pairs: uleb128 count, then count x (u32 index, fp32 value), indices strictly increasing.
 *  rle (DGC paper, Section 5 footnote: "32-bit values of non-zeros and 16-bit run lengths of
 *       zeros"): uleb128 count of values, then entries, each a u16 run r; r = 65535 means
 *       65535 zeros and no value (the rule for longer runs), otherwise r zeros then one fp32
 *       value. Zeros after the last value are implicit.
 *  dense (dgc only, a tensor flagged 1-D with dense_1d=1): uleb128 n + 1, then n fp32. A count
 *       above n cannot occur in the two bodies above, so the marker is unambiguous. */
#include <math.h>
#include <stdlib.h>

#include "internal.h"

static const char *const code_choices[] = {"pairs", "rle", NULL};

/* Key layout shared by the four codecs (unused keys are absent from a codec's table). */
enum { K_RATIO, K_CODE, K_SAMPLE, K_MOMENTUM, K_CLIP_NORM, K_WORKERS, K_MASK, K_WARMUP, K_DENSE_1D };

static const gc_key topk_keys[] = {
    {"ratio", GK_REAL, "0.001", 1e-9, 1, NULL},
    {"code", GK_ENUM, "pairs", 0, 0, code_choices},
    {"sample", GK_REAL, "0", 0, 1, NULL},
};
static const gc_key dgc_keys[] = {
    {"ratio", GK_REAL, "0.001", 1e-9, 1, NULL},
    {"code", GK_ENUM, "rle", 0, 0, code_choices},
    {"sample", GK_REAL, "0.01", 0, 1, NULL},
    {"momentum", GK_REAL, "0.9", 0, 0.999999, NULL},
    {"clip_norm", GK_REAL, "0", 0, 1e30, NULL},
    {"workers", GK_INT, "1", 1, 1e9, NULL},
    {"mask", GK_INT, "1", 0, 1, NULL},
    {"warmup_steps", GK_INT, "0", 0, 1e12, NULL},
    {"dense_1d", GK_INT, "1", 0, 1, NULL},
};
static const gc_key randomk_keys[] = {
    {"ratio", GK_REAL, "0.001", 1e-9, 1, NULL},
    {"code", GK_ENUM, "pairs", 0, 0, code_choices},
};
/* threshold: key 0 is the threshold, key 1 the code */
static const gc_key threshold_keys[] = {
    {"thr", GK_REAL, "0.001", 0, 1e30, NULL},
    {"code", GK_ENUM, "pairs", 0, 0, code_choices},
};

/* Selected count bounds of the sampled threshold, as fractions of k (docs/compressors.md). */
#define DGC_LO 0.8
#define DGC_HI 1.25

static size_t k_of(double density, size_t n)
{
    if (n == 0)
        return 0;
    double k = floor(density * (double)n + 0.5);
    return k < 1 ? 1 : k > (double)n ? n : (size_t)k;
}

/* DGC warm-up (Section 4): sparsity 75%, 93.75%, 98.4375%, 99.6%, 99.9%, i.e. density
 * 4^-(stage+1) for stages 0..3 (one stage per warmup_steps steps), then the target ratio. */
static double dgc_density(const double *p, long step)
{
    double ratio = p[K_RATIO];
    long ws = (long)p[K_WARMUP];
    if (ws <= 0)
        return ratio;
    long stage = step / ws;
    if (stage >= 4)
        return ratio;
    double d = pow(0.25, (double)(stage + 1));
    return d > ratio ? d : ratio;
}

/* ---- body writer ---- */

/* The rle body (format in the file comment) for cnt values at increasing indices. */
static int write_rle(gc_bytes *out, const uint32_t *idx, const float *val, size_t cnt, char *err,
                     size_t err_len)
{
    if (gc_put_uleb(out, cnt) != 0) /* the count makes truncation detectable */
        goto oom;
    size_t bytes = 0, prev = 0; /* prev: first position not yet covered */
    for (size_t j = 0; j < cnt; j++) {
        size_t run = idx[j] - prev;
        bytes += 2 * (run / 65535) + 6;
        prev = (size_t)idx[j] + 1;
    }
    uint8_t *d = gc_bytes_extend(out, bytes);
    if (bytes && !d)
        goto oom;
    prev = 0;
    for (size_t j = 0; j < cnt; j++) {
        size_t run = idx[j] - prev;
        for (; run >= 65535; run -= 65535) { /* the rule for runs longer than 16 bits */
            d[0] = d[1] = 0xff;
            d += 2;
        }
        d[0] = (uint8_t)run;
        d[1] = (uint8_t)(run >> 8);
        gc_store_f32(d + 2, val[j]);
        d += 6;
        prev = (size_t)idx[j] + 1;
    }
    return 0;
oom:
    gc_errf(err, err_len, "out of memory");
    return -1;
}

/* DGC's dense body (file comment): the count n + 1, then n fp32 values. */
static int decode_dense(gc_reader *r, float *out, size_t n, char *err, size_t err_len)
{
    size_t left = r->len - r->pos;
    if (left % 4 != 0 || left / 4 != n) {
        gc_errf(err, err_len, "dense body at byte offset %zu: %zu bytes follow for %zu fp32 "
                "values", r->pos, left, n);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        out[i] = gc_load_f32(r->p + r->pos + 4 * i);
    r->pos += 4 * n;
    return 0;
}

/* The count that opens every sparse body; with allow_dense (dgc), n + 1 opens a dense body
 * (*dense set). */
static int read_count(gc_reader *r, size_t n, int allow_dense, uint64_t *cnt, int *dense,
                      char *err, size_t err_len)
{
    if (gc_get_uleb(r, cnt, "non-zero count", err, err_len) != 0)
        return -1;
    *dense = allow_dense && n < UINT64_MAX && *cnt == (uint64_t)n + 1;
    return 0;
}

static int sparse_decode(int rle, int allow_dense, gc_reader *r, float *out, size_t n,
                         char *err, size_t err_len)
{
    if (n)
        memset(out, 0, n * sizeof *out);
    int dense;
    if (!rle) {
        uint64_t cnt;
        if (read_count(r, n, allow_dense, &cnt, &dense, err, err_len) != 0)
            return -1;
        if (dense)
            return decode_dense(r, out, n, err, err_len);
        if (cnt > n || cnt > (r->len - r->pos) / 8 || (r->len - r->pos) != 8 * cnt) {
            gc_errf(err, err_len,
                    "bad non-zero count %llu before byte offset %zu: %zu bytes of pairs follow "
                    "for %zu elements",
                    (unsigned long long)cnt, r->pos, r->len - r->pos, n);
            return -1;
        }
        uint64_t prev = 0;
        for (size_t j = 0; j < cnt; j++) {
            size_t at = r->pos + 8 * j;
            uint32_t i = gc_load_u32(r->p + at);
            if (i >= n || (j && i <= prev)) {
                gc_errf(err, err_len, "bad index %u at byte offset %zu (%s)", i, at,
                        i >= n ? "out of range" : "not increasing");
                return -1;
            }
            out[i] = gc_load_f32(r->p + at + 4);
            prev = i;
        }
        r->pos += 8 * cnt;
        return 0;
    }
    uint64_t cnt;
    if (read_count(r, n, allow_dense, &cnt, &dense, err, err_len) != 0)
        return -1;
    if (dense)
        return decode_dense(r, out, n, err, err_len);
    if (cnt > n || cnt > (r->len - r->pos) / 6) {
        gc_errf(err, err_len, "bad non-zero count %llu before byte offset %zu for %zu elements",
                (unsigned long long)cnt, r->pos, n);
        return -1;
    }
    size_t pos = 0;
    for (uint64_t e = 0; e < cnt;) {
        size_t at = r->pos;
        const uint8_t *d = gc_get_bytes(r, 2, "run length", err, err_len);
        if (!d)
            return -1;
        size_t run = (size_t)d[0] | (size_t)d[1] << 8;
        if (run > n - pos) {
            gc_errf(err, err_len, "run of %zu zeros at byte offset %zu passes element %zu", run,
                    at, n);
            return -1;
        }
        pos += run;
        if (run == 65535)
            continue;
        float v;
        if (gc_get_f32(r, &v, "value", err, err_len) != 0)
            return -1;
        if (pos >= n) {
            gc_errf(err, err_len, "value at byte offset %zu is past element %zu", at + 2, n);
            return -1;
        }
        out[pos++] = v;
        e++;
    }
    return 0;
}

/* ---- selection ---- */

/* Exact top-k of |v| over positions cand[0..m) (or all n when cand is NULL), non-zero values
 * only, ties broken by index; writes sorted indices to idx and returns the count. */
static size_t exact_topk(const float *v, size_t n, const uint32_t *cand, size_t m, size_t k,
                         uint32_t *idx, int *oom)
{
    size_t len = cand ? m : n;
    float *g = NULL;
    const float *x = v;
    if (cand) {
        g = malloc((m ? m : 1) * sizeof *g);
        if (!g) {
            *oom = 1;
            return 0;
        }
        for (size_t j = 0; j < m; j++)
            g[j] = v[cand[j]];
        x = g;
    }
    if (k > len)
        k = len;
    size_t above = 0;
    uint32_t t = k ? gc_kth_largest_abs_bits(x, len, k, &above) : 0x7fffffffu;
    if (above == SIZE_MAX) {
        free(g);
        *oom = 1;
        return 0;
    }
    size_t ties = k - above, c = 0;
    for (size_t j = 0; j < len; j++) {
        uint32_t a = gc_f2u(x[j]) & 0x7fffffffu;
        int take = a > t || (a == t && a != 0 && ties > 0);
        if (take) {
            if (a == t)
                ties--;
            idx[c++] = cand ? cand[j] : (uint32_t)j;
        }
    }
    free(g);
    return c;
}

/* Positions i with |v[i]| >= t (as bit patterns) into cand, the first cap of them, in index
 * order; returns how many there are (possibly more than cap). *bad is set when v holds NaN
 * or Inf (their patterns are >= every finite t, so they are counted too). Blocks of 64 are
 * tested branch-free (vectorized) and only a block with a hit is walked element by
 * element: at top-k's densities most blocks have none. */
GC_HOT static size_t filter_ge(const float *restrict v, size_t n, uint32_t t,
                               uint32_t *restrict cand, size_t cap, uint32_t *bad)
{
    size_t total = 0, i = 0;
    uint32_t nb = 0;
    for (; i + 64 <= n; i += 64) {
        uint32_t hit = 0, b = 0;
        for (size_t j = i; j < i + 64; j++) {
            uint32_t a = gc_f2u(v[j]) & 0x7fffffffu;
            hit |= a >= t;
            b |= a >= 0x7f800000u;
        }
        nb |= b;
        if (hit)
            for (size_t j = i; j < i + 64; j++)
                if ((gc_f2u(v[j]) & 0x7fffffffu) >= t) {
                    if (total < cap)
                        cand[total] = (uint32_t)j;
                    total++;
                }
    }
    for (; i < n; i++) {
        uint32_t a = gc_f2u(v[i]) & 0x7fffffffu;
        nb |= a >= 0x7f800000u;
        if (a >= t) {
            if (total < cap)
                cand[total] = (uint32_t)i;
            total++;
        }
    }
    *bad = nb;
    return total;
}

/* Marks a filtered selection that could not be completed (the caller selects by the full
 * histograms instead). */
#define TOPK_RETRY ((size_t)-1)

/* Exact top-k (exact_topk's result, bit for bit) in one pass over v when k is small: a
 * threshold t0 low enough that, by a strided sample of 65,536 elements, about twice k
 * elements reach it; the pass keeps those (filter_ge, which also checks NaN/Inf into *bad);
 * when at least k reach t0 every element of the top k (|v| >= the k-th largest >= t0,
 * ties included) is among them, and exact_topk over them alone gives the same selection
 * as over all of v. The sample only sets the cost: a t0 that leaves fewer than k, or more
 * than the room kept, or a k too large for the sample to help, returns TOPK_RETRY (*bad
 * valid in every case: v was read in full).
 * Replaces three passes (NaN/Inf scan, two radix-select histograms) and the selection
 * pass of exact_topk by this one (issue 28). */
static size_t filtered_topk(const float *v, size_t n, size_t k, uint32_t *idx, int *oom,
                            uint32_t *bad)
{
    *bad = 0;
    size_t stride = (n / 65536) | 1, m = n / stride; /* odd: no power-of-two aliasing */
    double ks = (double)k * (double)m / (double)n;
    size_t r0 = (size_t)ceil(2 * ks + 4 * sqrt(ks) + 16);
    if (r0 >= m / 4) { /* k too large a share of v: no gain over the histograms */
        gc_maxabs(v, n, bad);
        return TOPK_RETRY;
    }
    float *smp = malloc(m * sizeof *smp);
    if (!smp) {
        *oom = 1;
        return 0;
    }
    for (size_t j = 0; j < m; j++)
        smp[j] = v[j * stride + stride / 2];
    size_t above;
    uint32_t t0 = gc_kth_largest_abs_bits(smp, m, r0, &above);
    free(smp);
    if (above == SIZE_MAX) {
        *oom = 1;
        return 0;
    }
    if (t0 == 0) /* the sample is mostly zeros: no useful threshold */
        t0 = 1;
    size_t cap = 2 * (size_t)((double)r0 * (double)n / (double)m) + 1024;
    uint32_t *cand = malloc(cap * sizeof *cand);
    if (!cand) {
        *oom = 1;
        return 0;
    }
    size_t total = filter_ge(v, n, t0, cand, cap, bad);
    size_t r = TOPK_RETRY;
    if (!*bad && total >= k && total <= cap)
        r = exact_topk(v, n, cand, total, k, idx, oom);
    free(cand);
    return r;
}

/* The stride of DGC's sample for a fraction frac of n elements, or 0 when the sample would
 * be too small to estimate from (selection is then exact). */
static size_t sample_stride(size_t n, double frac)
{
    /* A sample smaller than one element (or a fraction so small that 1/frac overflows a
     * size_t) leaves nothing to estimate from. */
    double inv = 1.0 / frac;
    if (!(inv < (double)n))
        return 0;
    size_t stride = (size_t)floor(inv + 0.5);
    if (stride < 2 || n / stride < 64) /* too few samples to estimate */
        return 0;
    return stride;
}

/* Candidates known before the count: every position with |v| >= t0, in index order
 * (count of them, possibly more than room for, in n). DGC's fused pass builds it. */
typedef struct {
    const uint32_t *idx;
    const float *val; /* v at those positions: no random reads of v to count */
    size_t n, room;
    uint32_t t0;
} prefilter;

/* DGC's hierarchical selection after the sample: threshold t from it, count, adjust
 * ("a precise threshold is calculated from the already-selected gradients" when too many
 * pass; halved when too few). The count at a threshold t >= pre->t0 comes from the
 * prefiltered positions (the same positions, in the same order, as a pass over v gives);
 * otherwise from a pass over v. */
static size_t sampled_select(const float *v, size_t n, size_t k, uint32_t t,
                             const prefilter *pre, uint32_t *idx, int *oom)
{
    size_t cap = (size_t)(DGC_HI * (double)k) + 1;
    uint32_t *cand = malloc(cap * sizeof *cand);
    if (!cand) {
        *oom = 1;
        return 0;
    }
    size_t lo = (size_t)ceil(DGC_LO * (double)k), hi = cap - 1, c = 0;
    for (int attempt = 0; attempt < 4; attempt++) {
        if (t == 0)
            t = 1; /* never select zeros */
        size_t total = 0;
        if (pre && t >= pre->t0 && pre->n <= pre->room) {
            for (size_t j = 0; j < pre->n; j++)
                if ((gc_f2u(pre->val[j]) & 0x7fffffffu) >= t) {
                    if (total < cap)
                        cand[total] = pre->idx[j];
                    total++;
                }
        } else {
            uint32_t bad;
            total = filter_ge(v, n, t, cand, cap, &bad);
        }
        if (total > hi) {
            size_t r = total <= cap ? exact_topk(v, n, cand, total, k, idx, oom)
                                    : exact_topk(v, n, NULL, 0, k, idx, oom);
            free(cand);
            return r;
        }
        c = total;
        if (c >= lo)
            break;
        /* too few: halve the threshold and count again */
        t = gc_f2u(gc_u2f(t) * 0.5f);
    }
    if (c < lo) { /* exact fallback */
        free(cand);
        return exact_topk(v, n, NULL, 0, k, idx, oom);
    }
    memcpy(idx, cand, c * sizeof *idx);
    free(cand);
    return c;
}

/* The threshold of a sample smp[0..m) for k of n: its ceil(k m / n)-th largest |x|. Sets
 * *oom (and returns 0) when out of memory. */
static uint32_t sample_threshold(const float *smp, size_t m, size_t n, size_t k, int *oom)
{
    size_t ks = (size_t)ceil((double)k * (double)m / (double)n), above;
    if (ks < 1)
        ks = 1;
    uint32_t t = gc_kth_largest_abs_bits(smp, m, ks, &above);
    if (above == SIZE_MAX)
        *oom = 1;
    return t;
}

/* DGC's hierarchical selection: threshold from a strided sample, count, adjust. */
static size_t sampled_topk(const float *v, size_t n, size_t k, double frac, gc_rng *rng,
                           uint32_t *idx, int *oom)
{
    size_t stride = sample_stride(n, frac);
    if (!stride)
        return exact_topk(v, n, NULL, 0, k, idx, oom);
    size_t off = (size_t)gc_rng_below(rng, stride), m = (n - off + stride - 1) / stride;
    float *smp = malloc(m * sizeof *smp);
    if (!smp) {
        *oom = 1;
        return 0;
    }
    for (size_t j = 0; j < m; j++)
        smp[j] = v[off + j * stride];
    uint32_t t = sample_threshold(smp, m, n, k, oom);
    free(smp);
    return *oom ? 0 : sampled_select(v, n, k, t, NULL, idx, oom);
}

/* ---- encoders ---- */

/* Room for the sampled path's up to DGC_HI * k selections. */
static size_t idx_cap(size_t k) { return (size_t)(DGC_HI * (double)k) + 2; }

static int finish(const double *p, size_t n, const float *src, const uint32_t *idx, size_t cnt,
                  float scale, gc_bytes *out, float *q, char *err, size_t err_len)
{
    int rle = (int)p[K_CODE];
    if (!rle) { /* pairs straight from src */
        if (gc_put_uleb(out, cnt) != 0)
            goto oom;
        uint8_t *d = gc_bytes_extend(out, 8 * cnt);
        if (cnt && !d)
            goto oom;
        for (size_t j = 0; j < cnt; j++) {
            gc_store_u32(d + 8 * j, idx[j]);
            gc_store_f32(d + 8 * j + 4, src[idx[j]] * scale);
        }
    } else {
        float *val = malloc((cnt ? cnt : 1) * sizeof *val);
        if (!val)
            goto oom;
        for (size_t j = 0; j < cnt; j++)
            val[j] = src[idx[j]] * scale;
        int rc = write_rle(out, idx, val, cnt, err, err_len);
        free(val);
        if (rc != 0)
            return rc;
    }
    if (q) {
        memset(q, 0, n * sizeof *q);
        for (size_t j = 0; j < cnt; j++)
            q[idx[j]] = src[idx[j]] * scale;
    }
    return 0;
oom:
    gc_errf(err, err_len, "out of memory");
    return -1;
}

static int check_n(size_t n, char *err, size_t err_len)
{
    if (n > 0xffffffffu) {
        gc_errf(err, err_len, "sparse formats hold at most 2^32-1 elements per tensor, got %zu",
                n);
        return -1;
    }
    return 0;
}

static int topk_encode(const double *p, gc_tstate *st, const float *g, size_t n, gc_rng *rng,
                       gc_bytes *out, float *q, char *err, size_t err_len)
{
    (void)st;
    if (check_n(n, err, err_len) != 0)
        return -1;
    size_t k = k_of(p[K_RATIO], n);
    uint32_t *idx = malloc(idx_cap(k) * sizeof *idx);
    int oom = !idx;
    size_t cnt = 0;
    /* NaN/Inf: topk checks its input itself (checks_finite), in filtered_topk's pass when
     * that completes, else in a scan of its own */
    uint32_t bad = 0;
    if (!oom && n) {
        if (p[K_SAMPLE] > 0) {
            gc_maxabs(g, n, &bad);
            if (!bad)
                cnt = sampled_topk(g, n, k, p[K_SAMPLE], rng, idx, &oom);
        } else {
            cnt = n >= 65536 ? filtered_topk(g, n, k, idx, &oom, &bad) : TOPK_RETRY;
            if (cnt == TOPK_RETRY && !oom) {
                if (n < 65536)
                    gc_maxabs(g, n, &bad);
                cnt = bad ? 0 : exact_topk(g, n, NULL, 0, k, idx, &oom);
            }
        }
    }
    if (bad && !oom) {
        free(idx);
        return gc_nonfinite_error(g, n, err, err_len);
    }
    int rc = oom ? (gc_errf(err, err_len, "out of memory"), -1)
                 : finish(p, n, g, idx, cnt, 1.0f, out, q, err, err_len);
    free(idx);
    return rc;
}

/* How far ahead (elements) the momentum passes prefetch their three arrays: five streams
 * (g, u and v read, u and v written) are more than the hardware prefetcher keeps ahead of;
 * 4 KiB ahead took the pass from 13-15 ms to 10-11 ms per 16 M floats (issue 28). */
#define MOM_AHEAD 1024
static inline void prefetch_block(const float *g, const float *u, const float *v, size_t i)
{
    for (size_t q = 0; q < 256; q += 16) { /* one 64-byte line per 16 floats */
        __builtin_prefetch(g + i + q);
        __builtin_prefetch(u + i + q, 1);
        __builtin_prefetch(v + i + q, 1);
    }
}

GC_HOT static uint32_t momentum_step(const float *restrict g, size_t n, float m, float cs,
                              float *restrict u, float *restrict v)
{
    uint32_t bad = 0;
    size_t i = 0;
    for (; i + 256 <= n; i += 256) {
        uint32_t b = 0;
        if (i + MOM_AHEAD + 256 <= n)
            prefetch_block(g, u, v, i + MOM_AHEAD);
        for (size_t j = i; j < i + 256; j++) {
            float ui = m * u[j] + cs * g[j];
            u[j] = ui;
            v[j] += ui;
            b |= gc_nonfinite_bit(gc_f2u(g[j]));
        }
        bad |= b;
    }
    for (; i < n; i++) {
        float ui = m * u[i] + cs * g[i];
        u[i] = ui;
        v[i] += ui;
        bad |= gc_nonfinite_bit(gc_f2u(g[i]));
    }
    return bad;
}

/* momentum_step, and in the same pass: the positions whose new |v| reaches t0 (the first
 * room of them into cand, *count gets how many) and DGC's sample, v[off + j stride] as
 * updated, into smp. Blocks of 256 as momentum_step (the same operations on each element);
 * each block is then re-read from L1 in groups of 16, walked one by one only when one of
 * them reaches t0. */
/* momentum_step, and in the same pass: the positions whose new |v| reaches t0 and their
 * values (the first room of them into cand and cval, *count gets how many) and DGC's sample,
 * v[off + j stride] as updated, into smp. Blocks of 256 as momentum_step, the same
 * operations on each element; the test against t0 is a byte per element written by the
 * same vectorized loop, read back 8 at a time. */
GC_HOT static uint32_t momentum_filter(const float *restrict g, size_t n, float m, float cs,
                                       float *restrict u, float *restrict v, uint32_t t0,
                                       uint32_t *restrict cand, float *restrict cval,
                                       size_t room, size_t *count, size_t off, size_t stride,
                                       float *restrict smp)
{
    uint32_t bad = 0;
    size_t total = 0, next = off, js = 0;
    uint8_t h[256];
    for (size_t i = 0; i < n; i += 256) {
        uint32_t b = 0;
        size_t len = n - i < 256 ? n - i : 256;
        if (len == 256) {
            if (i + MOM_AHEAD + 256 <= n)
                prefetch_block(g, u, v, i + MOM_AHEAD);
            for (size_t j = 0; j < 256; j++) {
                float ui = m * u[i + j] + cs * g[i + j];
                u[i + j] = ui;
                float vj = v[i + j] + ui;
                v[i + j] = vj;
                b |= gc_nonfinite_bit(gc_f2u(g[i + j]));
                h[j] = (gc_f2u(vj) & 0x7fffffffu) >= t0;
            }
        } else {
            memset(h, 0, sizeof h);
            for (size_t j = 0; j < len; j++) {
                float ui = m * u[i + j] + cs * g[i + j];
                u[i + j] = ui;
                float vj = v[i + j] + ui;
                v[i + j] = vj;
                b |= gc_nonfinite_bit(gc_f2u(g[i + j]));
                h[j] = (gc_f2u(vj) & 0x7fffffffu) >= t0;
            }
        }
        bad |= b;
        for (; next < i + len; next += stride)
            smp[js++] = v[next];
        for (size_t q = 0; q < 256; q += 8) {
            uint64_t w;
            memcpy(&w, h + q, 8);
            if (w)
                for (size_t j = q; j < q + 8; j++)
                    if (h[j]) {
                        if (total < room) {
                            cand[total] = (uint32_t)(i + j);
                            cval[total] = v[i + j];
                        }
                        total++;
                    }
        }
    }
    *count = total;
    return bad;
}

/* DGC's momentum correction and sampled selection with one pass over the arrays (issue 28):
 * the sample's positions are drawn first (the same single draw sampled_topk makes); a
 * provisional threshold t0 is set from the new v of 256 runs of 64 elements spread over the
 * tensor (computed there as the pass will: the same operations), low enough that about 4k
 * elements reach it; the pass then updates u and v, keeps the positions reaching t0 and
 * takes the sample. The selection that follows (sampled_select) counts from those positions
 * whenever its threshold is >= t0, which gives the same count and candidates as a pass over
 * v; otherwise it reads v again. Runs, not single elements: single elements a page apart
 * cost a TLB and memory miss each, three arrays over. The sample, the runs and the
 * positions live in the tensor's scratch (st->c), kept across steps: fresh buffers of this
 * size cost their page faults at every encode. Returns the selected count; *bad as
 * momentum_step. */
static size_t dgc_fused(const float *g, size_t n, float m, float cs, float *u, float *v,
                        size_t k, size_t stride, gc_rng *rng, gc_tstate *st, uint32_t *idx,
                        int *oom, uint32_t *bad)
{
    size_t off = (size_t)gc_rng_below(rng, stride), ms = (n - off + stride - 1) / stride;
    enum { RUNS = 256, RUN = 64, PRE = RUNS * RUN };
    double kp = (double)k * PRE / (double)n;
    size_t r0 = (size_t)ceil(2 * kp + 4 * sqrt(kp) + 16);
    size_t room = r0 >= PRE / 4 ? 0 : 2 * (size_t)((double)r0 * (double)n / PRE) + 1024;
    size_t floats = ms + PRE + 2 * room;
    if (st->c_len < floats) {
        free(st->c);
        st->c = malloc(floats * sizeof *st->c);
        st->c_len = st->c ? floats : 0;
    }
    if (!st->c) {
        *oom = 1;
        return 0;
    }
    float *smp = st->c, *ep = st->c + ms;
    uint32_t *cand = (uint32_t *)(void *)(st->c + ms + PRE);
    float *cval = st->c + ms + PRE + room;
    prefilter pre = {cand, cval, 0, room, 0xffffffffu};
    if (room) { /* else k is too large a share for a prefilter to pay: none (t0 unreachable) */
        size_t gap = n / RUNS; /* >= 256: n >= 65,536 */
        for (size_t r = 0; r < RUNS; r++)
            for (size_t j = 0; j < RUN; j++) {
                size_t i = r * gap + j;
                float ui = m * u[i] + cs * g[i];
                ep[r * RUN + j] = v[i] + ui;
            }
        size_t above;
        pre.t0 = gc_kth_largest_abs_bits(ep, PRE, r0, &above);
        if (above == SIZE_MAX) {
            *oom = 1;
            return 0;
        }
        if (pre.t0 == 0)
            pre.t0 = 1;
    }
    *bad = momentum_filter(g, n, m, cs, u, v, pre.t0, cand, cval, room, &pre.n, off, stride,
                           smp);
    if (*bad)
        return 0;
    uint32_t t = sample_threshold(smp, ms, n, k, oom);
    return *oom ? 0 : sampled_select(v, n, k, t, room ? &pre : NULL, idx, oom);
}

/* A 1-D tensor (bias, normalization scale or shift) with dense_1d=1: the DGC reference
 * implementation (synxlin/deep-gradient-compression, train.py) hands only parameters with
 * more than one dimension to the compressor and all-reduces the rest as they are, and the
 * paper's Tables 3-4 sizes are reproduced only with that rule (docs/compressors.md, "DGC
 * payloads vs the paper"). Such a tensor gets plain momentum, u <- m u + g, sent whole:
 * the receiver applies it without momentum, as it does DGC's sparse v. No accumulation and
 * no masking: nothing is held back. */
static int dgc_dense(const double *p, float *u, const float *g, size_t n, gc_bytes *out,
                     float *q, char *err, size_t err_len)
{
    float m = (float)p[K_MOMENTUM];
    uint32_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        u[i] = m * u[i] + g[i];
        bad |= gc_nonfinite_bit(gc_f2u(g[i]));
    }
    if (bad)
        return gc_nonfinite_error(g, n, err, err_len);
    uint8_t *d;
    if (gc_put_uleb(out, (uint64_t)n + 1) != 0 || (n && !(d = gc_bytes_extend(out, 4 * n)))) {
        gc_errf(err, err_len, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        gc_store_f32(d + 4 * i, u[i]);
    if (q)
        memcpy(q, u, n * sizeof *q);
    return 0;
}

static int dgc_encode(const double *p, gc_tstate *st, const float *g, size_t n, gc_rng *rng,
                      gc_bytes *out, float *q, char *err, size_t err_len)
{
    if (check_n(n, err, err_len) != 0)
        return -1;
    if (n && !st->a) {
        st->a = calloc(n, sizeof *st->a); /* U: momentum */
        st->b = calloc(n, sizeof *st->b); /* V: accumulated velocity */
        st->a_len = st->b_len = n;
        if (!st->a || !st->b) {
            free(st->a);
            free(st->b);
            st->a = st->b = NULL;
            gc_errf(err, err_len, "out of memory");
            return -1;
        }
    }
    float *u = st->a, *v = st->b;
    if (st->vector && p[K_DENSE_1D] != 0)
        return dgc_dense(p, u, g, n, out, q, err, err_len);
    /* local gradient clipping (Appendix C, Eq. 12): threshold scaled by N^-1/2 */
    float cs = 1.0f;
    if (p[K_CLIP_NORM] > 0 && n) {
        double s2 = 0;
        for (size_t i = 0; i < n; i++)
            s2 += (double)g[i] * g[i];
        double thr = p[K_CLIP_NORM] / sqrt(p[K_WORKERS]), norm = sqrt(s2);
        if (norm > thr)
            cs = (float)(thr / norm);
    }
    size_t k = k_of(dgc_density(p, st->step), n);
    uint32_t *idx = malloc(idx_cap(k) * sizeof *idx);
    int oom = !idx;
    size_t cnt = 0;
    size_t stride = p[K_SAMPLE] > 0 ? sample_stride(n, p[K_SAMPLE]) : 0;
    if (!oom && stride && n >= 65536) { /* momentum correction and the count in one pass */
        uint32_t bad = 0;
        gc_rng before = *rng;
        cnt = dgc_fused(g, n, (float)p[K_MOMENTUM], cs, u, v, k, stride, rng, st, idx, &oom,
                        &bad);
        if (bad) { /* the generator as the separate passes leave it: no draw */
            *rng = before;
            free(idx);
            return gc_nonfinite_error(g, n, err, err_len);
        }
    } else {
        /* momentum correction (Eq. 7): u <- m u + g, v <- v + u; NaN/Inf checked on the
         * way */
        if (momentum_step(g, n, (float)p[K_MOMENTUM], cs, u, v)) {
            free(idx);
            return gc_nonfinite_error(g, n, err, err_len);
        }
        if (!oom && n)
            cnt = p[K_SAMPLE] > 0 ? sampled_topk(v, n, k, p[K_SAMPLE], rng, idx, &oom)
                                  : exact_topk(v, n, NULL, 0, k, idx, &oom);
    }
    if (oom) {
        free(idx);
        gc_errf(err, err_len, "out of memory");
        return -1;
    }
    int rc = finish(p, n, v, idx, cnt, 1.0f, out, q, err, err_len);
    if (rc == 0)
        for (size_t j = 0; j < cnt; j++) { /* clear what was sent; momentum factor masking */
            v[idx[j]] = 0;
            if (p[K_MASK] != 0)
                u[idx[j]] = 0;
        }
    free(idx);
    return rc;
}

static int randomk_encode(const double *p, gc_tstate *st, const float *g, size_t n,
                          gc_rng *rng, gc_bytes *out, float *q, char *err, size_t err_len)
{
    if (check_n(n, err, err_len) != 0)
        return -1;
    size_t k = k_of(p[K_RATIO], n);
    /* The bitmap of n bits is scratch kept across steps, all zero between calls (the bits
     * set are cleared after the scan): a fresh one per call cost its page faults and
     * clearing, n/8 bytes, at every encode. */
    size_t words = n / 64 + 1, floats = 2 * words;
    if (st->c_len < floats) {
        free(st->c);
        st->c = calloc(floats, sizeof *st->c);
        st->c_len = st->c ? floats : 0;
    }
    uint64_t *bits = (uint64_t *)(void *)st->c;
    uint32_t *idx = malloc((k ? k : 1) * sizeof *idx);
    if (!bits || !idx) {
        free(idx);
        gc_errf(err, err_len, "out of memory");
        return -1;
    }
    /* Floyd's sampling: a uniform k-subset of [0, n) in k draws */
    for (size_t j = n - k; j < n; j++) {
        size_t t = (size_t)gc_rng_below(rng, (uint64_t)j + 1);
        if (bits[t / 64] >> (t % 64) & 1)
            t = j;
        bits[t / 64] |= 1ull << (t % 64);
    }
    size_t c = 0;
    for (size_t w = 0; w <= n / 64 && c < k; w++)
        for (uint64_t b = bits[w]; b; b &= b - 1)
            idx[c++] = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(b));
    for (size_t j = 0; j < c; j++)
        bits[idx[j] / 64] = 0;
    /* scale by n/k so that E[Q(g)] = g */
    int rc = finish(p, n, g, idx, c, k ? (float)((double)n / (double)k) : 1.0f, out, q, err,
                    err_len);
    free(idx);
    return rc;
}

static int threshold_encode(const double *p, gc_tstate *st, const float *g, size_t n,
                            gc_rng *rng, gc_bytes *out, float *q, char *err, size_t err_len)
{
    (void)st, (void)rng;
    if (check_n(n, err, err_len) != 0)
        return -1;
    float thr = (float)p[0];
    size_t cnt = 0;
    for (size_t i = 0; i < n; i++)
        cnt += fabsf(g[i]) > thr;
    uint32_t *idx = malloc((cnt + 1) * sizeof *idx);
    if (!idx) {
        gc_errf(err, err_len, "out of memory");
        return -1;
    }
    size_t c = 0;
    for (size_t i = 0; i < n; i++) { /* branch-free: write always, advance when selected */
        idx[c] = (uint32_t)i;
        c += fabsf(g[i]) > thr;
    }
    int rc = finish(p, n, g, idx, c, 1.0f, out, q, err, err_len);
    free(idx);
    return rc;
}

static int decode_k1(const double *p, gc_reader *r, float *out, size_t n, char *err,
                     size_t err_len)
{
    return sparse_decode((int)p[K_CODE], 0, r, out, n, err, err_len);
}
static int decode_dgc(const double *p, gc_reader *r, float *out, size_t n, char *err,
                      size_t err_len)
{
    return sparse_decode((int)p[K_CODE], 1, r, out, n, err, err_len);
}

static bool pairs_fixed(const double *p, size_t n, size_t *bytes)
{
    /* exactly k pairs: top-k without sampling and random-k */
    if ((int)p[K_CODE] != 0)
        return false;
    size_t k = k_of(p[K_RATIO], n);
    *bytes = gc_uleb_len(k) + 8 * k;
    return true;
}
static bool topk_fixed(const double *p, size_t n, size_t *bytes)
{
    /* exact selection sends k pairs unless fewer than k elements are non-zero */
    (void)p, (void)n, (void)bytes;
    return false;
}

/* dgc: a 1-D tensor with dense_1d=1 is sent dense, uleb(n + 1) + 4n bytes of body. */
static bool dgc_fixed_vector(const double *p, size_t n, size_t *bytes)
{
    if (p[K_DENSE_1D] == 0)
        return false;
    *bytes = gc_uleb_len((uint64_t)n + 1) + 4 * n;
    return true;
}

static bool no(const double *p) { (void)p; return false; }
static bool yes(const double *p) { (void)p; return true; }

double gc_sparse_density(const gc_codec *codec, const double *p, long step)
{
    if (codec == &gc_codec_dgc)
        return dgc_density(p, step);
    if (codec == &gc_codec_topk || codec == &gc_codec_randomk)
        return p[K_RATIO];
    return -1;
}

const gc_codec gc_codec_topk = {
    .name = "topk", .format_id = 7, .keys = topk_keys, .nkeys = 3, .agg = GC_AGG_SPARSE,
    .unbiased = no, .encode = topk_encode, .decode = decode_k1, .fixed_body = topk_fixed,
    .checks_finite = true,
};
const gc_codec gc_codec_dgc = {
    .name = "dgc", .format_id = 6, .keys = dgc_keys, .nkeys = 9, .agg = GC_AGG_SPARSE,
    .unbiased = no, .encode = dgc_encode, .decode = decode_dgc, .checks_finite = true,
    .fixed_body_vector = dgc_fixed_vector,
};
const gc_codec gc_codec_randomk = {
    .name = "randomk", .format_id = 8, .keys = randomk_keys, .nkeys = 2, .agg = GC_AGG_SPARSE,
    .unbiased = yes, .encode = randomk_encode, .decode = decode_k1, .fixed_body = pairs_fixed,
};
const gc_codec gc_codec_threshold = {
    .name = "threshold", .format_id = 9, .keys = threshold_keys, .nkeys = 2,
    .agg = GC_AGG_SPARSE, .unbiased = no, .encode = threshold_encode, .decode = decode_k1,
};
