/* Error feedback: ECQ-SGD's accumulated error follows Eq. 6 and its quantizer input Eq. 7
 * (checked bit for bit against plain QSGD on the hand-compensated gradient), and every
 * error-feedback scheme (ef+ wrapper, onebit, dgc, powersgd) makes the sum of sent values
 * track the sum of gradients, while the same compressor without feedback does not. */
#include <math.h>

#include "../check.h"
#include "tutil.h"

static void check_ecq(void)
{
    size_t n = 700; /* two buckets of 512 */
    float alpha = 0.3f, beta = 0.7f;
    gc_compressor *ecq = make("ecq:alpha=0.3,beta=0.7,s=2");
    gc_compressor *qsgd = make("qsgd:s=2");
    float *g = falloc(n), *h = falloc(n), *v = falloc(n), *q = falloc(n), *q2 = falloc(n);
    char err[256];
    gc_bytes pe = {0}, pq = {0};
    for (int t = 0; t < 6; t++) {
        fill_grad(g, n, 500 + (uint64_t)t);
        gc_rng r1, r2;
        gc_rng_seed(&r1, 40 + (uint64_t)t);
        gc_rng_seed(&r2, 40 + (uint64_t)t);
        /* Eq. 7: g~ = Q(g + alpha h), h from Eq. 6 kept by hand */
        for (size_t i = 0; i < n; i++)
            v[i] = g[i] + alpha * h[i];
        CHECK(gc_compressor_encode(ecq, 0, g, n, &r1, &pe, q, err, sizeof err) == 0);
        CHECK(gc_compressor_encode(qsgd, 0, v, n, &r2, &pq, q2, err, sizeof err) == 0);
        /* same bytes after the format id: ECQ quantized exactly g + alpha h */
        CHECK(pe.len == pq.len && memcmp(pe.data + 1, pq.data + 1, pe.len - 1) == 0);
        CHECK(memcmp(q, q2, n * sizeof *q) == 0);
        /* Eq. 6: h(t+1) = beta h(t) + (g(t) - g~(t)) */
        for (size_t i = 0; i < n; i++)
            h[i] = beta * h[i] + (g[i] - q[i]);
        gc_compressor_next_step(ecq);
    }
    /* with alpha = 0 it is QSGD and declared unbiased */
    gc_compressor *e0 = make("ecq:alpha=0");
    CHECK(gc_compressor_is_unbiased(e0));
    gc_compressor_free(e0);
    gc_compressor_free(ecq);
    gc_compressor_free(qsgd);
    gc_bytes_free(&pe);
    gc_bytes_free(&pq);
    free(g), free(h), free(v), free(q), free(q2);
}

/* ||sum_t Q_t - sum_t g_t|| / ||sum_t g_t|| after T steps of the same gradient g. With
 * feedback the residual e_T = sum g - sum Q stays bounded while sum g grows like T. */
static double tracking_error(const char *spec, int T)
{
    size_t n = 200;
    float *g = falloc(n), *q = falloc(n);
    double *sq = calloc(n, sizeof *sq), *sg = calloc(n, sizeof *sg);
    fill_grad(g, n, 31);
    for (size_t i = 0; i < n; i++) /* no zeros: every coordinate must be transmitted */
        g[i] = g[i] == 0 ? 3e-4f : g[i];
    gc_compressor *c = make(spec);
    gc_compressor_set_shape(c, 0, 10, 20, NULL, 0);
    char err[256];
    gc_rng rng;
    gc_rng_seed(&rng, 8);
    gc_bytes p = {0};
    for (int t = 0; t < T; t++) {
        CHECK(gc_compressor_encode(c, 0, g, n, &rng, &p, q, err, sizeof err) == 0);
        for (size_t i = 0; i < n; i++) {
            sq[i] += q[i];
            sg[i] += g[i];
        }
        gc_compressor_next_step(c);
    }
    double e = 0, s = 0;
    for (size_t i = 0; i < n; i++) {
        e += (sq[i] - sg[i]) * (sq[i] - sg[i]);
        s += sg[i] * sg[i];
    }
    gc_bytes_free(&p);
    gc_compressor_free(c);
    free(g), free(q), free(sq), free(sg);
    return sqrt(e / s);
}

static void check_tracking(void)
{
    /* tolerance 0.05 after 400 steps: the bounded residual is a few steps' worth of g */
    static const char *const with_ef[] = {
        "ef+topk:ratio=0.05", "ef+signsgd", "ef+bingrad-b", "ef+threshold:thr=0.002",
        "onebit:bucket=64", "dgc:ratio=0.05,momentum=0,sample=0", "powersgd:rank=1",
        "ef+qsgd:s=8,norm=linf",
    };
    for (size_t i = 0; i < sizeof with_ef / sizeof *with_ef; i++) {
        double e = tracking_error(with_ef[i], 400);
        if (!(e < 0.05)) {
            fprintf(stderr, "%s: sum of sent values is %.3f off the sum of gradients\n",
                    with_ef[i], e);
            CHECK(0);
        }
    }
    /* without feedback the same compressors drift */
    static const char *const without[] = {"topk:ratio=0.05", "signsgd", "bingrad-b",
                                          "threshold:thr=0.002"};
    for (size_t i = 0; i < sizeof without / sizeof *without; i++) {
        double e = tracking_error(without[i], 400);
        if (!(e > 0.2)) {
            fprintf(stderr, "%s: no feedback yet tracking %.3f\n", without[i], e);
            CHECK(0);
        }
    }
    /* the residual is the exact difference: sum Q + e = sum g, checked through a reset-free
     * second compressor fed the residual as a gradient would be pointless; instead the
     * ef+ state is per tensor: two tensors do not mix */
    gc_compressor *c = make("ef+topk:ratio=0.5");
    float a[2] = {1, 0.5f}, b2[2] = {0.1f, 0.2f}, q[2];
    char err[256];
    gc_bytes p = {0};
    CHECK(gc_compressor_encode(c, 0, a, 2, NULL, &p, q, err, sizeof err) == 0);
    CHECK(q[0] == 1 && q[1] == 0); /* residual of tensor 0: {0, 0.5} */
    CHECK(gc_compressor_encode(c, 1, b2, 2, NULL, &p, q, err, sizeof err) == 0);
    CHECK(q[0] == 0 && q[1] == 0.2f); /* tensor 1 unaffected by tensor 0's residual */
    CHECK(gc_compressor_encode(c, 0, b2, 2, NULL, &p, q, err, sizeof err) == 0);
    CHECK(q[0] == 0 && q[1] == 0.7f); /* 0.5 + 0.2: the residual came back */
    gc_compressor_free(c);
    gc_bytes_free(&p);
}

int main(void)
{
    check_ecq();
    check_tracking();
    CHECK_DONE();
}
