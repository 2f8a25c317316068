/* Source names, the train table (source (b)) and the choice among sources (convergence.h). */
#include "convergence.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tsv.h"

static const char *const NAMES[] = {"none", "catalog", "train", "bound", "best", "reference"};

const char *conv_source_name(conv_source s)
{
    return (unsigned)s < sizeof NAMES / sizeof *NAMES ? NAMES[s] : "?";
}

int conv_source_parse(const char *text, conv_source *out)
{
    for (int s = CONV_SOURCE_NONE; s <= CONV_SOURCE_BEST; s++)
        if (strcmp(text, NAMES[s]) == 0) {
            *out = (conv_source)s;
            return 0;
        }
    return -1;
}

const char *conv_evidence_name(conv_evidence e)
{
    static const char *const EV[] = {"reference", "catalog (same class)", "bound",
                                     "catalog (other class)", "proxy", "unknown",
                                     "stated by file"};
    return (unsigned)e < sizeof EV / sizeof *EV ? EV[e] : "?";
}

int conv_train_load(const char *path, conv_train_table *out, char *err, size_t err_len)
{
    static const char *const COLS[] = {"task", "spec", "workers", "seeds", "reached",
                                       "factor", "lo", "hi"};
    memset(out, 0, sizeof *out);
    char *text = conv_tsv_slurp(path, err, err_len);
    if (!text)
        return -1;
    char *header[CONV_TSV_MAX_FIELDS], *fields[CONV_TSV_MAX_FIELDS], *next;
    int nh = conv_tsv_split(text, header, &next), col[8];
    for (int k = 0; k < 8; k++)
        if ((col[k] = conv_tsv_column(header, nh, COLS[k])) < 0) {
            snprintf(err, err_len, "%s: line 1: no column \"%s\" in the header", path, COLS[k]);
            free(text);
            return -1;
        }
    /* optional (issue 43): the task's target and the compressor's mean final accuracy */
    static const char *const OPT[] = {"target", "reached_accuracy"};
    int opt[2] = {conv_tsv_column(header, nh, OPT[0]), conv_tsv_column(header, nh, OPT[1])};
    int line_no = 1, cap = 0;
    while (*next) {
        line_no++;
        int nf = conv_tsv_split(next, fields, &next);
        if (nf == 1 && fields[0][0] == '\0')
            continue;
        if (nf != nh) {
            snprintf(err, err_len, "%s: line %d: %d fields, the header has %d", path, line_no, nf, nh);
            goto fail;
        }
        if (out->n == cap) {
            cap = cap ? 2 * cap : 32;
            conv_train_row *more = realloc(out->rows, (size_t)cap * sizeof *more);
            if (!more) {
                snprintf(err, err_len, "%s: out of memory", path);
                goto fail;
            }
            out->rows = more;
        }
        conv_train_row *r = &out->rows[out->n];
        snprintf(r->task, sizeof r->task, "%s", fields[col[0]]);
        char why[256];
        if (conv_canonical_spec(fields[col[1]], r->spec, sizeof r->spec, why, sizeof why)) {
            snprintf(err, err_len, "%s: line %d: field spec: %s", path, line_no, why);
            goto fail;
        }
        int ints[3];
        for (int k = 0; k < 3; k++) {
            char *end;
            long v = strtol(fields[col[2 + k]], &end, 10);
            if (*end || end == fields[col[2 + k]] || v < 0 || v > 1000000) {
                snprintf(err, err_len, "%s: line %d: field %s: expected a count, got \"%s\"", path,
                         line_no, COLS[2 + k], fields[col[2 + k]]);
                goto fail;
            }
            ints[k] = (int)v;
        }
        r->workers = ints[0], r->seeds = ints[1], r->reached = ints[2];
        double *dst[3] = {&r->factor, &r->lo, &r->hi};
        for (int k = 0; k < 3; k++) {
            const char *t = fields[col[5 + k]];
            char *end;
            *dst[k] = strcmp(t, "NA") == 0 ? NAN : strtod(t, &end);
            if (strcmp(t, "NA") != 0 && (*end || end == t || !(*dst[k] > 0))) {
                snprintf(err, err_len, "%s: line %d: field %s: expected a positive number or NA, "
                         "got \"%s\"", path, line_no, COLS[5 + k], t);
                goto fail;
            }
        }
        double *acc[2] = {&r->target, &r->final_accuracy};
        for (int k = 0; k < 2; k++) {
            *acc[k] = NAN;
            if (opt[k] < 0)
                continue;
            const char *v = fields[opt[k]];
            char *end;
            *acc[k] = strcmp(v, "NA") == 0 ? NAN : strtod(v, &end);
            if (strcmp(v, "NA") != 0 && (*end || end == v || !(*acc[k] >= 0 && *acc[k] <= 1))) {
                snprintf(err, err_len, "%s: line %d: field %s: expected an accuracy in [0, 1] "
                         "or NA, got \"%s\"", path, line_no, OPT[k], v);
                goto fail;
            }
        }
        out->n++;
    }
    free(text);
    return 0;
fail:
    free(text);
    conv_train_free(out);
    return -1;
}

void conv_train_free(conv_train_table *t)
{
    free(t->rows);
    t->rows = NULL;
    t->n = 0;
}

/* The worker count to use among rows of one spec: the asked count, else the largest count
 * not above it, else the smallest above. -1 when no row matches. */
static int pick_workers(const conv_train_table *t, const char *canon, bool family, int workers)
{
    int best = -1;
    for (int i = 0; i < t->n; i++) {
        const conv_train_row *r = &t->rows[i];
        char fam[256];
        conv_spec_family(r->spec, fam, sizeof fam);
        if (strcmp(family ? fam : r->spec, canon) != 0)
            continue;
        if (best < 0 || r->workers == workers) {
            best = r->workers;
            continue;
        }
        if (best == workers)
            continue;
        bool r_below = r->workers <= workers, b_below = best <= workers;
        if ((r_below && !b_below) || (r_below && b_below && r->workers > best) ||
            (!r_below && !b_below && r->workers < best))
            best = r->workers;
    }
    return best;
}

/* Pools the rows of one spec (or family) at one worker count over the proxy tasks: the
 * geometric mean of the task factors, the interval from the lowest task CI bound to the
 * highest (the spread between proxies is part of the uncertainty). A row that missed the
 * target in some seed makes the whole spec not covered: a compressor that fails to reach
 * fp32's accuracy on one proxy has no finite factor there, and averaging only the others
 * would flatter it. */
static conv_factor pool_rows(const conv_train_table *t, const char *key, bool family,
                             int workers, const char *level)
{
    conv_factor f = {.factor = NAN, .lo = NAN, .hi = NAN, .source = CONV_SOURCE_TRAIN,
                     .omega = -1};
    double log_sum = 0, lo = INFINITY, hi = -INFINITY;
    int n = 0, seeds_min = 0, seeds_max = 0;
    char tasks[160] = "";
    for (int i = 0; i < t->n; i++) {
        const conv_train_row *r = &t->rows[i];
        char fam[256];
        conv_spec_family(r->spec, fam, sizeof fam);
        if (r->workers != workers || strcmp(family ? fam : r->spec, key) != 0)
            continue;
        if (r->reached < r->seeds || isnan(r->factor)) {
            snprintf(f.how, sizeof f.how, "train: %d of %d seeds reached fp32's target on %.39s "
                     "(%.100s)", r->reached, r->seeds, r->task, r->spec);
            return f;
        }
        log_sum += log(r->factor);
        lo = fmin(lo, r->lo);
        hi = fmax(hi, r->hi);
        seeds_min = n ? (r->seeds < seeds_min ? r->seeds : seeds_min) : r->seeds;
        seeds_max = n ? (r->seeds > seeds_max ? r->seeds : seeds_max) : r->seeds;
        size_t len = strlen(tasks);
        snprintf(tasks + len, sizeof tasks - len, "%s%s %.3g", n ? ", " : "", r->task, r->factor);
        n++;
    }
    f.factor = exp(log_sum / n);
    f.lo = lo;
    f.hi = hi;
    char seeds[32];
    if (seeds_min == seeds_max)
        snprintf(seeds, sizeof seeds, "%d", seeds_min);
    else
        snprintf(seeds, sizeof seeds, "%d-%d", seeds_min, seeds_max);
    snprintf(f.how, sizeof f.how, "train: %s%d task%s (%.120s), %d workers, %s seeds, 95%% CI",
             level, n, n == 1 ? "" : "s", tasks, workers, seeds);
    return f;
}

conv_factor conv_train_factor(const conv_train_table *t, const char *spec, int workers)
{
    conv_factor f = {.factor = NAN, .lo = NAN, .hi = NAN, .source = CONV_SOURCE_TRAIN,
                     .omega = -1};
    char canon[256], fam[256], why[256];
    if (conv_canonical_spec(spec, canon, sizeof canon, why, sizeof why)) {
        snprintf(f.how, sizeof f.how, "train: %.200s", why);
        return f;
    }
    int w = pick_workers(t, canon, false, workers);
    if (w >= 0)
        return pool_rows(t, canon, false, w, "");
    /* No run of these settings: the same family with other settings, said so (as the
     * catalog's family match). */
    conv_spec_family(canon, fam, sizeof fam);
    w = pick_workers(t, fam, true, workers);
    if (w >= 0)
        return pool_rows(t, fam, true, w, "same family, other settings, ");
    snprintf(f.how, sizeof f.how, "train: no gcsim train run of %.180s", canon);
    return f;
}

/* The missed row of key (spec or family) with the largest shortfall; -1 when none. A row
 * misses when fewer than half its seeds reached the target. */
static int worst_miss(const conv_train_table *t, const char *key, bool family)
{
    int worst = -1;
    double worst_gap = -INFINITY;
    for (int i = 0; i < t->n; i++) {
        const conv_train_row *r = &t->rows[i];
        char fam[256];
        conv_spec_family(r->spec, fam, sizeof fam);
        if (strcmp(family ? fam : r->spec, key) != 0 || 2 * r->reached >= r->seeds)
            continue;
        double gap = r->target - r->final_accuracy;
        if (worst < 0 || (isfinite(gap) && !(gap <= worst_gap))) {
            worst = i;
            worst_gap = isfinite(gap) ? gap : worst_gap;
        }
    }
    return worst;
}

bool conv_train_miss(const conv_train_table *t, const char *spec, conv_factor *f)
{
    char canon[256], fam[256], why[256];
    if (!t || conv_canonical_spec(spec, canon, sizeof canon, why, sizeof why))
        return false;
    bool family = false;
    int w = worst_miss(t, canon, false);
    if (w < 0) {
        /* only when no run of these exact settings exists: a run that reached settles it */
        bool any = false;
        for (int i = 0; i < t->n && !any; i++)
            any = strcmp(t->rows[i].spec, canon) == 0;
        conv_spec_family(canon, fam, sizeof fam);
        if (!any && (w = worst_miss(t, fam, true)) >= 0)
            family = true;
    }
    if (w < 0)
        return false;
    const conv_train_row *r = &t->rows[w];
    f->missed = true;
    f->missed_reached = r->final_accuracy;
    f->missed_target = r->target;
    f->missed_seeds_reached = r->reached;
    f->missed_seeds = r->seeds;
    snprintf(f->missed_task, sizeof f->missed_task, "%s", r->task);
    return family;
}

int conv_rank_tier(const conv_factor *f)
{
    if (f->missed)
        return 2;
    return isnan(f->factor) ? 1 : 0;
}

static bool is_reference(const char *spec)
{
    char canon[256], fam[256], why[256];
    if (conv_canonical_spec(spec, canon, sizeof canon, why, sizeof why))
        return false;
    conv_spec_family(canon, fam, sizeof fam);
    return strcmp(fam, "none") == 0 || strcmp(fam, "fp16") == 0 || strcmp(fam, "bf16") == 0;
}

/* One source's factor, or -1 on a bound measurement failure. */
static int bound_of(const conv_sources *s, const char *spec, conv_factor *f, char *err,
                    size_t err_len)
{
    if (s->n_traces <= 0) {
        *f = (conv_factor){.factor = NAN, .lo = NAN, .hi = NAN, .source = CONV_SOURCE_BOUND,
                           .omega = -1};
        snprintf(f->how, sizeof f->how, "bound: no trace");
        return 0;
    }
    if (conv_bound_factor(spec, s->trace_files, s->n_traces, 4, f, err, err_len))
        return -1;
    if (s->trace_label) {
        size_t len = strlen(f->how);
        snprintf(f->how + len, sizeof f->how - len, " [%s]", s->trace_label);
    }
    return 0;
}

static conv_factor not_loaded(conv_source src, const char *what)
{
    conv_factor f = {.factor = NAN, .lo = NAN, .hi = NAN, .source = src, .omega = -1};
    snprintf(f.how, sizeof f.how, "%s", what);
    return f;
}

/* The factor from the sources in evidence order (issue 43): catalog rows of the model's
 * class, the bound, catalog rows of other classes, the proxies; the first that gives a
 * number. */
static int best_of(const conv_sources *s, const char *model, const char *spec, int workers,
                   conv_factor *out, char *err, size_t err_len)
{
    /* Steps: catalog rows of the class with these settings, the bound (measured at these
     * settings), catalog rows of the class with other settings of the family, rows of other
     * classes, the proxies. A family row ignores what the settings change (bucket size,
     * levels, density), which the bound measures. */
    static const conv_scope SCOPE[] = {CONV_SCOPE_SAME_SETTINGS, 0, CONV_SCOPE_SAME_CLASS,
                                       CONV_SCOPE_OTHER_CLASS, 0};
    static const conv_evidence EV[] = {CONV_EVIDENCE_SAME_CLASS, CONV_EVIDENCE_BOUND,
                                       CONV_EVIDENCE_SAME_CLASS, CONV_EVIDENCE_OTHER_CLASS,
                                       CONV_EVIDENCE_PROXY};
    char tried[5][400];
    conv_factor f;
    bool no_guarantee = false;
    for (int step = 0; step < 5; step++) {
        conv_evidence ev = EV[step];
        if (ev == CONV_EVIDENCE_SAME_CLASS || ev == CONV_EVIDENCE_OTHER_CLASS)
            f = s->catalog ? conv_catalog_scoped(s->catalog, model, spec, false, SCOPE[step])
                           : not_loaded(CONV_SOURCE_CATALOG, "catalog: not loaded");
        else if (ev == CONV_EVIDENCE_BOUND) {
            if (bound_of(s, spec, &f, err, err_len))
                return -1;
        } else
            f = s->train ? conv_train_factor(s->train, spec, workers)
                         : not_loaded(CONV_SOURCE_TRAIN, "train: no results file");
        if (!isnan(f.factor)) {
            f.evidence = ev;
            *out = f;
            return 0;
        }
        snprintf(tried[step], sizeof tried[step], "%s", f.how);
        if (ev == CONV_EVIDENCE_BOUND)
            no_guarantee = f.no_guarantee;
    }
    *out = (conv_factor){.factor = NAN, .lo = NAN, .hi = NAN, .source = CONV_SOURCE_BEST,
                         .omega = -1, .no_guarantee = no_guarantee,
                         .evidence = CONV_EVIDENCE_UNKNOWN};
    /* the how of each step, cut to what fits: same-class rows, bound, other classes, proxy */
    int len = snprintf(out->how, sizeof out->how, "unknown: %.90s; %.130s", tried[2], tried[1]);
    if (len > 0 && (size_t)len < sizeof out->how)
        len += snprintf(out->how + len, sizeof out->how - (size_t)len, "; %.80s", tried[3]);
    if (len > 0 && (size_t)len < sizeof out->how)
        snprintf(out->how + len, sizeof out->how - (size_t)len, "; %.80s", tried[4]);
    return 0;
}

int conv_factor_for(const conv_sources *s, conv_source want, const char *model,
                    const char *spec, int workers, conv_factor *out, char *err, size_t err_len)
{
    conv_factor none = {.factor = 1, .lo = 1, .hi = 1, .source = CONV_SOURCE_NONE, .omega = -1,
                        .evidence = CONV_EVIDENCE_REFERENCE};
    if (want == CONV_SOURCE_NONE) {
        snprintf(none.how, sizeof none.how, "none: convergence not counted (--convergence none)");
        *out = none;
        return 0;
    }
    if (is_reference(spec)) {
        none.source = CONV_SOURCE_REFERENCE;
        snprintf(none.how, sizeof none.how, "reference: fp32, fp16 and bf16 gradients count as "
                 "the baseline (assumption)");
        *out = none;
        return 0;
    }
    conv_factor f = {0};
    if (want == CONV_SOURCE_BEST) {
        if (best_of(s, model, spec, workers, &f, err, err_len))
            return -1;
    } else if (want == CONV_SOURCE_CATALOG) {
        f = s->catalog ? conv_catalog_factor(s->catalog, model, spec, false)
                       : not_loaded(CONV_SOURCE_CATALOG, "catalog: not loaded");
        if (!isnan(f.factor))
            f.evidence = conv_catalog_scoped(s->catalog, model, spec, false,
                                             CONV_SCOPE_SAME_CLASS).factor == f.factor
                             ? CONV_EVIDENCE_SAME_CLASS : CONV_EVIDENCE_OTHER_CLASS;
    } else if (want == CONV_SOURCE_TRAIN) {
        f = s->train ? conv_train_factor(s->train, spec, workers)
                     : not_loaded(CONV_SOURCE_TRAIN, "train: no results file");
        f.evidence = CONV_EVIDENCE_PROXY;
    } else {
        if (bound_of(s, spec, &f, err, err_len))
            return -1;
        f.evidence = CONV_EVIDENCE_BOUND;
    }
    if (isnan(f.factor))
        f.evidence = CONV_EVIDENCE_UNKNOWN;
    if (s->train)
        conv_train_miss(s->train, spec, &f);
    *out = f;
    return 0;
}
