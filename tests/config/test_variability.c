/* Variable compute (sim/config/variability.h): the expected maximum and quantiles of the
 * order statistics against closed forms, the families' mean and CV, the seeded draws. */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "variability.h"

static double exp_sf(double x, const void *ctx)
{
    double lambda = *(const double *)ctx;
    return x <= 0 ? 1.0 : exp(-lambda * x);
}

static double uniform_sf(double x, const void *ctx)
{
    (void)ctx;
    return x <= 0 ? 1.0 : x >= 1 ? 0.0 : 1.0 - x;
}

static double harmonic(int n)
{
    double h = 0;
    for (int k = n; k >= 1; k--)
        h += 1.0 / k;
    return h;
}

int main(void)
{
    gcsim_error err = {0};
    /* Exponentials of rate lambda: E[max of N] = H_N / lambda. */
    double lambda = 2.5;
    gcsim_var_dist ex = {.sf = exp_sf, .ctx = &lambda};
    int ns[] = {1, 2, 8, 64, 1024, 16384, 1000000};
    for (int k = 0; k < 7; k++) {
        double one = 1.0, n = ns[k], mean = 0;
        CHECK(gcsim_max_mean(&ex, &one, &n, 1, &mean, &err) == 0);
        CHECK_REL(mean, harmonic(ns[k]) / lambda, 1e-7);
        /* median of the max: F^N = 1/2, x = -ln(1 - 2^(-1/N)) / lambda */
        CHECK_REL(gcsim_max_quantile(&ex, &one, &n, 1, 0.5),
                  -log(-expm1(-log(2.0) / ns[k])) / lambda, 1e-9);
    }
    /* Uniform(0, 1): E[max of N] = N / (N + 1); the p-quantile is p^(1/N). */
    gcsim_var_dist un = {.sf = uniform_sf, .ctx = NULL};
    for (int k = 0; k < 7; k++) {
        double one = 1.0, n = ns[k], mean = 0;
        CHECK(gcsim_max_mean(&un, &one, &n, 1, &mean, &err) == 0);
        CHECK_REL(mean, n / (n + 1.0), 1e-7);
        CHECK_REL(gcsim_max_quantile(&un, &one, &n, 1, 0.99), pow(0.99, 1.0 / n), 1e-9);
    }
    /* Groups: one uniform on (0, 1) and one on (0, 2) (scale 2): the max's CDF is
     * x * x/2 on [0, 1], x/2 on [1, 2]; E = int_0^1 (1 - x^2/2) + int_1^2 (1 - x/2)
     * = 5/6 + 1/4 = 13/12. */
    {
        double scale[2] = {1, 2}, count[2] = {1, 1}, mean = 0;
        CHECK(gcsim_max_mean(&un, scale, count, 2, &mean, &err) == 0);
        CHECK_REL(mean, 13.0 / 12.0, 1e-7);
    }
    /* Each family has mean 1 and the stated CV: E[max of 1] = 1; sampled CV. */
    for (int f = 0; f < GCSIM_VAR_FAMILIES; f++) {
        gcsim_variability v = {.on = true, .family = (gcsim_var_family)f, .cv = 0.1,
                               .slow_rank = -1, .seed = 7};
        double m1 = 0;
        CHECK(gcsim_var_max_mean(&v, 1, &m1, &err) == 0);
        CHECK_REL(m1, 1.0, 1e-6);
        enum { N = 200000 };
        double *x = malloc(sizeof(double) * N), s = 0, s2 = 0;
        CHECK(gcsim_var_draw(&v, N, 0, x) == 0);
        for (int g = 0; g < N; g++)
            s += x[g], s2 += x[g] * x[g];
        double mean = s / N, sd = sqrt(s2 / N - mean * mean);
        CHECK_REL(mean, 1.0, 0.003);
        CHECK_REL(sd / mean, 0.1, 0.05); /* Pareto's sampled CV converges slowly */
        /* the sample's max-of-1024 blocks average to the expected maximum */
        double em = 0, sum = 0;
        CHECK(gcsim_var_max_mean(&v, 1024, &em, &err) == 0);
        int blocks = N / 1024;
        for (int b = 0; b < blocks; b++) {
            double m = 0;
            for (int g = 0; g < 1024; g++)
                m = fmax(m, x[b * 1024 + g]);
            sum += m;
        }
        CHECK_REL(sum / blocks, em, f == GCSIM_VAR_PARETO ? 0.03 : 0.01);
        free(x);
    }
    /* Seeded: the same seed and iteration give the same factors, another iteration others;
     * the slow set persists across iterations; the named rank carries its factor. */
    {
        gcsim_variability v = {.on = true, .family = GCSIM_VAR_LOGNORMAL, .cv = 0.05,
                               .slow_fraction = 0.25, .slow_factor = 3.0, .slow_rank = 5,
                               .slow_rank_factor = 2.0, .seed = 42};
        CHECK(gcsim_var_slow_count(&v, 17) == 4); /* round(0.25 x 16) */
        double a[17], b[17], c[17];
        CHECK(gcsim_var_draw(&v, 17, 3, a) == 0);
        CHECK(gcsim_var_draw(&v, 17, 3, b) == 0);
        CHECK(gcsim_var_draw(&v, 17, 4, c) == 0);
        int same = 1, differ = 0, slow_a = 0, slow_c = 0, both = 1;
        for (int g = 0; g < 17; g++) {
            same = same && a[g] == b[g];
            differ += a[g] != c[g];
            slow_a += a[g] > 2.0 && g != 5;
            slow_c += c[g] > 2.0 && g != 5;
            both = both && (g == 5 || (a[g] > 2.0) == (c[g] > 2.0));
        }
        CHECK(same);
        CHECK(differ == 17);
        CHECK(slow_a == 4 && slow_c == 4 && both);
        CHECK(a[5] > 1.5 && a[5] < 2.5);
        /* no spread: the fixed factors' max */
        v.cv = 0;
        double m = 0;
        CHECK(gcsim_var_max_mean(&v, 17, &m, &err) == 0);
        CHECK(m == 3.0);
        CHECK(gcsim_var_max_quantile(&v, 17, 0.99) == 3.0);
    }
    CHECK_DONE();
}
