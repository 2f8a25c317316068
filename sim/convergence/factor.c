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

conv_factor conv_train_factor(const conv_train_table *t, const char *spec, int workers)
{
    conv_factor f = {.factor = NAN, .lo = NAN, .hi = NAN, .source = CONV_SOURCE_TRAIN,
                     .omega = -1};
    char canon[256], why[256];
    if (conv_canonical_spec(spec, canon, sizeof canon, why, sizeof why)) {
        snprintf(f.how, sizeof f.how, "train: %.200s", why);
        return f;
    }
    const conv_train_row *best = NULL;
    for (int i = 0; i < t->n; i++) {
        const conv_train_row *r = &t->rows[i];
        if (strcmp(r->spec, canon) != 0)
            continue;
        /* Prefer the asked worker count, else the largest count not above it, else the
         * smallest above. */
        if (!best)
            best = r;
        else if (r->workers == workers)
            best = r;
        else if (best->workers != workers) {
            bool r_below = r->workers <= workers, b_below = best->workers <= workers;
            if ((r_below && !b_below) || (r_below && b_below && r->workers > best->workers) ||
                (!r_below && !b_below && r->workers < best->workers))
                best = r;
        }
    }
    if (!best) {
        snprintf(f.how, sizeof f.how, "train: no gcsim train run of %.180s", canon);
        return f;
    }
    if (best->reached < best->seeds || isnan(best->factor)) {
        snprintf(f.how, sizeof f.how, "train: %.120s on %.39s reached fp32's target in %d of %d seeds",
                 canon, best->task, best->reached, best->seeds);
        return f;
    }
    f.factor = best->factor;
    f.lo = best->lo;
    f.hi = best->hi;
    snprintf(f.how, sizeof f.how, "train: %s, %d workers, %d seeds, 95%% CI", best->task,
             best->workers, best->seeds);
    return f;
}

static bool is_reference(const char *spec)
{
    char canon[256], fam[256], why[256];
    if (conv_canonical_spec(spec, canon, sizeof canon, why, sizeof why))
        return false;
    conv_spec_family(canon, fam, sizeof fam);
    return strcmp(fam, "none") == 0 || strcmp(fam, "fp16") == 0 || strcmp(fam, "bf16") == 0;
}

int conv_factor_for(const conv_sources *s, conv_source want, const char *model,
                    const char *spec, int workers, conv_factor *out, char *err, size_t err_len)
{
    conv_factor none = {.factor = 1, .lo = 1, .hi = 1, .source = CONV_SOURCE_NONE, .omega = -1};
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
    char tried[3][240] = {"", "", ""};
    conv_factor f;
    if ((want == CONV_SOURCE_CATALOG || want == CONV_SOURCE_BEST)) {
        if (s->catalog) {
            f = conv_catalog_factor(s->catalog, model, spec, false);
            if (!isnan(f.factor) || want == CONV_SOURCE_CATALOG) {
                *out = f;
                return 0;
            }
            snprintf(tried[0], sizeof tried[0], "%s", f.how);
        } else {
            snprintf(tried[0], sizeof tried[0], "catalog: not loaded");
        }
    }
    if ((want == CONV_SOURCE_TRAIN || want == CONV_SOURCE_BEST)) {
        if (s->train) {
            f = conv_train_factor(s->train, spec, workers);
            if (!isnan(f.factor) || want == CONV_SOURCE_TRAIN) {
                *out = f;
                return 0;
            }
            snprintf(tried[1], sizeof tried[1], "%s", f.how);
        } else {
            snprintf(tried[1], sizeof tried[1], "train: no results file");
        }
    }
    if ((want == CONV_SOURCE_BOUND || want == CONV_SOURCE_BEST)) {
        if (s->n_traces > 0) {
            if (conv_bound_factor(spec, s->trace_files, s->n_traces, 4, &f, err, err_len))
                return -1;
            if (s->trace_label) {
                size_t len = strlen(f.how);
                snprintf(f.how + len, sizeof f.how - len, " [%s]", s->trace_label);
            }
            if (!isnan(f.factor) || want == CONV_SOURCE_BOUND) {
                *out = f;
                return 0;
            }
            snprintf(tried[2], sizeof tried[2], "%s", f.how);
        } else {
            snprintf(tried[2], sizeof tried[2], "bound: no trace");
        }
    }
    conv_factor miss = {.factor = NAN, .lo = NAN, .hi = NAN, .source = CONV_SOURCE_BEST,
                        .omega = -1, .no_guarantee = f.no_guarantee};
    snprintf(miss.how, sizeof miss.how, "no source covers it: %.60s; %.60s; %.70s", tried[0],
             tried[1], tried[2]);
    *out = miss;
    return 0;
}
