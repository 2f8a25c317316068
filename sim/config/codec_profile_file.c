/*
 * sim/config/codec_profile_file.c: measured codec profiles (codec_profile_file.h,
 * docs/codec.md, "Profile format").
 *
 * A profile gives, for one GPU type, per compressor spec the measured encode time and
 * decode-and-accumulate time of one tensor at several sizes. Entries are matched by the
 * normalized spec (every default filled in), so "topk:ratio=0.01" in the file matches
 * --compressor topk:ratio=0.01,code=pairs; two entries of one normalized spec are refused.
 * Times are made non-decreasing in size at load (a running maximum): a larger tensor is
 * never cheaper, and measured dips at small sizes are launch-bound noise.
 */
#include "codec_profile_file.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compressor.h"
#include "json_strict.h"

#define PROFILE_MAX_BYTES (1L << 20)

static int parse_points(const cJSON *pts, const char *path, gcsim_codec_profile_entry *c,
                        json_ctx *ctx)
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
        if (v[0] > GCSIM_CODEC_PROFILE_MAX_ELEMENTS)
            return gcsim_fail(ctx->err, "%s: %s.points[%d][0]: %.16g is more elements than the "
                                        "2^40 gcsim accepts",
                              ctx->origin, path, k, v[0]);
        if (v[0] != floor(v[0]))
            return gcsim_fail(ctx->err, "%s: %s.points[%d][0]: %.17g is not a whole number of "
                                        "elements",
                              ctx->origin, path, k, v[0]);
        for (int i = 1; i < 3; i++)
            if (v[i] > GCSIM_CODEC_PROFILE_MAX_US)
                return gcsim_fail(ctx->err, "%s: %s.points[%d][%d]: %.16g us (%s) is more than the "
                                            "%g us (an hour) gcsim accepts",
                                  ctx->origin, path, k, i, v[i],
                                  i == 1 ? "encode_us" : "decode_us", GCSIM_CODEC_PROFILE_MAX_US);
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
                         gcsim_codec_profile_entry *c, json_ctx *ctx)
{
    static const char *const keys[] = {"schema", "gpu", "kind", "source", "command", "date",
                                       "notes", "entries", NULL};
    static const char *const entry_keys[] = {"compressor", "measured_as", "points", NULL};
    static const char *const kinds[] = {"measured", "derived", NULL};
    /* notes and command are free text, printed nowhere, but typed like the rest: a number
     * or null where text belongs is a broken file (issue 45's hostile round) */
    char schema[64], gpu[64], source[512], date[64] = "", notes[4096], command[4096];
    int kind = 0;
    if (json_expect_object(root, "$", keys, ctx) ||
        json_string(root, "$", "schema", true, schema, sizeof schema, ctx) ||
        json_string(root, "$", "gpu", true, gpu, sizeof gpu, ctx) ||
        json_choice(root, "$", "kind", true, kinds, &kind, ctx) ||
        json_string(root, "$", "source", true, source, sizeof source, ctx) ||
        json_string(root, "$", "date", false, date, sizeof date, ctx) ||
        json_string(root, "$", "notes", false, notes, sizeof notes, ctx) ||
        json_string(root, "$", "command", false, command, sizeof command, ctx))
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
    if (n > GCSIM_CODEC_PROFILE_MAX_ENTRIES)
        return gcsim_fail(ctx->err, "%s: $.entries: %d entries, more than the %d gcsim accepts",
                          ctx->origin, n, GCSIM_CODEC_PROFILE_MAX_ENTRIES);
    char(*specs)[256] = calloc((size_t)(n > 0 ? n : 1), sizeof *specs);
    if (!specs)
        return gcsim_fail(ctx->err, "%s: out of memory", ctx->origin);
    int rc = -1;
    /* Every entry is checked, not only the one used: a broken file fails for every run. */
    int k = 0;
    for (const cJSON *e = entries->child; e; e = e->next, k++) {
        char path[48], comp[256], as[256] = "", msg[256];
        snprintf(path, sizeof path, "$.entries[%d]", k);
        if (json_expect_object(e, path, entry_keys, ctx) ||
            json_string(e, path, "compressor", true, comp, sizeof comp, ctx) ||
            json_string(e, path, "measured_as", false, as, sizeof as, ctx))
            goto out;
        gc_compressor *gc;
        if (gc_compressor_create(comp, &gc, msg, sizeof msg) != 0) {
            gcsim_fail(ctx->err, "%s: %s.compressor: %s", ctx->origin, path, msg);
            goto out;
        }
        snprintf(specs[k], sizeof specs[k], "%s", gc_compressor_spec(gc));
        gc_compressor_free(gc);
        for (int j = 0; j < k; j++)
            if (strcmp(specs[j], specs[k]) == 0) {
                gcsim_fail(ctx->err, "%s: %s.compressor: \"%s\" is the spec of $.entries[%d] "
                                     "too (%s once filled with defaults): one entry per spec",
                           ctx->origin, path, comp, j, specs[k]);
                goto out;
            }
        bool match = spec && strcmp(specs[k], spec) == 0;
        gcsim_codec_profile_entry probe;
        memset(&probe, 0, sizeof probe);
        if (parse_points(json_member(e, "points"), path, &probe, ctx))
            goto out;
        if (match && c) {
            found = k;
            *c = probe;
            c->entry = k;
            snprintf(c->measured_as, sizeof c->measured_as, "%s", as[0] ? as : comp);
            snprintf(c->kind, sizeof c->kind, "%s", kinds[kind]);
            snprintf(c->date, sizeof c->date, "%s", date);
        }
    }
    rc = spec && found < 0 ? 1 : 0;
out:
    free(specs);
    return rc;
}

/* The reads that succeeded, by the file's whole text, GPU type and spec (issue 47): a sweep
 * reads a platform's profile once per group of GPU counts (300 times on the 307,200-case
 * grid, about a million instructions each: every entry's compressor is created to check
 * its spec). The text is read and compared every time, so an answer is reused only for the
 * same bytes, asked the same question: the same answer. A file that fails is parsed again
 * (its message names what it found). */
enum { READ_MEMO_MAX = 16, READ_MEMO_TEXT_MAX = 1 << 16 };
typedef struct {
    char *text;                     /* the file's bytes, NUL-terminated; NULL: unused */
    size_t len;
    char gpu_type[64];
    char spec[256];
    bool has_spec;                  /* spec was given (NULL is not "") */
    int rc;                         /* 0 or 1 */
    gcsim_codec_profile_entry entry; /* when rc is 0 and a spec was given */
} read_memo;
static read_memo memo[READ_MEMO_MAX];
static int memo_next; /* the slot to reuse next, in turn */
static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;

static bool memo_fits(const char *gpu_type, const char *spec, size_t len)
{
    return len <= READ_MEMO_TEXT_MAX && strlen(gpu_type) < sizeof memo[0].gpu_type &&
           (!spec || strlen(spec) < sizeof memo[0].spec);
}

static const read_memo *memo_find(const char *text, size_t len, const char *gpu_type,
                                  const char *spec)
{
    for (int i = 0; i < READ_MEMO_MAX; i++) {
        const read_memo *m = &memo[i];
        if (m->text && m->len == len && m->has_spec == (spec != NULL) &&
            strcmp(m->gpu_type, gpu_type) == 0 && (!spec || strcmp(m->spec, spec) == 0) &&
            memcmp(m->text, text, len) == 0)
            return m;
    }
    return NULL;
}

/* Keeps a copy of text and the answer; nothing when out of memory (the next read parses). */
static void memo_keep(const char *text, size_t len, const char *gpu_type, const char *spec,
                      int rc, const gcsim_codec_profile_entry *entry)
{
    char *copy = malloc(len + 1);
    if (!copy)
        return;
    memcpy(copy, text, len + 1);
    read_memo *m = &memo[memo_next];
    memo_next = (memo_next + 1) % READ_MEMO_MAX;
    free(m->text);
    m->text = copy;
    m->len = len;
    snprintf(m->gpu_type, sizeof m->gpu_type, "%s", gpu_type);
    m->has_spec = spec != NULL;
    snprintf(m->spec, sizeof m->spec, "%s", spec ? spec : "");
    m->rc = rc;
    m->entry = *entry;
}

int gcsim_codec_profile_read(const char *path, const char *gpu_type, const char *spec,
                             gcsim_codec_profile_entry *out, gcsim_error *err)
{
    json_ctx ctx = {.origin = path, .err = err};
    char *text = NULL;
    if (json_read_file(path, PROFILE_MAX_BYTES, &text, err))
        return -1;
    size_t len = strlen(text); /* json_read_file refuses NUL bytes */
    bool keep = memo_fits(gpu_type, spec, len);
    gcsim_codec_profile_entry tmp;
    memset(&tmp, 0, sizeof tmp);
    if (keep) {
        pthread_mutex_lock(&memo_lock);
        const read_memo *m = memo_find(text, len, gpu_type, spec);
        int rc = m ? m->rc : -1;
        if (m)
            tmp = m->entry;
        pthread_mutex_unlock(&memo_lock);
        if (m) {
            free(text);
            if (rc == 0 && spec && out)
                *out = tmp;
            return rc;
        }
    }
    cJSON *root = NULL;
    int rc = json_parse_document(text, &ctx, &root);
    if (rc == 0) {
        rc = parse_profile(root, spec, gpu_type, &tmp, &ctx);
        cJSON_Delete(root);
        if (rc >= 0 && keep) {
            pthread_mutex_lock(&memo_lock);
            memo_keep(text, len, gpu_type, spec, rc, &tmp);
            pthread_mutex_unlock(&memo_lock);
        }
    }
    free(text);
    if (rc == 0 && spec && out)
        *out = tmp;
    return rc;
}
