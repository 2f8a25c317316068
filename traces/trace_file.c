/*
 * traces/trace_file.c: opening a trace (format chosen by content), lookups, and the
 * conversion of one tensor's bytes to float32 with a finiteness check.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "traces_internal.h"

static const uint8_t npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/* The qsort comparator needs the file's tensors: one open at a time per thread builds its
 * index, so a thread-local pointer is enough. */
static _Thread_local const gc_trace_file *index_of;

static int by_tensor_name(const void *a, const void *b)
{
    return strcmp(index_of->tensors[*(const size_t *)a].name,
                  index_of->tensors[*(const size_t *)b].name);
}

/* f->by_name, or NULL when there is no memory for it (gc_trace_find then scans). Names
 * are unique (the parsers refuse duplicates), so the order is total. */
static void build_name_index(gc_trace_file *f)
{
    if (f->n_tensors < 2)
        return;
    f->by_name = malloc(f->n_tensors * sizeof *f->by_name);
    if (!f->by_name)
        return;
    for (size_t i = 0; i < f->n_tensors; i++)
        f->by_name[i] = i;
    index_of = f;
    qsort(f->by_name, f->n_tensors, sizeof *f->by_name, by_tensor_name);
    index_of = NULL;
}

int gc_trace_open(const char *path, gc_trace_file *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    out->path = gc_trace_strdup(path);
    if (!out->path)
        return gc_trace_fail(err, err_len, "%s: out of memory", path);
    if (gc_trace_read_file(path, &out->data, &out->file_bytes, err, err_len) != 0) {
        gc_trace_close(out);
        return -1;
    }
    int rc;
    size_t len = strlen(path);
    bool named_npy = len >= 4 && strcmp(path + len - 4, ".npy") == 0;
    bool npy = out->file_bytes >= 6 && memcmp(out->data, npy_magic, 6) == 0;
    if (named_npy && !npy) {
        /* Diagnosed as what its name says, not as a safetensors file with a strange
         * header length. */
        gc_trace_close(out);
        return gc_trace_fail(err, err_len, "%s: not a .npy file: it does not start with the "
                             ".npy magic \\x93NUMPY (byte offset 0)", path);
    }
    if (npy) {
        out->format = GC_TRACE_FORMAT_NPY;
        rc = gc_trace_parse_npy(out, err, err_len);
    } else {
        out->format = GC_TRACE_FORMAT_SAFETENSORS;
        rc = gc_trace_parse_safetensors(out, err, err_len);
    }
    if (rc != 0)
        gc_trace_close(out);
    else
        build_name_index(out);
    return rc;
}

void gc_trace_close(gc_trace_file *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n_tensors; i++)
        free(f->tensors[i].name);
    free(f->tensors);
    for (size_t i = 0; i < f->n_meta; i++) {
        free(f->meta[i].key);
        free(f->meta[i].value);
    }
    free(f->meta);
    free(f->by_name);
    gc_trace_free_file(f->data);
    free(f->path);
    memset(f, 0, sizeof *f);
}

long gc_trace_find(const gc_trace_file *f, const char *name)
{
    if (f->by_name) {
        size_t lo = 0, hi = f->n_tensors; /* the name, if there, is in by_name[lo, hi) */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            int c = strcmp(f->tensors[f->by_name[mid]].name, name);
            if (c == 0)
                return (long)f->by_name[mid];
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        return -1;
    }
    for (size_t i = 0; i < f->n_tensors; i++)
        if (strcmp(f->tensors[i].name, name) == 0)
            return (long)i;
    return -1;
}

const char *gc_trace_meta_get(const gc_trace_file *f, const char *key)
{
    for (size_t i = 0; i < f->n_meta; i++)
        if (strcmp(f->meta[i].key, key) == 0)
            return f->meta[i].value;
    return NULL;
}

int gc_trace_step(const gc_trace_file *f, long long *step, char *err, size_t err_len)
{
    const char *v = gc_trace_meta_get(f, "step");
    if (!v)
        return gc_trace_fail(err, err_len, "%s: __metadata__ has no \"step\"", f->path);
    char *end;
    errno = 0;
    long long s = strtoll(v, &end, 10);
    if (errno || end == v || *end != '\0' || s < 0)
        return gc_trace_fail(err, err_len,
                             "%s: __metadata__.step: expected a non-negative integer, got \"%s\"",
                             f->path, v);
    *step = s;
    return 0;
}

int gc_trace_read_f32(const gc_trace_file *f, size_t index, float *dst, char *err,
                      size_t err_len)
{
    if (index >= f->n_tensors)
        return gc_trace_fail(err, err_len, "%s: no tensor number %zu (the file has %zu)",
                             f->path, index, f->n_tensors);
    const gc_trace_tensor *t = &f->tensors[index];
    const uint8_t *p = f->data + t->file_offset_bytes;
    size_t n = t->n_elements;
    switch (t->dtype) {
    case GC_TRACE_F32:
        for (size_t i = 0; i < n; i++) {
            uint32_t u = gc_trace_le32(p + 4 * i);
            memcpy(&dst[i], &u, 4);
        }
        break;
    case GC_TRACE_F16:
        for (size_t i = 0; i < n; i++)
            dst[i] = gc_trace_f16_to_f32(gc_trace_le16(p + 2 * i));
        break;
    case GC_TRACE_BF16:
        for (size_t i = 0; i < n; i++)
            dst[i] = gc_trace_bf16_to_f32(gc_trace_le16(p + 2 * i));
        break;
    }
    for (size_t i = 0; i < n; i++)
        if (!isfinite(dst[i]))
            return gc_trace_fail(err, err_len,
                                 "%s: tensor '%s': element %zu (byte offset %llu) is %s", f->path,
                                 t->name, i,
                                 (unsigned long long)(t->file_offset_bytes +
                                                      i * gc_trace_dtype_bytes(t->dtype)),
                                 isnan(dst[i]) ? "NaN" : "Inf");
    return 0;
}

int gc_trace_load_f32(const gc_trace_file *f, size_t index, float **out, char *err,
                      size_t err_len)
{
    *out = NULL;
    if (index >= f->n_tensors)
        return gc_trace_fail(err, err_len, "%s: no tensor number %zu (the file has %zu)",
                             f->path, index, f->n_tensors);
    size_t n = f->tensors[index].n_elements;
    float *buf = malloc((n ? n : 1) * sizeof *buf);
    if (!buf)
        return gc_trace_fail(err, err_len, "%s: tensor '%s': out of memory for %zu floats",
                             f->path, f->tensors[index].name, n);
    if (gc_trace_read_f32(f, index, buf, err, err_len) != 0) {
        free(buf);
        return -1;
    }
    *out = buf;
    return 0;
}
