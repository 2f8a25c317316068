/*
 * traces/npy_read.c: validation and parsing of a NumPy .npy file already read into
 * memory (format versions 1.0, 2.0, 3.0). The header is a Python dict literal such as
 *   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
 * which is parsed by a small strict tokenizer: exactly these three keys, nothing else.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "traces_internal.h"

typedef struct {
    const char *p, *end, *start; /* start: the file's first byte, for offsets */
    const char *path;
    char *err;
    size_t err_len;
} cursor;

static size_t off(const cursor *c)
{
    return (size_t)(c->p - c->start);
}

static void skip_ws(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int expect(cursor *c, char ch)
{
    skip_ws(c);
    if (c->p >= c->end || *c->p != ch)
        return gc_trace_fail(c->err, c->err_len, "%s: .npy header: expected '%c' at byte offset %zu",
                             c->path, ch, off(c));
    c->p++;
    return 0;
}

/* A quoted Python string without escapes (keys and dtype strings never need them). */
static int parse_string(cursor *c, char *out, size_t out_len)
{
    skip_ws(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return gc_trace_fail(c->err, c->err_len,
                             "%s: .npy header: expected a quoted string at byte offset %zu",
                             c->path, off(c));
    char q = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != q) {
        if (*c->p == '\\' || n + 1 >= out_len)
            return gc_trace_fail(c->err, c->err_len,
                                 "%s: .npy header: unsupported string at byte offset %zu",
                                 c->path, off(c));
        out[n++] = *c->p++;
    }
    if (c->p >= c->end)
        return gc_trace_fail(c->err, c->err_len, "%s: .npy header: unterminated string",
                             c->path);
    c->p++;
    out[n] = '\0';
    return 0;
}

static int parse_shape(cursor *c, gc_trace_tensor *t)
{
    if (expect(c, '(') != 0)
        return -1;
    t->ndim = 0;
    for (;;) {
        skip_ws(c);
        if (c->p < c->end && *c->p == ')') {
            c->p++;
            return 0;
        }
        if (c->p >= c->end || !isdigit((unsigned char)*c->p))
            return gc_trace_fail(c->err, c->err_len,
                                 "%s: .npy header: expected a dimension at byte offset %zu",
                                 c->path, off(c));
        if (t->ndim == GC_TRACE_MAX_DIMS)
            return gc_trace_fail(c->err, c->err_len, "%s: .npy header: more than %d dimensions",
                                 c->path, GC_TRACE_MAX_DIMS);
        uint64_t v = 0;
        while (c->p < c->end && isdigit((unsigned char)*c->p)) {
            if (v > (UINT64_MAX - 9) / 10)
                return gc_trace_fail(c->err, c->err_len,
                                     "%s: .npy header: dimension too large at byte offset %zu",
                                     c->path, off(c));
            v = v * 10 + (uint64_t)(*c->p++ - '0');
        }
        t->shape[t->ndim++] = v;
        skip_ws(c);
        if (c->p < c->end && *c->p == ',')
            c->p++;
        else if (c->p < c->end && *c->p == ')')
            continue;
        else
            return gc_trace_fail(c->err, c->err_len,
                                 "%s: .npy header: expected ',' or ')' at byte offset %zu",
                                 c->path, off(c));
    }
}

static int parse_bool(cursor *c, int *v)
{
    skip_ws(c);
    size_t left = (size_t)(c->end - c->p);
    if (left >= 4 && memcmp(c->p, "True", 4) == 0) {
        *v = 1;
        c->p += 4;
        return 0;
    }
    if (left >= 5 && memcmp(c->p, "False", 5) == 0) {
        *v = 0;
        c->p += 5;
        return 0;
    }
    return gc_trace_fail(c->err, c->err_len,
                         "%s: .npy header: expected True or False at byte offset %zu", c->path,
                         off(c));
}

static int parse_descr(cursor *c, const char *descr, gc_trace_dtype *d)
{
    if (strcmp(descr, "<f4") == 0) *d = GC_TRACE_F32;
    else if (strcmp(descr, "<f2") == 0) *d = GC_TRACE_F16;
    else if (descr[0] == '>')
        return gc_trace_fail(c->err, c->err_len,
                             "%s: .npy descr '%s' is big-endian; only little-endian '<f4' and "
                             "'<f2' are read", c->path, descr);
    else
        return gc_trace_fail(c->err, c->err_len,
                             "%s: .npy descr '%s' is not supported ('<f4' or '<f2' expected)",
                             c->path, descr);
    return 0;
}

/* The tensor takes the file's base name without its ".npy" suffix. */
static char *name_from_path(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char *name = gc_trace_strdup(base);
    if (name) {
        size_t n = strlen(name);
        if (n > 4 && strcmp(name + n - 4, ".npy") == 0)
            name[n - 4] = '\0';
    }
    return name;
}

int gc_trace_parse_npy(gc_trace_file *f, char *err, size_t err_len)
{
    const uint8_t *m = f->data;
    if (f->file_bytes < 10)
        return gc_trace_fail(err, err_len, "%s: truncated .npy: %zu bytes, the preamble needs 10",
                             f->path, f->file_bytes);
    unsigned major = m[6], minor = m[7];
    size_t header_len, header_start;
    if (major == 1) {
        header_len = gc_trace_le16(m + 8);
        header_start = 10;
    } else if (major == 2 || major == 3) {
        if (f->file_bytes < 12)
            return gc_trace_fail(err, err_len, "%s: truncated .npy: %zu bytes, the preamble "
                                 "needs 12", f->path, f->file_bytes);
        header_len = gc_trace_le32(m + 8);
        header_start = 12;
    } else {
        return gc_trace_fail(err, err_len, "%s: .npy version %u.%u at byte offset 6 is not "
                             "supported (1.0, 2.0 or 3.0)", f->path, major, minor);
    }
    if (minor != 0)
        return gc_trace_fail(err, err_len, "%s: .npy version %u.%u at byte offset 6 is not "
                             "supported (1.0, 2.0 or 3.0)", f->path, major, minor);
    if (header_len > f->file_bytes - header_start)
        return gc_trace_fail(err, err_len, "%s: .npy header length %zu at byte offset 8 is "
                             "longer than the %zu bytes that follow", f->path, header_len,
                             f->file_bytes - header_start);
    cursor c = {(const char *)m + header_start, (const char *)m + header_start + header_len,
                (const char *)m, f->path, err, err_len};
    f->tensors = calloc(1, sizeof *f->tensors);
    if (!f->tensors)
        return gc_trace_fail(err, err_len, "%s: out of memory", f->path);
    gc_trace_tensor *t = &f->tensors[0];
    int have_descr = 0, have_order = 0, have_shape = 0, fortran = 0;
    char key[32], descr[32] = "";
    if (expect(&c, '{') != 0)
        return -1;
    for (;;) {
        skip_ws(&c);
        if (c.p < c.end && *c.p == '}') {
            c.p++;
            break;
        }
        if (parse_string(&c, key, sizeof key) != 0 || expect(&c, ':') != 0)
            return -1;
        size_t key_off = off(&c);
        if (strcmp(key, "descr") == 0 && !have_descr) {
            if (parse_string(&c, descr, sizeof descr) != 0)
                return -1;
            have_descr = 1;
        } else if (strcmp(key, "fortran_order") == 0 && !have_order) {
            if (parse_bool(&c, &fortran) != 0)
                return -1;
            have_order = 1;
        } else if (strcmp(key, "shape") == 0 && !have_shape) {
            if (parse_shape(&c, t) != 0)
                return -1;
            have_shape = 1;
        } else {
            return gc_trace_fail(err, err_len, "%s: .npy header: unexpected or repeated key '%s' "
                                 "near byte offset %zu", f->path, key, key_off);
        }
        skip_ws(&c);
        if (c.p < c.end && *c.p == ',')
            c.p++;
        else if (!(c.p < c.end && *c.p == '}'))
            return gc_trace_fail(err, err_len, "%s: .npy header: expected ',' or '}' at byte "
                                 "offset %zu", f->path, off(&c));
    }
    skip_ws(&c);
    if (c.p != c.end)
        return gc_trace_fail(err, err_len, "%s: .npy header: unexpected text at byte offset %zu",
                             f->path, off(&c));
    if (!have_descr || !have_order || !have_shape)
        return gc_trace_fail(err, err_len, "%s: .npy header lacks '%s'", f->path,
                             !have_descr ? "descr" : !have_order ? "fortran_order" : "shape");
    if (parse_descr(&c, descr, &t->dtype) != 0)
        return -1;
    if (fortran)
        return gc_trace_fail(err, err_len, "%s: .npy array is in Fortran (column-major) order; "
                             "only C order is read", f->path);
    uint64_t n = 1;
    for (int i = 0; i < t->ndim; i++) {
        if (t->shape[i] != 0 && n > UINT64_MAX / 8 / t->shape[i])
            return gc_trace_fail(err, err_len, "%s: .npy shape product overflows", f->path);
        n *= t->shape[i];
    }
    t->n_elements = (size_t)n;
    t->data_bytes = n * gc_trace_dtype_bytes(t->dtype);
    t->file_offset_bytes = header_start + header_len;
    uint64_t have = f->file_bytes - t->file_offset_bytes;
    if (have < t->data_bytes)
        return gc_trace_fail(err, err_len, "%s: truncated .npy: data from byte offset %llu needs "
                             "%llu bytes, the file has %llu", f->path,
                             (unsigned long long)t->file_offset_bytes,
                             (unsigned long long)t->data_bytes, (unsigned long long)have);
    if (have > t->data_bytes)
        return gc_trace_fail(err, err_len, "%s: .npy has %llu trailing bytes after the data, "
                             "from byte offset %llu", f->path,
                             (unsigned long long)(have - t->data_bytes),
                             (unsigned long long)(t->file_offset_bytes + t->data_bytes));
    t->name = name_from_path(f->path);
    if (!t->name)
        return gc_trace_fail(err, err_len, "%s: out of memory", f->path);
    f->n_tensors = 1;
    return 0;
}
