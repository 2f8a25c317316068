/* Loading and validating model JSON (docs/formats.md, "Model"). */
#include "model.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_strict.h"

/* A transformer's per-layer description stays far below this. */
#define MODEL_MAX_BYTES (16L << 20)
#define MODEL_MAX_LAYERS 100000

static const char *const layer_kinds[] = {"conv", "fc",   "bn",    "lstm", "embedding",
                                          "attention", "norm", "other", NULL};

static const char *const precision_names[] = {"fp32", "tf32", "bf16", "fp16", NULL};
static const char *const optimizer_names[] = {"sgd", "momentum", "adam", NULL};

const char *gcsim_precision_name(gcsim_precision p) { return precision_names[p]; }
const char *gcsim_optimizer_name(gcsim_optimizer o) { return optimizer_names[o]; }

int gcsim_precision_parse(const char *name, gcsim_precision *out)
{
    for (int i = 0; precision_names[i]; i++)
        if (strcmp(name, precision_names[i]) == 0) {
            *out = (gcsim_precision)i;
            return 0;
        }
    return -1;
}

int gcsim_optimizer_parse(const char *name, gcsim_optimizer *out)
{
    for (int i = 0; optimizer_names[i]; i++)
        if (strcmp(name, optimizer_names[i]) == 0) {
            *out = (gcsim_optimizer)i;
            return 0;
        }
    return -1;
}

int gcsim_precision_grad_elem_bytes(gcsim_precision p)
{
    return p == GCSIM_PREC_BF16 || p == GCSIM_PREC_FP16 ? 2 : 4;
}

int gcsim_precision_class(gcsim_precision p) { return gcsim_precision_grad_elem_bytes(p) == 4 ? 0 : 1; }

static int parse_layer(const cJSON *v, int index, gcsim_layer *l, json_ctx *ctx)
{
    static const char *const keys[] = {"name", "kind", "weights", "bias", "other_params",
                                       "fwd_flops", "fwd_flops_source", "matrices", "rows",
                                       NULL};
    /* Who counted fwd_flops (traces/capture/gcsim_export.py): PyTorch's counters or the
     * exporter's shape arithmetic. */
    static const char *const flops_sources[] = {"torch.utils.flop_counter", "torch.profiler",
                                                "analytic", NULL};
    int flops_source = 0;
    char path[64];
    snprintf(path, sizeof path, "$.layers[%d]", index);
    long long weights = 0, bias = 0, other = 0, matrices = 0, rows = 0;
    int kind = 0;
    if (json_expect_object(v, path, keys, ctx) ||
        json_string(v, path, "name", true, l->name, sizeof l->name, ctx) ||
        json_choice(v, path, "kind", true, layer_kinds, &kind, ctx) ||
        json_integer(v, path, "weights", true, 0, 1LL << 40, &weights, ctx) ||
        json_integer(v, path, "bias", true, 0, 1LL << 40, &bias, ctx) ||
        json_integer(v, path, "other_params", false, 0, 1LL << 40, &other, ctx) ||
        json_number(v, path, "fwd_flops", true, 0.0, 1e18, &l->fwd_flops, ctx) ||
        json_choice(v, path, "fwd_flops_source", false, flops_sources, &flops_source, ctx) ||
        json_integer(v, path, "matrices", false, 1, 1 << 20, &matrices, ctx) ||
        json_integer(v, path, "rows", false, 1, 1LL << 40, &rows, ctx))
        return -1;
    snprintf(l->kind, sizeof l->kind, "%s", layer_kinds[kind]);
    l->weights = weights;
    l->bias = bias;
    l->other_params = other;
    l->matrices = (int)matrices;
    l->rows = rows;
    if (weights + bias + other == 0)
        return gcsim_fail(ctx->err, "%s: %s: layer \"%s\" has no parameters", ctx->origin, path,
                          l->name);
    if ((matrices || rows) && weights == 0)
        return gcsim_fail(ctx->err, "%s: %s: \"matrices\" and \"rows\" describe the weights, and "
                                    "layer \"%s\" has none",
                          ctx->origin, path, l->name);
    if (matrices && weights % matrices)
        return gcsim_fail(ctx->err, "%s: %s.matrices: %lld weights do not split into %lld equal "
                                    "matrices",
                          ctx->origin, path, weights, matrices);
    if (rows && (weights / (matrices ? matrices : 1)) % rows)
        return gcsim_fail(ctx->err, "%s: %s.rows: a matrix of %lld elements has no %lld rows",
                          ctx->origin, path, weights / (matrices ? matrices : 1), rows);
    return 0;
}

/* Measured times, at most MODEL_MAX_TIME_S: layer_times entries of 1e308 s summed to
 * infinity and every bucket got no backward time at all, and a profile point of 1e308 s
 * printed inf and -nan (issue 29). An hour is beyond any iteration gcsim models, and
 * 100,000 layers of an hour each still sum finite. */
#define MODEL_MAX_TIME_S GCSIM_MAX_COMPUTE_S

static int bounded_time(const cJSON *e, const char *path, const char *key, const char *what,
                        double *out, json_ctx *ctx)
{
    if (json_time_s(e, path, key, true, out, ctx))
        return -1;
    if (*out > MODEL_MAX_TIME_S)
        return gcsim_fail(ctx->err, "%s: %s.%s: %g s is more than the %g s gcsim accepts for %s",
                          ctx->origin, path, key, *out, MODEL_MAX_TIME_S, what);
    return 0;
}

/* "layer_times": {"source": "...", "layers": [{"name", "forward", "backward"}, ...]}: one
 * entry per model layer, in the model's order, names matching (what
 * traces/capture/gcsim_export.py --profile writes). */
static int parse_layer_times(const cJSON *v, const char *path, gcsim_profile *p,
                             const gcsim_model *m, json_ctx *ctx)
{
    static const char *const keys[] = {"source", "layers", NULL};
    static const char *const entry_keys[] = {"name", "forward", "backward", NULL};
    char lpath[96], got[96];
    snprintf(lpath, sizeof lpath, "%s.layer_times", path);
    if (json_expect_object(v, lpath, keys, ctx) ||
        json_string(v, lpath, "source", true, p->layer_times_source,
                    sizeof p->layer_times_source, ctx))
        return -1;
    if (p->layer_times_source[0] == '\0')
        return gcsim_fail(ctx->err, "%s: %s.source: must say how the times were measured",
                          ctx->origin, lpath);
    const cJSON *layers = json_member(v, "layers");
    int n = cJSON_IsArray(layers) ? cJSON_GetArraySize(layers) : -1;
    if (n < 1 || n != m->n_layers)
        return gcsim_fail(ctx->err, "%s: %s.layers: expected an array of %d entries (one per "
                          "model layer), got %s", ctx->origin, lpath, m->n_layers,
                          n < 0 ? json_describe(layers, got, sizeof got) : "another length");
    p->layer_forward_s = calloc((size_t)n, sizeof *p->layer_forward_s);
    p->layer_backward_s = calloc((size_t)n, sizeof *p->layer_backward_s);
    if (!p->layer_forward_s || !p->layer_backward_s)
        return gcsim_fail(ctx->err, "%s: out of memory", ctx->origin);
    /* Walked as a list: cJSON_GetArrayItem(i) walks from the head each time, which made
     * 100,000 layers take a minute. */
    const cJSON *e = layers->child;
    for (int i = 0; i < n; i++, e = e->next) {
        char epath[128], name[sizeof m->layers[0].name];
        snprintf(epath, sizeof epath, "%s.layers[%d]", lpath, i);
        if (json_expect_object(e, epath, entry_keys, ctx) ||
            json_string(e, epath, "name", true, name, sizeof name, ctx) ||
            bounded_time(e, epath, "forward", "one layer", &p->layer_forward_s[i], ctx) ||
            bounded_time(e, epath, "backward", "one layer", &p->layer_backward_s[i], ctx))
            return -1;
        if (strcmp(name, m->layers[i].name) != 0)
            return gcsim_fail(ctx->err, "%s: %s.name: \"%s\", but $.layers[%d] is \"%s\" "
                              "(one entry per layer, in the same order)", ctx->origin, epath,
                              name, i, m->layers[i].name);
    }
    return 0;
}

static int parse_profile(const cJSON *v, int index, gcsim_profile *p, const gcsim_model *m,
                         json_ctx *ctx)
{
    static const char *const keys[] = {"gpu", "framework", "source", "points",
                                       "backward_fraction", "precision", "layer_times", NULL};
    gcsim_precision model_precision = m->precision;
    static const char *const point_keys[] = {"batch", "time", NULL};
    char path[64], got[96];
    snprintf(path, sizeof path, "$.profiles[%d]", index);
    p->backward_fraction = 2.0 / 3.0;
    int precision = (int)model_precision;
    if (json_expect_object(v, path, keys, ctx) ||
        json_choice(v, path, "precision", false, precision_names, &precision, ctx) ||
        json_string(v, path, "gpu", true, p->gpu, sizeof p->gpu, ctx) ||
        json_string(v, path, "framework", true, p->framework, sizeof p->framework, ctx) ||
        json_string(v, path, "source", true, p->source, sizeof p->source, ctx) ||
        json_number(v, path, "backward_fraction", false, 0.0, 1.0, &p->backward_fraction, ctx))
        return -1;
    p->precision = (gcsim_precision)precision;
    if (p->source[0] == '\0')
        return gcsim_fail(ctx->err, "%s: %s.source: must name where the timing comes from",
                          ctx->origin, path);
    const cJSON *points = json_member(v, "points");
    if (!points)
        return gcsim_fail(ctx->err, "%s: %s.points: missing required key", ctx->origin, path);
    int n = cJSON_IsArray(points) ? cJSON_GetArraySize(points) : -1;
    if (n < 1 || n > 8)
        return gcsim_fail(ctx->err, "%s: %s.points: expected an array of 1 to 8 points, got %s",
                          ctx->origin, path,
                          n < 0 ? json_describe(points, got, sizeof got) : "another length");
    p->n_points = n;
    for (int i = 0; i < n; i++) {
        char ppath[96];
        snprintf(ppath, sizeof ppath, "%s.points[%d]", path, i);
        const cJSON *pt = cJSON_GetArrayItem(points, i);
        long long batch = 0;
        if (json_expect_object(pt, ppath, point_keys, ctx) ||
            json_integer(pt, ppath, "batch", true, 1, 1 << 24, &batch, ctx) ||
            bounded_time(pt, ppath, "time", "one iteration", &p->points[i].time_s, ctx))
            return -1;
        p->points[i].batch = (int)batch;
        if (i > 0 && p->points[i].batch <= p->points[i - 1].batch)
            return gcsim_fail(ctx->err, "%s: %s.batch: batches must be in ascending order",
                              ctx->origin, ppath);
    }
    const cJSON *times = json_member(v, "layer_times");
    if (times && parse_layer_times(times, path, p, m, ctx))
        return -1;
    return 0;
}

int gcsim_model_parse(const char *text, const char *origin, gcsim_model *m, gcsim_error *err)
{
    static const char *const keys[] = {"name", "description", "source", "batch_per_gpu",
                                       "layers", "profiles", "precision", "optimizer",
                                       "activation_bytes_per_sample", "tokens_per_sample",
                                       "profiled_batch", NULL};
    json_ctx ctx = {origin, err};
    memset(m, 0, sizeof *m);
    snprintf(m->source_path, sizeof m->source_path, "%s", origin);
    cJSON *root = NULL;
    if (json_parse_document(text, &ctx, &root))
        return -1;
    char source[512];
    long long batch = 0, tokens = 0, profiled = 0;
    int precision = GCSIM_PREC_FP32, optimizer = GCSIM_OPT_MOMENTUM;
    if (json_expect_object(root, "$", keys, &ctx) ||
        json_string(root, "$", "name", true, m->name, sizeof m->name, &ctx) ||
        json_string(root, "$", "description", false, m->description, sizeof m->description,
                    &ctx) ||
        json_string(root, "$", "source", false, source, sizeof source, &ctx) ||
        json_integer(root, "$", "batch_per_gpu", true, 1, 1 << 24, &batch, &ctx) ||
        json_choice(root, "$", "precision", false, precision_names, &precision, &ctx) ||
        json_choice(root, "$", "optimizer", false, optimizer_names, &optimizer, &ctx) ||
        json_number(root, "$", "activation_bytes_per_sample", false, 0.0, 1e15,
                    &m->activation_bytes_per_sample, &ctx) ||
        json_integer(root, "$", "tokens_per_sample", false, 1, 1 << 24, &tokens, &ctx) ||
        /* the batch gcsim_export.py traced (and with --profile timed): as batch_per_gpu */
        json_integer(root, "$", "profiled_batch", false, 1, 1 << 24, &profiled, &ctx))
        goto fail;
    m->batch_per_gpu = (int)batch;
    m->profiled_batch = (int)profiled;
    m->precision = (gcsim_precision)precision;
    m->optimizer = (gcsim_optimizer)optimizer;
    m->tokens_per_sample = (int)tokens;

    char got[96];
    const cJSON *layers = json_member(root, "layers");
    int n_layers = cJSON_IsArray(layers) ? cJSON_GetArraySize(layers) : -1;
    if (!layers) {
        gcsim_fail(err, "%s: $.layers: missing required key", origin);
        goto fail;
    }
    if (n_layers > MODEL_MAX_LAYERS) {
        gcsim_fail(err, "%s: $.layers: %d layers, more than the %d gcsim accepts", origin,
                   n_layers, MODEL_MAX_LAYERS);
        goto fail;
    }
    if (n_layers < 1) {
        gcsim_fail(err, "%s: $.layers: expected a non-empty array of layers, got %s", origin,
                   n_layers < 0 ? json_describe(layers, got, sizeof got) : "an empty array");
        goto fail;
    }
    m->layers = calloc((size_t)n_layers, sizeof *m->layers);
    if (!m->layers) {
        gcsim_fail(err, "%s: out of memory", origin);
        goto fail;
    }
    m->n_layers = n_layers;
    int i = 0;
    for (const cJSON *l = layers->child; l; l = l->next, i++)
        if (parse_layer(l, i, &m->layers[i], &ctx))
            goto fail;

    const cJSON *profiles = json_member(root, "profiles");
    int n_profiles = cJSON_IsArray(profiles) ? cJSON_GetArraySize(profiles) : -1;
    if (!profiles) {
        gcsim_fail(err, "%s: $.profiles: missing required key", origin);
        goto fail;
    }
    if (n_profiles < 0) {
        gcsim_fail(err, "%s: $.profiles: expected an array, got %s", origin,
                   json_describe(profiles, got, sizeof got));
        goto fail;
    }
    m->profiles = calloc((size_t)n_profiles + 1, sizeof *m->profiles);
    if (!m->profiles) {
        gcsim_fail(err, "%s: out of memory", origin);
        goto fail;
    }
    m->n_profiles = n_profiles;
    i = 0;
    for (const cJSON *p = profiles->child; p; p = p->next, i++) {
        if (parse_profile(p, i, &m->profiles[i], m, &ctx))
            goto fail;
        for (int k = 0; k < i; k++)
            if (strcmp(m->profiles[k].gpu, m->profiles[i].gpu) == 0 &&
                gcsim_precision_class(m->profiles[k].precision) ==
                    gcsim_precision_class(m->profiles[i].precision)) {
                gcsim_fail(err, "%s: $.profiles[%d].gpu: a second profile for \"%s\" at %s "
                                "(one per GPU for fp32/tf32 and one for bf16/fp16)",
                           origin, i, m->profiles[i].gpu,
                           gcsim_precision_name(m->profiles[i].precision));
                goto fail;
            }
    }
    cJSON_Delete(root);
    return 0;
fail:
    cJSON_Delete(root);
    gcsim_model_free(m);
    return -1;
}

int gcsim_model_load(const char *path, gcsim_model *out, gcsim_error *err)
{
    char *text = NULL;
    if (json_read_file(path, MODEL_MAX_BYTES, &text, err))
        return -1;
    int rc = gcsim_model_parse(text, path, out, err);
    free(text);
    return rc;
}

void gcsim_model_free(gcsim_model *m)
{
    for (int i = 0; m->profiles && i < m->n_profiles; i++) {
        free(m->profiles[i].layer_forward_s);
        free(m->profiles[i].layer_backward_s);
    }
    free(m->layers);
    free(m->profiles);
    m->layers = NULL;
    m->profiles = NULL;
    m->n_layers = m->n_profiles = 0;
}

long long gcsim_layer_params(const gcsim_layer *l) { return l->weights + l->bias + l->other_params; }

void gcsim_layer_tensors_of(const gcsim_layer *l, gcsim_layer_tensors *t)
{
    *t = (gcsim_layer_tensors){0};
    if (l->weights > 0) {
        t->matrices = l->matrices > 0 ? l->matrices : 1;
        t->matrix_elems = (double)l->weights / t->matrices;
        /* PyTorch views a weight as (shape[0], -1): its rows are the output channels or
         * features, which a bias or a normalization has one parameter (pair) for. */
        double rows = l->rows > 0                ? (double)l->rows
                      : l->bias > 0              ? (double)l->bias / t->matrices
                      : l->other_params > 0      ? (double)l->other_params / 2
                                                 : floor(sqrt(t->matrix_elems));
        t->rows = fmax(1.0, fmin(rows, t->matrix_elems));
        t->cols = t->matrix_elems / t->rows;
    }
    if (l->bias > 0) {
        t->biases = t->matrices > 0 ? t->matrices : 1;
        t->bias_elems = (double)l->bias / t->biases;
    }
    if (l->other_params > 0) {
        t->norms = l->other_params > 1 ? 2 : 1;
        t->norm_elems = (double)l->other_params / t->norms;
    }
}

long long gcsim_model_params(const gcsim_model *m)
{
    long long total = 0;
    for (int i = 0; i < m->n_layers; i++)
        total += gcsim_layer_params(&m->layers[i]);
    return total;
}

double gcsim_model_gradient_bytes(const gcsim_model *m)
{
    return 4.0 * (double)gcsim_model_params(m);
}

double gcsim_model_exchanged_gradient_bytes(const gcsim_model *m)
{
    return (double)gcsim_precision_grad_elem_bytes(m->precision) *
           (double)gcsim_model_params(m);
}

double gcsim_model_train_flops_per_sample(const gcsim_model *m)
{
    double f = 0.0;
    for (int i = 0; i < m->n_layers; i++)
        f += m->layers[i].fwd_flops;
    return 3.0 * f;
}

void gcsim_model_set_precision(gcsim_model *m, gcsim_precision p)
{
    m->activation_bytes_per_sample *= (double)gcsim_precision_grad_elem_bytes(p) /
                                      (double)gcsim_precision_grad_elem_bytes(m->precision);
    m->precision = p;
}

const gcsim_profile *gcsim_model_profile(const gcsim_model *m, const char *gpu_type)
{
    for (int i = 0; i < m->n_profiles; i++)
        if (strcmp(m->profiles[i].gpu, gpu_type) == 0 &&
            gcsim_precision_class(m->profiles[i].precision) == gcsim_precision_class(m->precision))
            return &m->profiles[i];
    return NULL;
}

int gcsim_profile_time_s(const gcsim_profile *p, int batch, double *time_s, gcsim_error *err)
{
    if (batch < 1)
        return gcsim_fail(err, "batch %d: must be at least 1", batch);
    const gcsim_profile_point *pt = p->points;
    int n = p->n_points;
    for (int i = 0; i < n; i++)
        if (pt[i].batch == batch) {
            *time_s = pt[i].time_s;
            return 0;
        }
    double t;
    if (n == 1) {
        t = pt[0].time_s * (double)batch / (double)pt[0].batch;
    } else {
        /* The segment that contains the batch, or the nearest one at either end. */
        int k = 0;
        while (k < n - 2 && batch > pt[k + 1].batch)
            k++;
        double slope = (pt[k + 1].time_s - pt[k].time_s) / (double)(pt[k + 1].batch - pt[k].batch);
        t = pt[k].time_s + slope * (double)(batch - pt[k].batch);
    }
    if (!(t > 0.0) || !isfinite(t))
        return gcsim_fail(err, "profile for %s: extrapolating to batch %d gives a time of %g s; "
                               "add a measured point near that batch",
                          p->gpu, batch, t);
    *time_s = t;
    return 0;
}

/* Length of a layer name's unit key: up to the first '.', or all of it. */
static size_t unit_key_len(const char *name)
{
    const char *dot = strchr(name, '.');
    return dot ? (size_t)(dot - name) : strlen(name);
}

int gcsim_model_units(const gcsim_model *m, int *unit_of)
{
    int units = 0;
    for (int l = 0; l < m->n_layers; l++) {
        const char *a = m->layers[l].name;
        bool same = false;
        if (l > 0) {
            const char *b = m->layers[l - 1].name;
            size_t ka = unit_key_len(a), kb = unit_key_len(b);
            same = ka == kb && ka < strlen(a) && kb < strlen(b) && strncmp(a, b, ka) == 0;
        }
        if (!same)
            units++;
        unit_of[l] = units - 1;
    }
    return units;
}
