/* The catalog of published outcomes and its factor (convergence.h, source (a)). */
#include "convergence.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tsv.h"

static const char *const COLUMNS[] = {"id",     "paper",  "model", "dataset",       "workers",
                                      "method", "spec",   "ef",    "metric",        "higher_better",
                                      "fp32",   "compressed", "gap", "holdout"};
enum { C_ID, C_PAPER, C_MODEL, C_DATASET, C_WORKERS, C_METHOD, C_SPEC, C_EF, C_METRIC, C_HB,
       C_FP32, C_COMP, C_GAP, C_HOLDOUT, C_COUNT };

/* A number, or NAN for "NA"; -1 when the text is neither. */
static int parse_number(const char *text, double *out)
{
    if (strcmp(text, "NA") == 0) {
        *out = NAN;
        return 0;
    }
    char *end;
    *out = strtod(text, &end);
    return (end == text || *end || !isfinite(*out)) ? -1 : 0;
}

static int parse_flag(const char *text, const char *yes, const char *no, bool *out)
{
    if (strcmp(text, yes) == 0)
        *out = true;
    else if (strcmp(text, no) == 0)
        *out = false;
    else
        return -1;
    return 0;
}

int conv_catalog_load(const char *path, conv_catalog *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    char *text = conv_tsv_slurp(path, err, err_len);
    if (!text)
        return -1;
    char *header[CONV_TSV_MAX_FIELDS], *fields[CONV_TSV_MAX_FIELDS], *next;
    int nh = conv_tsv_split(text, header, &next);
    int col[C_COUNT];
    for (int k = 0; k < C_COUNT; k++)
        if ((col[k] = conv_tsv_column(header, nh, COLUMNS[k])) < 0) {
            snprintf(err, err_len, "%s: line 1: no column \"%s\" in the header", path, COLUMNS[k]);
            free(text);
            return -1;
        }
    size_t cap = 128;
    out->rows = calloc(cap, sizeof *out->rows);
    int line_no = 1;
    const char *bad = NULL;
    int bad_col = 0;
    while (out->rows && *next) {
        char *line = next;
        line_no++;
        int nf = conv_tsv_split(line, fields, &next);
        if (nf == 1 && fields[0][0] == '\0')
            continue; /* blank line */
        if ((size_t)out->n == cap) {
            conv_outcome *more = realloc(out->rows, 2 * cap * sizeof *more);
            if (!more)
                break;
            out->rows = more;
            cap *= 2;
        }
        if (nf != nh) {
            snprintf(err, err_len, "%s: line %d: %d fields, the header has %d", path, line_no,
                     nf, nh);
            conv_catalog_free(out);
            free(text);
            return -1;
        }
        conv_outcome *o = &out->rows[out->n];
        memset(o, 0, sizeof *o);
        char *end;
        double workers;
        o->id = (int)strtol(fields[col[C_ID]], &end, 10);
        if (*end || o->id <= 0)
            bad = "expected a positive row id", bad_col = C_ID;
        snprintf(o->paper, sizeof o->paper, "%s", fields[col[C_PAPER]]);
        snprintf(o->model, sizeof o->model, "%s", fields[col[C_MODEL]]);
        snprintf(o->dataset, sizeof o->dataset, "%s", fields[col[C_DATASET]]);
        snprintf(o->method, sizeof o->method, "%s", fields[col[C_METHOD]]);
        snprintf(o->metric, sizeof o->metric, "%s", fields[col[C_METRIC]]);
        if (!bad && (parse_number(fields[col[C_WORKERS]], &workers) ||
                     (isfinite(workers) && workers < 1)))
            bad = "expected a worker count or NA", bad_col = C_WORKERS;
        o->workers = isfinite(workers) ? (int)workers : 0;
        if (!bad && parse_flag(fields[col[C_EF]], "yes", "no", &o->ef))
            bad = "expected yes or no", bad_col = C_EF;
        if (!bad && parse_flag(fields[col[C_HB]], "1", "0", &o->higher_better))
            bad = "expected 1 or 0", bad_col = C_HB;
        if (!bad && parse_flag(fields[col[C_HOLDOUT]], "1", "0", &o->holdout))
            bad = "expected 1 or 0", bad_col = C_HOLDOUT;
        if (!bad && parse_number(fields[col[C_FP32]], &o->fp32))
            bad = "expected a number or NA", bad_col = C_FP32;
        if (!bad && parse_number(fields[col[C_COMP]], &o->compressed))
            bad = "expected a number or NA", bad_col = C_COMP;
        if (!bad && (parse_number(fields[col[C_GAP]], &o->gap) || isnan(o->gap)))
            bad = "expected a number", bad_col = C_GAP;
        char why[256];
        if (!bad && conv_canonical_spec(fields[col[C_SPEC]], o->spec, sizeof o->spec, why,
                                        sizeof why)) {
            snprintf(err, err_len, "%s: line %d: field spec: %s", path, line_no, why);
            conv_catalog_free(out);
            free(text);
            return -1;
        }
        if (bad) {
            snprintf(err, err_len, "%s: line %d: field %s: %s, got \"%s\"", path, line_no,
                     COLUMNS[bad_col], bad, fields[col[bad_col]]);
            conv_catalog_free(out);
            free(text);
            return -1;
        }
        out->n++;
    }
    free(text);
    if (!out->rows) {
        snprintf(err, err_len, "%s: out of memory", path);
        return -1;
    }
    return 0;
}

void conv_catalog_free(conv_catalog *c)
{
    free(c->rows);
    c->rows = NULL;
    c->n = 0;
}

double conv_error_of(const conv_outcome *o, double value)
{
    if (isnan(value))
        return NAN;
    if (o->higher_better)
        return strcmp(o->metric, "top1") == 0 || strcmp(o->metric, "top5") == 0 ? 100.0 - value
                                                                                 : NAN;
    return value;
}

double conv_row_factor(const conv_outcome *o, double a)
{
    double ef = conv_error_of(o, o->fp32), ec = conv_error_of(o, o->compressed);
    if (!(ef > 0) || !(ec > 0) || !(a > 0))
        return NAN;
    return pow(ec / ef, 1.0 / a);
}

static bool same_model(const char *a, const char *b)
{
    return strcasecmp(a, b) == 0;
}

const char *conv_model_class(const char *model)
{
    /* Name prefixes of the models in models/ and in the catalog (outcomes.tsv). */
    static const struct { const char *prefix, *cls; } CLASSES[] = {
        {"resnet", "cnn"},       {"alexnet", "cnn"},     {"googlenet", "cnn"},
        {"inception", "cnn"},    {"vgg", "cnn"},         {"cifarnet", "cnn"},
        {"lenet", "cnn"},        {"mobilenet", "cnn"},   {"densenet", "cnn"},
        {"efficientnet", "cnn"}, {"wrn", "cnn"},         {"wide-resnet", "cnn"},
        {"lstm", "rnn"},         {"gru", "rnn"},         {"deepspeech", "rnn"},
        {"rnn", "rnn"},          {"bert", "transformer"}, {"gpt", "transformer"},
        {"llama", "transformer"}, {"transformer", "transformer"}, {"vit", "transformer"},
        {"t5", "transformer"},   {"roberta", "transformer"}, {"opt-", "transformer"},
        {"linear-regression", "linear"}, {"logistic-regression", "linear"},
        {"mlp", "mlp"},
    };
    if (!model)
        return NULL;
    for (size_t k = 0; k < sizeof CLASSES / sizeof *CLASSES; k++)
        if (strncasecmp(model, CLASSES[k].prefix, strlen(CLASSES[k].prefix)) == 0)
            return CLASSES[k].cls;
    return NULL;
}

/* Same class as the predicted model: the same name, or both names in one known class. */
static bool same_class(const char *row_model, const char *model)
{
    if (same_model(row_model, model))
        return true;
    const char *a = conv_model_class(row_model), *b = conv_model_class(model);
    return a && b && strcmp(a, b) == 0;
}

conv_factor conv_catalog_factor(const conv_catalog *c, const char *model, const char *spec,
                                bool skip_holdout)
{
    return conv_catalog_scoped(c, model, spec, skip_holdout, CONV_SCOPE_ALL);
}

/* One matching level: which rows count. */
typedef struct {
    bool settings;  /* same canonical spec (else same family) */
    int where;      /* 0: any model, 1: same model, 2: same class, 3: other class */
    const char *label;
} match_level;

conv_factor conv_catalog_scoped(const conv_catalog *c, const char *model, const char *spec,
                                bool skip_holdout, conv_scope scope)
{
    conv_factor f = {.factor = NAN, .lo = NAN, .hi = NAN, .source = CONV_SOURCE_CATALOG,
                     .omega = -1};
    char canon[256], family[256], why[256];
    if (conv_canonical_spec(spec, canon, sizeof canon, why, sizeof why)) {
        snprintf(f.how, sizeof f.how, "catalog: %.200s", why);
        return f;
    }
    conv_spec_family(canon, family, sizeof family);
    static const match_level ALL[] = {{true, 1, "same settings, same model"},
                                      {true, 0, "same settings, other models"},
                                      {false, 1, "same family, same model"},
                                      {false, 0, "same family, other models"}};
    static const match_level SAME[] = {{true, 1, "same settings, same model"},
                                       {true, 2, "same settings, same model class"},
                                       {false, 1, "same family, same model"},
                                       {false, 2, "same family, same model class"}};
    static const match_level OTHER[] = {{true, 3, "same settings, other model classes"},
                                        {false, 3, "same family, other model classes"}};
    const match_level *levels = scope == CONV_SCOPE_SAME_CLASS || scope == CONV_SCOPE_SAME_SETTINGS
                                    ? SAME
                                : scope == CONV_SCOPE_OTHER_CLASS ? OTHER : ALL;
    int n_levels = scope == CONV_SCOPE_OTHER_CLASS || scope == CONV_SCOPE_SAME_SETTINGS ? 2 : 4;
    for (int level = 0; level < n_levels; level++) {
        const match_level *L = &levels[level];
        double log_sum = 0, lo = INFINITY, hi = -INFINITY;
        int n = 0, gap_only = 0;
        char models[96] = "";
        for (int i = 0; i < c->n; i++) {
            const conv_outcome *o = &c->rows[i];
            if (skip_holdout && o->holdout)
                continue;
            char fam[256];
            conv_spec_family(o->spec, fam, sizeof fam);
            bool match = L->settings ? strcmp(o->spec, canon) == 0 : strcmp(fam, family) == 0;
            if (!match || (L->where == 1 && !same_model(o->model, model)) ||
                (L->where == 2 && !same_class(o->model, model)) ||
                (L->where == 3 && same_class(o->model, model)))
                continue;
            double r = conv_row_factor(o, CONV_EXPONENT);
            if (isnan(r)) {
                gap_only++;
                continue;
            }
            log_sum += log(r);
            n++;
            double a = conv_row_factor(o, CONV_EXPONENT_LO), b = conv_row_factor(o, CONV_EXPONENT_HI);
            lo = fmin(lo, fmin(a, b));
            hi = fmax(hi, fmax(a, b));
            if (!strstr(models, o->model)) {
                size_t len = strlen(models);
                snprintf(models + len, sizeof models - len, "%s%s", len ? ", " : "", o->model);
            }
        }
        if (n > 0) {
            f.factor = exp(log_sum / n);
            f.lo = lo;
            f.hi = hi;
            if (scope == CONV_SCOPE_ALL)
                snprintf(f.how, sizeof f.how, "catalog: %d row%s, %s%s", n, n == 1 ? "" : "s",
                         L->label, gap_only ? " (gap-only rows not counted)" : "");
            else
                snprintf(f.how, sizeof f.how, "catalog: %d row%s, %s (%.80s)%s", n,
                         n == 1 ? "" : "s", L->label, models,
                         gap_only ? " (gap-only rows not counted)" : "");
            return f;
        }
    }
    const char *cls = conv_model_class(model);
    if (scope == CONV_SCOPE_SAME_SETTINGS)
        snprintf(f.how, sizeof f.how, "catalog: no published outcome of %.150s with these "
                 "settings on %s%s", family, cls ? "the class " : "", cls ? cls : "this model");
    else if (scope == CONV_SCOPE_SAME_CLASS)
        snprintf(f.how, sizeof f.how, "catalog: no published outcome of %.150s on %s%s",
                 family, cls ? "the class " : "", cls ? cls : "this model");
    else if (scope == CONV_SCOPE_OTHER_CLASS)
        snprintf(f.how, sizeof f.how, "catalog: no published outcome of %.150s on another "
                 "model class", family);
    else
        snprintf(f.how, sizeof f.how, "catalog: no published outcome of %.200s", family);
    return f;
}
