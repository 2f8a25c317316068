/* Per-size-band busbw factors fitted to a log's residuals; see busbw_bands.h. */
#include "busbw_bands.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "platform_busbw_correction.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) /* sorts v */
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* log(measured / modelled busbw) of row i */
static double log_ratio(const double *rel_error, int i)
{
    return -log1p(rel_error[i]);
}

/* rows a..b (inclusive): the median log ratio and the sum of |deviations| from it */
static void segment(const double *rel_error, int a, int b, double *tmp, double *med,
                    double *cost)
{
    int m = b - a + 1;
    for (int i = 0; i < m; i++)
        tmp[i] = log_ratio(rel_error, a + i);
    *med = median(tmp, m);
    double s = 0;
    for (int i = 0; i < m; i++)
        s += fabs(log_ratio(rel_error, a + i) - *med);
    *cost = s;
}

double calib_bands_factor(const calib_bands *b, double bytes)
{
    for (int k = 0; k < b->n_bands - 1; k++)
        if (bytes < b->below_bytes[k])
            return b->factor[k];
    return b->factor[b->n_bands - 1];
}

void calib_bands_medians(const calib_bands *b, const double *size_bytes,
                         const double *rel_error, const int *regime, int n, double med[2])
{
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    for (int k = 0; k < 2; k++) {
        int m = 0;
        for (int i = 0; v && i < n; i++)
            if (regime[i] == k)
                v[m++] = fabs((1 + rel_error[i]) * calib_bands_factor(b, size_bytes[i]) - 1);
        med[k] = m ? median(v, m) : 0;
    }
    free(v);
}

double calib_bands_worst(const calib_bands *b, const double *size_bytes,
                         const double *rel_error, const int *regime, int n)
{
    double med[2];
    calib_bands_medians(b, size_bytes, rel_error, regime, n, med);
    double worst = fmax(med[0], med[1]);
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    static const double lo[4] = {0, CALIB_SIZE_BAND_MID_BYTES, CALIB_SIZE_BAND_LARGE_BYTES, 0};
    static const double hi[4] = {CALIB_SIZE_BAND_MID_BYTES, CALIB_SIZE_BAND_LARGE_BYTES,
                                 INFINITY, INFINITY};
    for (int g = 0; v && g < 4; g++) { /* three size bands, then all rows */
        int m = 0;
        for (int i = 0; i < n; i++)
            if (size_bytes[i] >= lo[g] && size_bytes[i] < hi[g])
                v[m++] = fabs((1 + rel_error[i]) * calib_bands_factor(b, size_bytes[i]) - 1);
        if (m)
            worst = fmax(worst, median(v, m));
    }
    free(v);
    return worst;
}

static double clamp_factor(double f)
{
    return fmin(GCSIM_BUSBW_FACTOR_MAX, fmax(GCSIM_BUSBW_FACTOR_MIN, f));
}

int calib_bands_fit(const double *size_bytes, const double *rel_error, const int *regime,
                    int n, double target, calib_bands *out)
{
    if (n < 1)
        return -1;
    int kmax = n < GCSIM_BUSBW_MAX_BANDS ? n : GCSIM_BUSBW_MAX_BANDS;
    size_t nn = (size_t)n * (size_t)n;
    double *cost = malloc(nn * sizeof *cost), *med = malloc(nn * sizeof *med);
    double *tmp = malloc((size_t)n * sizeof *tmp);
    double *dp = malloc((size_t)(kmax + 1) * (size_t)n * sizeof *dp);
    int *from = malloc((size_t)(kmax + 1) * (size_t)n * sizeof *from);
    int rc = -1;
    if (!cost || !med || !tmp || !dp || !from)
        goto out;
    for (int a = 0; a < n; a++)
        for (int b = a; b < n; b++)
            segment(rel_error, a, b, tmp, &med[a * n + b], &cost[a * n + b]);
    /* dp[k][j]: the least cost of rows 0..j in k bands; from[k][j]: the last band's start */
    for (int j = 0; j < n; j++) {
        dp[1 * n + j] = cost[0 * n + j];
        from[1 * n + j] = 0;
    }
    calib_bands best = {0};
    double best_worse = INFINITY;
    for (int k = 1; k <= kmax; k++) {
        if (k > 1)
            for (int j = 0; j < n; j++) {
                dp[k * n + j] = INFINITY;
                from[k * n + j] = -1;
                for (int i = k - 1; i <= j; i++) { /* the last band is rows i..j */
                    double c = dp[(k - 1) * n + i - 1] + cost[i * n + j];
                    if (c < dp[k * n + j]) {
                        dp[k * n + j] = c;
                        from[k * n + j] = i;
                    }
                }
            }
        calib_bands b = {.n_bands = k};
        int j = n - 1;
        for (int q = k; q >= 1; q--) { /* back from the last band */
            int i = from[q * n + j];
            b.factor[q - 1] = clamp_factor(exp(med[i * n + j]));
            if (q == k)
                b.below_bytes[q - 1] = INFINITY;
            if (q > 1) /* the edge between rows i-1 and i */
                b.below_bytes[q - 2] = fmax(size_bytes[i - 1] + 1,
                                            floor(sqrt(size_bytes[i - 1] * size_bytes[i])));
            j = i - 1;
        }
        double worse = calib_bands_worst(&b, size_bytes, rel_error, regime, n);
        if (worse < best_worse) {
            best_worse = worse;
            best = b;
        }
        if (worse <= target)
            break;
    }
    *out = best;
    rc = 0;
out:
    free(cost);
    free(med);
    free(tmp);
    free(dp);
    free(from);
    return rc;
}
