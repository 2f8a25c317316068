/* The platform's own error minimised per regime; see platform_fit.h. */
#include "platform_fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double calib_median(double *v, int n)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int row_time(const gcsim_platform *p, const calib_fit_data *d, int i, double *t,
                    calib_cost *cost, gcsim_error *err)
{
    calib_cost c;
    if (calib_platform_op_time_s(p, d->gpus, d->op, d->size_bytes[i], d->collective, d->protocol,
                                 &c, err))
        return -1;
    if (cost)
        *cost = c;
    *t = c.time_s;
    return 0;
}

int calib_fit_errors(const gcsim_platform *p, const calib_fit_data *d, double *error,
                     calib_cost *cost, gcsim_error *err)
{
    for (int i = 0; i < d->n; i++) {
        double t;
        if (row_time(p, d, i, &t, cost ? &cost[i] : NULL, err))
            return -1;
        error[i] = d->time_s[i] / t - 1.0;
    }
    return 0;
}

void calib_classify(const double *busbw_Bps, const bool *use, int n, double ll_cap_Bps,
                    calib_regime *regime)
{
    double peak = 0;
    for (int i = 0; i < n; i++)
        if (use[i] && busbw_Bps[i] > peak)
            peak = busbw_Bps[i];
    for (int i = 0; i < n; i++) {
        bool above_ll = ll_cap_Bps > 0 && busbw_Bps[i] > ll_cap_Bps;
        regime[i] = busbw_Bps[i] >= CALIB_REGIME_SPLIT * peak || above_ll
                        ? CALIB_REGIME_BANDWIDTH
                        : CALIB_REGIME_LATENCY;
    }
}

/* Signed median error over the rows of `which` with the knob at v. */
static int median_at(gcsim_platform *p, const calib_fit_data *d, const bool *which,
                     calib_knob k, double v, double *median, double *scratch, gcsim_error *err)
{
    double keep = calib_knob_get(p, k);
    calib_knob_set(p, k, v);
    int m = 0, rc = 0;
    for (int i = 0; i < d->n && !rc; i++) {
        double t = 0;
        if (!which[i])
            continue;
        rc = row_time(p, d, i, &t, NULL, err);
        scratch[m++] = d->time_s[i] / t - 1.0;
    }
    calib_knob_set(p, k, keep);
    if (rc)
        return -1;
    *median = calib_median(scratch, m);
    return 0;
}

/* A zero signed median over `which` for knob k: the knob's log range [v0/range,
 * v0 range] is sampled at `points` values; of the sign changes between neighbours, the one
 * nearest v0 is bisected (the tuner's pick may change with the knob, so the median need
 * not be monotone in it); without one, the sample of the smallest |median| is kept and
 * *at_bound set. The error grows with a bandwidth (the platform gets faster) and falls
 * with a latency, but the search does not rely on it. */
static int fit_knob_in(gcsim_platform *p, const calib_fit_data *d, const bool *which,
                       calib_knob k, double range, int points, double *scratch,
                       bool *at_bound, gcsim_error *err)
{
    double v0 = calib_knob_get(p, k), l0 = log(v0), span = log(range);
    double prev_x = 0, prev_m = 0, best_x = l0, best_m = INFINITY;
    double lo = 0, hi = 0, m_lo = 0, best_dist = INFINITY;
    bool bracket = false;
    for (int j = 0; j < points; j++) {
        double x = l0 - span + 2.0 * span * j / (points - 1), m;
        if (median_at(p, d, which, k, exp(x), &m, scratch, err))
            return -1;
        /* ties (a knob that does not move this regime) go to the value nearest v0 */
        if (fabs(m) < best_m - 1e-12 ||
            (fabs(m) <= best_m + 1e-12 && fabs(x - l0) < fabs(best_x - l0))) {
            best_m = fmin(best_m, fabs(m));
            best_x = x;
        }
        if (j > 0 && ((prev_m < 0) != (m < 0) || m == 0)) {
            double dist = fabs(0.5 * (prev_x + x) - l0);
            if (dist < best_dist) {
                best_dist = dist;
                lo = prev_x, hi = x, m_lo = prev_m;
                bracket = true;
            }
        }
        prev_x = x, prev_m = m;
    }
    *at_bound = !bracket;
    if (!bracket) {
        calib_knob_set(p, k, exp(best_x));
        return 0;
    }
    for (int it = 0; it < CALIB_FIT_BISECTIONS; it++) {
        double mid = 0.5 * (lo + hi), m;
        if (median_at(p, d, which, k, exp(mid), &m, scratch, err))
            return -1;
        if ((m < 0) == (m_lo < 0) && m != 0)
            lo = mid, m_lo = m;
        else
            hi = mid;
    }
    calib_knob_set(p, k, exp(0.5 * (lo + hi)));
    return 0;
}

/* The wide search first; later rounds start near the value found (within 2x), and fall
 * back to the wide one when no sign change is there. */
static int fit_knob(gcsim_platform *p, const calib_fit_data *d, const bool *which,
                    calib_knob k, bool narrow, double *scratch, bool *at_bound,
                    gcsim_error *err)
{
    if (narrow) {
        gcsim_platform keep = *p;
        if (fit_knob_in(p, d, which, k, 2.0, 5, scratch, at_bound, err))
            return -1;
        if (!*at_bound)
            return 0;
        *p = keep;
    }
    return fit_knob_in(p, d, which, k, CALIB_FIT_RANGE, CALIB_FIT_POINTS, scratch, at_bound,
                       err);
}

/* Median |error| per regime over the rows used, with p as it is. */
static int regime_medians(const gcsim_platform *p, const calib_fit_data *d, double *error,
                          double *scratch, calib_fit_result *r, gcsim_error *err)
{
    if (calib_fit_errors(p, d, error, NULL, err))
        return -1;
    for (int g = 0; g < 2; g++) {
        int m = 0;
        for (int i = 0; i < d->n; i++)
            if (d->use[i] && (int)d->regime[i] == g)
                scratch[m++] = fabs(error[i]);
        double med = m ? calib_median(scratch, m) : 0.0;
        if (g == CALIB_REGIME_LATENCY)
            r->n_latency = m, r->median_latency = med;
        else
            r->n_bandwidth = m, r->median_bandwidth = med;
    }
    return 0;
}

/* The zero-median value need not give the smallest median |error| (errors spread unevenly
 * about it): the knob is scanned over +-CALIB_FIT_POLISH in log scale for the smallest
 * worse-regime median. */
static int polish_in(gcsim_platform *p, const calib_fit_data *d, calib_knob k, double span,
                     double *error, double *scratch, calib_fit_result *r, gcsim_error *err)
{
    double v0 = calib_knob_get(p, k), best_v = v0, best = INFINITY;
    for (int j = 0; j <= 2 * CALIB_FIT_POLISH_STEPS; j++) {
        double f = span * (j - CALIB_FIT_POLISH_STEPS) / CALIB_FIT_POLISH_STEPS;
        double v = v0 * exp(f);
        calib_knob_set(p, k, v);
        if (regime_medians(p, d, error, scratch, r, err))
            return -1;
        double score = fmax(r->median_latency, r->median_bandwidth) + 1e-6 * fabs(f);
        if (score < best) {
            best = score;
            best_v = v;
        }
    }
    calib_knob_set(p, k, best_v);
    return 0;
}

/* Coarse (+-CALIB_FIT_POLISH_WIDE in log scale: a knob whose own regime has no row starts
 * far from where the other regime wants it), then fine (+-CALIB_FIT_POLISH). */
static int polish(gcsim_platform *p, const calib_fit_data *d, calib_knob k, double *error,
                  double *scratch, calib_fit_result *r, gcsim_error *err)
{
    return polish_in(p, d, k, CALIB_FIT_POLISH_WIDE, error, scratch, r, err) ||
           polish_in(p, d, k, CALIB_FIT_POLISH, error, scratch, r, err);
}

/* Both knobs together on a (2 CALIB_FIT_GRID2 + 1)^2 grid of +-CALIB_FIT_POLISH2 in log
 * scale: the worse-regime median is not smooth, and one knob at a time can stall. */
static int polish_2d(gcsim_platform *p, const calib_fit_data *d, calib_knob a, calib_knob b,
                     double *error, double *scratch, calib_fit_result *r, gcsim_error *err)
{
    double a0 = calib_knob_get(p, a), b0 = calib_knob_get(p, b);
    double best = INFINITY, best_a = a0, best_b = b0;
    for (int i = -CALIB_FIT_GRID2; i <= CALIB_FIT_GRID2; i++)
        for (int j = -CALIB_FIT_GRID2; j <= CALIB_FIT_GRID2; j++) {
            double fa = CALIB_FIT_POLISH2 * i / CALIB_FIT_GRID2;
            double fb = CALIB_FIT_POLISH2 * j / CALIB_FIT_GRID2;
            calib_knob_set(p, a, a0 * exp(fa));
            calib_knob_set(p, b, b0 * exp(fb));
            if (regime_medians(p, d, error, scratch, r, err))
                return -1;
            double score = fmax(r->median_latency, r->median_bandwidth) +
                           1e-6 * (fabs(fa) + fabs(fb));
            if (score < best) {
                best = score;
                best_a = a0 * exp(fa);
                best_b = b0 * exp(fb);
            }
        }
    calib_knob_set(p, a, best_a);
    calib_knob_set(p, b, best_b);
    return 0;
}

/* The zero-median rounds: each regime's knob in turn, bandwidth first (it sets most of the
 * time); `narrow` from the first round on when the knobs already sit near a fit. */
static int zero_median_rounds(gcsim_platform *p, const calib_fit_data *d, calib_knob bw_knob,
                              calib_knob lat_knob, bool *const which[2], const int m[2],
                              bool narrow, double *scratch, calib_fit_result *r,
                              gcsim_error *err)
{
    for (int round = 0; round < CALIB_FIT_ROUNDS; round++) {
        for (int g = 1; g >= 0; g--) {
            if (!m[g])
                continue;
            calib_knob k = g == CALIB_REGIME_LATENCY ? lat_knob : bw_knob;
            bool *at_bound = g == CALIB_REGIME_LATENCY ? &r->lat_at_bound : &r->bw_at_bound;
            if (fit_knob(p, d, which[g], k, narrow || round > 0, scratch, at_bound, err))
                return -1;
        }
    }
    return 0;
}

/* Keeps *p in *best (and the search's flags in *best_r) when its worse-regime median is
 * lower than *best_score. */
static int keep_best(const gcsim_platform *p, const calib_fit_data *d, double *error,
                     double *scratch, calib_fit_result *r, gcsim_platform *best,
                     calib_fit_result *best_r, double *best_score, gcsim_error *err)
{
    if (regime_medians(p, d, error, scratch, r, err))
        return -1;
    double score = fmax(r->median_latency, r->median_bandwidth);
    if (score < *best_score - 1e-12) {
        *best_score = score;
        *best = *p;
        *best_r = *r;
    }
    return 0;
}

static int fit_one(gcsim_platform *p, const calib_fit_data *d, calib_knob bw_knob,
                   calib_knob lat_knob, calib_knob lat2_knob, calib_fit_result *r, double *buf,
                   gcsim_error *err)
{
    int n = d->n;
    double *error = buf, *scratch = buf + n;
    bool *which[2];
    which[0] = (bool *)(buf + 2 * n);
    which[1] = which[0] + n;
    memset(r, 0, sizeof *r);
    r->bw_knob = bw_knob;
    r->lat_knob = lat_knob;
    r->lat2_knob = lat2_knob;
    bool has_lat2 = lat2_knob != CALIB_KNOB_COUNT && lat2_knob != lat_knob;
    double bw0 = calib_knob_get(p, bw_knob), lat0 = calib_knob_get(p, lat_knob);
    double lat20 = has_lat2 ? calib_knob_get(p, lat2_knob) : 0;
    int m[2] = {0, 0};
    for (int g = 0; g < 2; g++)
        for (int i = 0; i < n; i++)
            m[g] += which[g][i] = d->use[i] && (int)d->regime[i] == g;
    if (zero_median_rounds(p, d, bw_knob, lat_knob, which, m, false, scratch, r, err))
        return -1;
    /* The polish moves both knobs whatever the regimes: a knob whose regime has no row may
     * still lower the other's error (a latency shapes the low end of a bandwidth-bound
     * log). */
    for (int round = 0; round < 2; round++) {
        if (polish(p, d, bw_knob, error, scratch, r, err) ||
            polish(p, d, lat_knob, error, scratch, r, err))
            return -1;
    }
    gcsim_platform best = *p;
    calib_fit_result best_r = *r;
    double best_score = INFINITY;
    if (keep_best(p, d, error, scratch, r, &best, &best_r, &best_score, err))
        return -1;
    if (has_lat2) {
        /* the second latency, then the main knobs' zero medians again from there (a
         * latency driven to ~0 by the floor comes back), polished; the best state kept */
        if (polish(p, d, lat2_knob, error, scratch, r, err) ||
            zero_median_rounds(p, d, bw_knob, lat_knob, which, m, true, scratch, r, err) ||
            polish(p, d, bw_knob, error, scratch, r, err) ||
            polish(p, d, lat_knob, error, scratch, r, err) ||
            polish(p, d, lat2_knob, error, scratch, r, err))
            return -1;
        if (keep_best(p, d, error, scratch, r, &best, &best_r, &best_score, err))
            return -1;
        *p = best;
        *r = best_r;
    }
    if (polish_2d(p, d, bw_knob, lat_knob, error, scratch, r, err))
        return -1;
    /* "fitted": moved by the search; a knob the log does not move stays, and says so */
    r->bw_fitted = fabs(calib_knob_get(p, bw_knob) / bw0 - 1) > 1e-9;
    r->lat_fitted = fabs(calib_knob_get(p, lat_knob) / lat0 - 1) > 1e-9;
    r->lat2_fitted = has_lat2 && fabs(calib_knob_get(p, lat2_knob) / lat20 - 1) > 1e-9;
    if (!r->bw_fitted)
        calib_knob_set(p, bw_knob, bw0);
    if (!r->lat_fitted)
        calib_knob_set(p, lat_knob, lat0);
    if (has_lat2 && !r->lat2_fitted)
        calib_knob_set(p, lat2_knob, lat20);
    if (regime_medians(p, d, error, scratch, r, err))
        return -1;
    r->bw_value = calib_knob_get(p, bw_knob);
    r->lat_value = calib_knob_get(p, lat_knob);
    r->lat2_value = has_lat2 ? calib_knob_get(p, lat2_knob) : 0;
    return 0;
}

int calib_platform_fit(gcsim_platform *p, const calib_fit_data *d, const calib_knob *bw_cands,
                       int n_bw, calib_knob lat_knob, calib_knob lat2_knob,
                       calib_fit_result *out, gcsim_error *err)
{
    /* error, scratch (doubles) and two flag arrays per row */
    size_t per_row = 2 * sizeof(double) + 2 * sizeof(bool);
    double *buf = malloc((size_t)d->n * per_row + sizeof(double));
    if (!buf)
        return gcsim_fail_internal(err, "out of memory fitting a platform");
    gcsim_platform best = *p;
    double best_score = INFINITY;
    int rc = 0;
    for (int c = 0; c < n_bw && !rc; c++) {
        gcsim_platform q = *p;
        calib_fit_result r;
        rc = fit_one(&q, d, bw_cands[c], lat_knob, lat2_knob, &r, buf, err);
        if (rc)
            break;
        /* among the candidates that meet CALIB_FIT_TARGET in both regimes, one whose link
         * the search moved (it bounds the log), then one whose bandwidth stays within
         * [CALIB_FIT_BAND, 1] of its start (the line rate), first; when none meets it, the
         * lowest error */
        double score = fmax(r.median_latency, r.median_bandwidth);
        double ratio = r.bw_value / calib_knob_get(p, bw_cands[c]);
        bool binds = r.bw_fitted || r.n_bandwidth == 0; /* its link moves the log */
        double key = score <= CALIB_FIT_TARGET
                         ? (binds ? 0 : 2) +
                               (ratio >= CALIB_FIT_BAND && ratio <= 1 + 1e-9 ? 0 : 1) + score
                         : 4 + fmin(score, 1.0);
        if (key < best_score - 1e-3) {
            best_score = key;
            best = q;
            *out = r;
        }
    }
    free(buf);
    if (rc)
        return -1;
    *p = best;
    return 0;
}
