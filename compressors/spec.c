/* compressors/spec.c: "key=value,..." parsing against a codec's key table, and the
 * canonical spec with every default written out. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

static int parse_value(const gc_codec *c, const gc_key *k, const char *v, double *out,
                       char *err, size_t err_len)
{
    char *end = NULL;
    if (k->type == GK_ENUM) {
        for (int i = 0; k->choices[i]; i++)
            if (strcmp(k->choices[i], v) == 0) {
                *out = i;
                return 0;
            }
        char opts[128] = "";
        for (int i = 0; k->choices[i]; i++) {
            strncat(opts, i ? "|" : "", sizeof opts - strlen(opts) - 1);
            strncat(opts, k->choices[i], sizeof opts - strlen(opts) - 1);
        }
        gc_errf(err, err_len, "compressor %s: key %s: expected one of %s, got \"%s\"", c->name,
                k->name, opts, v);
        return -1;
    }
    errno = 0;
    /* plain decimal only: strtoll and strtod also take spaces, '+', hexadecimal and "inf" */
    bool plain = (*v >= '0' && *v <= '9') || (*v == '-' && v[1] >= '0' && v[1] <= '9') ||
                 (k->type != GK_INT && *v == '.');
    for (const char *q = v; plain && *q; q++)
        plain = strchr(k->type == GK_INT ? "-0123456789" : "-+.0123456789eE", *q) != NULL;
    if (k->type == GK_INT) {
        long long x = strtoll(v, &end, 10);
        if (!plain || !*v || *end || errno) {
            gc_errf(err, err_len, "compressor %s: key %s: expected an integer, got \"%s\"",
                    c->name, k->name, v);
            return -1;
        }
        if ((double)x < k->min || (double)x > k->max) {
            gc_errf(err, err_len, "compressor %s: key %s: %lld is outside [%.17g, %.17g]",
                    c->name, k->name, x, k->min, k->max);
            return -1;
        }
        *out = (double)x;
        return 0;
    }
    double x = strtod(v, &end);
    if (!plain || !*v || *end || errno || !isfinite(x)) {
        gc_errf(err, err_len, "compressor %s: key %s: expected a number, got \"%s\"", c->name,
                k->name, v);
        return -1;
    }
    if (x < k->min || x > k->max) {
        gc_errf(err, err_len, "compressor %s: key %s: %.17g is outside [%.17g, %.17g]", c->name,
                k->name, x, k->min, k->max);
        return -1;
    }
    *out = x;
    return 0;
}

int gc_spec_parse_keys(const gc_codec *c, const char *keys, double *p, char *err,
                       size_t err_len)
{
    bool seen[GC_MAX_KEYS] = {false};
    for (int i = 0; i < c->nkeys; i++)
        if (parse_value(c, &c->keys[i], c->keys[i].def, &p[i], err, err_len) != 0)
            return -1; /* a bad default is a bug, but say so rather than crash */
    if (!keys || !*keys)
        return 0;
    const char *s = keys;
    while (*s) {
        const char *comma = strchr(s, ',');
        size_t len = comma ? (size_t)(comma - s) : strlen(s);
        char item[256];
        if (len == 0 || len >= sizeof item) {
            gc_errf(err, err_len, "compressor %s: %s key=value item in \"%s\"", c->name,
                    len ? "overlong" : "empty", keys);
            return -1;
        }
        memcpy(item, s, len);
        item[len] = 0;
        char *eq = strchr(item, '=');
        if (!eq) {
            gc_errf(err, err_len, "compressor %s: key %s: expected key=value", c->name, item);
            return -1;
        }
        if (eq == item) {
            gc_errf(err, err_len, "compressor %s: no key before '=' in \"%s\"", c->name, item);
            return -1;
        }
        *eq = 0;
        int idx = -1;
        for (int i = 0; i < c->nkeys; i++)
            if (strcmp(c->keys[i].name, item) == 0)
                idx = i;
        if (idx < 0) {
            char known[256] = "";
            for (int i = 0; i < c->nkeys; i++) {
                strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
                strncat(known, c->keys[i].name, sizeof known - strlen(known) - 1);
            }
            gc_errf(err, err_len, "compressor %s: unknown key %s (known: %s)", c->name, item,
                    c->nkeys ? known : "none");
            return -1;
        }
        if (seen[idx]) {
            gc_errf(err, err_len, "compressor %s: key %s given twice", c->name, item);
            return -1;
        }
        seen[idx] = true;
        if (parse_value(c, &c->keys[idx], eq + 1, &p[idx], err, err_len) != 0)
            return -1;
        if (!comma)
            break;
        s = comma + 1;
        if (!*s) {
            gc_errf(err, err_len, "compressor %s: trailing comma in \"%s\"", c->name, keys);
            return -1;
        }
    }
    return 0;
}

/* Shortest %g form that reads back to the same double. */
static void fmt_real(double x, char *buf, size_t len)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, len, "%.*g", prec, x);
        if (strtod(buf, NULL) == x)
            return;
    }
}

void gc_spec_format(const gc_codec *c, const double *p, bool ef, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "%s%s", ef ? "ef+" : "", c->name);
    bool first = true;
    for (int i = 0; i < c->nkeys && used < len; i++) {
        char v[64];
        if (c->keys[i].type == GK_ENUM)
            snprintf(v, sizeof v, "%s", c->keys[i].choices[(int)p[i]]);
        else if (c->keys[i].type == GK_INT)
            snprintf(v, sizeof v, "%lld", (long long)p[i]);
        else
            fmt_real(p[i], v, sizeof v);
        /* a codec with many keys (described) writes only those set otherwise than the
         * default: the spec stays readable in tables and reads back to the same values */
        if (c->omit_defaults && strcmp(v, c->keys[i].def) == 0)
            continue;
        used += (size_t)snprintf(buf + used, len - used, "%c%s=%s", first ? ':' : ',',
                                 c->keys[i].name, v);
        first = false;
    }
}
