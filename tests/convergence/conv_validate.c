/*
 * conv_validate: how well the train (b) and bound (c) sources, and the catalog's own
 * non-held-out rows, predict the held-out third of models/convergence/outcomes.tsv (issue
 * 26, "Validation"). Writes a markdown section for docs/validation.md.
 *
 * usage: conv_validate SOURCE_DIR [OUT.md]
 *        conv_validate SOURCE_DIR --fit-bound
 *
 * --fit-bound fits the bound's share s (CONV_BOUND_SHARE, convergence.h) on the catalog's
 * NON-held-out rows and exits 1 when the constant is not the fit's value rounded to 3
 * decimals (0 when it is): the fit never sees the held-out third.
 *
 * For every held-out row with both accuracies published, the observed factor is the row's
 * (conv_row_factor at CONV_EXPONENT). Each source predicts a factor for the row's spec and
 * workers; the predicted gap is the factor turned back into the row's metric with the same
 * power law (err_c = err_fp32 x factor^a). Two scores per source: the mean absolute error of
 * the gap over the rows it covers, and the rank order: over pairs of held-out rows from the
 * same table (paper, model, dataset, workers, metric) whose observed factors differ, the
 * share the source orders the same way (ties in the prediction count half).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convergence.h"

enum { SRC_CATALOG, SRC_TRAIN, SRC_BOUND, N_SRC };
static const char *const SRC_NAME[N_SRC] = {"catalog (other rows)", "train (b)", "bound (c)"};

typedef struct {
    const conv_outcome *o;
    double observed;          /* factor */
    double pred[N_SRC];       /* NAN: not covered */
} row;

static double gap_of(const conv_outcome *o, double factor)
{
    double ef = conv_error_of(o, o->fp32);
    double ec = ef * pow(factor, CONV_EXPONENT);
    return o->higher_better ? ef - ec : ef - ec; /* both: fp32's error minus the compressor's */
}

/* The bound's share s fitted on the non-held-out rows of unbiased compressors with both
 * accuracies: least squares of log(1 + s omega / N) - log(observed factor) over s in
 * [0, 1] (grid of 1e-4, then the value rounded to 3 decimals). *rows receives how many. */
static int fit_share(const conv_catalog *cat, const char *const *traces, double *share,
                     double *x_max, int *rows, char *ids, size_t ids_len)
{
    enum { MAX_FIT = 128 };
    double x[MAX_FIT], y[MAX_FIT], omegas[MAX_FIT];
    int n = 0;
    char err[512];
    ids[0] = '\0';
    for (int i = 0; i < cat->n && n < MAX_FIT; i++) {
        const conv_outcome *o = &cat->rows[i];
        if (o->holdout)
            continue;
        double obs = conv_row_factor(o, CONV_EXPONENT);
        if (isnan(obs))
            continue;
        conv_factor f;
        if (conv_bound_factor(o->spec, traces, 1, 3, &f, err, sizeof err)) {
            fprintf(stderr, "conv_validate: %s\n", err);
            return -1;
        }
        if (f.omega < 0)
            continue; /* biased: the bound gives 1 or nothing, no share to fit */
        x[n] = f.omega / (o->workers ? o->workers : 1);
        omegas[n] = f.omega;
        y[n] = obs;
        size_t len = strlen(ids);
        snprintf(ids + len, ids_len - len, "%s%d", n ? ", " : "", o->id);
        n++;
    }
    double best = 1, best_sse = INFINITY;
    for (int k = 0; k <= 10000; k++) {
        double sh = k * 1e-4, sse = 0;
        for (int j = 0; j < n; j++) {
            double d = log(1 + sh * x[j]) - log(y[j]);
            sse += d * d;
        }
        if (sse < best_sse) {
            best_sse = sse;
            best = sh;
        }
    }
    *share = round(best * 1000) / 1000;
    *x_max = 0; /* the largest omega (not omega / N) of the fitted compressors */
    for (int j = 0; j < n; j++)
        *x_max = fmax(*x_max, omegas[j]);
    *x_max = round(*x_max * 10) / 10;
    *rows = n;
    return 0;
}

static bool same_table(const conv_outcome *a, const conv_outcome *b)
{
    return strcmp(a->paper, b->paper) == 0 && strcmp(a->model, b->model) == 0 &&
           strcmp(a->dataset, b->dataset) == 0 && a->workers == b->workers &&
           strcmp(a->metric, b->metric) == 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: conv_validate SOURCE_DIR [OUT.md]\n");
        return 2;
    }
    char path[4096], err[1024], trace[4096];
    conv_catalog cat;
    conv_train_table train = {0};
    snprintf(path, sizeof path, "%s/models/convergence/outcomes.tsv", argv[1]);
    if (conv_catalog_load(path, &cat, err, sizeof err)) {
        fprintf(stderr, "conv_validate: %s\n", err);
        return 2;
    }
    snprintf(path, sizeof path, "%s/models/convergence/train_factors.tsv", argv[1]);
    bool have_train = conv_train_load(path, &train, err, sizeof err) == 0;
    snprintf(trace, sizeof trace,
             "%s/traces/data/fmnist_resnet20/resnet20_step000200_rank0.safetensors", argv[1]);
    const char *traces[1] = {trace};
    double share;
    int fit_rows;
    char fit_ids[512];
    double x_max;
    if (fit_share(&cat, traces, &share, &x_max, &fit_rows, fit_ids, sizeof fit_ids))
        return 2;
    if (argc > 2 && strcmp(argv[2], "--fit-bound") == 0) {
        printf("bound share fitted on %d non-held-out rows (ids %s): %.3f; CONV_BOUND_SHARE "
               "is %.3f\nlargest omega fitted: %.1f; CONV_BOUND_FIT_MAX is %.1f\n", fit_rows,
               fit_ids, share, CONV_BOUND_SHARE, x_max, CONV_BOUND_FIT_MAX);
        conv_catalog_free(&cat);
        conv_train_free(&train);
        return fabs(share - CONV_BOUND_SHARE) < 5e-4 && fabs(x_max - CONV_BOUND_FIT_MAX) < 0.05
                   ? 0 : 1;
    }
    FILE *out = argc > 2 ? fopen(argv[2], "w") : stdout;
    if (!out) {
        fprintf(stderr, "conv_validate: cannot write %s\n", argv[2]);
        return 2;
    }
    row *rows = calloc((size_t)cat.n, sizeof *rows);
    int n = 0, held = 0;
    for (int i = 0; i < cat.n; i++) {
        const conv_outcome *o = &cat.rows[i];
        if (!o->holdout)
            continue;
        held++;
        double obs = conv_row_factor(o, CONV_EXPONENT);
        if (isnan(obs))
            continue; /* gap-only: nothing to compare a factor with */
        row *r = &rows[n++];
        r->o = o;
        r->observed = obs;
        conv_factor f = conv_catalog_factor(&cat, o->model, o->spec, true);
        r->pred[SRC_CATALOG] = f.factor;
        r->pred[SRC_TRAIN] = NAN;
        if (have_train) {
            f = conv_train_factor(&train, o->spec, o->workers ? o->workers : 4);
            r->pred[SRC_TRAIN] = f.factor;
        }
        if (conv_bound_factor(o->spec, traces, 1, 3, &f, err, sizeof err)) {
            fprintf(stderr, "conv_validate: %s\n", err);
            return 2;
        }
        conv_factor at = conv_factor_at(&f, o->workers ? o->workers : 1);
        r->pred[SRC_BOUND] = at.factor;
    }
    fprintf(out, "## Convergence factors against the held-out published outcomes\n\n");
    fprintf(out, "Generated by `build/tests/convergence/conv_validate . OUT.md` (issue 26). The "
            "catalog `models/convergence/outcomes.tsv` holds %d published outcomes; the %d with "
            "`id %% 3 == 0` are held out (rule fixed before any prediction), %d of them with "
            "both accuracies published. Observed factor: the row's final-error ratio turned "
            "into iterations with error ~ budget^-%.2g (docs/convergence.md). Predictions: "
            "the catalog's other rows (held-out rows skipped), `gcsim train` on the proxy "
            "tasks (Fashion-MNIST and the 8x8 digits, MLP and LeNet; "
            "models/convergence/train_factors.tsv: the same settings, else the same family), "
            "and the variance bound on the proxy trace fmnist_resnet20 step 200 at the row's "
            "worker count, 1 + s omega / N with the share s = %.3g (CONV_BOUND_SHARE) fitted "
            "on the %d non-held-out rows of unbiased compressors (ids %s), never on the "
            "held-out ones; s = 1 is the noise-dominated bound.\n\n",
            cat.n, held, n, CONV_EXPONENT, CONV_BOUND_SHARE, fit_rows, fit_ids);
    fprintf(out, "| id | paper | model | workers | spec | observed gap | observed factor | "
            "catalog | train | bound |\n|---|---|---|---|---|---|---|---|---|---|\n");
    for (int k = 0; k < n; k++) {
        const row *r = &rows[k];
        char spec[40];
        snprintf(spec, sizeof spec, "%.39s", r->o->spec);
        char workers[16] = "NA";
        if (r->o->workers)
            snprintf(workers, sizeof workers, "%d", r->o->workers);
        fprintf(out, "| %d | %s | %s | %s | `%s` | %+.4g %s | %.3f |", r->o->id, r->o->paper,
                r->o->model, workers, spec, r->o->gap, r->o->metric, r->observed);
        for (int s = 0; s < N_SRC; s++)
            if (isnan(r->pred[s]))
                fprintf(out, " – |");
            else
                fprintf(out, " %.3f |", r->pred[s]);
        fprintf(out, "\n");
    }
    fprintf(out, "\n| source | rows covered | mean abs. gap error, accuracy points | rank "
            "pairs agreeing |\n|---|---|---|---|\n");
    for (int s = 0; s < N_SRC; s++) {
        int covered = 0, pairs = 0, acc = 0;
        double abs_sum = 0, agree = 0;
        for (int k = 0; k < n; k++) {
            if (isnan(rows[k].pred[s]))
                continue;
            covered++;
            /* the gap error in accuracy points, over the rows whose metric is an accuracy */
            if (rows[k].o->higher_better) {
                acc++;
                abs_sum += fabs(gap_of(rows[k].o, rows[k].pred[s]) -
                                gap_of(rows[k].o, rows[k].observed));
            }
            for (int j = k + 1; j < n; j++) {
                if (isnan(rows[j].pred[s]) || !same_table(rows[k].o, rows[j].o) ||
                    rows[k].observed == rows[j].observed)
                    continue;
                pairs++;
                double po = rows[k].observed - rows[j].observed;
                double pp = rows[k].pred[s] - rows[j].pred[s];
                agree += pp == 0 ? 0.5 : (po > 0) == (pp > 0);
            }
        }
        if (acc)
            fprintf(out, "| %s | %d of %d | %.2f (%d rows) | ", SRC_NAME[s], covered, n,
                    abs_sum / acc, acc);
        else
            fprintf(out, "| %s | 0 of %d | – | ", SRC_NAME[s], n);
        if (pairs)
            fprintf(out, "%.1f of %d (%.0f%%) |\n", agree, pairs, 100.0 * agree / pairs);
        else
            fprintf(out, "no pair |\n");
    }
    fprintf(out, "\nA factor's bound of 1 (biased compressors with error feedback) or no factor "
            "(biased without: no guarantee) is shown as computed; `–` is a source that does "
            "not cover the row.\n");
    if (out != stdout)
        fclose(out);
    free(rows);
    conv_catalog_free(&cat);
    conv_train_free(&train);
    return 0;
}
