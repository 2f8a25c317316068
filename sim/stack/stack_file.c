/*
 * sim/stack/stack_file.c: reading a stack file strictly (stack.h, docs/stacks.md). Every
 * error names the file and the JSON path; unknown keys are errors.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compressor.h"
#include "data_dir.h"
#include "json_strict.h"
#include "stack_cpu_codec.h"
#include "stack_gpu_passes.h"
#include "stack_allgather.h"
#include "stack_leader.h"
#include "model.h"
#include "stack.h"
#include "stack_exchanges.h"
#include "stack_hook.h"
#include "stack_host.h"

#define STACK_MAX_BYTES (4L << 20)

static const char *const catalog[] = {"fused",  "pytorch-ddp", "horovod", "horovod-tf",
                                      "bagua",  "byteps",      "deepspeed", NULL};

const char *const *gcsim_stack_catalog(void) { return catalog; }

/* Caps on what a stack file measures (issue 45: 1e300 in any of them printed 300-digit
 * times): a law's tensor is at most GCSIM_STACK_MAX_ELEMENTS elements (a layer's weights are
 * at most 2^40), one op's call at most GCSIM_MAX_COMPUTE_S (an hour, the cap on a model's
 * times); a collective call's host cost, a synchronisation and a background cycle at most
 * STACK_MAX_OVERHEAD_S (a second, the cap on a platform's latencies: these are software
 * overheads of microseconds); a readiness all-reduce at most STACK_MAX_NEGOTIATION_BYTES. */
#define STACK_MAX_OVERHEAD_S 1.0
#define STACK_MAX_NEGOTIATION_BYTES 1000000

/* An array of `want` numbers >= 0 and <= max (in the file's unit); element counts (increasing)
 * must be whole numbers >= 1 that increase strictly. */
static int number_array(const cJSON *obj, const char *path, const char *key, double *out,
                        int want, bool increasing, double scale, double max, json_ctx *ctx)
{
    const cJSON *a = json_member(obj, key);
    char got[96];
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != want)
        return gcsim_fail(ctx->err, "%s: %s.%s: expected an array of %d numbers, got %s",
                          ctx->origin, path, key, want,
                          a ? json_describe(a, got, sizeof got) : "nothing");
    int k = 0;
    for (const cJSON *x = a->child; x; x = x->next, k++) {
        if (!cJSON_IsNumber(x) || !isfinite(x->valuedouble) || x->valuedouble < 0)
            return gcsim_fail(ctx->err, "%s: %s.%s[%d]: expected a number >= 0, got %s",
                              ctx->origin, path, key, k, json_describe(x, got, sizeof got));
        if (x->valuedouble > max)
            return gcsim_fail(ctx->err, "%s: %s.%s[%d]: %.16g is %s", ctx->origin, path, key, k,
                              x->valuedouble,
                              increasing ? "more elements than the 2^40 gcsim accepts"
                                         : "more than the 3.6e9 us (an hour) gcsim accepts for "
                                           "one op");
        if (increasing && x->valuedouble != floor(x->valuedouble))
            return gcsim_fail(ctx->err, "%s: %s.%s[%d]: %.17g is not a whole number of elements",
                              ctx->origin, path, key, k, x->valuedouble);
        out[k] = x->valuedouble * scale;
        if (increasing && (out[k] < 1 || (k > 0 && !(out[k] > out[k - 1]))))
            return gcsim_fail(ctx->err, "%s: %s.%s[%d]: element counts must be >= 1 and "
                                        "increase (%.17g after %.17g)",
                              ctx->origin, path, key, k, out[k], k ? out[k - 1] : 0.0);
    }
    return 0;
}

/* One setting of a law: {"at", "host_us", "gpu_us", "basis", "source"}. */
static int parse_setting(const cJSON *v, const char *path, gcsim_stack_law *law, int i,
                         json_ctx *ctx)
{
    static const char *const keys[] = {"at", "host_us", "gpu_us", "basis", "source", NULL};
    char source[1024];
    if (json_expect_object(v, path, keys, ctx) ||
        json_number(v, path, "at", true, 1e-9, 1e9, &law->at[i], ctx) ||
        json_string(v, path, "basis", true, law->basis[i], sizeof law->basis[i], ctx) ||
        json_string(v, path, "source", true, source, sizeof source, ctx) ||
        number_array(v, path, "host_us", law->host_s[i], law->n_points, false, 1e-6,
                     GCSIM_MAX_COMPUTE_S * 1e6, ctx) ||
        number_array(v, path, "gpu_us", law->gpu_s[i], law->n_points, false, 1e-6,
                     GCSIM_MAX_COMPUTE_S * 1e6, ctx))
        return -1;
    if (i > 0 && !(law->at[i] > law->at[i - 1]))
        return gcsim_fail(ctx->err, "%s: %s.at: settings must increase (%.17g after %.17g)",
                          ctx->origin, path, law->at[i], law->at[i - 1]);
    return 0;
}

/* A law: by size only ({"elements", "host_us", "gpu_us"}: the schema before settings, still
 * read), or by size and setting ({"elements", "parameter", "scale", "beyond",
 * "reference", "settings": [...]}; docs/stacks.md). */
static int parse_law(const cJSON *v, const char *key, gcsim_stack_law *law, json_ctx *ctx)
{
    static const char *const keys[] = {"gpu", "elements", "host_us", "gpu_us", "parameter",
                                       "scale", "beyond", "reference", "l2_bytes",
                                       "settings", "source", "basis", NULL};
    static const char *const parameters[] = {"none", "density", "bits", "rank", NULL};
    static const char *const scales[] = {"linear", "log", "sectors", "gather", "passes", NULL};
    static const char *const beyond[] = {"held", "extends", NULL};
    char path[128], source[1024];
    snprintf(path, sizeof path, "$.laws.%s", key);
    if (json_control_char(key) >= 0)
        return gcsim_fail(ctx->err, "%s: $.laws: a law name with control character U+%04X",
                          ctx->origin, (unsigned char)key[json_control_char(key)]);
    if (strlen(key) >= sizeof law->name)
        return gcsim_fail(ctx->err, "%s: %s: name longer than %zu characters", ctx->origin, path,
                          sizeof law->name - 1);
    snprintf(law->name, sizeof law->name, "%s", key);
    if (json_expect_object(v, path, keys, ctx) ||
        json_string(v, path, "gpu", true, law->gpu, sizeof law->gpu, ctx) ||
        json_string(v, path, "source", true, source, sizeof source, ctx))
        return -1;
    const cJSON *el = json_member(v, "elements");
    int n = cJSON_IsArray(el) ? cJSON_GetArraySize(el) : 0;
    if (n < 1 || n > GCSIM_STACK_LAW_POINTS)
        return gcsim_fail(ctx->err, "%s: %s.elements: expected an array of 1 to %d element "
                                    "counts",
                          ctx->origin, path, GCSIM_STACK_LAW_POINTS);
    law->n_points = n;
    if (number_array(v, path, "elements", law->elements, n, true, 1.0, GCSIM_STACK_MAX_ELEMENTS,
                     ctx))
        return -1;
    const cJSON *settings = json_member(v, "settings");
    if (!settings) {
        for (const char *const *k = keys + 4; strcmp(*k, "source") != 0; k++)
            if (json_member(v, *k))
                return gcsim_fail(ctx->err, "%s: %s.%s: only for a law with \"settings\"",
                                  ctx->origin, path, *k);
        law->parameter = STACK_SETTING_NONE;
        law->n_settings = 1;
        /* "basis": how a law without settings was obtained when not measured (a law
         * modelled from a kernel's passes says so, and the codec cost line repeats it) */
        if (json_string(v, path, "basis", false, law->basis[0], sizeof law->basis[0], ctx))
            return -1;
        if (!json_member(v, "basis"))
            snprintf(law->basis[0], sizeof law->basis[0], "measured");
        else if (!law->basis[0][0])
            return gcsim_fail(ctx->err, "%s: %s.basis: must say how the law was obtained "
                                        "(or leave it out: measured)",
                              ctx->origin, path);
        if (number_array(v, path, "host_us", law->host_s[0], n, false, 1e-6,
                         GCSIM_MAX_COMPUTE_S * 1e6, ctx) ||
            number_array(v, path, "gpu_us", law->gpu_s[0], n, false, 1e-6,
                         GCSIM_MAX_COMPUTE_S * 1e6, ctx))
            return -1;
    } else {
        int parameter = 0, scale = 0, extends = 0;
        if (json_member(v, "host_us") || json_member(v, "gpu_us") || json_member(v, "basis"))
            return gcsim_fail(ctx->err, "%s: %s: host_us, gpu_us and basis go in each of "
                                        "\"settings\"",
                              ctx->origin, path);
        if (json_choice(v, path, "parameter", true, parameters, &parameter, ctx) ||
            json_choice(v, path, "scale", true, scales, &scale, ctx) ||
            json_choice(v, path, "beyond", true, beyond, &extends, ctx) ||
            json_number(v, path, "reference", true, 1e-9, 1e9, &law->reference, ctx))
            return -1;
        law->l2_bytes = 0;
        if (scale == STACK_SCALE_GATHER &&
            json_number(v, path, "l2_bytes", true, 1.0, 1e12, &law->l2_bytes, ctx))
            return -1;
        if (scale != STACK_SCALE_GATHER && json_member(v, "l2_bytes"))
            return gcsim_fail(ctx->err, "%s: %s.l2_bytes: only for a law with \"scale\": "
                                        "\"gather\"",
                              ctx->origin, path);
        if (parameter == STACK_SETTING_NONE)
            return gcsim_fail(ctx->err, "%s: %s.parameter: a law with settings names the "
                                        "parameter they are of (density, bits or rank)",
                              ctx->origin, path);
        law->parameter = (gcsim_stack_parameter)parameter;
        law->scale = (gcsim_stack_scale)scale;
        law->host_extends = extends == 1;
        int k = cJSON_IsArray(settings) ? cJSON_GetArraySize(settings) : 0;
        if (k < 1 || k > GCSIM_STACK_LAW_SETTINGS)
            return gcsim_fail(ctx->err, "%s: %s.settings: expected an array of 1 to %d "
                                        "settings",
                              ctx->origin, path, GCSIM_STACK_LAW_SETTINGS);
        law->n_settings = k;
        int i = 0;
        for (const cJSON *x = settings->child; x; x = x->next, i++) {
            char p[160];
            snprintf(p, sizeof p, "%s.settings[%d]", path, i);
            if (parse_setting(x, p, law, i, ctx))
                return -1;
        }
    }
    const gcsim_gpu_params *g;
    gcsim_error why;
    if (gcsim_gpu_params_find(law->gpu, &g, &why))
        return gcsim_fail(ctx->err, "%s: %s.gpu: %s", ctx->origin, path, why.message);
    return 0;
}

static int find_law(const gcsim_stack *s, const char *name)
{
    for (int k = 0; k < s->n_laws; k++)
        if (strcmp(s->laws[k].name, name) == 0)
            return k;
    return -1;
}

static int parse_ops(const cJSON *obj, const char *path, const char *key, const gcsim_stack *s,
                     gcsim_stack_ops *out, json_ctx *ctx)
{
    static const char *const keys[] = {"law", "per", "payloads", "fraction", "gpu_scale", "rank",
                                       NULL};
    static const char *const pers[] = {"unit", "tensor", "matrix", "vector", "weight", "1d",
                                       NULL};
    out->n = 0;
    const cJSON *a = json_member(obj, key);
    if (!a)
        return 0;
    char got[96];
    if (!cJSON_IsArray(a))
        return gcsim_fail(ctx->err, "%s: %s.%s: expected an array of ops, got %s", ctx->origin,
                          path, key, json_describe(a, got, sizeof got));
    if (cJSON_GetArraySize(a) > GCSIM_STACK_MAX_OPS)
        return gcsim_fail(ctx->err, "%s: %s.%s: %d ops, at most %d", ctx->origin, path, key,
                          cJSON_GetArraySize(a), GCSIM_STACK_MAX_OPS);
    int k = 0;
    for (const cJSON *x = a->child; x; x = x->next, k++) {
        char p[192], law[64];
        snprintf(p, sizeof p, "%s.%s[%d]", path, key, k);
        gcsim_stack_op *op = &out->ops[out->n];
        int per = 0;
        long long rank = 0;
        op->fraction = 1.0;
        op->gpu_scale = 1.0;
        if (json_expect_object(x, p, keys, ctx) ||
            json_string(x, p, "law", true, law, sizeof law, ctx) ||
            json_choice(x, p, "per", true, pers, &per, ctx) ||
            json_number(x, p, "fraction", false, 1e-6, 1.0, &op->fraction, ctx) ||
            json_number(x, p, "gpu_scale", false, 0.0, 1e3, &op->gpu_scale, ctx) ||
            json_integer(x, p, "rank", false, 1, 1 << 16, &rank, ctx))
            return -1;
        op->rank = (int)rank;
        op->per = (gcsim_stack_per)per;
        const cJSON *pay = json_member(x, "payloads");
        if (pay && !cJSON_IsBool(pay))
            return gcsim_fail(ctx->err, "%s: %s.payloads: expected true or false", ctx->origin, p);
        op->per_payload = cJSON_IsTrue(pay);
        if ((op->law = find_law(s, law)) < 0)
            return gcsim_fail(ctx->err, "%s: %s.law: no law \"%s\" in $.laws", ctx->origin, p,
                              law);
        out->n++;
    }
    return 0;
}

static int parse_entry(const cJSON *v, const char *name, gcsim_stack *s, json_ctx *ctx)
{
    static const char *const keys[] = {"exchange", "encode", "unpack", "between", "decode",
                                       "decode_own", "size_exchange", "host_sync", "refuse",
                                       "source", NULL};
    static const char *const exchanges[] = {"allreduce", "allgather", "powersgd-hook",
                                            "powersgd-blocking", NULL};
    char path[128];
    snprintf(path, sizeof path, "$.compressors.%s", name);
    if (s->n_entries == GCSIM_STACK_MAX_ENTRIES)
        return gcsim_fail(ctx->err, "%s: %s: more than %d compressors", ctx->origin, path,
                          GCSIM_STACK_MAX_ENTRIES);
    gcsim_stack_entry *e = &s->entries[s->n_entries];
    memset(e, 0, sizeof *e);
    if (strlen(name) >= sizeof e->compressor)
        return gcsim_fail(ctx->err, "%s: %s: name too long", ctx->origin, path);
    snprintf(e->compressor, sizeof e->compressor, "%s", name);
    if (json_expect_object(v, path, keys, ctx) ||
        json_string(v, path, "source", true, e->source, sizeof e->source, ctx) ||
        json_string(v, path, "refuse", false, e->refusal, sizeof e->refusal, ctx))
        return -1;
    if (json_member(v, "refuse")) {
        if (!e->refusal[0])
            return gcsim_fail(ctx->err, "%s: %s.refuse: must say why", ctx->origin, path);
        for (const char *const *k = keys; *k; k++)
            if (strcmp(*k, "refuse") && strcmp(*k, "source") && json_member(v, *k))
                return gcsim_fail(ctx->err, "%s: %s.%s: a refused compressor has no %s",
                                  ctx->origin, path, *k, *k);
        s->n_entries++;
        return 0;
    }
    int ex = 0;
    if (json_choice(v, path, "exchange", true, exchanges, &ex, ctx) ||
        parse_ops(v, path, "encode", s, &e->encode, ctx) ||
        parse_ops(v, path, "unpack", s, &e->unpack, ctx) ||
        parse_ops(v, path, "between", s, &e->between, ctx) ||
        parse_ops(v, path, "decode", s, &e->decode, ctx))
        return -1;
    e->exchange = (gcsim_stack_exchange)ex;
    const cJSON *own = json_member(v, "decode_own"), *size = json_member(v, "size_exchange");
    if ((own && !cJSON_IsBool(own)) || (size && !cJSON_IsBool(size)))
        return gcsim_fail(ctx->err, "%s: %s.%s: expected true or false", ctx->origin, path,
                          own && !cJSON_IsBool(own) ? "decode_own" : "size_exchange");
    e->decode_own = cJSON_IsTrue(own);
    e->size_exchange = cJSON_IsTrue(size);
    const cJSON *sync = json_member(v, "host_sync");
    if (sync && !cJSON_IsBool(sync))
        return gcsim_fail(ctx->err, "%s: %s.host_sync: expected true or false", ctx->origin,
                          path);
    e->host_sync = cJSON_IsTrue(sync);
    if ((e->decode_own || e->size_exchange) && e->exchange != STACK_EXCHANGE_ALLGATHER)
        return gcsim_fail(ctx->err, "%s: %s: decode_own and size_exchange apply to "
                                    "\"exchange\": \"allgather\" only",
                          ctx->origin, path);
    bool powersgd = e->exchange == STACK_EXCHANGE_POWERSGD_HOOK ||
                    e->exchange == STACK_EXCHANGE_POWERSGD_BLOCKING;
    if (!powersgd && (e->unpack.n || e->between.n))
        return gcsim_fail(ctx->err, "%s: %s: \"unpack\" and \"between\" are PowerSGD's phases "
                                    "(exchange powersgd-hook or powersgd-blocking)",
                          ctx->origin, path);
    if (powersgd && strcmp(name, "powersgd") != 0)
        return gcsim_fail(ctx->err, "%s: %s.exchange: %s runs PowerSGD only", ctx->origin, path,
                          exchanges[ex]);
    s->n_entries++;
    return 0;
}

static int parse_granularity(const cJSON *g, gcsim_stack *s, json_ctx *ctx)
{
    static const char *const keys[] = {"unit", "bucket_bytes", "first_bucket_bytes",
                                       "fusion_bytes", "cycle", "wait_for_data", "source",
                                       NULL};
    static const char *const units[] = {"bucket", "tensor", NULL};
    static const char *const waits[] = {"stream", "thread", NULL};
    const char *path = "$.granularity";
    char source[1024];
    int unit = 0;
    if (!g)
        return gcsim_fail(ctx->err, "%s: %s: missing", ctx->origin, path);
    if (json_expect_object(g, path, keys, ctx) ||
        json_choice(g, path, "unit", true, units, &unit, ctx) ||
        json_string(g, path, "source", true, source, sizeof source, ctx))
        return -1;
    s->unit = (gcsim_stack_unit)unit;
    if (s->unit == STACK_UNIT_BUCKET) {
        if (json_member(g, "fusion_bytes") || json_member(g, "cycle") ||
            json_member(g, "wait_for_data"))
            return gcsim_fail(ctx->err, "%s: %s: fusion_bytes, cycle and wait_for_data are for "
                                        "\"unit\": \"tensor\"",
                              ctx->origin, path);
        return json_size_bytes(g, path, "bucket_bytes", true, &s->bucket_bytes, ctx) ||
               json_size_bytes(g, path, "first_bucket_bytes", false, &s->first_bucket_bytes, ctx);
    }
    if (json_member(g, "bucket_bytes") || json_member(g, "first_bucket_bytes"))
        return gcsim_fail(ctx->err, "%s: %s: bucket sizes are for \"unit\": \"bucket\"",
                          ctx->origin, path);
    int wait = 0;
    if (json_size_bytes(g, path, "fusion_bytes", true, &s->fusion_bytes, ctx) ||
        json_time_at_most(g, path, "cycle", true, STACK_MAX_OVERHEAD_S,
                          "a background thread's cycle", &s->cycle_s, ctx) ||
        json_choice(g, path, "wait_for_data", false, waits, &wait, ctx))
        return -1;
    s->wait_on_thread = wait == 1;
    return 0;
}

static int parse_costs(const cJSON *c, gcsim_stack *s, json_ctx *ctx)
{
    static const char *const keys[] = {"collective_call", "sync", "negotiation_bytes",
                                       "source", NULL};
    const char *path = "$.costs";
    char source[1024];
    long long negotiation = 0;
    if (!c)
        return gcsim_fail(ctx->err, "%s: %s: missing", ctx->origin, path);
    if (json_expect_object(c, path, keys, ctx) ||
        json_string(c, path, "source", true, source, sizeof source, ctx) ||
        json_time_at_most(c, path, "collective_call", true, STACK_MAX_OVERHEAD_S,
                          "issuing one collective call", &s->call_s, ctx) ||
        json_time_at_most(c, path, "sync", true, STACK_MAX_OVERHEAD_S,
                          "one host-device synchronisation", &s->sync_s, ctx) ||
        json_integer(c, path, "negotiation_bytes", false, 0, STACK_MAX_NEGOTIATION_BYTES,
                     &negotiation, ctx))
        return -1;
    s->negotiation_bytes = (double)negotiation;
    return 0;
}

static int parse_stack(const cJSON *root, gcsim_stack *s, json_ctx *ctx)
{
    static const char *const keys[] = {"schema", "name", "description", "codec", "granularity",
                                       "deferred_decode", "costs", "laws", "error_feedback",
                                       "compressors", "exchanges", "source", "host",
                                       "gathered_decode", "hook_host", "compressed_allreduce",
                                       "allgather", "cpu_codec", "gpu_passes", NULL};
    static const char *const codecs[] = {"model", "laws", NULL};
    char schema[64], source[1024];
    int codec = 0;
    if (json_expect_object(root, "$", keys, ctx) ||
        json_string(root, "$", "schema", true, schema, sizeof schema, ctx) ||
        json_string(root, "$", "name", true, s->name, sizeof s->name, ctx) ||
        json_string(root, "$", "description", true, s->description, sizeof s->description, ctx) ||
        json_string(root, "$", "source", true, source, sizeof source, ctx) ||
        json_choice(root, "$", "codec", true, codecs, &codec, ctx))
        return -1;
    if (strcmp(schema, "gcsim-stack/1") != 0)
        return gcsim_fail(ctx->err, "%s: $.schema: expected \"gcsim-stack/1\", got \"%s\"",
                          ctx->origin, schema);
    if (!s->name[0]) /* the name every table and row prints */
        return gcsim_fail(ctx->err, "%s: $.name: must not be empty", ctx->origin);
    s->codec_model = codec == 0;
    const cJSON *deferred = json_member(root, "deferred_decode");
    if (deferred && !cJSON_IsBool(deferred))
        return gcsim_fail(ctx->err, "%s: $.deferred_decode: expected true or false", ctx->origin);
    s->deferred_decode = cJSON_IsTrue(deferred);
    if (parse_granularity(json_member(root, "granularity"), s, ctx) ||
        stack_exchanges_parse(json_member(root, "exchanges"), s, ctx) ||
        stack_leader_parse(json_member(root, "compressed_allreduce"), s, ctx) ||
        stack_allgather_parse(json_member(root, "allgather"), s, ctx) ||
        stack_cpu_codec_parse(json_member(root, "cpu_codec"), s, ctx) ||
        stack_gpu_passes_parse(json_member(root, "gpu_passes"), s, ctx))
        return -1;
    if (s->n_gpu_passes > 0 && (!s->codec_model || s->cpu_codec))
        return gcsim_fail(ctx->err, "%s: $.gpu_passes: only a \"codec\": \"model\" stack "
                                    "without a cpu_codec prices its codec by GPU passes",
                          ctx->origin);
    if (s->cpu_codec && !s->codec_model)
        return gcsim_fail(ctx->err, "%s: $.cpu_codec: only a \"codec\": \"model\" stack "
                                    "prices its codec on the host's CPU",
                          ctx->origin);
    if (s->codec_model) {
        /* The ideal stack: sim/codec prices the codec, nothing else is charged. */
        static const char *const model_only[] = {"costs", "laws", "error_feedback",
                                                 "compressors", "host", "gathered_decode",
                                                 "hook_host", NULL};
        for (const char *const *k = model_only; *k; k++)
            if (json_member(root, *k))
                return gcsim_fail(ctx->err, "%s: $.%s: a \"codec\": \"model\" stack takes its "
                                            "costs from the codec model, not from %s",
                                  ctx->origin, *k, *k);
        if (s->unit != STACK_UNIT_BUCKET || s->deferred_decode)
            return gcsim_fail(ctx->err, "%s: $.granularity.unit: a \"codec\": \"model\" stack "
                                        "exchanges buckets as they fill",
                              ctx->origin);
        return stack_exchanges_finish(s, ctx);
    }
    if (parse_costs(json_member(root, "costs"), s, ctx) || stack_host_parse(root, s, ctx) ||
        stack_hook_parse(root, s, ctx))
        return -1;
    const cJSON *laws = json_member(root, "laws");
    if (!cJSON_IsObject(laws))
        return gcsim_fail(ctx->err, "%s: $.laws: expected an object of measured op costs",
                          ctx->origin);
    for (const cJSON *l = laws->child; l; l = l->next) {
        if (s->n_laws == GCSIM_STACK_MAX_LAWS)
            return gcsim_fail(ctx->err, "%s: $.laws: more than %d laws", ctx->origin,
                              GCSIM_STACK_MAX_LAWS);
        if (find_law(s, l->string) >= 0)
            return gcsim_fail(ctx->err, "%s: $.laws.%s: defined twice", ctx->origin, l->string);
        if (parse_law(l, l->string, &s->laws[s->n_laws], ctx))
            return -1;
        if (s->n_laws > 0 && strcmp(s->laws[s->n_laws].gpu, s->laws[0].gpu) != 0)
            return gcsim_fail(ctx->err, "%s: $.laws.%s.gpu: \"%s\", where $.laws.%s was measured "
                                        "on \"%s\" (one reference GPU per stack)",
                              ctx->origin, l->string, s->laws[s->n_laws].gpu, s->laws[0].name,
                              s->laws[0].gpu);
        s->n_laws++;
    }
    if (s->n_laws > 0)
        snprintf(s->reference_gpu, sizeof s->reference_gpu, "%s", s->laws[0].gpu);
    if (parse_ops(root, "$", "error_feedback", s, &s->error_feedback, ctx))
        return -1;
    const cJSON *cs = json_member(root, "compressors");
    if (!cJSON_IsObject(cs))
        return gcsim_fail(ctx->err, "%s: $.compressors: expected an object, one entry per "
                                    "compressor",
                          ctx->origin);
    const char *const *names = gc_compressor_names();
    for (const cJSON *c = cs->child; c; c = c->next) {
        if (json_control_char(c->string) >= 0)
            return gcsim_fail(ctx->err, "%s: $.compressors: a compressor name with control "
                                        "character U+%04X",
                              ctx->origin, (unsigned char)c->string[json_control_char(c->string)]);
        bool known = strcmp(c->string, "none") == 0;
        for (const char *const *n = names; *n && !known; n++)
            known = strcmp(*n, c->string) == 0;
        if (!known)
            return gcsim_fail(ctx->err, "%s: $.compressors.%s: not a compressor of the library",
                              ctx->origin, c->string);
        for (int k = 0; k < s->n_entries; k++)
            if (strcmp(s->entries[k].compressor, c->string) == 0)
                return gcsim_fail(ctx->err, "%s: $.compressors.%s: defined twice", ctx->origin,
                                  c->string);
        if (parse_entry(c, c->string, s, ctx))
            return -1;
    }
    bool has_none = false;
    for (int k = 0; k < s->n_entries; k++)
        has_none = has_none || strcmp(s->entries[k].compressor, "none") == 0;
    if (!has_none)
        return gcsim_fail(ctx->err, "%s: $.compressors.none: missing (how the stack exchanges "
                                    "uncompressed gradients)",
                          ctx->origin);
    stack_host_finish(s);
    return stack_exchanges_finish(s, ctx);
}

int gcsim_stack_parse(const char *json_text, const char *origin, gcsim_stack *out,
                      gcsim_error *err)
{
    memset(out, 0, sizeof *out);
    snprintf(out->path, sizeof out->path, "%s", origin);
    json_ctx ctx = {origin, err};
    cJSON *root = NULL;
    if (json_parse_document(json_text, &ctx, &root))
        return -1;
    int rc = parse_stack(root, out, &ctx);
    cJSON_Delete(root);
    return rc;
}

int gcsim_stack_load(const char *name_or_path, gcsim_stack *out, gcsim_error *err)
{
    char catalog_path[PATH_MAX];
    const char *path = name_or_path;
    if (!path || !*path)
        return gcsim_fail(err, "--stack: empty name");
    if (gcsim_data_catalog_path("platforms/stacks", path, catalog_path, sizeof catalog_path) == 0)
        path = catalog_path;
    else if (!strchr(path, '/') && !strstr(path, ".json")) {
        char known[256] = "";
        for (const char *const *n = catalog; *n; n++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                     n == catalog ? "" : ", ", *n);
        return gcsim_fail(err, "stack \"%s\": no such stack in the catalog (%s) and no such "
                               "file",
                          path, known);
    }
    char *text = NULL;
    if (json_read_file(path, STACK_MAX_BYTES, &text, err))
        return -1;
    int rc = gcsim_stack_parse(text, path, out, err);
    free(text);
    return rc;
}
