/*
 * traces/stats.c: per-tensor statistics (definitions in traces.h). Two passes in double
 * precision: the mean first, then central moments, which stays accurate for gradients
 * whose mean is small against their spread.
 */
#include <math.h>

#include "traces.h"

void gc_trace_stats_compute(const float *x, size_t n, gc_trace_stats *out)
{
    gc_trace_stats s = {0};
    s.n = n;
    if (n == 0) {
        s.kurtosis = NAN;
        *out = s;
        return;
    }
    double sum = 0, max_abs = 0;
    size_t zeros = 0;
    for (size_t i = 0; i < n; i++) {
        double v = x[i];
        sum += v;
        if (fabs(v) > max_abs)
            max_abs = fabs(v);
        zeros += v == 0;
    }
    double mean = sum / (double)n;
    double m2 = 0, m4 = 0, sq = 0;
    double near_limit = GC_TRACE_NEAR_ZERO_REL * max_abs;
    size_t near = 0;
    for (size_t i = 0; i < n; i++) {
        double v = x[i];
        double d = v - mean, d2 = d * d;
        m2 += d2;
        m4 += d2 * d2;
        sq += v * v;
        near += fabs(v) <= near_limit;
    }
    m2 /= (double)n;
    m4 /= (double)n;
    s.mean = mean;
    s.std = sqrt(m2);
    s.max_abs = max_abs;
    s.rms = sqrt(sq / (double)n);
    s.kurtosis = m2 > 0 ? m4 / (m2 * m2) : NAN;
    s.near_zero_fraction = (double)near / (double)n;
    s.zero_fraction = (double)zeros / (double)n;
    *out = s;
}
