/*
 * traces/safetensors_read.c: validation and parsing of a safetensors file already read
 * into memory. Every rule of the format is checked before any tensor is used, and every
 * error names the file and the byte offset or tensor concerned.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "traces_internal.h"

/* The reference implementation refuses headers above 100 MB; a larger length is corrupt. */
#define HEADER_MAX_BYTES (100u * 1000u * 1000u)

static int parse_dtype(const char *s, gc_trace_dtype *d)
{
    if (strcmp(s, "F32") == 0) *d = GC_TRACE_F32;
    else if (strcmp(s, "F16") == 0) *d = GC_TRACE_F16;
    else if (strcmp(s, "BF16") == 0) *d = GC_TRACE_BF16;
    else return -1;
    return 0;
}

/* Known safetensors dtypes this reader does not convert (gradients are never integers). */
static int known_unsupported_dtype(const char *s)
{
    static const char *const names[] = {"F64", "I64", "I32", "I16", "I8", "U64", "U32", "U16",
                                        "U8", "BOOL", "F8_E4M3", "F8_E5M2", "C64", NULL};
    for (int i = 0; names[i]; i++)
        if (strcmp(s, names[i]) == 0)
            return 1;
    return 0;
}

/* A JSON number that is an exact non-negative integer below 2^53. */
static int json_uint(const cJSON *v, uint64_t *out)
{
    if (!cJSON_IsNumber(v))
        return -1;
    double d = v->valuedouble;
    if (!(d >= 0) || d > 9007199254740992.0 || floor(d) != d)
        return -1;
    *out = (uint64_t)d;
    return 0;
}

static int parse_tensor(const char *path, const cJSON *entry, uint64_t header_end,
                        uint64_t buffer_bytes, gc_trace_tensor *t, char *err, size_t err_len)
{
    const char *name = entry->string;
    if (!cJSON_IsObject(entry))
        return gc_trace_fail(err, err_len, "%s: tensor '%s': header entry is not an object",
                             path, name);
    const cJSON *dtype = NULL, *shape = NULL, *offsets = NULL, *it;
    cJSON_ArrayForEach(it, entry)
    {
        if (strcmp(it->string, "dtype") == 0) dtype = it;
        else if (strcmp(it->string, "shape") == 0) shape = it;
        else if (strcmp(it->string, "data_offsets") == 0) offsets = it;
        else
            return gc_trace_fail(err, err_len, "%s: tensor '%s': unknown key \"%s\"", path,
                                 name, it->string);
    }
    if (!dtype || !shape || !offsets)
        return gc_trace_fail(err, err_len, "%s: tensor '%s': missing \"%s\"", path, name,
                             !dtype ? "dtype" : !shape ? "shape" : "data_offsets");
    if (!cJSON_IsString(dtype))
        return gc_trace_fail(err, err_len, "%s: tensor '%s': dtype is not a string", path,
                             name);
    if (parse_dtype(dtype->valuestring, &t->dtype) != 0) {
        if (known_unsupported_dtype(dtype->valuestring))
            return gc_trace_fail(err, err_len,
                                 "%s: tensor '%s': unsupported dtype \"%s\" (F32, F16 or BF16 "
                                 "expected)", path, name, dtype->valuestring);
        return gc_trace_fail(err, err_len, "%s: tensor '%s': unknown dtype \"%s\"", path, name,
                             dtype->valuestring);
    }
    if (!cJSON_IsArray(shape))
        return gc_trace_fail(err, err_len, "%s: tensor '%s': shape is not an array", path,
                             name);
    int ndim = cJSON_GetArraySize(shape);
    if (ndim > GC_TRACE_MAX_DIMS)
        return gc_trace_fail(err, err_len, "%s: tensor '%s': %d dimensions, at most %d", path,
                             name, ndim, GC_TRACE_MAX_DIMS);
    t->ndim = ndim;
    uint64_t n = 1;
    int i = 0;
    cJSON_ArrayForEach(it, shape)
    {
        uint64_t dim;
        if (json_uint(it, &dim) != 0)
            return gc_trace_fail(err, err_len,
                                 "%s: tensor '%s': shape[%d] is not a non-negative integer",
                                 path, name, i);
        t->shape[i++] = dim;
        if (dim != 0 && n > UINT64_MAX / 8 / dim)
            return gc_trace_fail(err, err_len, "%s: tensor '%s': shape product overflows",
                                 path, name);
        n *= dim;
    }
    if (n > (uint64_t)SIZE_MAX / 4)
        return gc_trace_fail(err, err_len, "%s: tensor '%s': too many elements", path, name);
    t->n_elements = (size_t)n;
    t->data_bytes = n * gc_trace_dtype_bytes(t->dtype);
    uint64_t begin, end;
    if (!cJSON_IsArray(offsets) || cJSON_GetArraySize(offsets) != 2 ||
        json_uint(cJSON_GetArrayItem(offsets, 0), &begin) != 0 ||
        json_uint(cJSON_GetArrayItem(offsets, 1), &end) != 0)
        return gc_trace_fail(err, err_len,
                             "%s: tensor '%s': data_offsets must be [begin, end] with "
                             "non-negative integers", path, name);
    if (end < begin)
        return gc_trace_fail(err, err_len,
                             "%s: tensor '%s': data_offsets [%llu, %llu] end before begin",
                             path, name, (unsigned long long)begin, (unsigned long long)end);
    if (end > buffer_bytes)
        return gc_trace_fail(err, err_len,
                             "%s: tensor '%s': data_offsets [%llu, %llu] out of bounds: ends at "
                             "byte offset %llu of the file but the file has %llu bytes "
                             "(truncated file?)", path, name, (unsigned long long)begin,
                             (unsigned long long)end, (unsigned long long)(header_end + end),
                             (unsigned long long)(header_end + buffer_bytes));
    if (end - begin != t->data_bytes) {
        char dims[256] = "";
        size_t len = 0;
        for (int d = 0; d < ndim && len < sizeof dims - 24; d++)
            len += (size_t)snprintf(dims + len, sizeof dims - len, "%s%llu", d ? ", " : "",
                                    (unsigned long long)t->shape[d]);
        return gc_trace_fail(err, err_len,
                             "%s: tensor '%s': shape [%s] of %s needs %llu bytes but "
                             "data_offsets [%llu, %llu] span %llu", path, name, dims,
                             dtype->valuestring, (unsigned long long)t->data_bytes,
                             (unsigned long long)begin, (unsigned long long)end,
                             (unsigned long long)(end - begin));
    }
    t->file_offset_bytes = header_end + begin;
    t->name = gc_trace_strdup(name);
    if (!t->name)
        return gc_trace_fail(err, err_len, "%s: out of memory", path);
    return 0;
}

/* Byte offset (from the header's start) of a \\u0000 escape inside a string, or -1: cJSON
 * decodes it into a C string that ends there, so "a\\u0000b" would silently be "a". */
static long nul_escape_at(const char *text, size_t len)
{
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        if (!in_string) {
            in_string = text[i] == '"';
        } else if (text[i] == '\\') {
            if (i + 5 < len && memcmp(text + i + 1, "u0000", 5) == 0)
                return (long)i;
            i++;
        } else if (text[i] == '"') {
            in_string = false;
        }
    }
    return -1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A name that two of the n items (each `size` bytes, the name a char * at `name_at`)
 * share, or NULL: sorted, so that 200,000 tensors take milliseconds, not the minutes a
 * comparison of every pair took (issue 15). Returns -1 when out of memory. */
static int first_duplicate(const void *items, size_t n, size_t size, size_t name_at,
                           const char **dup)
{
    *dup = NULL;
    if (n < 2)
        return 0;
    const char **names = malloc(n * sizeof *names);
    if (!names)
        return -1;
    for (size_t i = 0; i < n; i++)
        memcpy(&names[i], (const char *)items + i * size + name_at, sizeof names[i]);
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 1; i < n && !*dup; i++)
        if (strcmp(names[i - 1], names[i]) == 0)
            *dup = names[i];
    free(names);
    return 0;
}

static int parse_metadata(gc_trace_file *f, const cJSON *meta, char *err, size_t err_len)
{
    if (!cJSON_IsObject(meta))
        return gc_trace_fail(err, err_len, "%s: __metadata__ is not an object", f->path);
    size_t n = (size_t)cJSON_GetArraySize(meta);
    f->meta = calloc(n ? n : 1, sizeof *f->meta);
    if (!f->meta)
        return gc_trace_fail(err, err_len, "%s: out of memory", f->path);
    const cJSON *it;
    cJSON_ArrayForEach(it, meta)
    {
        if (!cJSON_IsString(it))
            return gc_trace_fail(err, err_len,
                                 "%s: __metadata__.%s: value is not a string", f->path,
                                 it->string);
        gc_trace_meta *m = &f->meta[f->n_meta];
        m->key = gc_trace_strdup(it->string);
        m->value = gc_trace_strdup(it->valuestring);
        f->n_meta++;
        if (!m->key || !m->value)
            return gc_trace_fail(err, err_len, "%s: out of memory", f->path);
    }
    const char *dup = NULL;
    if (first_duplicate(f->meta, f->n_meta, sizeof *f->meta, offsetof(gc_trace_meta, key), &dup))
        return gc_trace_fail(err, err_len, "%s: out of memory", f->path);
    if (dup)
        return gc_trace_fail(err, err_len, "%s: __metadata__: duplicate key \"%s\"", f->path,
                             dup);
    return 0;
}

static int by_offset(const void *a, const void *b)
{
    const gc_trace_tensor *x = a, *y = b;
    if (x->file_offset_bytes != y->file_offset_bytes)
        return x->file_offset_bytes < y->file_offset_bytes ? -1 : 1;
    if (x->data_bytes != y->data_bytes)
        return x->data_bytes < y->data_bytes ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The tensors, sorted by offset, must tile the data buffer exactly: an overlap would let
 * two tensors alias, a gap or trailing bytes would hide data no tensor accounts for. */
static int check_layout(const gc_trace_file *f, uint64_t header_end, char *err,
                        size_t err_len)
{
    uint64_t covered = header_end;
    const char *last = NULL;
    for (size_t i = 0; i < f->n_tensors; i++) {
        const gc_trace_tensor *t = &f->tensors[i];
        if (t->data_bytes == 0)
            continue;
        if (t->file_offset_bytes < covered)
            return gc_trace_fail(err, err_len,
                                 "%s: tensors '%s' and '%s' overlap at byte offset %llu", f->path,
                                 last, t->name, (unsigned long long)t->file_offset_bytes);
        if (t->file_offset_bytes > covered)
            return gc_trace_fail(err, err_len,
                                 "%s: bytes %llu to %llu of the data buffer belong to no tensor "
                                 "(gap before '%s')", f->path, (unsigned long long)covered,
                                 (unsigned long long)t->file_offset_bytes, t->name);
        covered = t->file_offset_bytes + t->data_bytes;
        last = t->name;
    }
    if (covered != f->file_bytes)
        return gc_trace_fail(err, err_len,
                             "%s: %llu trailing bytes from byte offset %llu belong to no tensor",
                             f->path, (unsigned long long)(f->file_bytes - covered),
                             (unsigned long long)covered);
    return 0;
}

/* Whether the 8 bytes where the header length belongs are printable text: a length that
 * high (from 2^61 up) is no real header, and read as a number it said nothing (a JSON file
 * was "header length 3184361845584634491"). */
static bool starts_with_text(const uint8_t *p)
{
    for (int i = 0; i < 8; i++)
        if (!(p[i] >= 0x20 && p[i] < 0x7f) && p[i] != '\t' && p[i] != '\n' && p[i] != '\r')
            return false;
    return true;
}

int gc_trace_parse_safetensors(gc_trace_file *f, char *err, size_t err_len)
{
    if (f->file_bytes < 8)
        return gc_trace_fail(err, err_len,
                             "%s: truncated: %zu bytes, a safetensors file starts with an "
                             "8-byte header length", f->path, f->file_bytes);
    uint64_t header_bytes = gc_trace_le64(f->data);
    if (header_bytes > f->file_bytes - 8 && starts_with_text(f->data)) {
        char shown[9];
        for (int i = 0; i < 8; i++)
            shown[i] = f->data[i] < 0x20 ? ' ' : (char)f->data[i];
        shown[8] = '\0';
        return gc_trace_fail(err, err_len,
                             "%s: not a safetensors file: it starts with text (\"%s\") at byte "
                             "offset 0, where a safetensors file has its 8-byte header length "
                             "(a JSON or text file?)", f->path, shown);
    }
    if (header_bytes > f->file_bytes - 8)
        return gc_trace_fail(err, err_len,
                             "%s: header length %llu (byte offset 0) is longer than the %zu "
                             "bytes that follow it", f->path, (unsigned long long)header_bytes,
                             f->file_bytes - 8);
    if (header_bytes < 2 || header_bytes > HEADER_MAX_BYTES)
        return gc_trace_fail(err, err_len, "%s: implausible header length %llu at byte offset 0",
                             f->path, (unsigned long long)header_bytes);
    const char *text = (const char *)f->data + 8;
    if (text[0] != '{')
        return gc_trace_fail(err, err_len,
                             "%s: header at byte offset 8 does not start with '{'", f->path);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, (size_t)header_bytes, &end, 0);
    if (!root) {
        size_t at = end ? (size_t)(end - text) : 0;
        return gc_trace_fail(err, err_len, "%s: header JSON is invalid near byte offset %zu",
                             f->path, 8 + at);
    }
    /* After the JSON object only padding spaces are allowed. */
    for (const char *p = end; p < text + header_bytes; p++) {
        if (*p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
            cJSON_Delete(root);
            return gc_trace_fail(err, err_len,
                                 "%s: unexpected byte 0x%02x after the header JSON at byte "
                                 "offset %zu", f->path, (unsigned char)*p,
                                 (size_t)(8 + (p - text)));
        }
    }
    int rc = 0;
    long nul = nul_escape_at(text, (size_t)header_bytes);
    if (nul >= 0) {
        rc = gc_trace_fail(err, err_len, "%s: the escape \\u0000 (a NUL character) in a name "
                           "at byte offset %ld of the header JSON", f->path, 8 + nul);
        goto out;
    }
    if (!cJSON_IsObject(root)) {
        rc = gc_trace_fail(err, err_len, "%s: header is not a JSON object", f->path);
        goto out;
    }
    uint64_t header_end = 8 + header_bytes;
    uint64_t buffer_bytes = f->file_bytes - header_end;
    size_t n = (size_t)cJSON_GetArraySize(root);
    f->tensors = calloc(n ? n : 1, sizeof *f->tensors);
    if (!f->tensors) {
        rc = gc_trace_fail(err, err_len, "%s: out of memory", f->path);
        goto out;
    }
    const cJSON *it;
    int seen_meta = 0;
    cJSON_ArrayForEach(it, root)
    {
        if (strcmp(it->string, "__metadata__") == 0) {
            if (seen_meta++) {
                rc = gc_trace_fail(err, err_len, "%s: duplicate __metadata__", f->path);
                goto out;
            }
            if ((rc = parse_metadata(f, it, err, err_len)) != 0)
                goto out;
            continue;
        }
        rc = parse_tensor(f->path, it, header_end, buffer_bytes, &f->tensors[f->n_tensors],
                          err, err_len);
        if (rc != 0)
            goto out;
        f->n_tensors++;
    }
    const char *dup = NULL;
    if (first_duplicate(f->tensors, f->n_tensors, sizeof *f->tensors,
                        offsetof(gc_trace_tensor, name), &dup)) {
        rc = gc_trace_fail(err, err_len, "%s: out of memory", f->path);
        goto out;
    }
    if (dup) {
        rc = gc_trace_fail(err, err_len, "%s: tensor '%s' appears twice in the header",
                           f->path, dup);
        goto out;
    }
    qsort(f->tensors, f->n_tensors, sizeof *f->tensors, by_offset);
    rc = check_layout(f, header_end, err, err_len);
out:
    cJSON_Delete(root);
    return rc;
}
