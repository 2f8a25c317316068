/* Compressor description files (compressor_file.h, docs/compressors.md). */
#include "compressor_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compressor.h"
#include "codec_profile_file.h"
#include "json_strict.h"

/* A description is a few hundred bytes; this bounds what is read of a wrong path. */
#define DESCRIPTION_MAX_BYTES (1L << 20)

bool gcsim_compressor_is_file(const char *arg)
{
    return arg && strncmp(arg, GCSIM_COMPRESSOR_FILE_PREFIX,
                          strlen(GCSIM_COMPRESSOR_FILE_PREFIX)) == 0;
}

static const char *const top_keys[] = {"schema", "name", "description", "source", "payload",
                                       "aggregation", "unbiased", "error_feedback", "codec",
                                       "convergence", "exchanges", NULL};
static const char *const convergence_keys[] = {"factor", "source", NULL};
static const char *const payload_keys[] = {"kind", "bits_per_element", "index_bits", "density",
                                           "rank", "scale_bytes", "bucket_elements",
                                           "extra_bytes", "dense_below_elements", "last_layer",
                                           NULL};
static const char *const codec_keys[] = {"like", "source", "measured", NULL};
static const char *const measured_keys[] = {"gpu", "elements", "encode_us", "decode_us",
                                            "source", NULL};
static const char *const kinds[] = {"fixed", "sparse", "lowrank", NULL};
static const char *const lasts[] = {"same", "fp32", NULL};
static const char *const aggregations[] = {"dense-summable", "shared-scale", "sparse",
                                           "per-worker-scale", NULL};

static int json_bool(const cJSON *o, const char *path, const char *key, bool *out, json_ctx *ctx)
{
    const cJSON *v = json_member(o, key);
    if (!v)
        return 0;
    if (!cJSON_IsBool(v)) {
        char buf[64];
        return gcsim_fail(ctx->err, "%s: %s.%s: expected true or false, got %s", ctx->origin,
                          path, key, json_describe(v, buf, sizeof buf));
    }
    *out = cJSON_IsTrue(v);
    return 0;
}

/* A field that only one payload kind reads must not be given to another: it would be
 * ignored, and a description that says more than it means is a mistake. */
static int only_for(const cJSON *payload, const char *key, int kind, unsigned kinds_mask,
                    json_ctx *ctx)
{
    if (json_member(payload, key) && !((kinds_mask >> kind) & 1u))
        return gcsim_fail(ctx->err, "%s: $.payload.%s: not a field of kind \"%s\" payloads",
                          ctx->origin, key, kinds[kind]);
    return 0;
}

/* A convergence factor the file states, with its source (conv_factor is NAN when none). */
typedef struct {
    double factor;
    char source[400];
    /* codec costs measured per tensor size, stated in $.codec.measured (gpu "" when none) */
    char gpu[64];
    gcsim_codec_profile_entry codec;
} stated_factor;

/* $.codec.measured.KEY: a list of n numbers in [lo, hi] (n from the first list read). */
static int number_list(const cJSON *o, const char *key, double lo, double hi, double scale,
                       double *out, int *n, json_ctx *ctx)
{
    const cJSON *a = json_member(o, key);
    char buf[64];
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1 ||
        cJSON_GetArraySize(a) > GCSIM_CODEC_PROFILE_MAX_POINTS ||
        (*n && cJSON_GetArraySize(a) != *n))
        return gcsim_fail(ctx->err, "%s: $.codec.measured.%s: expected a list of %s%d numbers, "
                                    "got %s", ctx->origin, key, *n ? "" : "1 to ",
                          *n ? *n : GCSIM_CODEC_PROFILE_MAX_POINTS,
                          a ? json_describe(a, buf, sizeof buf) : "nothing");
    int i = 0;
    for (const cJSON *x = a->child; x; x = x->next, i++)
        if (!cJSON_IsNumber(x) || !(x->valuedouble >= lo && x->valuedouble <= hi))
            return gcsim_fail(ctx->err, "%s: $.codec.measured.%s[%d]: expected a number in "
                                        "[%g, %g], got %s", ctx->origin, key, i, lo, hi,
                              json_describe(x, buf, sizeof buf));
        else
            out[i] = x->valuedouble * scale;
    *n = i;
    return 0;
}

static int read_measured(const cJSON *m, stated_factor *conv, json_ctx *ctx)
{
    char source[1024];
    gcsim_codec_profile_entry *e = &conv->codec;
    int n = 0;
    if (json_expect_object(m, "$.codec.measured", measured_keys, ctx) ||
        json_string(m, "$.codec.measured", "gpu", true, conv->gpu, sizeof conv->gpu, ctx) ||
        json_string(m, "$.codec.measured", "source", true, source, sizeof source, ctx) ||
        number_list(m, "elements", 1, GCSIM_CODEC_PROFILE_MAX_ELEMENTS, 1, e->elements, &n, ctx) ||
        number_list(m, "encode_us", 0, GCSIM_CODEC_PROFILE_MAX_US, 1e-6, e->encode_s, &n, ctx) ||
        number_list(m, "decode_us", 0, GCSIM_CODEC_PROFILE_MAX_US, 1e-6, e->decode_s, &n, ctx))
        return -1;
    for (int k = 1; k < n; k++) {
        if (!(e->elements[k] > e->elements[k - 1]))
            return gcsim_fail(ctx->err, "%s: $.codec.measured.elements[%d]: sizes must increase",
                              ctx->origin, k);
        /* as a profile's points: a running maximum, so a larger tensor never costs less */
        e->encode_s[k] = fmax(e->encode_s[k], e->encode_s[k - 1]);
        e->decode_s[k] = fmax(e->decode_s[k], e->decode_s[k - 1]);
    }
    e->n_points = n;
    snprintf(e->kind, sizeof e->kind, "measured");
    snprintf(e->measured_as, sizeof e->measured_as, "%.255s", source);
    return 0;
}

static int lower(const cJSON *root, char *spec, size_t spec_len, stated_factor *conv,
                 json_ctx *ctx)
{
    char schema[64], name[128], text[1024];
    if (json_expect_object(root, "$", top_keys, ctx) ||
        json_string(root, "$", "schema", true, schema, sizeof schema, ctx) ||
        json_string(root, "$", "name", true, name, sizeof name, ctx) ||
        json_string(root, "$", "description", false, text, sizeof text, ctx) ||
        json_string(root, "$", "source", true, text, sizeof text, ctx))
        return -1;
    if (strcmp(schema, "gcsim-compressor/1") != 0)
        return gcsim_fail(ctx->err, "%s: $.schema: \"%s\" is not \"gcsim-compressor/1\"",
                          ctx->origin, schema);
    const cJSON *payload = json_member(root, "payload");
    if (!payload)
        return gcsim_fail(ctx->err, "%s: $.payload: missing (the payload's format)", ctx->origin);
    int kind = 0, last = 0, agg = 0;
    long long bits = 0, index_bits = 0, rank = 1, scale = 0, bucket = 0, extra = 0, dense_below = 0;
    double density = 1.0;
    if (json_expect_object(payload, "$.payload", payload_keys, ctx) ||
        json_choice(payload, "$.payload", "kind", true, kinds, &kind, ctx) ||
        json_integer(payload, "$.payload", "bits_per_element", true, 1, 64, &bits, ctx) ||
        only_for(payload, "index_bits", kind, 1u << 1, ctx) ||
        only_for(payload, "density", kind, 1u << 1, ctx) ||
        only_for(payload, "rank", kind, 1u << 2, ctx) ||
        only_for(payload, "scale_bytes", kind, 3u, ctx) ||
        only_for(payload, "bucket_elements", kind, 3u, ctx) ||
        json_integer(payload, "$.payload", "index_bits", kind == 1, 1, 64, &index_bits, ctx) ||
        json_number(payload, "$.payload", "density", kind == 1, 1e-9, 1.0, &density, ctx) ||
        json_integer(payload, "$.payload", "rank", kind == 2, 1, 65535, &rank, ctx) ||
        json_integer(payload, "$.payload", "scale_bytes", false, 0, 1024, &scale, ctx) ||
        json_integer(payload, "$.payload", "bucket_elements", false, 0, 4294967295LL, &bucket, ctx) ||
        json_integer(payload, "$.payload", "extra_bytes", false, 0, 1024, &extra, ctx) ||
        json_integer(payload, "$.payload", "dense_below_elements", false, 0, 4294967295LL,
                     &dense_below, ctx) ||
        json_choice(payload, "$.payload", "last_layer", false, lasts, &last, ctx) ||
        json_choice(root, "$", "aggregation", true, aggregations, &agg, ctx))
        return -1;
    bool unbiased = false, ef = false;
    if (json_bool(root, "$", "unbiased", &unbiased, ctx) ||
        json_bool(root, "$", "error_feedback", &ef, ctx))
        return -1;
    const cJSON *stated = json_member(root, "convergence");
    conv->factor = NAN;
    conv->source[0] = '\0';
    if (stated && (json_expect_object(stated, "$.convergence", convergence_keys, ctx) ||
                   json_number(stated, "$.convergence", "factor", true, 1e-3, 1e3, &conv->factor,
                               ctx) ||
                   json_string(stated, "$.convergence", "source", true, conv->source,
                               sizeof conv->source, ctx)))
        return -1;
    unsigned exchanges = GC_EXCHANGES_ANY;
    const cJSON *list = json_member(root, "exchanges");
    if (list) {
        static const char *const names[] = {"allreduce", "allgather", "ps"};
        char buf[64];
        if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) == 0)
            return gcsim_fail(ctx->err, "%s: $.exchanges: expected a non-empty list of "
                                        "\"allreduce\", \"allgather\", \"ps\", got %s",
                              ctx->origin, json_describe(list, buf, sizeof buf));
        exchanges = 0;
        int i = 0;
        for (const cJSON *x = list->child; x; x = x->next, i++) {
            int k = 0;
            while (k < 3 && !(cJSON_IsString(x) && strcmp(x->valuestring, names[k]) == 0))
                k++;
            if (k == 3)
                return gcsim_fail(ctx->err, "%s: $.exchanges[%d]: expected \"allreduce\", "
                                            "\"allgather\" or \"ps\", got %s",
                                  ctx->origin, i, json_describe(x, buf, sizeof buf));
            if (exchanges & (1u << k))
                return gcsim_fail(ctx->err, "%s: $.exchanges[%d]: \"%s\" listed twice",
                                  ctx->origin, i, names[k]);
            exchanges |= 1u << k;
        }
    }
    const cJSON *codec = json_member(root, "codec");
    if (!codec)
        return gcsim_fail(ctx->err, "%s: $.codec: missing (\"like\": the built-in compressor "
                                    "whose codec costs and stack programs price this one)",
                          ctx->origin);
    int like = 0;
    const char *const *builtins = gc_compressor_names();
    const cJSON *measured = json_member(codec, "measured");
    conv->gpu[0] = '\0';
    if (measured && read_measured(measured, conv, ctx))
        return -1;
    if (json_expect_object(codec, "$.codec", codec_keys, ctx) ||
        json_choice(codec, "$.codec", "like", true, builtins, &like, ctx) ||
        json_string(codec, "$.codec", "source", false, text, sizeof text, ctx))
        return -1;
    /* The built-in's costs and stack programs are those of its payload kind: a reference of
     * another kind would price, say, a summable payload with a gather's programs. */
    gc_compressor *ref = NULL;
    char msg[256];
    if (gc_compressor_create(builtins[like], &ref, msg, sizeof msg))
        return gcsim_fail_internal(ctx->err, "%s: $.codec.like: %s", ctx->origin, msg);
    gc_aggregation ref_agg = gc_compressor_aggregation(ref);
    bool ref_lowrank = strcmp(builtins[like], "powersgd") == 0;
    gc_compressor_free(ref);
    if ((int)ref_agg != agg)
        return gcsim_fail(ctx->err, "%s: $.codec.like: %s's payloads aggregate as %s, not as "
                                    "$.aggregation's %s: name a built-in of the same kind",
                          ctx->origin, builtins[like], gc_aggregation_name(ref_agg),
                          aggregations[agg]);
    if (ref_lowrank != (kind == 2))
        return gcsim_fail(ctx->err, "%s: $.codec.like: %s: a low-rank payload takes its costs "
                                    "from powersgd, and only a low-rank payload does",
                          ctx->origin, builtins[like]);
    int n = snprintf(spec, spec_len,
                     "%sdescribed:payload=%s,bits=%lld,index_bits=%lld,density=%.17g,rank=%lld,"
                     "scale_bytes=%lld,bucket=%lld,extra_bytes=%lld,dense_below=%lld,last=%s,"
                     "agg=%s,unbiased=%d,codec=%s,exchanges=%u",
                     ef ? "ef+" : "", kinds[kind], bits, kind == 1 ? index_bits : 0,
                     kind == 1 ? density : 1.0, kind == 2 ? rank : 1, scale, bucket, extra,
                     dense_below, lasts[last], aggregations[agg], unbiased ? 1 : 0,
                     builtins[like], exchanges);
    if (n < 0 || (size_t)n >= spec_len)
        return gcsim_fail_internal(ctx->err, "%s: the compressor spec is longer than %zu bytes",
                                   ctx->origin, spec_len);
    /* the library checks what the file's ranges let through (a sparse density of 0) */
    gc_compressor *c = NULL;
    if (gc_compressor_create(spec, &c, msg, sizeof msg))
        return gcsim_fail(ctx->err, "%s: $.payload: %s", ctx->origin, msg);
    /* the normalized form, as every spec travels */
    snprintf(spec, spec_len, "%s", gc_compressor_spec(c));
    gc_compressor_free(c);
    return 0;
}

/* Specs read from description files in this process and their files, for messages
 * (gcsim_compressor_file_of). Written while options are read, before any worker thread. */
#define REMEMBERED 32
static struct {
    char spec[256];
    char path[512];
    stated_factor conv;
} remembered[REMEMBERED];
static int n_remembered;

static int remember(const char *spec, const char *path, const stated_factor *conv,
                    gcsim_error *err)
{
    if (gcsim_compressor_file_of(spec))
        return 0; /* the first file of a spec names it (two files of one spec: a list
                     refuses the repeat, sweep_list_add_compressors) */
    if (n_remembered == REMEMBERED)
        return gcsim_fail(err, "%s: more than %d compressor description files in one run",
                          path, REMEMBERED);
    snprintf(remembered[n_remembered].spec, sizeof remembered[0].spec, "%s", spec);
    snprintf(remembered[n_remembered].path, sizeof remembered[0].path, "%s", path);
    remembered[n_remembered].conv = *conv;
    n_remembered++;
    return 0;
}

static int remembered_index(const char *spec)
{
    for (int i = 0; spec && i < n_remembered; i++)
        if (strcmp(remembered[i].spec, spec) == 0)
            return i;
    return -1;
}

const char *gcsim_compressor_file_of(const char *spec)
{
    int i = remembered_index(spec);
    return i < 0 ? NULL : remembered[i].path;
}

const gcsim_codec_profile_entry *gcsim_compressor_file_codec(const char *spec,
                                                             const char **gpu)
{
    int i = remembered_index(spec);
    if (i < 0 || !remembered[i].conv.gpu[0])
        return NULL;
    *gpu = remembered[i].conv.gpu;
    return &remembered[i].conv.codec;
}

bool gcsim_compressor_file_convergence(const char *spec, double *factor, const char **source)
{
    int i = remembered_index(spec);
    if (i < 0 || isnan(remembered[i].conv.factor))
        return false;
    *factor = remembered[i].conv.factor;
    *source = remembered[i].conv.source;
    return true;
}

int gcsim_compressor_resolve(const char *arg, char *spec, size_t spec_len, gcsim_error *err)
{
    if (!gcsim_compressor_is_file(arg)) {
        if ((size_t)snprintf(spec, spec_len, "%s", arg ? arg : "none") >= spec_len)
            return gcsim_fail(err, "--compressor: \"%.60s...\" is longer than %zu bytes", arg,
                              spec_len - 1);
        return 0;
    }
    const char *path = arg + strlen(GCSIM_COMPRESSOR_FILE_PREFIX);
    if (!*path)
        return gcsim_fail(err, "\"file:\" names no file (file:PATH.json)");
    json_ctx ctx = {.origin = path, .err = err};
    cJSON *root = NULL;
    if (json_load_file(path, DESCRIPTION_MAX_BYTES, &ctx, &root))
        return -1;
    stated_factor conv;
    int rc = lower(root, spec, spec_len, &conv, &ctx);
    cJSON_Delete(root);
    return rc ? rc : remember(spec, path, &conv, err);
}
