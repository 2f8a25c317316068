/* .npy files written by NumPy itself (versions 1.0, 2.0, 3.0; '<f4' and '<f2') read back
 * as the same float32 values NumPy computes (the X.bin files next to them), and the
 * arrays NumPy writes that gcsim refuses (big-endian, Fortran order, float64) are refused.
 * Usage: traces_test_npy DIR (DIR made by make_npy.py, at test time or committed). */
#include <stdlib.h>

#include "../check.h"
#include "traces.h"

static char err[1024];

static void check_good(const char *dir, const char *name, int ndim, const uint64_t *shape)
{
    char path[600], bin[600];
    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    snprintf(bin, sizeof bin, "%s/%s.bin", dir, name);
    gc_trace_file f;
    int rc = gc_trace_open(path, &f, err, sizeof err);
    CHECK(rc == 0);
    if (rc != 0) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    CHECK(f.format == GC_TRACE_FORMAT_NPY && f.n_tensors == 1);
    CHECK(strcmp(f.tensors[0].name, name) == 0);
    CHECK(f.tensors[0].ndim == ndim);
    size_t n = 1;
    for (int d = 0; d < ndim && d < f.tensors[0].ndim; d++) {
        CHECK(f.tensors[0].shape[d] == shape[d]);
        n *= (size_t)shape[d];
    }
    CHECK(f.tensors[0].n_elements == n);
    float *got = NULL;
    CHECK(gc_trace_load_f32(&f, 0, &got, err, sizeof err) == 0);
    float *want = calloc(n ? n : 1, sizeof *want);
    FILE *fp = fopen(bin, "rb");
    CHECK(fp != NULL);
    if (fp) {
        CHECK(fread(want, sizeof *want, n, fp) == n);
        fclose(fp);
    }
    CHECK(got && memcmp(got, want, n * sizeof *want) == 0);
    free(got);
    free(want);
    gc_trace_close(&f);
}

static void check_bad(const char *dir, const char *name, const char *want)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    gc_trace_file f;
    CHECK(gc_trace_open(path, &f, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, path);
    CHECK_STR_CONTAINS(err, want);
}

/* A safetensors file from the capture tool's Python writer: header, metadata and data as
 * the C reader expects; F16/BF16 rounded exactly as the C converters round. */
static void check_python_writer(const char *dir, const char *name, gc_trace_dtype dtype)
{
    char path[600], bin[600];
    snprintf(path, sizeof path, "%s/%s.safetensors", dir, name);
    snprintf(bin, sizeof bin, "%s/%s.bin", dir, name);
    gc_trace_file f;
    int rc = gc_trace_open(path, &f, err, sizeof err);
    CHECK(rc == 0);
    if (rc != 0) {
        fprintf(stderr, "%s\n", err);
        return;
    }
    CHECK(f.n_tensors == 1 && f.tensors[0].dtype == dtype && f.tensors[0].ndim == 2 &&
          f.tensors[0].shape[0] == 3 && f.tensors[0].shape[1] == 7);
    CHECK(f.tensors[0].file_offset_bytes % 8 == 0);
    long long step = 0;
    CHECK(gc_trace_step(&f, &step, err, sizeof err) == 0 && step == 3);
    CHECK_STR_CONTAINS(gc_trace_meta_get(&f, "model"), "fixture");
    float got[21], in[21];
    CHECK(gc_trace_read_f32(&f, 0, got, err, sizeof err) == 0);
    FILE *fp = fopen(bin, "rb");
    CHECK(fp && fread(in, sizeof *in, 21, fp) == 21);
    if (fp)
        fclose(fp);
    int same = 1;
    for (int i = 0; i < 21; i++) {
        float want = dtype == GC_TRACE_F32   ? in[i]
                     : dtype == GC_TRACE_F16 ? gc_trace_f16_to_f32(gc_trace_f32_to_f16(in[i]))
                                             : gc_trace_bf16_to_f32(gc_trace_f32_to_bf16(in[i]));
        same &= got[i] == want;
    }
    CHECK(same);
    if (dtype == GC_TRACE_BF16)
        CHECK(got[0] == 1.0f);
    if (dtype == GC_TRACE_F16)
        CHECK(got[1] == 65504.0f);
    gc_trace_close(&f);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    const uint64_t s1[3] = {2, 3, 4}, s2[2] = {17, 13}, s3[1] = {37}, se[2] = {0, 5};
    check_good(dir, "v1_f32", 3, s1);
    check_good(dir, "v2_f32", 2, s2);
    check_good(dir, "v3_f16", 1, s3);
    check_good(dir, "v1_scalar", 0, NULL);
    check_good(dir, "v1_empty", 2, se);
    check_bad(dir, "bad_bigendian", "big-endian");
    check_bad(dir, "bad_fortran", "Fortran");
    check_bad(dir, "bad_f64", "'<f8' is not supported");
    check_python_writer(dir, "py_f32", GC_TRACE_F32);
    check_python_writer(dir, "py_f16", GC_TRACE_F16);
    check_python_writer(dir, "py_bf16", GC_TRACE_BF16);
    CHECK_DONE();
}
