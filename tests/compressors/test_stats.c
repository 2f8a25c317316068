/* Statistical and optimality properties: unbiasedness over many seeds (terngrad without
 * clipping, qsgd, orq, linear, randomk) with a stated tolerance, QSGD's variance bound, ORQ's
 * optimality condition (Eq. 12) for its levels, BinGrad-pb's Eq. 15 and BinGrad-b's Eq. 17. */
#include <math.h>

#include "../check.h"
#include "metrics.h"
#include "tutil.h"

/* Unbiasedness: for an unbiased Q, mean_r Q_r(g) - g has expected squared norm mse / R
 * (the variance of a mean of R independent draws). With n = 256 roughly independent
 * coordinates, ||mean - g||^2 / (mse / R) concentrates at 1 with a relative spread of about
 * sqrt(2/256) = 0.09; the tolerance 1.5 is more than 5 spreads. A biased compressor lands
 * orders of magnitude above it (checked below, so the test can fail). */
static double bias_ratio(const char *spec, const float *g, size_t n, int R)
{
    gc_compressor *c = make(spec);
    gc_bias_metrics b;
    char err[256];
    CHECK(gc_metrics_bias(c, 0, g, n, R, 1234, &b, err, sizeof err) == 0);
    gc_compressor_free(c);
    return b.sq_bias / (b.mse / R);
}

static void check_unbiased(void)
{
    size_t n = 256;
    float *g = falloc(n);
    fill_grad(g, n, 11);
    g[17] = 0.02f; /* an outlier, so that TernGrad's scaler is not typical */
    static const char *const unbiased[] = {
        "terngrad:clip=0", "terngrad:clip=0,bucket=64", "qsgd", "qsgd:s=2,norm=linf",
        "qsgd:s=1,bucket=64", "orq", "orq:s=5", "orq:s=9,bucket=100", "linear:s=5",
        "randomk:ratio=0.1",
    };
    for (size_t i = 0; i < sizeof unbiased / sizeof *unbiased; i++) {
        double r = bias_ratio(unbiased[i], g, n, 4000);
        if (!(r < 1.5)) {
            fprintf(stderr, "%s: ||mean - g||^2 is %.2f times its unbiased expectation\n",
                    unbiased[i], r);
            CHECK(0);
        }
    }
    /* the test detects bias: clipping, deterministic binarization, sign */
    static const char *const biased[] = {"terngrad", "bingrad-b", "signsgd", "bingrad-pb"};
    for (size_t i = 0; i < sizeof biased / sizeof *biased; i++) {
        double r = bias_ratio(biased[i], g, n, 4000);
        if (!(r > 10)) {
            fprintf(stderr, "%s: bias ratio %.2f not detected\n", biased[i], r);
            CHECK(0);
        }
    }
    free(g);
}

static void check_variance_bound(void)
{
    size_t n = 2048;
    float *g = falloc(n);
    fill_grad(g, n, 12);
    static const char *const specs[] = {"qsgd", "qsgd:s=1", "qsgd:s=8,norm=linf", "ecq"};
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        gc_compressor *c = make(specs[i]);
        gc_bias_metrics b;
        char err[256];
        CHECK(gc_metrics_bias(c, 0, g, n, 200, 99, &b, err, sizeof err) == 0);
        /* E||Q(g)-g||^2 <= bound; 200 draws estimate the mean within a few percent */
        CHECK(isfinite(b.bound) && b.bound > 0);
        CHECK(b.bound_ratio > 0 && b.bound_ratio <= 1.0);
        gc_compressor_free(c);
    }
    free(g);
}

/* Levels of bucket k from an ORQ payload: header (1 + uleb n), then s floats per bucket. */
static void read_levels(const gc_bytes *p, size_t n, int s, size_t k, double *b)
{
    size_t h = 1 + (n < 128 ? 1 : n < 16384 ? 2 : 3);
    for (int j = 0; j < s; j++) {
        float f;
        memcpy(&f, p->data + h + 4 * ((size_t)s * k + (size_t)j), 4);
        b[j] = f;
    }
}

/* Eq. 12 between levels a < c for the level bm solved on [a, c]:
 * |{bm <= v <= c}| = sum_{a <= v <= c} (v - a) / (c - a) = R. On discrete data the level is a
 * data value and the count an integer: bm must give the count closest to R over all data
 * values in [a, c] (brute force here), and without ties at bm that count is within 0.5. */
static double count_from(const float *x, size_t m, double b, double c)
{
    double k = 0;
    for (size_t i = 0; i < m; i++)
        k += x[i] >= b && x[i] <= c;
    return k;
}

static void check_eq12(const float *x, size_t m, double a, double bm, double c)
{
    double R = 0, ties = 0;
    for (size_t i = 0; i < m; i++) {
        if (x[i] >= a && x[i] <= c)
            R += (x[i] - a) / (c - a);
        ties += x[i] == bm;
    }
    double ours = fabs(count_from(x, m, bm, c) - R), best = INFINITY;
    for (size_t i = 0; i < m; i++)
        if (x[i] >= a && x[i] <= c)
            best = fmin(best, fabs(count_from(x, m, x[i], c) - R));
    if (!(ours <= best + 1e-9) || (ties == 1 && !(ours <= 0.5 + 1e-9))) {
        fprintf(stderr, "Eq. 12: |count - R| = %g, best %g, R = %g\n", ours, best, R);
        CHECK(0);
    }
}

static void check_levels_rec(const float *x, size_t m, const double *b, int l, int r)
{
    if (r - l < 2)
        return;
    int mid = (l + r) / 2;
    check_eq12(x, m, b[l], b[mid], b[r]);
    check_levels_rec(x, m, b, l, mid);
    check_levels_rec(x, m, b, mid, r);
}

static void check_orq(void)
{
    size_t n = 1024; /* two buckets of 512 */
    float *g = falloc(n);
    fill_grad(g, n, 13);
    for (int s = 3; s <= 17; s = 2 * s - 1) {
        char spec[64];
        snprintf(spec, sizeof spec, "orq:s=%d", s);
        gc_compressor *c = make(spec);
        gc_rng rng;
        gc_rng_seed(&rng, 1);
        gc_bytes p = {0};
        char err[256];
        CHECK(gc_compressor_encode(c, 0, g, n, &rng, &p, NULL, err, sizeof err) == 0);
        for (size_t k = 0; k < 2; k++) {
            double b[17];
            read_levels(&p, n, s, k, b);
            const float *x = g + 512 * k;
            float mn = x[0], mx = x[0];
            for (size_t i = 0; i < 512; i++) {
                mn = x[i] < mn ? x[i] : mn;
                mx = x[i] > mx ? x[i] : mx;
            }
            /* Corollary 1.1: the extreme levels are the extreme values */
            CHECK(b[0] == mn && b[s - 1] == mx);
            for (int j = 1; j < s; j++)
                CHECK(b[j] >= b[j - 1]);
            /* Algorithm 1: each level solves Eq. 12 on the interval it was chosen in; for s = 3
             * that interval is bounded by its actual neighbours */
            check_levels_rec(x, 512, b, 0, s - 1);
        }
        gc_bytes_free(&p);
        gc_compressor_free(c);
    }
    /* ORQ's levels beat QSGD's evenly spaced ones at equal level count (the paper's claim,
     * Section 5.1.2): ORQ-9 vs QSGD with 9 levels (s = 4), same bucket */
    gc_compressor *o = make("orq:s=9"), *qs = make("qsgd:s=4,norm=linf");
    gc_bias_metrics bo, bq;
    char err[256];
    CHECK(gc_metrics_bias(o, 0, g, n, 50, 5, &bo, err, sizeof err) == 0);
    CHECK(gc_metrics_bias(qs, 0, g, n, 50, 5, &bq, err, sizeof err) == 0);
    CHECK(bo.mse < bq.mse);
    gc_compressor_free(o);
    gc_compressor_free(qs);
    free(g);
}

static void check_bingrad(void)
{
    size_t n = 512;
    float *g = falloc(n);
    char err[256];
    for (int shape = 0; shape < 2; shape++) {
        fill_grad(g, n, 14 + (uint64_t)shape);
        if (shape) /* skewed: shift and square some values so that b0 != mean */
            for (size_t i = 0; i < n; i++)
                g[i] = g[i] > 0 ? g[i] * g[i] * 500 : g[i] * 0.5f + 1e-4f;
        gc_rng rng;
        gc_rng_seed(&rng, 3);
        gc_bytes p = {0};

        /* Eq. 15: b1 * n = sum_{|v| >= b1} |v|, to float rounding of b1 (relative 1e-4 of the
         * sum; a data point within that distance of b1 would be needed to break it) */
        gc_compressor *c = make("bingrad-pb");
        CHECK(gc_compressor_encode(c, 0, g, n, &rng, &p, NULL, err, sizeof err) == 0);
        float b1f;
        memcpy(&b1f, p.data + 3, 4);
        double b1 = b1f, lhs = b1 * (double)n, rhs = 0, tot = 0;
        for (size_t i = 0; i < n; i++) {
            double a = fabs((double)g[i]);
            tot += a;
            if (a >= b1)
                rhs += a;
        }
        CHECK(b1 > 0);
        if (!(fabs(lhs - rhs) <= 1e-4 * tot)) {
            fprintf(stderr, "Eq. 15: b1 n = %g, sum above b1 = %g\n", lhs, rhs);
            CHECK(0);
        }
        gc_compressor_free(c);

        /* Eq. 17: b0 = (b-1 + b1)/2 and b-1, b1 the means below / at or above b0 */
        c = make("bingrad-b");
        CHECK(gc_compressor_encode(c, 0, g, n, &rng, &p, NULL, err, sizeof err) == 0);
        float lof, hif;
        memcpy(&lof, p.data + 3, 4);
        memcpy(&hif, p.data + 7, 4);
        float b0 = (lof + hif) / 2;
        double slo = 0, shi = 0, nlo = 0, nhi = 0;
        for (size_t i = 0; i < n; i++) {
            if (g[i] < b0) {
                slo += g[i];
                nlo++;
            } else {
                shi += g[i];
                nhi++;
            }
        }
        CHECK(nlo > 0 && nhi > 0);
        CHECK_REL(slo / nlo, lof, 1e-5);
        CHECK_REL(shi / nhi, hif, 1e-5);
        if (shape) { /* the fixed point is not the mean split for skewed data */
            double mean = (slo + shi) / (double)n;
            CHECK(fabs(mean - b0) > 1e-6);
        }
        gc_compressor_free(c);
        gc_bytes_free(&p);
    }
    free(g);
}

int main(void)
{
    check_unbiased();
    check_variance_bound();
    check_orq();
    check_bingrad();
    CHECK_DONE();
}
