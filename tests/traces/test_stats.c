/* Per-tensor statistics against hand-computed values. */
#include <stdlib.h>

#include "../check.h"
#include "traces.h"

int main(void)
{
    gc_trace_stats s;
    /* {0, 0, 0, 4}: mean 1; deviations -1,-1,-1,3; m2 = (1+1+1+9)/4 = 3,
     * m4 = (1+1+1+81)/4 = 21, kurtosis 21/9; rms = sqrt(16/4) = 2; near-zero limit
     * 1e-3 * 4 = 0.004 catches the three zeros. */
    float a[4] = {0, 0, 0, 4};
    gc_trace_stats_compute(a, 4, &s);
    CHECK(s.n == 4);
    CHECK_REL(s.mean, 1.0, 1e-15);
    CHECK_REL(s.std, sqrt(3.0), 1e-15);
    CHECK_REL(s.kurtosis, 21.0 / 9.0, 1e-15);
    CHECK_REL(s.max_abs, 4.0, 0);
    CHECK_REL(s.rms, 2.0, 1e-15);
    CHECK_REL(s.near_zero_fraction, 0.75, 0);
    CHECK_REL(s.zero_fraction, 0.75, 0);
    /* {1, -1, 1, -1}: mean 0, std 1, kurtosis 1, nothing near zero. */
    float b[4] = {1, -1, 1, -1};
    gc_trace_stats_compute(b, 4, &s);
    CHECK(s.mean == 0);
    CHECK_REL(s.std, 1.0, 1e-15);
    CHECK_REL(s.kurtosis, 1.0, 1e-15);
    CHECK(s.near_zero_fraction == 0);
    /* The near-zero limit is inclusive: 0.001 * 10 = 0.01; 0.01f rounds to a float just
     * above 0.01, so use 0.0078125 (exact) and 0.5 against max 10. */
    float c[3] = {0.0078125f, 0.5f, -10.0f};
    gc_trace_stats_compute(c, 3, &s);
    CHECK_REL(s.near_zero_fraction, 1.0 / 3.0, 1e-15);
    CHECK(s.zero_fraction == 0);
    /* Evenly spaced points on [-1, 1): a uniform distribution, kurtosis 9/5; with
     * n = 200000 the discretisation moves it by O(1/n^2). */
    size_t n = 200000;
    float *u = malloc(n * sizeof *u);
    for (size_t i = 0; i < n; i++)
        u[i] = (float)(-1.0 + 2.0 * ((double)i + 0.5) / (double)n);
    gc_trace_stats_compute(u, n, &s);
    CHECK(fabs(s.mean) < 1e-7);
    CHECK_REL(s.std, 1.0 / sqrt(3.0), 1e-6);
    CHECK_REL(s.kurtosis, 1.8, 1e-5);
    free(u);
    /* Constant and empty tensors: kurtosis undefined (NaN), max 0 makes everything
     * near zero. */
    float z[2] = {0, 0};
    gc_trace_stats_compute(z, 2, &s);
    CHECK(isnan(s.kurtosis));
    CHECK(s.near_zero_fraction == 1.0);
    gc_trace_stats_compute(NULL, 0, &s);
    CHECK(s.n == 0 && isnan(s.kurtosis));
    CHECK_DONE();
}
