/* Tab-separated helpers of gcsim_convergence (tsv.h). */
#include "tsv.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compressor.h"

char *conv_tsv_slurp(const char *path, char *err, size_t err_len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, err_len, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (len + 1 < cap)
            break;
        char *more = realloc(buf, cap * 2);
        if (!more) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = more;
        cap *= 2;
    }
    bool failed = ferror(f);
    fclose(f);
    if (!buf || failed) {
        free(buf);
        snprintf(err, err_len, "%s: %s", path, failed ? "read error" : "out of memory");
        return NULL;
    }
    buf[len] = '\0';
    return buf;
}

int conv_tsv_split(char *line, char **fields, char **next)
{
    char *end = line + strcspn(line, "\n");
    *next = *end ? end + 1 : end;
    if (end > line && end[-1] == '\r')
        end--;
    *end = '\0';
    int n = 0;
    char *p = line;
    while (n < CONV_TSV_MAX_FIELDS) {
        fields[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = '\0';
        p = tab + 1;
    }
    return n;
}

int conv_tsv_column(char *const *header, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(header[i], name) == 0)
            return i;
    return -1;
}

int conv_canonical_spec(const char *spec, char *out, size_t out_len, char *err, size_t err_len)
{
    gc_compressor *c = NULL;
    if (gc_compressor_create(spec, &c, err, err_len) != 0)
        return -1;
    snprintf(out, out_len, "%s", gc_compressor_spec(c));
    gc_compressor_free(c);
    return 0;
}

void conv_spec_family(const char *spec, char *out, size_t out_len)
{
    size_t k = strcspn(spec, ":");
    snprintf(out, out_len, "%.*s", (int)k, spec);
}
