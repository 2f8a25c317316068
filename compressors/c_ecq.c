/* compressors/c_ecq.c: ECQ-SGD (Wu et al. 2018). The accumulated quantization error h
 * (Eq. 5), updated incrementally as h <- beta h + (g - Q) (Eq. 6), compensates the
 * gradient before QSGD quantization: Q = Q_s(g + alpha h) (Eq. 7). Paper defaults: beta = 1
 * and a small alpha (Section 6, Table 2: 0.01..0.1 work). The payload is QSGD's. */
#include <stdlib.h>

#include "qsgd_core.h"

enum { K_S, K_BUCKET, K_NORM, K_CODE, K_ALPHA, K_BETA };
static const gc_key keys[] = {
    {"s", GK_INT, "4", 1, 32767, NULL},
    {"bucket", GK_INT, "512", 0, 4294967295.0, NULL},
    {"norm", GK_ENUM, "l2", 0, 0, gc_norm_choices},
    {"code", GK_ENUM, "fixed", 0, 0, gc_code_choices},
    {"alpha", GK_REAL, "0.01", 0, 1e6, NULL},
    {"beta", GK_REAL, "1", 0, 1, NULL},
};

static gc_qsgd_params params(const double *p)
{
    gc_qsgd_params qp = {(int)p[K_S], (size_t)p[K_BUCKET], (int)p[K_NORM], (int)p[K_CODE]};
    return qp;
}

/* v = g + alpha h (Eq. 7's argument) */
GC_HOT static void compensate(const float *restrict g, const float *restrict h, float alpha,
                              size_t n, float *restrict v)
{
    for (size_t i = 0; i < n; i++)
        v[i] = g[i] + alpha * h[i];
}
/* h <- beta h + (g - Q) (Eq. 6) */
GC_HOT static void accumulate(const float *restrict g, const float *restrict q, float beta,
                              size_t n, float *restrict h)
{
    for (size_t i = 0; i < n; i++)
        h[i] = beta * h[i] + (g[i] - q[i]);
}

static int encode(const double *p, gc_tstate *st, const float *g, size_t n, gc_rng *rng,
                  gc_bytes *out, float *q, char *err, size_t err_len)
{
    gc_qsgd_params qp = params(p);
    if (n && !st->a) {
        st->a = calloc(n, sizeof *st->a);     /* h(0) = 0 */
        st->b = malloc(2 * n * sizeof *st->b); /* scratch: v and Q(v), kept across steps */
        st->a_len = n;
        st->b_len = 2 * n;
        if (!st->a || !st->b) {
            free(st->a), free(st->b);
            st->a = st->b = NULL;
            gc_errf(err, err_len, "out of memory");
            return -1;
        }
    }
    float *h = st->a, *v = st->b, *qq = q ? q : (st->b ? st->b + n : NULL);
    if (n)
        compensate(g, h, (float)p[K_ALPHA], n, v);
    int rc = gc_qsgd_encode_body(&qp, n ? v : g, n, rng, out, qq, err, err_len);
    if (rc == 0 && n)
        accumulate(g, qq, (float)p[K_BETA], n, h);
    return rc;
}

static int decode(const double *p, gc_reader *r, float *out, size_t n, char *err,
                  size_t err_len)
{
    gc_qsgd_params qp = params(p);
    return gc_qsgd_decode_body(&qp, r, out, n, err, err_len);
}

static bool fixed_body(const double *p, size_t n, size_t *bytes)
{
    gc_qsgd_params qp = params(p);
    return gc_qsgd_fixed_body(&qp, n, bytes);
}

/* alpha = 0 is plain QSGD */
static bool unbiased(const double *p) { return p[K_ALPHA] == 0; }
static int levels(const double *p) { return 2 * (int)p[K_S] + 1; }
static size_t bucket(const double *p, size_t n) { (void)n; return (size_t)p[K_BUCKET]; }
static bool vbound(const double *p, const float *g, size_t n, double *b)
{
    /* with h = 0 (a fresh state) Eq. 12 reduces to QSGD's bound, Eq. 11 */
    gc_qsgd_params qp = params(p);
    *b = gc_qsgd_variance_bound(&qp, g, n);
    return true;
}

const gc_codec gc_codec_ecq = {
    .name = "ecq", .format_id = 16, .keys = keys, .nkeys = 6,
    .agg = GC_AGG_PER_WORKER_SCALE, .unbiased = unbiased, .encode = encode, .decode = decode,
    .fixed_body = fixed_body, .levels = levels, .bucket = bucket, .variance_bound = vbound,
    .checks_finite = true,
};
