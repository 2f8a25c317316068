/*
 * sim/convergence/convergence.h: what a compressor costs in iterations, not only in seconds
 * per step (issue 26). The convergence factor of a (model, compressor, workers) is the number
 * of iterations the compressor needs to reach the accuracy fp32 reaches, divided by fp32's
 * (1: no slower; 1.3: 30% more iterations), with an interval [lo, hi] and the source it came
 * from, each source kept separate:
 *
 *   catalog  published outcomes (models/convergence/outcomes.tsv): the final-accuracy gap at
 *            a fixed budget, turned into iterations with an error-vs-budget power law
 *            (conv_gap_to_factor);
 *   train    measured with `gcsim train` on proxy tasks over several seeds
 *            (models/convergence/train_factors.tsv, written by plots/convergence/);
 *   bound    from the compressor's measured relative variance omega and bias on a real
 *            gradient trace: unbiased compressors slow SGD by 1 + s omega / N, where s in
 *            (0, 1] is the share of the slow-down that reaches the iteration count
 *            (CONV_BOUND_SHARE, fitted on the catalog's non-held-out rows; s = 1 is the
 *            noise-dominated worst case and the interval's upper end);
 *            biased ones with error feedback keep SGD's rate; biased ones without it have no
 *            guarantee (flagged, no factor).
 *
 * A factor whose value is NAN is "not covered": `how` says why. Callers never treat it as
 * a silent 1.0. The library reads files and traces but does no simulation, so it is tested
 * with hand-computed values (tests/convergence/).
 */
#ifndef GCSIM_CONVERGENCE_H
#define GCSIM_CONVERGENCE_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    CONV_SOURCE_NONE,     /* --convergence none: every factor 1 (per-step ranking) */
    CONV_SOURCE_CATALOG,
    CONV_SOURCE_TRAIN,
    CONV_SOURCE_BOUND,
    CONV_SOURCE_BEST,     /* the first of catalog, train, bound that covers the case */
    CONV_SOURCE_REFERENCE /* fp32 itself (none) and fp16/bf16: 1 by definition */
} conv_source;

/* "none", "catalog", "train", "bound", "best", "reference". */
const char *conv_source_name(conv_source s);
/* Parses "none", "catalog", "train", "bound" or "best"; 0 on success, -1 otherwise. */
int conv_source_parse(const char *text, conv_source *out);

/* How good the evidence behind a factor is, best first (issue 43): `best` takes the first
 * that covers a compressor, and `plan` ranks a factor of UNKNOWN after every known one. */
typedef enum {
    CONV_EVIDENCE_REFERENCE,   /* fp32, fp16, bf16: 1 by definition */
    CONV_EVIDENCE_SAME_CLASS,  /* catalog rows measured on the predicted model's class */
    CONV_EVIDENCE_BOUND,       /* variance/bias bound on a gradient trace */
    CONV_EVIDENCE_OTHER_CLASS, /* catalog rows of other model classes */
    CONV_EVIDENCE_PROXY,       /* gcsim train on the small proxy tasks */
    CONV_EVIDENCE_UNKNOWN,     /* nothing covers it: no factor, never counted as 1 */
    CONV_EVIDENCE_STATED       /* stated by a compressor description file with its source
                                  (docs/compressors.md): the file's word, not gcsim's */
} conv_evidence;

/* "reference", "catalog (same class)", "bound", "catalog (other class)", "proxy",
 * "unknown", "stated by file". `best` tries them in this order, except that same-class rows with other
 * settings of the compressor's family come after the bound (the bound is measured at the
 * asked settings; a family row ignores them). */
const char *conv_evidence_name(conv_evidence e);

/* The class of a model, from its name: "cnn", "rnn", "transformer", "linear", "mlp"; NULL
 * when the name is not recognised (then only rows of the same model count as its class). */
const char *conv_model_class(const char *model);

typedef struct {
    double factor;   /* iterations to fp32's accuracy / fp32's; NAN: not covered */
    double lo, hi;   /* interval (catalog: over rows and the exponent range; train: 95% CI
                        over seeds; bound: omega's spread over trace files) */
    conv_source source;
    /* bound only: the factor is 1 + CONV_BOUND_SHARE omega / N (upper end 1 + omega_hi / N),
     * so it depends on the worker count N; omega < 0 when the factor does not
     * (conv_factor_at). */
    double omega, omega_lo, omega_hi;
    bool no_guarantee;  /* biased without error feedback (bound source) */
    char how[400];      /* how it was matched, or why nothing covers it */
    conv_evidence evidence; /* set by conv_factor_for */
    /* gcsim's own proxy runs (train table, conv_train_miss): missed is true when on some
     * task most seeds ended below the target accuracy; reached / target are that task's mean
     * final test accuracy and target (fractions), seeds_reached of seeds. Whatever the
     * factor's source, such a compressor is never ranked as if it reached fp32's accuracy. */
    bool missed;
    double missed_reached, missed_target;
    int missed_seeds_reached, missed_seeds;
    char missed_task[40];
} conv_factor;

/* How `plan` orders factors before time or cost (issue 43): 0 a known factor, 1 unknown
 * (never counted as 1), 2 missed the target in gcsim's own runs (never ranked as if it
 * reached fp32's accuracy, whatever its factor). */
int conv_rank_tier(const conv_factor *f);

/* The factor at N workers: for a bound factor 1 + CONV_BOUND_SHARE omega / N, interval
 * [1 + CONV_BOUND_SHARE omega_lo / N, 1 + omega_hi / N]; otherwise f unchanged. */
conv_factor conv_factor_at(const conv_factor *f, int workers);

/* ---- catalog (a) ---- */

typedef struct {
    int id;
    char paper[40], model[40], dataset[48], method[96], spec[256], metric[16];
    int workers;          /* 0: not stated */
    bool ef, higher_better, holdout;
    double fp32, compressed, gap; /* fp32, compressed NAN when only the gap is published */
} conv_outcome;

typedef struct {
    conv_outcome *rows;
    int n;
} conv_catalog;

/* Reads outcomes.tsv (header line with the columns of models/convergence/SOURCES.md).
 * Returns 0, or -1 with "path: line L: field F: reason" in err. */
int conv_catalog_load(const char *path, conv_catalog *out, char *err, size_t err_len);
void conv_catalog_free(conv_catalog *c);

/* The power-law exponent a in error(budget) ~ budget^-a that turns a final-error ratio r
 * (compressor / fp32 at the same budget) into an iteration ratio r^(1/a). An assumption,
 * not a measured or published value: CONV_EXPONENT is the central value, the interval
 * spans CONV_EXPONENT_LO .. CONV_EXPONENT_HI (docs/convergence.md). */
#define CONV_EXPONENT 0.5
#define CONV_EXPONENT_LO 0.25
#define CONV_EXPONENT_HI 1.0

/* The error of a metric value: 100 - v for accuracies in % (top1, top5), v itself for
 * metrics where lower is better (wer, perplexity, loss). NAN for a gap-only row. */
double conv_error_of(const conv_outcome *o, double value);

/* Iterations factor of one row at exponent a: (err_compressed / err_fp32)^(1/a); NAN for a
 * gap-only row or a non-positive error. */
double conv_row_factor(const conv_outcome *o, double a);

/* The catalog factor for a compressor spec on a model: rows with the same canonical spec
 * (settings) on the same model, else the same spec on any model, else the same family
 * (the name before ':', with "ef+") on the same model, else the family anywhere. The factor
 * is the geometric mean of the matched rows at CONV_EXPONENT; [lo, hi] the extreme row
 * factors over the exponent range. skip_holdout leaves out the held-out rows (validation).
 * NAN with the reason when nothing matches. */
conv_factor conv_catalog_factor(const conv_catalog *c, const char *model, const char *spec,
                                bool skip_holdout);

/* Which rows conv_catalog_scoped may use: all (conv_catalog_factor's order), only rows of
 * the model's class (conv_model_class; the same model when the class is unknown), or only
 * rows of other classes. */
typedef enum { CONV_SCOPE_ALL, CONV_SCOPE_SAME_CLASS, CONV_SCOPE_OTHER_CLASS,
               CONV_SCOPE_SAME_SETTINGS } conv_scope;

/* conv_catalog_factor restricted to a scope. Same class: same settings on the same model,
 * same settings on the class, same family on the same model, same family on the class; same
 * settings: only the first two. Other class: same settings, then same family, on rows of
 * other classes. */
conv_factor conv_catalog_scoped(const conv_catalog *c, const char *model, const char *spec,
                                bool skip_holdout, conv_scope scope);

/* ---- train (b) ---- */

typedef struct {
    char task[40];   /* e.g. fmnist-lenet */
    char spec[256];  /* canonical spec */
    int workers, seeds, reached;
    double factor, lo, hi;
    /* optional columns target and reached_accuracy: the task's target test accuracy and the
     * compressor's mean final test accuracy over the seeds (fractions); NAN when absent */
    double target, final_accuracy;
} conv_train_row;

typedef struct {
    conv_train_row *rows;
    int n;
} conv_train_table;

/* Reads train_factors.tsv (task spec workers seeds reached factor lo hi). */
int conv_train_load(const char *path, conv_train_table *out, char *err, size_t err_len);
void conv_train_free(conv_train_table *t);

/* The row with the same canonical spec, preferring the same worker count, then the most
 * workers below it. NAN with the reason when none; a spec that reached the target in
 * fewer runs than it had seeds gets the reason too. */
conv_factor conv_train_factor(const conv_train_table *t, const char *spec, int workers);

/* Fills f->missed and the missed_* fields from the train table: the rows of spec (else of its
 * family, said in `how` by the caller) where fewer than half the seeds reached the target;
 * the one with the largest shortfall (target - mean final accuracy) is reported. Leaves f
 * unchanged when no row of spec missed. Returns true when the family's rows were used. */
bool conv_train_miss(const conv_train_table *t, const char *spec, conv_factor *f);

/* ---- bound (c) ---- */

/* The share s of an unbiased compressor's variance slow-down 1 + omega / N that shows in the
 * iteration count: factor 1 + s omega / N. The bound with s = 1 holds where SGD's progress is
 * limited by gradient noise in every direction; in training, much of the progress is not
 * (the deterministic part of the iteration count does not grow with the variance, and noise
 * spread over all coordinates matters less than the gradient's own high-curvature
 * directions), and with s = 1 the bound overestimated ORQ's published CIFAR-100 slow-downs
 * 3 to 10 fold (docs/validation.md). s is one number fitted by least squares on
 * log(factor) over the catalog's non-held-out rows of unbiased compressors with both
 * accuracies published (`conv_validate SOURCE_DIR --fit-bound`; the held-out third is not
 * used): 21 rows, ids 31-71 not divisible by 3, all from ORQ (Xu et al. 2020) Tables 2 and 5
 * (the other papers' non-held-out rows are biased compressors or gap-only), omega measured
 * on the proxy trace fmnist_resnet20 step 200 with 3 repeats. The test
 * convergence.bound_share checks that the constant is the fit's value. */
#define CONV_BOUND_SHARE 0.055

/* The largest omega among the compressors the share was fitted on (`conv_validate
 * SOURCE_DIR --fit-bound` prints it; convergence.bound_share checks it). The fitted share is
 * not extrapolated past it: a compressor's variance beyond it counts in full (share 1), as
 * the bound itself says, so a compressor far noisier than any fitted one (random-k at 1%
 * without error feedback, omega about 80 on the proxy trace) is not made nearly free at 8
 * workers by a share fitted on quantizers with omega up to this value. */
#define CONV_BOUND_FIT_MAX 11.5

/* The bound's factor of a compressor of relative variance omega at N workers:
 * 1 + (s min(omega, W) + max(0, omega - W)) / N with s = CONV_BOUND_SHARE and
 * W = CONV_BOUND_FIT_MAX. */
double conv_bound_at(double omega, int workers);

/* Measures omega = E||Q(g) - g||^2 / ||g||^2 (over `repeats` seeds, all tensors of each trace
 * file together) and the bias of spec on the given trace files; the factor is 1 + omega/N
 * for an unbiased compressor, 1 (the rate of SGD) for one with error feedback, and NAN with
 * no_guarantee for a biased one without. Returns 0, or -1 with the reason in err (an
 * unreadable trace, an unknown spec). */
int conv_bound_factor(const char *spec, const char *const *trace_files, int n_files,
                      int repeats, conv_factor *out, char *err, size_t err_len);

/* ---- choosing ---- */

typedef struct {
    const conv_catalog *catalog;      /* NULL: not loaded */
    const conv_train_table *train;    /* NULL: not loaded */
    const char *const *trace_files;   /* bound; n_traces 0: no bound */
    int n_traces;
    const char *trace_label;          /* what the traces are, for `how` */
} conv_sources;

/* The factor of spec on model from the asked source (CONV_SOURCE_BEST: catalog, then train,
 * then bound, the first that covers it). none, fp16 and bf16 are the reference (1). With
 * CONV_SOURCE_NONE every factor is 1. Returns 0, or -1 with err when a bound measurement
 * fails. An uncovered case is not an error: factor NAN and `how` says so. */
int conv_factor_for(const conv_sources *s, conv_source want, const char *model,
                    const char *spec, int workers, conv_factor *out, char *err,
                    size_t err_len);

#endif
