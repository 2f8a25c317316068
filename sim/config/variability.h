/*
 * sim/config/variability.h: variable per-GPU compute and stragglers (issue 41), shared by
 * both engines.
 *
 * Offers:
 *   - gcsim_variability: the stated distribution of one GPU's compute time in one
 *     iteration, as a factor on the nominal forward + backward: a base family with mean 1
 *     and a coefficient of variation (normal truncated at 0, lognormal, Pareto), drawn
 *     afresh per GPU and per iteration; a fraction of persistently slow GPUs with their
 *     slowdown; one named slow rank with its factor; a seed; the DES's iteration count.
 *   - gcsim_var_draw: the factors of every GPU in one iteration, seeded (GSL's MT19937),
 *     the same for any caller and any run.
 *   - order statistics: the distribution of the largest factor over a synchronising group
 *     (its mean by numerical integration, its quantiles by bisection), which is what a
 *     synchronous collective waits for; a generic form over any survival function, tested
 *     against closed forms (tests/config/test_variability.c).
 * docs/des.md, "Variable compute and stragglers", says where the wait propagates.
 */
#ifndef GCSIM_VARIABILITY_H
#define GCSIM_VARIABILITY_H

#include <stdbool.h>

#include "gcsim_error.h"

typedef enum {
    GCSIM_VAR_NORMAL,      /* N(1, cv^2) truncated at 0 (cv <= 0.5: the truncation is < 3e-5) */
    GCSIM_VAR_LOGNORMAL,   /* exp(N(mu, s^2)), s^2 = ln(1 + cv^2), mu = -s^2/2: mean 1, CV cv */
    GCSIM_VAR_PARETO,      /* Pareto(alpha, xm), alpha = 1 + sqrt(1 + 1/cv^2), xm = (alpha-1)/alpha:
                              mean 1, CV cv, a power-law right tail */
    GCSIM_VAR_FAMILIES
} gcsim_var_family;

/* Bounds of the options (docs/des.md). */
#define GCSIM_VAR_MAX_CV 1.0
#define GCSIM_VAR_MAX_SLOW_FACTOR 100.0
#define GCSIM_VAR_MAX_ITERATIONS 10000
/* The DES's iterations when none is given: at least MIN, more until the 95% confidence
 * interval of the mean is within REL_CI of it, at most MAX. */
#define GCSIM_VAR_MIN_ITERATIONS 10
#define GCSIM_VAR_AUTO_MAX_ITERATIONS 100
#define GCSIM_VAR_AUTO_REL_CI 0.005
/* Above this many GPUs the DES gives every GPU the iteration's largest factor (drawn from
 * the same per-GPU draws) instead of its own: desynchronised starts make SimGrid 3.32's
 * full max-min update re-solve every flow in progress at each of N distinct events, and
 * a 16,384-GPU iteration took over 60 CPU s instead of 6 (docs/des.md). */
#define GCSIM_VAR_DES_PER_GPU_MAX 4096

typedef struct gcsim_variability_s {
    bool on;                 /* false: deterministic compute (every output as before) */
    gcsim_var_family family;
    double cv;               /* coefficient of variation of the base factor, 0..1 */
    double slow_fraction;    /* of the GPUs (the named rank excluded), persistently slow */
    double slow_factor;      /* their compute factor, >= 1 */
    int slow_rank;           /* -1: none */
    double slow_rank_factor; /* >= 1 */
    unsigned long seed;
    int iterations;          /* DES iterations; 0: automatic (GCSIM_VAR_MIN_ITERATIONS ...) */
    const struct gcsim_var_preset_s *preset; /* the named preset taken (--variability), or NULL */
} gcsim_variability;

/* ---- named presets (--variability NAME) ----
 * A preset is a stated distribution with its published source. None is applied by default:
 * docs/des.md, "Sources of typical values", says why (the evidence found does not support
 * charging a spread on every prediction). Explicit --compute-cv / --compute-dist win over a
 * preset's values. */
typedef struct gcsim_var_preset_s {
    const char *name;
    gcsim_var_family family;
    double cv;
    const char *kind;   /* "measured", "derived" or "assumed", and from what */
    const char *source; /* the publication, its URL and the figure taken */
} gcsim_var_preset;

/* The preset named `name`, or NULL. */
const gcsim_var_preset *gcsim_var_preset_find(const char *name);
/* The presets' names, comma-separated (for messages and --help). */
const char *gcsim_var_preset_names(void);

/* The family's name ("normal", "lognormal", "pareto") and its parser (0 or -1). */
const char *gcsim_var_family_name(gcsim_var_family f);
int gcsim_var_family_parse(const char *text, gcsim_var_family *out);

/* Persistently slow GPUs among n (the named rank is never one of them): round(f x (n - 1))
 * where a rank is named, round(f x n) otherwise. */
int gcsim_var_slow_count(const gcsim_variability *v, int n);

/* Checks v's ranges (a named rank at or beyond n is not in a job of n GPUs: ignored, so
 * that a list of GPU counts can name one): 0, or -1 with err. */
int gcsim_var_check(const gcsim_variability *v, int n, gcsim_error *err);

/* The compute factors of n GPUs in iteration `iteration` (0-based): base draw x slow
 * factor x rank factor. The slow set depends on the seed only (persistent); the base draws
 * on (seed, iteration). Returns 0, or -1 when out of memory. */
int gcsim_var_draw(const gcsim_variability *v, int n, int iteration, double *factors);

/* What an engine reports for a variable iteration: its distribution, and the largest
 * factor over the synchronising group (the analytic engine's order statistics; the DES's
 * sample of it). Times in seconds. */
typedef struct gcsim_var_stats_s {
    int iterations;          /* DES: simulated; analytic: 0 (exact integrals) */
    double mean_s, p50_s, p99_s;
    double ci95_low_s, ci95_high_s; /* of the mean (DES: Student t; analytic: the mean) */
    double max_factor_mean;  /* E[max factor] (analytic) or its sample mean (DES) */
    double max_factor_p99;
} gcsim_var_stats;

/* Sample statistics of n iteration times (sorted in place): mean, p50, p99 (GSL's
 * interpolated quantiles of the sorted sample) and the 95% Student-t interval of the
 * mean (the mean itself for n < 2). */
void gcsim_var_sample_stats(double *times_s, int n, gcsim_var_stats *st);

/* ---- order statistics ---- */

/* A nonnegative random variable by its survival function P(X > x). */
typedef struct {
    double (*sf)(double x, const void *ctx);
    const void *ctx;
} gcsim_var_dist;

/* The largest of sum(count[k]) independent variables, count[k] of them distributed as
 * scale[k] x X: its mean (E[max] = integral over x >= 0 of 1 - prod F(x/scale)^count,
 * GSL's adaptive quadrature) and its p-quantile (bisection on its CDF). Return 0, or -1
 * with err when the quadrature fails. */
int gcsim_max_mean(const gcsim_var_dist *d, const double *scale, const double *count, int n_groups,
                   double *mean, gcsim_error *err);
double gcsim_max_quantile(const gcsim_var_dist *d, const double *scale, const double *count,
                          int n_groups, double p);

/* The base family of v as a gcsim_var_dist (cv > 0). */
gcsim_var_dist gcsim_var_base_dist(const gcsim_variability *v);

/* The largest factor over n GPUs (the whole synchronising group) under v: groups of the
 * base draw (n - slow - named), the slow ones and the named rank. */
typedef struct {
    int n_groups;
    double scale[3], count[3];
} gcsim_var_groups;
void gcsim_var_groups_of(const gcsim_variability *v, int n, gcsim_var_groups *g);
int gcsim_var_max_mean(const gcsim_variability *v, int n, double *mean, gcsim_error *err);
double gcsim_var_max_quantile(const gcsim_variability *v, int n, double p);

#endif
