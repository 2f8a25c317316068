/* Accuracy proxies on hand-computed cases, totals, degenerate tensors, level utilization,
 * and bias/variance on compressors with known answers. */
#include <math.h>

#include "../check.h"
#include "metrics.h"
#include "tutil.h"

int main(void)
{
    /* g = (3, 4, 0, 0), q = (3, 0, 0, 0), 10 payload bytes:
     * ||q - g||^2 = 16, ||g||^2 = 25 -> 0.64; cosine = 9 / (5 * 3) = 0.6; density 1/4;
     * bits per element 80 / 4 = 20; ratio vs fp32 16 / 10 = 1.6, vs fp16 8 / 10 = 0.8 */
    float g[4] = {3, 4, 0, 0}, q[4] = {3, 0, 0, 0};
    gc_tensor_metrics m, t;
    CHECK(gc_metrics_tensor(NULL, g, q, 4, 10, &m) == 0);
    CHECK_REL(m.norm_error, 0.64, 1e-12);
    CHECK_REL(m.cosine, 0.6, 1e-12);
    CHECK_REL(m.density, 0.25, 1e-12);
    CHECK_REL(m.bits_per_element, 20, 1e-12);
    CHECK_REL(m.ratio_fp32, 1.6, 1e-12);
    CHECK_REL(m.ratio_fp16, 0.8, 1e-12);
    CHECK(isnan(m.level_utilization));

    /* total of that tensor and g2 = (0, 0, 1, 0), q2 = (0, 0, 1, 0) with 6 bytes:
     * errors 16 + 0, norms 25 + 1 -> 16/26; dot 9 + 1 = 10, ||q||^2 = 9 + 1 = 10 ->
     * cosine 10 / sqrt(26 * 10); 2 non-zeros of 8; 16 bytes for 8 elements -> 16 bits */
    float g2[4] = {0, 0, 1, 0}, q2[4] = {0, 0, 1, 0};
    gc_tensor_metrics m2;
    CHECK(gc_metrics_tensor(NULL, g2, q2, 4, 6, &m2) == 0);
    CHECK(m2.norm_error == 0 && m2.cosine == 1);
    gc_metrics_init(&t);
    gc_metrics_add(&t, &m);
    gc_metrics_add(&t, &m2);
    CHECK(t.n == 8 && t.payload_bytes == 16);
    CHECK_REL(t.norm_error, 16.0 / 26.0, 1e-12);
    CHECK_REL(t.cosine, 10.0 / sqrt(260.0), 1e-12);
    CHECK_REL(t.density, 0.25, 1e-12);
    CHECK_REL(t.bits_per_element, 16, 1e-12);

    /* degenerate: zero gradient with zero reconstruction; empty tensor */
    float z[3] = {0, 0, 0};
    CHECK(gc_metrics_tensor(NULL, z, z, 3, 5, &m) == 0);
    CHECK(m.norm_error == 0 && m.cosine == 1 && m.density == 0);
    CHECK(gc_metrics_tensor(NULL, z, z, 0, 2, &m) == 0);
    CHECK(m.bits_per_element == 0 && m.density == 0);
    float one[3] = {0, 1, 0};
    CHECK(gc_metrics_tensor(NULL, z, one, 3, 5, &m) == 0);
    CHECK(isinf(m.norm_error) && m.cosine == 0);

    /* level utilization, terngrad (3 levels) in buckets of 4:
     * bucket 1 {1, -1, 0, 0} uses 3 of 3, bucket 2 {0, 0, 0, 0} uses 1 of 3 -> (1 + 1/3)/2 */
    gc_compressor *c = make("terngrad:bucket=4");
    float g8[8] = {1, -1, 0, 0, 0, 0, 0, 0}, q8[8] = {1, -1, 0, 0, 0, 0, 0, 0};
    CHECK(gc_compressor_levels(c) == 3);
    CHECK(gc_metrics_tensor(c, g8, q8, 8, 10, &m) == 0);
    CHECK_REL(m.level_utilization, 2.0 / 3.0, 1e-12);
    gc_compressor_free(c);
    c = make("qsgd:s=3");
    CHECK(gc_compressor_levels(c) == 7);
    gc_compressor_free(c);

    /* bias and variance: fp32 is exact; fp16 deterministic (variance 0, bias > 0) */
    size_t n = 1000;
    float *gv = falloc(n);
    fill_grad(gv, n, 77);
    char err[256];
    gc_bias_metrics b, tb;
    c = make("none");
    CHECK(gc_metrics_bias(c, 0, gv, n, 4, 1, &b, err, sizeof err) == 0);
    CHECK(b.bias == 0 && b.mse == 0 && b.variance == 0 && isnan(b.bound));
    gc_compressor_free(c);
    c = make("fp16");
    CHECK(gc_metrics_bias(c, 0, gv, n, 4, 1, &b, err, sizeof err) == 0);
    CHECK(b.bias > 0 && b.bias < 1e-3 && b.variance == 0);
    gc_compressor_free(c);
    /* QSGD: for an unbiased quantizer variance ~ mse, and mse below the bound */
    c = make("qsgd");
    CHECK(gc_metrics_bias(c, 0, gv, n, 400, 1, &b, err, sizeof err) == 0);
    CHECK_REL(b.variance, b.mse, 0.1);
    CHECK(b.bound_ratio > 0 && b.bound_ratio < 1);
    gc_bias_init(&tb);
    gc_bias_add(&tb, &b);
    gc_bias_add(&tb, &b);
    CHECK_REL(tb.mse, 2 * b.mse, 1e-12);
    CHECK_REL(tb.bias, b.bias, 1e-12); /* same tensor twice: same relative bias */
    CHECK_REL(tb.bound_ratio, b.bound_ratio, 1e-12);
    CHECK(gc_metrics_bias(c, 0, gv, n, 1, 1, &b, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "at least 2");
    gc_compressor_free(c);
    free(gv);
    CHECK_DONE();
}
