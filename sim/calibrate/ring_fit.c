/* Weighted least squares of the ring all-reduce model; see ring_fit.h. */
#include "ring_fit.h"

#include <math.h>
#include <string.h>

double ring_allreduce_time_s(int gpus, double size_bytes, double alpha_s, double B_Bps)
{
    double steps = 2.0 * (gpus - 1);
    return steps * alpha_s + steps / gpus * size_bytes / B_Bps;
}

/* Sums of the scaled regressors: with u = 2(n-1)/t and v = 2(n-1)/n S/t, the relative
 * error of row i is alpha u_i + (1/B) v_i - 1. */
typedef struct {
    double uu, uv, vv, u, v;
    int rows;
    double min_size, max_size;
} sums;

static void accumulate(int gpus, const double *size, const double *time, int n, double min_size,
                       sums *s)
{
    memset(s, 0, sizeof *s);
    double steps = 2.0 * (gpus - 1);
    for (int i = 0; i < n; i++) {
        if (size[i] < min_size)
            continue;
        double u = steps / time[i], v = steps / gpus * size[i] / time[i];
        s->uu += u * u;
        s->uv += u * v;
        s->vv += v * v;
        s->u += u;
        s->v += v;
        if (s->rows == 0 || size[i] < s->min_size)
            s->min_size = size[i];
        if (s->rows == 0 || size[i] > s->max_size)
            s->max_size = size[i];
        s->rows++;
    }
}

int ring_fit_allreduce(const char *origin, int gpus, const double *size_bytes,
                       const double *time_s, int n_rows, double min_size_bytes,
                       double alpha_if_one_size_s, ring_fit *out, gcsim_error *err)
{
    memset(out, 0, sizeof *out);
    if (gpus < 2)
        return gcsim_fail(err, "%s: %d GPU: an all-reduce needs at least 2", origin, gpus);
    sums s;
    accumulate(gpus, size_bytes, time_s, n_rows, min_size_bytes, &s);
    if (s.rows == 0)
        return gcsim_fail(err, "%s: no row with size >= %.0f bytes (--min-size) to fit", origin,
                          min_size_bytes);
    double alpha, inv_B;
    if (s.max_size > s.min_size) {
        /* Normal equations of min sum (alpha u + b v - 1)^2, columns scaled to unit norm so
         * that the 2x2 system is well conditioned whatever the units. */
        double su = sqrt(s.uu), sv = sqrt(s.vv);
        double a11 = 1.0, a12 = s.uv / (su * sv), a22 = 1.0;
        double r1 = s.u / su, r2 = s.v / sv;
        double det = a11 * a22 - a12 * a12;
        alpha = (r1 * a22 - a12 * r2) / det / su;
        inv_B = (a11 * r2 - a12 * r1) / det / sv;
        out->alpha_fitted = true;
        out->alpha_unclamped_s = alpha;
        if (alpha < 0.0) {
            alpha = 0.0;
            inv_B = s.v / s.vv;
            out->alpha_clamped = true;
        }
    } else {
        alpha = alpha_if_one_size_s;
        inv_B = (s.v - alpha * s.uv) / s.vv;
    }
    if (!(inv_B > 0.0) || !isfinite(inv_B))
        return gcsim_fail(err, "%s: the times do not grow with size over the rows used, so no "
                               "positive bandwidth fits t = 2(n-1) alpha + 2(n-1)/n S / B",
                          origin);
    out->alpha_s = alpha;
    out->B_Bps = 1.0 / inv_B;
    out->rows_used = s.rows;
    double sq = 0.0;
    for (int i = 0; i < n_rows; i++) {
        if (size_bytes[i] < min_size_bytes)
            continue;
        double fit = ring_allreduce_time_s(gpus, size_bytes[i], out->alpha_s, out->B_Bps);
        double rel = fabs(fit - time_s[i]) / time_s[i];
        if (rel > out->max_abs_rel_error)
            out->max_abs_rel_error = rel;
        sq += rel * rel;
    }
    out->rms_rel_error = sqrt(sq / s.rows);
    return 0;
}
