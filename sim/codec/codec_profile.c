/*
 * sim/codec/codec_profile.c: measured codec profiles (docs/codec.md, "Profile format").
 *
 * A profile gives, for one GPU type, per compressor spec the measured encode time and
 * decode-and-accumulate time of one tensor at several sizes. Entries are matched by the
 * normalized spec (every default filled in), so "topk:ratio=0.01" in the file matches
 * --compressor topk:ratio=0.01,code=pairs. Times are made non-decreasing in size at load
 * (a running maximum): a larger tensor is never cheaper, and measured dips at small sizes
 * are launch-bound noise.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "compressor.h"
#include "json_strict.h"

#define PROFILE_MAX_BYTES (1L << 20)

static int parse_points(const cJSON *pts, const char *path, gcsim_codec *c, json_ctx *ctx)
{
    char got[96];
    int n = cJSON_IsArray(pts) ? cJSON_GetArraySize(pts) : -1;
    if (n < 1 || n > GCSIM_CODEC_PROFILE_MAX_POINTS)
        return gcsim_fail(ctx->err, "%s: %s.points: expected an array of 1 to %d [elements, "
                                    "encode_us, decode_us] triples, got %s",
                          ctx->origin, path, GCSIM_CODEC_PROFILE_MAX_POINTS,
                          n < 0 ? json_describe(pts, got, sizeof got) : "another length");
    for (int k = 0; k < n; k++) {
        const cJSON *t = cJSON_GetArrayItem(pts, k);
        double v[3];
        bool ok = cJSON_IsArray(t) && cJSON_GetArraySize(t) == 3;
        for (int i = 0; ok && i < 3; i++) {
            const cJSON *x = cJSON_GetArrayItem(t, i);
            ok = cJSON_IsNumber(x) && isfinite(x->valuedouble) && x->valuedouble >= 0;
            v[i] = ok ? x->valuedouble : 0;
        }
        if (!ok || v[0] < 1)
            return gcsim_fail(ctx->err, "%s: %s.points[%d]: expected [elements >= 1, encode_us "
                                        ">= 0, decode_us >= 0], got %s",
                              ctx->origin, path, k, json_describe(t, got, sizeof got));
        if (k > 0 && !(v[0] > c->elements[k - 1]))
            return gcsim_fail(ctx->err, "%s: %s.points[%d]: element counts must increase "
                                        "(%.17g after %.17g)",
                              ctx->origin, path, k, v[0], c->elements[k - 1]);
        c->elements[k] = v[0];
        c->encode_s[k] = fmax(v[1] * 1e-6, k ? c->encode_s[k - 1] : 0);
        c->decode_s[k] = fmax(v[2] * 1e-6, k ? c->decode_s[k - 1] : 0);
    }
    c->n_points = n;
    return 0;
}

static int parse_profile(const cJSON *root, const char *spec, const char *gpu_type,
                         gcsim_codec *c, json_ctx *ctx)
{
    static const char *const keys[] = {"schema", "gpu", "kind", "source", "command", "date",
                                       "notes", "entries", NULL};
    static const char *const entry_keys[] = {"compressor", "measured_as", "points", NULL};
    static const char *const kinds[] = {"measured", "derived", NULL};
    char schema[64], gpu[64], source[512], date[64] = "";
    int kind = 0;
    if (json_expect_object(root, "$", keys, ctx) ||
        json_string(root, "$", "schema", true, schema, sizeof schema, ctx) ||
        json_string(root, "$", "gpu", true, gpu, sizeof gpu, ctx) ||
        json_choice(root, "$", "kind", true, kinds, &kind, ctx) ||
        json_string(root, "$", "source", true, source, sizeof source, ctx) ||
        json_string(root, "$", "date", false, date, sizeof date, ctx))
        return -1;
    if (strcmp(schema, "gcsim-codec-profile/1") != 0)
        return gcsim_fail(ctx->err, "%s: $.schema: expected \"gcsim-codec-profile/1\", got "
                                    "\"%s\"",
                          ctx->origin, schema);
    if (strcmp(gpu, gpu_type) != 0)
        return gcsim_fail(ctx->err, "%s: $.gpu: the profile is for GPU type \"%s\", the "
                                    "platform's is \"%s\"",
                          ctx->origin, gpu, gpu_type);
    const cJSON *entries = json_member(root, "entries");
    char got[96];
    if (!cJSON_IsArray(entries))
        return gcsim_fail(ctx->err, "%s: $.entries: expected an array, got %s", ctx->origin,
                          entries ? json_describe(entries, got, sizeof got) : "nothing");
    int found = -1, n = cJSON_GetArraySize(entries);
    char found_as[256] = "";
    /* Every entry is checked, not only the one used: a broken file fails for every run. */
    for (int k = 0; k < n; k++) {
        char path[48], comp[256], as[256] = "", msg[256];
        snprintf(path, sizeof path, "$.entries[%d]", k);
        const cJSON *e = cJSON_GetArrayItem(entries, k);
        if (json_expect_object(e, path, entry_keys, ctx) ||
            json_string(e, path, "compressor", true, comp, sizeof comp, ctx) ||
            json_string(e, path, "measured_as", false, as, sizeof as, ctx))
            return -1;
        gc_compressor *gc;
        if (gc_compressor_create(comp, &gc, msg, sizeof msg) != 0)
            return gcsim_fail(ctx->err, "%s: %s.compressor: %s", ctx->origin, path, msg);
        bool match = strcmp(gc_compressor_spec(gc), spec) == 0;
        gc_compressor_free(gc);
        gcsim_codec probe;
        memset(&probe, 0, sizeof probe);
        if (parse_points(json_member(e, "points"), path, &probe, ctx))
            return -1;
        if (match && found < 0) {
            found = k;
            snprintf(found_as, sizeof found_as, "%s", as[0] ? as : comp);
            c->n_points = probe.n_points;
            memcpy(c->elements, probe.elements, sizeof c->elements);
            memcpy(c->encode_s, probe.encode_s, sizeof c->encode_s);
            memcpy(c->decode_s, probe.decode_s, sizeof c->decode_s);
        }
    }
    if (found < 0)
        return 1;
    c->source = CODEC_COST_PROFILE;
    snprintf(c->description, sizeof c->description,
             "%s profile %s, $.entries[%d] (%s)%s%s; linear in size between points",
             kinds[kind], ctx->origin, found, found_as, date[0] ? ", " : "", date);
    return 0;
}

int gcsim_codec_profile_load(gcsim_codec *c, const char *path, const char *spec,
                             const char *gpu_type, gcsim_error *err)
{
    char *text = NULL;
    if (json_read_file(path, PROFILE_MAX_BYTES, &text, err))
        return -1;
    json_ctx ctx = {.origin = path, .err = err};
    cJSON *root = NULL;
    int rc = json_parse_document(text, &ctx, &root);
    free(text);
    if (rc)
        return -1;
    gcsim_codec tmp;
    memset(&tmp, 0, sizeof tmp);
    rc = parse_profile(root, spec, gpu_type, &tmp, &ctx);
    cJSON_Delete(root);
    if (rc == 0) {
        snprintf(tmp.spec, sizeof tmp.spec, "%s", spec);
        *c = tmp;
    }
    return rc;
}
