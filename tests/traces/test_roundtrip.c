/* Write then read safetensors files: tensors, shapes, dtypes and metadata come back
 * identical (F16 and BF16 equal the rounding of the input, which is exact for inputs
 * already representable). */
#include <stdlib.h>
#include <unistd.h>

#include "../check.h"
#include "trace_test_util.h"
#include "traces.h"

int main(int argc, char **argv)
{
    scratch_init(argc, argv);
    char path[512], err[512];
    scratch_path(path, sizeof path, "roundtrip.safetensors");

    /* 3x5 F32 with awkward values, 7 F16, 4 BF16, a scalar, an empty tensor. */
    float a[15], h[7], bf[4], scalar = -0.125f;
    for (int i = 0; i < 15; i++)
        a[i] = (float)(i - 7) * 0.3337f + (i == 3 ? 1e-30f : 0.0f);
    for (int i = 0; i < 7; i++)
        h[i] = (float)i * 0.1f - 0.25f;
    for (int i = 0; i < 4; i++)
        bf[i] = (float)(1 << i) * 1.7f;
    uint64_t sa[2] = {3, 5}, sh[1] = {7}, sb[3] = {2, 1, 2}, se[2] = {0, 4};
    gc_trace_write_tensor t[5] = {
        {"layer1.weight", a, 2, sa, GC_TRACE_F32},
        {"half", h, 1, sh, GC_TRACE_F16},
        {"brain", bf, 3, sb, GC_TRACE_BF16},
        {"scalar", &scalar, 0, NULL, GC_TRACE_F32},
        {"empty", NULL, 2, se, GC_TRACE_F32},
    };
    gc_trace_meta meta[3] = {{"model", "test \"net\""}, {"step", "42"}, {"lr", "0.1"}};
    CHECK(gc_trace_write_safetensors(path, t, 5, meta, 3, err, sizeof err) == 0);

    gc_trace_file f;
    int rc = gc_trace_open(path, &f, err, sizeof err);
    CHECK(rc == 0);
    if (rc != 0) {
        fprintf(stderr, "%s\n", err);
        CHECK_DONE();
    }
    CHECK(f.format == GC_TRACE_FORMAT_SAFETENSORS);
    CHECK(f.n_tensors == 5);
    CHECK(f.n_meta == 3);
    CHECK_STR_CONTAINS(gc_trace_meta_get(&f, "model"), "test \"net\"");
    long long step = 0;
    CHECK(gc_trace_step(&f, &step, err, sizeof err) == 0 && step == 42);
    /* The header is padded so the data buffer starts at a multiple of 8. */
    CHECK(f.tensors[0].file_offset_bytes % 8 == 0);

    long i = gc_trace_find(&f, "layer1.weight");
    CHECK(i >= 0 && f.tensors[i].ndim == 2 && f.tensors[i].shape[0] == 3 &&
          f.tensors[i].shape[1] == 5 && f.tensors[i].n_elements == 15 &&
          f.tensors[i].dtype == GC_TRACE_F32);
    float *out = NULL;
    CHECK(gc_trace_load_f32(&f, (size_t)i, &out, err, sizeof err) == 0);
    CHECK(out && memcmp(out, a, sizeof a) == 0);
    free(out);

    i = gc_trace_find(&f, "half");
    CHECK(i >= 0 && f.tensors[i].dtype == GC_TRACE_F16 && f.tensors[i].data_bytes == 14);
    CHECK(gc_trace_load_f32(&f, (size_t)i, &out, err, sizeof err) == 0);
    int same = 1;
    for (int k = 0; k < 7; k++)
        same &= out[k] == gc_trace_f16_to_f32(gc_trace_f32_to_f16(h[k]));
    CHECK(same);
    CHECK(out[0] == -0.25f); /* exactly representable */
    free(out);

    i = gc_trace_find(&f, "brain");
    CHECK(i >= 0 && f.tensors[i].dtype == GC_TRACE_BF16 && f.tensors[i].ndim == 3);
    CHECK(gc_trace_load_f32(&f, (size_t)i, &out, err, sizeof err) == 0);
    same = 1;
    for (int k = 0; k < 4; k++)
        same &= out[k] == gc_trace_bf16_to_f32(gc_trace_f32_to_bf16(bf[k]));
    CHECK(same);
    free(out);

    i = gc_trace_find(&f, "scalar");
    CHECK(i >= 0 && f.tensors[i].ndim == 0 && f.tensors[i].n_elements == 1);
    float sv = 0;
    CHECK(gc_trace_read_f32(&f, (size_t)i, &sv, err, sizeof err) == 0 && sv == -0.125f);
    i = gc_trace_find(&f, "empty");
    CHECK(i >= 0 && f.tensors[i].n_elements == 0 && f.tensors[i].data_bytes == 0);
    CHECK(gc_trace_find(&f, "nope") == -1);
    gc_trace_close(&f);

    /* Writing a NaN fails and leaves the previous file in place, with no temporary. */
    float bad[2] = {1.0f, NAN};
    uint64_t s2[1] = {2};
    gc_trace_write_tensor tb = {"x", bad, 1, s2, GC_TRACE_F32};
    CHECK(gc_trace_write_safetensors(path, &tb, 1, NULL, 0, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "element 1 is not finite");
    CHECK(gc_trace_open(path, &f, err, sizeof err) == 0 && f.n_tensors == 5);
    gc_trace_close(&f);
    /* Duplicate names are refused. */
    gc_trace_write_tensor dup[2] = {{"x", a, 1, s2, GC_TRACE_F32}, {"x", a, 1, s2, GC_TRACE_F32}};
    CHECK(gc_trace_write_safetensors(path, dup, 2, NULL, 0, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "given twice");
    /* Writing into a missing directory fails cleanly. */
    char missing[600];
    snprintf(missing, sizeof missing, "%s/no/such/dir/x.safetensors", scratch_dir);
    CHECK(gc_trace_write_safetensors(missing, t, 1, NULL, 0, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "x.safetensors");

    /* A file with no tensors and no metadata: header "{}" padded to 8 bytes. */
    scratch_path(path, sizeof path, "empty.safetensors");
    CHECK(gc_trace_write_safetensors(path, NULL, 0, NULL, 0, err, sizeof err) == 0);
    CHECK(gc_trace_open(path, &f, err, sizeof err) == 0 && f.n_tensors == 0 && f.n_meta == 0);
    CHECK(f.file_bytes == 16);
    gc_trace_close(&f);
    unlink(path);
    CHECK_DONE();
}
