/*
 * tests/fuzz/trace_fuzz_common.h: what the safetensors and .npy targets share: parsing
 * the input as if it were a file read into memory (traces_internal.h: the same parser
 * gc_trace_open runs after reading it), checking a successful parse against the format's
 * promises, and reading every tensor.
 *
 * The input is parsed in place, not through a temporary file: the buffer libFuzzer hands
 * over ends exactly at the last byte, so AddressSanitizer catches a read one byte past
 * the end, as it would in gc_trace_open's exact-size buffer.
 */
#ifndef GCSIM_TESTS_FUZZ_TRACE_COMMON_H
#define GCSIM_TESTS_FUZZ_TRACE_COMMON_H

#include <math.h>

#include "fuzz_target.h"
#include "traces_internal.h"

typedef int (*trace_parser)(gc_trace_file *f, char *err, size_t err_len);

static inline void fuzz_trace_release(gc_trace_file *f)
{
    /* The data is the fuzzer's buffer: forget it before closing. */
    f->data = NULL;
    f->file_bytes = 0;
    gc_trace_close(f);
}

static inline void fuzz_trace_check(const gc_trace_file *f)
{
    for (size_t i = 0; i < f->n_tensors; i++) {
        const gc_trace_tensor *t = &f->tensors[i];
        FUZZ_REQUIRE(t->name != NULL, "tensor %zu has no name", i);
        FUZZ_REQUIRE(t->ndim >= 0 && t->ndim <= GC_TRACE_MAX_DIMS, "ndim %d", t->ndim);
        uint64_t n = 1;
        for (int d = 0; d < t->ndim; d++)
            n *= t->shape[d];
        FUZZ_REQUIRE(n == t->n_elements, "'%s': shape product %llu, n_elements %zu", t->name,
                     (unsigned long long)n, t->n_elements);
        FUZZ_REQUIRE(t->data_bytes == t->n_elements * gc_trace_dtype_bytes(t->dtype),
                     "'%s': data_bytes", t->name);
        FUZZ_REQUIRE(t->file_offset_bytes <= f->file_bytes &&
                         t->data_bytes <= f->file_bytes - t->file_offset_bytes,
                     "'%s': [%llu, +%llu) outside the %zu-byte file", t->name,
                     (unsigned long long)t->file_offset_bytes,
                     (unsigned long long)t->data_bytes, f->file_bytes);
        long found = gc_trace_find(f, t->name);
        FUZZ_REQUIRE(found >= 0 && strcmp(f->tensors[found].name, t->name) == 0, "find");

        float *x = NULL;
        char err[512] = "";
        if (gc_trace_load_f32(f, i, &x, err, sizeof err) == 0) {
            for (size_t k = 0; k < t->n_elements; k++)
                FUZZ_REQUIRE(isfinite(x[k]), "'%s'[%zu] = %g accepted", t->name, k, x[k]);
            gc_trace_stats st;
            gc_trace_stats_compute(x, t->n_elements, &st);
            FUZZ_REQUIRE(st.n == t->n_elements, "stats n");
            free(x);
        } else {
            FUZZ_REQUIRE(x == NULL, "failed load returned a buffer");
            fuzz_check_message(err, sizeof err, f->path);
        }
    }
    FUZZ_REQUIRE(gc_trace_read_f32(f, f->n_tensors, NULL, (char[64]){0}, 64) != 0,
                 "index past the end accepted");
    long long step;
    char err[512] = "";
    if (gc_trace_step(f, &step, err, sizeof err) == 0)
        FUZZ_REQUIRE(step >= 0, "step %lld", step);
    else
        fuzz_check_message(err, sizeof err, f->path);
}

static inline int fuzz_trace_run(const uint8_t *data, size_t size, const char *path,
                                 trace_parser parse)
{
    gc_trace_file f;
    memset(&f, 0, sizeof f);
    f.path = gc_trace_strdup(path);
    f.data = size ? data : NULL;
    f.file_bytes = size;
    char err[512] = "";
    if (parse(&f, err, sizeof err) == 0)
        fuzz_trace_check(&f);
    else
        fuzz_check_message(err, sizeof err, path);
    fuzz_trace_release(&f);
    return 0;
}

#endif
