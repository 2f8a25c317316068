/*
 * traces/safetensors_write.c: writing a safetensors file atomically (atomic_file.h:
 * temporary file in the same directory, fsync, rename), so readers never see a partial file.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "atomic_file.h"
#include "traces_internal.h"

static int check_tensors(const char *path, const gc_trace_write_tensor *t, size_t n,
                         char *err, size_t err_len)
{
    for (size_t i = 0; i < n; i++) {
        if (!t[i].name || !t[i].name[0] || strcmp(t[i].name, "__metadata__") == 0)
            return gc_trace_fail(err, err_len, "%s: tensor %zu: invalid name", path, i);
        for (size_t j = 0; j < i; j++)
            if (strcmp(t[i].name, t[j].name) == 0)
                return gc_trace_fail(err, err_len, "%s: tensor '%s' given twice", path,
                                     t[i].name);
        if (t[i].ndim < 0 || t[i].ndim > GC_TRACE_MAX_DIMS || (t[i].ndim > 0 && !t[i].shape))
            return gc_trace_fail(err, err_len, "%s: tensor '%s': bad number of dimensions %d",
                                 path, t[i].name, t[i].ndim);
        if (t[i].dtype != GC_TRACE_F32 && t[i].dtype != GC_TRACE_F16 &&
            t[i].dtype != GC_TRACE_BF16)
            return gc_trace_fail(err, err_len, "%s: tensor '%s': unknown dtype", path,
                                 t[i].name);
        uint64_t elems = 1;
        for (int d = 0; d < t[i].ndim; d++) {
            if (t[i].shape[d] != 0 && elems > UINT64_MAX / 8 / t[i].shape[d])
                return gc_trace_fail(err, err_len, "%s: tensor '%s': shape product overflows",
                                     path, t[i].name);
            elems *= t[i].shape[d];
        }
        if (elems && !t[i].data)
            return gc_trace_fail(err, err_len, "%s: tensor '%s': no data", path, t[i].name);
        for (uint64_t k = 0; k < elems; k++)
            if (!isfinite(t[i].data[k]))
                return gc_trace_fail(err, err_len, "%s: tensor '%s': element %llu is not finite",
                                     path, t[i].name, (unsigned long long)k);
    }
    return 0;
}

static uint64_t elements(const gc_trace_write_tensor *t)
{
    uint64_t e = 1;
    for (int d = 0; d < t->ndim; d++)
        e *= t->shape[d];
    return e;
}

/* The JSON header: __metadata__ first, then the tensors with consecutive offsets. */
static char *build_header(const gc_trace_write_tensor *t, size_t n, const gc_trace_meta *meta,
                          size_t n_meta)
{
    cJSON *root = cJSON_CreateObject();
    if (!root)
        return NULL;
    int ok = 1;
    if (n_meta) {
        cJSON *m = cJSON_AddObjectToObject(root, "__metadata__");
        ok = m != NULL;
        for (size_t i = 0; ok && i < n_meta; i++)
            ok = cJSON_AddStringToObject(m, meta[i].key, meta[i].value) != NULL;
    }
    uint64_t offset = 0;
    for (size_t i = 0; ok && i < n; i++) {
        cJSON *e = cJSON_AddObjectToObject(root, t[i].name);
        cJSON *shape = e ? cJSON_AddArrayToObject(e, "shape") : NULL;
        cJSON *offs = shape ? cJSON_AddArrayToObject(e, "data_offsets") : NULL;
        ok = offs && cJSON_AddStringToObject(e, "dtype", gc_trace_dtype_name(t[i].dtype));
        for (int d = 0; ok && d < t[i].ndim; d++)
            ok = cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)t[i].shape[d]));
        uint64_t bytes = elements(&t[i]) * gc_trace_dtype_bytes(t[i].dtype);
        ok = ok && cJSON_AddItemToArray(offs, cJSON_CreateNumber((double)offset)) &&
             cJSON_AddItemToArray(offs, cJSON_CreateNumber((double)(offset + bytes)));
        offset += bytes;
    }
    char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    return text;
}

static int write_all(FILE *fp, const void *p, size_t n)
{
    return fwrite(p, 1, n, fp) == n ? 0 : -1;
}

static int write_tensor(FILE *fp, const gc_trace_write_tensor *t)
{
    uint8_t buf[4096];
    uint64_t n = elements(t);
    size_t w = gc_trace_dtype_bytes(t->dtype), per = sizeof buf / w, fill = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t u;
        if (t->dtype == GC_TRACE_F32)
            memcpy(&u, &t->data[i], 4);
        else if (t->dtype == GC_TRACE_F16)
            u = gc_trace_f32_to_f16(t->data[i]);
        else
            u = gc_trace_f32_to_bf16(t->data[i]);
        for (size_t b = 0; b < w; b++)
            buf[fill * w + b] = (uint8_t)(u >> (8 * b)); /* little-endian on every host */
        if (++fill == per) {
            if (write_all(fp, buf, fill * w) != 0)
                return -1;
            fill = 0;
        }
    }
    return fill ? write_all(fp, buf, fill * w) : 0;
}

int gc_trace_write_safetensors(const char *path, const gc_trace_write_tensor *tensors,
                               size_t n_tensors, const gc_trace_meta *meta, size_t n_meta,
                               char *err, size_t err_len)
{
    if (check_tensors(path, tensors, n_tensors, err, err_len) != 0)
        return -1;
    for (size_t i = 0; i < n_meta; i++)
        if (!meta[i].key || !meta[i].value)
            return gc_trace_fail(err, err_len, "%s: metadata entry %zu is incomplete", path, i);
    char *header = build_header(tensors, n_tensors, meta, n_meta);
    if (!header)
        return gc_trace_fail(err, err_len, "%s: out of memory building the header", path);
    size_t len = strlen(header);
    size_t padded = (len + 7) / 8 * 8; /* 8 + padded is a multiple of 8: aligned data */
    /* atomic_file gives the trace the mode a plain fopen would (0666 less the umask), so
     * it is shared as the umask allows, and removes a run's temporary if it fails. */
    atomic_file af;
    if (atomic_file_open(&af, path, err, err_len) != 0) {
        free(header);
        return -1;
    }
    FILE *fp = af.stream;
    uint8_t lenbytes[8];
    for (int b = 0; b < 8; b++)
        lenbytes[b] = (uint8_t)((uint64_t)padded >> (8 * b));
    errno = 0;
    int rc = write_all(fp, lenbytes, 8);
    if (rc == 0)
        rc = write_all(fp, header, len);
    for (size_t i = len; rc == 0 && i < padded; i++)
        rc = fputc(' ', fp) == EOF ? -1 : 0;
    for (size_t i = 0; rc == 0 && i < n_tensors; i++)
        rc = write_tensor(fp, &tensors[i]);
    if (rc != 0) {
        int e = errno;
        atomic_file_abort(&af);
        gc_trace_fail(err, err_len, "%s: write failed: %s", path, atomic_file_reason(e));
    } else if (atomic_file_commit(&af, err, err_len) != 0) {
        rc = -1;
    }
    free(header);
    return rc;
}
