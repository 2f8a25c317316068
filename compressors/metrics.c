/* compressors/metrics.c: accuracy proxies (see metrics.h). Sums are in double. */
#include "metrics.h"

#include <math.h>
#include <stdlib.h>

#include "internal.h"

static void derive(gc_tensor_metrics *m)
{
    double n = (double)m->n, b = (double)m->payload_bytes;
    m->bits_per_element = m->n ? 8.0 * b / n : 0.0;
    m->ratio_fp32 = b > 0 ? 4.0 * n / b : NAN;
    m->ratio_fp16 = b > 0 ? 2.0 * n / b : NAN;
    if (m->sq_g > 0)
        m->norm_error = m->sq_err / m->sq_g;
    else
        m->norm_error = m->sq_q > 0 ? INFINITY : 0.0;
    if (m->sq_g > 0 && m->sq_q > 0)
        m->cosine = m->dot / (sqrt(m->sq_g) * sqrt(m->sq_q));
    else
        m->cosine = (m->sq_g == 0 && m->sq_q == 0) ? 1.0 : 0.0;
    m->density = m->n ? (double)m->nnz / n : 0.0;
    m->level_utilization = m->buckets ? m->levels_used / (double)m->buckets : NAN;
}

/* Distinct values (+0 and -0 alike) in x[0..m), using scratch of m floats + 2m words. */
static size_t distinct(const float *x, size_t m, float *s, uint32_t *tmp)
{
    if (m == 0)
        return 0;
    memcpy(s, x, m * sizeof *s);
    gc_sort_floats(s, m, tmp);
    size_t d = 1;
    for (size_t i = 1; i < m; i++)
        d += s[i] != s[i - 1];
    return d;
}

int gc_metrics_tensor(const gc_compressor *c, const float *g, const float *q, size_t n,
                      size_t payload_bytes, gc_tensor_metrics *m)
{
    memset(m, 0, sizeof *m);
    m->n = n;
    m->payload_bytes = payload_bytes;
    for (size_t i = 0; i < n; i++) {
        double gi = g[i], qi = q[i], e = qi - gi;
        m->sq_err += e * e;
        m->sq_g += gi * gi;
        m->sq_q += qi * qi;
        m->dot += gi * qi;
        m->nnz += qi != 0;
    }
    int levels = c ? gc_compressor_levels(c) : 0;
    if (levels > 0 && n > 0) {
        size_t bucket = gc_compressor_bucket_elems(c, n);
        float *s = malloc(bucket * sizeof *s);
        uint32_t *tmp = malloc(2 * bucket * sizeof *tmp);
        if (!s || !tmp) {
            free(s), free(tmp);
            return -1;
        }
        for (size_t i0 = 0; i0 < n; i0 += bucket) {
            size_t len = n - i0 < bucket ? n - i0 : bucket;
            size_t d = distinct(q + i0, len, s, tmp);
            m->levels_used += (double)(d < (size_t)levels ? d : (size_t)levels) / levels;
            m->buckets++;
        }
        free(s), free(tmp);
    }
    derive(m);
    return 0;
}

void gc_metrics_init(gc_tensor_metrics *total)
{
    memset(total, 0, sizeof *total);
    derive(total);
}

void gc_metrics_add(gc_tensor_metrics *t, const gc_tensor_metrics *m)
{
    t->n += m->n;
    t->payload_bytes += m->payload_bytes;
    t->sq_err += m->sq_err;
    t->sq_g += m->sq_g;
    t->sq_q += m->sq_q;
    t->dot += m->dot;
    t->nnz += m->nnz;
    t->levels_used += m->levels_used;
    t->buckets += m->buckets;
    derive(t);
}

static void derive_bias(gc_bias_metrics *b)
{
    if (b->sq_g > 0)
        b->bias = sqrt(b->sq_bias / b->sq_g);
    else
        b->bias = b->sq_bias > 0 ? INFINITY : 0.0;
    b->bound_ratio = (isfinite(b->bound) && b->bound > 0) ? b->mse / b->bound : NAN;
}

int gc_metrics_bias(gc_compressor *c, int tensor_id, const float *g, size_t n, int repeats,
                    uint64_t seed, gc_bias_metrics *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    if (repeats < 2) {
        gc_errf(err, err_len, "bias needs at least 2 repeats, got %d", repeats);
        return -1;
    }
    double *sum = calloc(n ? n : 1, sizeof *sum), *sumsq = calloc(n ? n : 1, sizeof *sumsq);
    float *q = malloc((n ? n : 1) * sizeof *q);
    gc_bytes payload = {0};
    if (!sum || !sumsq || !q) {
        free(sum), free(sumsq), free(q);
        gc_errf(err, err_len, "out of memory");
        return -1;
    }
    double mse = 0;
    int rc = 0;
    for (int r = 0; r < repeats && rc == 0; r++) {
        gc_rng rng;
        gc_rng_seed(&rng, seed + (uint64_t)r);
        gc_compressor_reset_tensor(c, tensor_id);
        rc = gc_compressor_encode(c, tensor_id, g, n, &rng, &payload, q, err, err_len);
        for (size_t i = 0; i < n && rc == 0; i++) {
            double e = (double)q[i] - g[i];
            mse += e * e;
            sum[i] += q[i];
            sumsq[i] += (double)q[i] * q[i];
        }
    }
    /* Only tensor_id's state: resetting every tensor's, once per repeat, made `gcsim
     * compress` quadratic in the number of tensors (40,000 of one element: 94 s). */
    gc_compressor_reset_tensor(c, tensor_id);
    if (rc == 0) {
        double R = repeats, var = 0, sqb = 0, sqg = 0;
        for (size_t i = 0; i < n; i++) {
            double mean = sum[i] / R, d = mean - g[i];
            sqb += d * d;
            sqg += (double)g[i] * g[i];
            double v = (sumsq[i] - R * mean * mean) / (R - 1);
            var += v > 0 ? v : 0;
        }
        out->repeats = repeats;
        out->mse = mse / R;
        out->variance = var;
        out->sq_bias = sqb;
        out->sq_g = sqg;
        double bound;
        out->bound = gc_compressor_variance_bound(c, g, n, &bound) ? bound : NAN;
        derive_bias(out);
    }
    gc_bytes_free(&payload);
    free(sum), free(sumsq), free(q);
    return rc;
}

void gc_bias_init(gc_bias_metrics *t)
{
    memset(t, 0, sizeof *t);
    derive_bias(t);
}

void gc_bias_add(gc_bias_metrics *t, const gc_bias_metrics *m)
{
    t->repeats = m->repeats;
    t->mse += m->mse;
    t->variance += m->variance;
    t->sq_bias += m->sq_bias;
    t->sq_g += m->sq_g;
    t->bound += m->bound; /* NaN (no bound) in any tensor makes the total NaN */
    derive_bias(t);
}
