#include "json_strict.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input_file.h"
#include "units.h"

int json_read_file(const char *path, long max_bytes, char **out, gcsim_error *err)
{
    char why[1024 + 64];
    FILE *f = gc_fopen_regular(path, why, sizeof why);
    if (!f)
        return gcsim_fail(err, "%s", why);
    /* Grow as the file is read: configuration files are small, the limit is for files that
     * are not configuration at all. */
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (!buf) {
            fclose(f);
            return gcsim_fail(err, "%s: out of memory", path);
        }
        n += fread(buf + n, 1, cap - 1 - n, f);
        if (n < cap - 1 || n > (size_t)max_bytes)
            break;
        char *bigger = realloc(buf, cap * 2);
        if (!bigger)
            free(buf);
        buf = bigger;
        cap *= 2;
    }
    int read_error = ferror(f);
    fclose(f);
    if (read_error) {
        free(buf);
        return gcsim_fail(err, "%s: read error", path);
    }
    if (n > (size_t)max_bytes) {
        free(buf);
        return gcsim_fail(err, "%s: larger than %ld bytes, not a configuration file", path,
                          max_bytes);
    }
    const char *nul = memchr(buf, '\0', n);
    if (nul) {
        size_t offset = (size_t)(nul - buf);
        free(buf);
        return gcsim_fail(err, "%s: byte %zu: NUL byte, not a JSON text file", path, offset);
    }
    buf[n] = '\0';
    *out = buf;
    return 0;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* Length of a JSON number at s (RFC 8259: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?),
 * 0 when the run of number characters there is not one. */
static size_t json_number_length(const char *s)
{
    const char *p = s;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (is_digit(*p))
        while (is_digit(*p))
            p++;
    else
        return 0;
    if (*p == '.') {
        if (!is_digit(*++p))
            return 0;
        while (is_digit(*p))
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!is_digit(*p))
            return 0;
        while (is_digit(*p))
            p++;
    }
    /* cJSON reads any run of these characters with strtod: nothing may follow */
    if (is_digit(*p) || *p == '.' || *p == '+' || *p == '-' || *p == 'e' || *p == 'E')
        return 0;
    return (size_t)(p - s);
}

/* What cJSON accepts although JSON does not, or decodes into something a C string cannot
 * hold: numbers such as 04, +1, .5 or 1. (cJSON reads them with strtod), and the escape
 * \u0000 (a C string ends there: "ab\u0000cd" would become "ab"). Returns the byte offset
 * of the first one and what it is, or -1. */
static long json_lenient_spot(const char *text, const char **what)
{
    bool in_string = false;
    for (const char *p = text; *p; p++) {
        if (in_string) {
            if (*p == '\\') {
                if (strncmp(p + 1, "u0000", 5) == 0) {
                    *what = "the escape \\u0000 (a NUL character) in a string";
                    return (long)(p - text);
                }
                if (p[1])
                    p++;
            } else if (*p == '"') {
                in_string = false;
            }
        } else if (*p == '"') {
            in_string = true;
        } else if (is_digit(*p) || *p == '-' || *p == '+' || *p == '.') {
            size_t len = json_number_length(p);
            if (len == 0) {
                *what = "a number JSON does not allow (leading zero, sign or point)";
                return (long)(p - text);
            }
            p += len - 1;
        }
    }
    return -1;
}

static void line_column(const char *text, size_t offset, int *line, int *column)
{
    *line = 1;
    *column = 1;
    for (size_t i = 0; i < offset && text[i]; i++) {
        if (text[i] == '\n') {
            ++*line;
            *column = 1;
        } else {
            ++*column;
        }
    }
}

int json_parse_document(const char *text, json_ctx *ctx, cJSON **out)
{
    const char *end = NULL;
    int line, column;
    cJSON *root = cJSON_ParseWithOpts(text, &end, 1);
    if (!root) {
        size_t offset = end ? (size_t)(end - text) : 0;
        line_column(text, offset, &line, &column);
        if (text[0] == '\0')
            return gcsim_fail(ctx->err, "%s: empty file, expected a JSON object", ctx->origin);
        return gcsim_fail(ctx->err, "%s: line %d, column %d (byte %zu): malformed JSON",
                          ctx->origin, line, column, offset);
    }
    const char *what = NULL;
    long spot = json_lenient_spot(text, &what);
    if (spot >= 0) {
        cJSON_Delete(root);
        line_column(text, (size_t)spot, &line, &column);
        return gcsim_fail(ctx->err, "%s: line %d, column %d (byte %ld): %s", ctx->origin, line,
                          column, spot, what);
    }
    *out = root;
    return 0;
}

const char *json_describe(const cJSON *v, char *buf, size_t size)
{
    if (!v)
        snprintf(buf, size, "nothing");
    else if (cJSON_IsString(v))
        snprintf(buf, size, "\"%.60s\"", v->valuestring);
    else if (cJSON_IsNumber(v))
        snprintf(buf, size, "the number %.17g", v->valuedouble);
    else if (cJSON_IsBool(v))
        snprintf(buf, size, "%s", cJSON_IsTrue(v) ? "true" : "false");
    else if (cJSON_IsNull(v))
        snprintf(buf, size, "null");
    else if (cJSON_IsArray(v))
        snprintf(buf, size, "an array");
    else if (cJSON_IsObject(v))
        snprintf(buf, size, "an object");
    else
        snprintf(buf, size, "an unknown value");
    return buf;
}

int json_expect_object(const cJSON *value, const char *path, const char *const *allowed,
                       json_ctx *ctx)
{
    char got[96];
    if (!cJSON_IsObject(value))
        return gcsim_fail(ctx->err, "%s: %s: expected an object, got %s", ctx->origin, path,
                          json_describe(value, got, sizeof got));
    for (const cJSON *m = value->child; m; m = m->next) {
        int at = json_control_char(m->string);
        if (at >= 0)
            return gcsim_fail(ctx->err, "%s: %s: a key with control character U+%04X at "
                                        "character %d",
                              ctx->origin, path, (unsigned char)m->string[at], at + 1);
        bool known = false;
        for (const char *const *a = allowed; *a; a++)
            if (strcmp(m->string, *a) == 0)
                known = true;
        if (!known) {
            char list[512] = "";
            for (const char *const *a = allowed; *a; a++) {
                strncat(list, *a, sizeof list - strlen(list) - 3);
                if (a[1])
                    strncat(list, ", ", sizeof list - strlen(list) - 1);
            }
            return gcsim_fail(ctx->err, "%s: %s.%s: unknown key (allowed: %s)", ctx->origin,
                              path, m->string, list);
        }
        for (const cJSON *o = value->child; o != m; o = o->next)
            if (strcmp(o->string, m->string) == 0)
                return gcsim_fail(ctx->err, "%s: %s.%s: duplicate key", ctx->origin, path,
                                  m->string);
    }
    return 0;
}

const cJSON *json_member(const cJSON *object, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(object, key);
}

/* Fetches a member or reports it missing. Returns 1 when present, 0 when absent and
 * optional, -1 on error. */
static int fetch(const cJSON *object, const char *path, const char *key, bool required,
                 const cJSON **out, json_ctx *ctx)
{
    const cJSON *v = json_member(object, key);
    if (!v) {
        if (required)
            return gcsim_fail(ctx->err, "%s: %s.%s: missing required key", ctx->origin, path,
                              key);
        return 0;
    }
    *out = v;
    return 1;
}

int json_control_char(const char *text)
{
    for (int i = 0; text[i]; i++)
        if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
            return i;
    return -1;
}

int json_string(const cJSON *object, const char *path, const char *key, bool required,
                char *out, size_t out_size, json_ctx *ctx)
{
    const cJSON *v = NULL;
    int r = fetch(object, path, key, required, &v, ctx);
    if (r <= 0)
        return r;
    char got[96];
    if (!cJSON_IsString(v))
        return gcsim_fail(ctx->err, "%s: %s.%s: expected a string, got %s", ctx->origin, path,
                          key, json_describe(v, got, sizeof got));
    int at = json_control_char(v->valuestring);
    if (at >= 0)
        return gcsim_fail(ctx->err, "%s: %s.%s: control character U+%04X at character %d (names "
                                    "and descriptions are printed as written; a control "
                                    "character would reach the terminal)",
                          ctx->origin, path, key, (unsigned char)v->valuestring[at], at + 1);
    if (strlen(v->valuestring) >= out_size)
        return gcsim_fail(ctx->err, "%s: %s.%s: string longer than %zu characters", ctx->origin,
                          path, key, out_size - 1);
    strcpy(out, v->valuestring);
    return 0;
}

int json_number(const cJSON *object, const char *path, const char *key, bool required,
                double min, double max, double *out, json_ctx *ctx)
{
    const cJSON *v = NULL;
    int r = fetch(object, path, key, required, &v, ctx);
    if (r <= 0)
        return r;
    char got[96];
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return gcsim_fail(ctx->err, "%s: %s.%s: expected a number, got %s", ctx->origin, path,
                          key, json_describe(v, got, sizeof got));
    if (v->valuedouble < min || v->valuedouble > max)
        return gcsim_fail(ctx->err, "%s: %s.%s: %.17g is out of range [%g, %g]", ctx->origin,
                          path, key, v->valuedouble, min, max);
    *out = v->valuedouble;
    return 0;
}

int json_integer(const cJSON *object, const char *path, const char *key, bool required,
                 long long min, long long max, long long *out, json_ctx *ctx)
{
    const cJSON *v = NULL;
    int r = fetch(object, path, key, required, &v, ctx);
    if (r <= 0)
        return r;
    char got[96];
    double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
    if (!cJSON_IsNumber(v) || !isfinite(d) || d != floor(d) || fabs(d) > 9007199254740992.0)
        return gcsim_fail(ctx->err, "%s: %s.%s: expected an integer, got %s", ctx->origin, path,
                          key, json_describe(v, got, sizeof got));
    if (d < (double)min || d > (double)max)
        return gcsim_fail(ctx->err, "%s: %s.%s: %lld is out of range [%lld, %lld]", ctx->origin,
                          path, key, (long long)d, min, max);
    *out = (long long)d;
    return 0;
}

typedef bool (*unit_parser)(const char *, double *);

static int quantity(const cJSON *object, const char *path, const char *key, bool required,
                    double *out, unit_parser parse, const char *example, json_ctx *ctx)
{
    const cJSON *v = NULL;
    int r = fetch(object, path, key, required, &v, ctx);
    if (r <= 0)
        return r;
    char got[96];
    if (!cJSON_IsString(v) || !parse(v->valuestring, out))
        return gcsim_fail(ctx->err, "%s: %s.%s: expected %s, got %s", ctx->origin, path, key,
                          example, json_describe(v, got, sizeof got));
    return 0;
}

int json_rate_Bps(const cJSON *o, const char *path, const char *key, bool required,
                  double *out, json_ctx *ctx)
{
    return quantity(o, path, key, required, out, gcsim_parse_rate_Bps,
                    "a positive rate such as \"10Gbps\" (bits) or \"12.5GBps\" (bytes)", ctx);
}

int json_time_s(const cJSON *o, const char *path, const char *key, bool required, double *out,
                json_ctx *ctx)
{
    return quantity(o, path, key, required, out, gcsim_parse_time_s,
                    "a positive time such as \"50us\" or \"1.2ms\"", ctx);
}

int json_flops(const cJSON *o, const char *path, const char *key, bool required, double *out,
               json_ctx *ctx)
{
    return quantity(o, path, key, required, out, gcsim_parse_flops,
                    "a positive compute speed such as \"8.9Tflops\"", ctx);
}

int json_size_bytes(const cJSON *o, const char *path, const char *key, bool required,
                    double *out, json_ctx *ctx)
{
    double v = 0;
    if (quantity(o, path, key, required, &v, gcsim_parse_size_bytes,
                 "a positive size such as \"80GB\"", ctx))
        return -1;
    if (!json_member(o, key))
        return 0;
    const char *text = json_member(o, key)->valuestring;
    if (v > GCSIM_MAX_SIZE_BYTES)
        return gcsim_fail(ctx->err, "%s: %s.%s: \"%.40s\" is %.16g bytes, more than the %.0f (2^50, "
                                    "1PiB) gcsim accepts for a size",
                          ctx->origin, path, key, text, v, GCSIM_MAX_SIZE_BYTES);
    if (!gcsim_whole_bytes(&v))
        return gcsim_fail(ctx->err, "%s: %s.%s: \"%.40s\" is %.17g bytes, not a whole number of "
                                    "bytes",
                          ctx->origin, path, key, text, v);
    *out = v;
    return 0;
}

int json_time_at_most(const cJSON *o, const char *path, const char *key, bool required,
                      double max_s, const char *what, double *out, json_ctx *ctx)
{
    double v = 0;
    if (json_time_s(o, path, key, required, &v, ctx))
        return -1;
    if (!json_member(o, key))
        return 0;
    if (v > max_s)
        return gcsim_fail(ctx->err, "%s: %s.%s: %.16g s is more than the %g s gcsim accepts for %s",
                          ctx->origin, path, key, v, max_s, what);
    *out = v;
    return 0;
}

int json_choice(const cJSON *object, const char *path, const char *key, bool required,
                const char *const *choices, int *out, json_ctx *ctx)
{
    const cJSON *v = NULL;
    int r = fetch(object, path, key, required, &v, ctx);
    if (r <= 0)
        return r;
    if (cJSON_IsString(v))
        for (int i = 0; choices[i]; i++)
            if (strcmp(v->valuestring, choices[i]) == 0) {
                *out = i;
                return 0;
            }
    char list[256] = "", got[96];
    for (int i = 0; choices[i]; i++) {
        strncat(list, choices[i], sizeof list - strlen(list) - 5);
        if (choices[i + 1])
            strncat(list, " | ", sizeof list - strlen(list) - 1);
    }
    return gcsim_fail(ctx->err, "%s: %s.%s: expected one of %s, got %s", ctx->origin, path, key,
                      list, json_describe(v, got, sizeof got));
}

int json_load_file(const char *path, long max_bytes, json_ctx *ctx, cJSON **out)
{
    char *text = NULL;
    *out = NULL;
    if (json_read_file(path, max_bytes, &text, ctx->err))
        return -1;
    int rc = json_parse_document(text, ctx, out);
    free(text);
    return rc;
}
