/* Variable per-GPU compute and the order statistics of its maximum (variability.h). */
#include "variability.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

static const char *const family_names[GCSIM_VAR_FAMILIES] = {"normal", "lognormal", "pareto"};

const char *gcsim_var_family_name(gcsim_var_family f)
{
    return (unsigned)f < GCSIM_VAR_FAMILIES ? family_names[f] : "?";
}

int gcsim_var_family_parse(const char *text, gcsim_var_family *out)
{
    for (int f = 0; f < GCSIM_VAR_FAMILIES; f++)
        if (strcmp(text, family_names[f]) == 0) {
            *out = (gcsim_var_family)f;
            return 0;
        }
    return -1;
}

/* Presets. Each number carries its source and whether it is measured or derived. */
static const gcsim_var_preset presets[] = {
    /* Sinha et al., "Not All GPUs Are Created Equal: Characterizing Variability in
     * Large-Scale, Accelerator-Rich Systems", SC22 (arXiv 2208.11035v3 abstract, 2022:
     * https://arxiv.org/abs/2208.11035; SC22 page
     * https://sc22.supercomputing.org/proceedings/tech_paper/tech_paper_pages/pap186.html):
     * over 90% of the GPUs of Summit, Vortex, Frontera, Longhorn (NVIDIA, V100 among them)
     * and Corona (AMD MI60), 18,800 hours of data: "8% (max 22%) average performance variation" between GPUs
     * of one SKU, outliers up to 1.5x slower than the median. *Derived*, not measured: an 8%
     * spread read as the range of a normal over the ~27,000 GPUs of Summit (about 8 to 9
     * standard deviations) gives a CV of about 0.01; over a few hundred GPUs (Longhorn,
     * Corona: about 6 standard deviations) 0.013. 0.01 is the low end. The persistent
     * per-GPU spread is drawn per iteration here: the mean iteration (the expected largest
     * factor over the job's GPUs) is the same as for a spread fixed per GPU and averaged
     * over placements; its p99 across iterations is not. */
    {"sinha22", GCSIM_VAR_NORMAL, 0.01,
     "derived: 8% average spread across the GPUs of one SKU read as the range of a normal "
     "over ~27,000 GPUs (about 9 standard deviations), CV ~0.01 (0.013 over a few hundred GPUs)",
     "Sinha et al., SC22, Not All GPUs Are Created Equal (arXiv 2208.11035): 8% (max 22%) "
     "average performance variation across V100/MI60 GPUs of one SKU, outliers up to 1.5x"},
};
#define N_PRESETS ((int)(sizeof presets / sizeof presets[0]))

const gcsim_var_preset *gcsim_var_preset_find(const char *name)
{
    for (int k = 0; name && k < N_PRESETS; k++)
        if (strcmp(name, presets[k].name) == 0)
            return &presets[k];
    return NULL;
}

const char *gcsim_var_preset_names(void)
{
    static char names[256];
    if (!names[0])
        for (int k = 0; k < N_PRESETS; k++) {
            size_t len = strlen(names);
            snprintf(names + len, sizeof names - len, "%s%s", k ? ", " : "", presets[k].name);
        }
    return names;
}

int gcsim_var_slow_count(const gcsim_variability *v, int n)
{
    int candidates = v->slow_rank >= 0 && v->slow_rank < n ? n - 1 : n;
    if (!(v->slow_fraction > 0) || candidates <= 0)
        return 0;
    long k = lround(v->slow_fraction * candidates);
    return (int)(k > candidates ? candidates : k);
}

int gcsim_var_check(const gcsim_variability *v, int n, gcsim_error *err)
{
    if (!v || !v->on)
        return 0;
    if (!(v->cv >= 0 && v->cv <= GCSIM_VAR_MAX_CV) || !(v->slow_fraction >= 0 && v->slow_fraction <= 1) ||
        !(v->slow_factor >= 1) || !(v->slow_rank_factor >= 1) || (unsigned)v->family >= GCSIM_VAR_FAMILIES)
        return gcsim_fail(err, "variable compute: CV %g, slow fraction %g, factors %g and %g out of "
                               "range", v->cv, v->slow_fraction, v->slow_factor, v->slow_rank_factor);
    (void)n; /* a named rank beyond n is not in this job (a smaller count of a list) */
    return 0;
}

/* ---- the base families, mean 1 and CV cv ---- */

static double lognormal_sigma(double cv) { return sqrt(log1p(cv * cv)); }
static double pareto_alpha(double cv) { return 1.0 + sqrt(1.0 + 1.0 / (cv * cv)); }

static double base_sf(double x, const void *ctx)
{
    const gcsim_variability *v = ctx;
    if (!(x > 0))
        return 1.0;
    switch (v->family) {
    case GCSIM_VAR_NORMAL:
        /* conditioned on X > 0 */
        return gsl_cdf_gaussian_Q(x - 1.0, v->cv) / gsl_cdf_gaussian_Q(-1.0, v->cv);
    case GCSIM_VAR_LOGNORMAL: {
        double s = lognormal_sigma(v->cv);
        return gsl_cdf_lognormal_Q(x, -0.5 * s * s, s);
    }
    case GCSIM_VAR_PARETO: {
        double a = pareto_alpha(v->cv);
        return gsl_cdf_pareto_Q(x, a, (a - 1.0) / a);
    }
    default:
        return 0.0;
    }
}

gcsim_var_dist gcsim_var_base_dist(const gcsim_variability *v)
{
    return (gcsim_var_dist){.sf = base_sf, .ctx = v};
}

static double base_draw(const gcsim_variability *v, gsl_rng *r)
{
    if (!(v->cv > 0))
        return 1.0;
    switch (v->family) {
    case GCSIM_VAR_NORMAL: {
        double x;
        do
            x = 1.0 + gsl_ran_gaussian(r, v->cv);
        while (!(x > 0));
        return x;
    }
    case GCSIM_VAR_LOGNORMAL: {
        double s = lognormal_sigma(v->cv);
        return gsl_ran_lognormal(r, -0.5 * s * s, s);
    }
    case GCSIM_VAR_PARETO: {
        double a = pareto_alpha(v->cv);
        return gsl_ran_pareto(r, a, (a - 1.0) / a);
    }
    default:
        return 1.0;
    }
}

/* splitmix64: distinct, well-mixed seeds for the slow set and for each iteration */
static unsigned long mix_seed(unsigned long seed, unsigned long stream)
{
    uint64_t z = (uint64_t)seed + 0x9e3779b97f4a7c15ULL * (stream + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (unsigned long)(z ^ (z >> 31));
}

int gcsim_var_draw(const gcsim_variability *v, int n, int iteration, double *factors)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r)
        return -1;
    gsl_rng_set(r, mix_seed(v->seed, (unsigned long)iteration + 1));
    for (int g = 0; g < n; g++)
        factors[g] = base_draw(v, r);
    int slow = gcsim_var_slow_count(v, n);
    if (slow > 0) {
        /* the slow set: stream 0, the same in every iteration */
        int candidates = v->slow_rank >= 0 && v->slow_rank < n ? n - 1 : n;
        int *pool = malloc(sizeof(int) * (size_t)candidates);
        int *chosen = malloc(sizeof(int) * (size_t)slow);
        if (!pool || !chosen) {
            free(pool);
            free(chosen);
            gsl_rng_free(r);
            return -1;
        }
        for (int g = 0, k = 0; g < n; g++)
            if (g != v->slow_rank)
                pool[k++] = g;
        gsl_rng_set(r, mix_seed(v->seed, 0));
        gsl_ran_choose(r, chosen, (size_t)slow, pool, (size_t)candidates, sizeof(int));
        for (int k = 0; k < slow; k++)
            factors[chosen[k]] *= v->slow_factor;
        free(pool);
        free(chosen);
    }
    if (v->slow_rank >= 0 && v->slow_rank < n)
        factors[v->slow_rank] *= v->slow_rank_factor;
    gsl_rng_free(r);
    return 0;
}

/* ---- order statistics of the maximum ---- */

typedef struct {
    const gcsim_var_dist *d;
    const double *scale, *count;
    int n;
} max_ctx;

/* log P(max <= x) */
static double max_log_cdf(const max_ctx *m, double x)
{
    double lc = 0;
    for (int k = 0; k < m->n; k++) {
        if (!(m->count[k] > 0))
            continue;
        double sf = m->d->sf(x / m->scale[k], m->d->ctx);
        if (sf >= 1.0)
            return -INFINITY;
        lc += m->count[k] * log1p(-sf);
    }
    return lc;
}

/* P(max > x), accurate when small */
static double max_sf(double x, void *ctx)
{
    return -expm1(max_log_cdf(ctx, x));
}

static double quantile_of(const max_ctx *m, double p)
{
    double lp = log(p), lo = 0.0, hi = 1.0;
    for (int k = 0; k < 2000 && max_log_cdf(m, hi) < lp; k++) {
        lo = hi;
        hi *= 2.0;
    }
    for (int k = 0; k < 200 && hi - lo > 1e-15 * hi; k++) {
        double mid = 0.5 * (lo + hi);
        if (max_log_cdf(m, mid) < lp)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

double gcsim_max_quantile(const gcsim_var_dist *d, const double *scale, const double *count,
                          int n_groups, double p)
{
    max_ctx m = {d, scale, count, n_groups};
    return quantile_of(&m, p);
}

int gcsim_max_mean(const gcsim_var_dist *d, const double *scale, const double *count, int n_groups,
                   double *mean, gcsim_error *err)
{
    max_ctx m = {d, scale, count, n_groups};
    /* Below q_lo the integrand is 1 to 1e-15; the bulk between q_lo and q_hi, split at the
     * median, on a finite range; the tail above q_hi (heavy for Pareto) on [q_hi, inf). */
    double q_lo = quantile_of(&m, 1e-15), q_med = quantile_of(&m, 0.5),
           q_hi = quantile_of(&m, 1.0 - 1e-9);
    gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
    if (!w)
        return gcsim_fail(err, "out of memory integrating the expected maximum");
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    gsl_function f = {.function = max_sf, .params = &m};
    double pts[3] = {q_lo, q_med, q_hi}, bulk = 0, tail = 0, e1 = 0, e2 = 0;
    int rc = 0;
    if (q_hi > q_lo)
        rc = gsl_integration_qagp(&f, pts, 3, 0.0, 1e-10, 1000, w, &bulk, &e1);
    if (rc == 0)
        rc = gsl_integration_qagiu(&f, q_hi, 1e-12 * q_hi, 1e-8, 1000, w, &tail, &e2);
    gsl_set_error_handler(old);
    gsl_integration_workspace_free(w);
    if (rc != 0)
        return gcsim_fail(err, "expected maximum: GSL quadrature failed (%s)", gsl_strerror(rc));
    *mean = q_lo + bulk + tail;
    return 0;
}

void gcsim_var_groups_of(const gcsim_variability *v, int n, gcsim_var_groups *g)
{
    int slow = gcsim_var_slow_count(v, n);
    bool named = v->slow_rank >= 0 && v->slow_rank < n;
    memset(g, 0, sizeof *g);
    g->scale[0] = 1.0;
    g->count[0] = n - slow - (named ? 1 : 0);
    g->n_groups = 1;
    if (slow > 0) {
        g->scale[g->n_groups] = v->slow_factor;
        g->count[g->n_groups++] = slow;
    }
    if (named) {
        g->scale[g->n_groups] = v->slow_rank_factor;
        g->count[g->n_groups++] = 1;
    }
}

/* With no spread (cv 0) the factors are fixed: the largest scale present. */
static double fixed_max(const gcsim_var_groups *g)
{
    double m = 0;
    for (int k = 0; k < g->n_groups; k++)
        if (g->count[k] > 0 && g->scale[k] > m)
            m = g->scale[k];
    return m;
}

int gcsim_var_max_mean(const gcsim_variability *v, int n, double *mean, gcsim_error *err)
{
    gcsim_var_groups g;
    gcsim_var_groups_of(v, n, &g);
    if (!(v->cv > 0)) {
        *mean = fixed_max(&g);
        return 0;
    }
    gcsim_var_dist d = gcsim_var_base_dist(v);
    return gcsim_max_mean(&d, g.scale, g.count, g.n_groups, mean, err);
}

double gcsim_var_max_quantile(const gcsim_variability *v, int n, double p)
{
    gcsim_var_groups g;
    gcsim_var_groups_of(v, n, &g);
    if (!(v->cv > 0))
        return fixed_max(&g);
    gcsim_var_dist d = gcsim_var_base_dist(v);
    return gcsim_max_quantile(&d, g.scale, g.count, g.n_groups, p);
}

void gcsim_var_sample_stats(double *times_s, int n, gcsim_var_stats *st)
{
    gsl_sort(times_s, 1, (size_t)n);
    st->iterations = n;
    st->mean_s = gsl_stats_mean(times_s, 1, (size_t)n);
    st->p50_s = gsl_stats_quantile_from_sorted_data(times_s, 1, (size_t)n, 0.5);
    st->p99_s = gsl_stats_quantile_from_sorted_data(times_s, 1, (size_t)n, 0.99);
    double half = 0;
    if (n >= 2)
        half = gsl_cdf_tdist_Pinv(0.975, n - 1) * gsl_stats_sd(times_s, 1, (size_t)n) / sqrt(n);
    st->ci95_low_s = st->mean_s - half;
    st->ci95_high_s = st->mean_s + half;
}
