/* compressors/c_qsgd.c: the qsgd compressor (Alistarh et al. 2017): s levels, buckets of d
 * elements, l2 or l-inf scaling, fixed-width, Elias omega (code=elias, QSGD's recursive
 * Elias code) or Elias gamma code. See qsgd_core.c. */
#include "qsgd_core.h"

enum { K_S, K_BUCKET, K_NORM, K_CODE };
static const gc_key keys[] = {
    {"s", GK_INT, "4", 1, 32767, NULL},
    {"bucket", GK_INT, "512", 0, 4294967295.0, NULL},
    {"norm", GK_ENUM, "l2", 0, 0, gc_norm_choices},
    {"code", GK_ENUM, "fixed", 0, 0, gc_code_choices},
};

static gc_qsgd_params params(const double *p)
{
    gc_qsgd_params qp = {(int)p[K_S], (size_t)p[K_BUCKET], (int)p[K_NORM], (int)p[K_CODE]};
    return qp;
}

static int encode(const double *p, gc_tstate *st, const float *g, size_t n, gc_rng *rng,
                  gc_bytes *out, float *q, char *err, size_t err_len)
{
    (void)st;
    gc_qsgd_params qp = params(p);
    return gc_qsgd_encode_body(&qp, g, n, rng, out, q, err, err_len);
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

static bool unbiased(const double *p) { (void)p; return true; }
static int levels(const double *p) { return 2 * (int)p[K_S] + 1; }
static size_t bucket(const double *p, size_t n) { (void)n; return (size_t)p[K_BUCKET]; }
static bool vbound(const double *p, const float *g, size_t n, double *b)
{
    gc_qsgd_params qp = params(p);
    *b = gc_qsgd_variance_bound(&qp, g, n);
    return true;
}

const gc_codec gc_codec_qsgd = {
    .name = "qsgd", .format_id = 5, .keys = keys, .nkeys = 4,
    .agg = GC_AGG_PER_WORKER_SCALE, .unbiased = unbiased, .encode = encode, .decode = decode,
    .fixed_body = fixed_body, .levels = levels, .bucket = bucket, .variance_bound = vbound,
    .checks_finite = true,
};
