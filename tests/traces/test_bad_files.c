/* Every validation rule of the safetensors and .npy readers has a bad file here; each
 * must be refused with a message naming the file and the offset or tensor concerned. */
#include <stdlib.h>

#include "../check.h"
#include "trace_test_util.h"
#include "traces.h"

static char err[1024];

/* Opens path and expects failure with a message containing the file name and `want`. */
static void expect_open_fails(const char *path, const char *want)
{
    gc_trace_file f;
    err[0] = '\0';
    int rc = gc_trace_open(path, &f, err, sizeof err);
    CHECK(rc == -1);
    if (rc == 0)
        gc_trace_close(&f);
    CHECK_STR_CONTAINS(err, path);
    CHECK_STR_CONTAINS(err, want);
}

typedef struct {
    const char *file, *header;
    size_t data_len;
    uint64_t len_override;
    const char *want;
} st_case;

static void npy_case(const char *name, const char *magic_ver, const char *dict, size_t data_len,
                     const char *want)
{
    /* preamble: magic (6) + version (2) + header length (2, v1) then the dict. */
    uint8_t buf[512] = {0};
    size_t hl = strlen(dict);
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (uint8_t)magic_ver[0];
    buf[7] = (uint8_t)magic_ver[1];
    buf[8] = (uint8_t)(hl & 0xff);
    buf[9] = (uint8_t)(hl >> 8);
    memcpy(buf + 10, dict, hl);
    char path[512];
    scratch_path(path, sizeof path, name);
    CHECK(write_bytes(path, buf, 10 + hl + data_len) == 0);
    expect_open_fails(path, want);
}

int main(int argc, char **argv)
{
    scratch_init(argc, argv);
    char path[512];
    static const uint8_t zeros[256];

    /* safetensors, one case per rule */
    const st_case cases[] = {
        {"header_longer_than_file.st", "{}", 0, 1000, "header length 1000 (byte offset 0) is longer"},
        {"bad_json.st", "{\"a\": {\"dtype\": \"F32\",,}}", 0, 0, "header JSON is invalid near byte offset"},
        {"not_object.st", "[1, 2]   ", 0, 0, "does not start with '{'"},
        {"junk_after_json.st", "{}  x", 0, 0, "after the header JSON at byte offset 12"},
        {"unknown_dtype.st", "{\"w\":{\"dtype\":\"F33\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4, 0,
         "tensor 'w': unknown dtype \"F33\""},
        {"unsupported_dtype.st", "{\"w\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4, 0,
         "tensor 'w': unsupported dtype \"I32\""},
        {"shape_mismatch.st", "{\"w\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,20]}}", 20, 0,
         "tensor 'w': shape [2, 3] of F32 needs 24 bytes but data_offsets [0, 20] span 20"},
        {"out_of_bounds.st", "{\"w\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 12, 0,
         "tensor 'w': data_offsets [0, 16] out of bounds"},
        {"end_before_begin.st", "{\"w\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[8,4]}}", 8, 0,
         "end before begin"},
        {"overlap.st", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                       "\"b\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}", 12, 0,
         "tensors 'a' and 'b' overlap at byte offset"},
        {"gap.st", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8, 0,
         "belong to no tensor (gap before 'a')"},
        {"trailing.st", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 8, 0,
         "4 trailing bytes"},
        {"duplicate.st", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                         "\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8, 0,
         "tensor 'a' appears twice"},
        {"missing_key.st", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}", 0, 0, "tensor 'a': missing \"data_offsets\""},
        {"unknown_key.st", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"x\":1}}", 4, 0,
         "tensor 'a': unknown key \"x\""},
        {"negative_dim.st", "{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 4, 0,
         "shape[0] is not a non-negative integer"},
        {"fraction_offset.st", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4.5]}}", 4, 0,
         "data_offsets must be [begin, end]"},
        {"meta_not_string.st", "{\"__metadata__\":{\"step\":3}}", 0, 0, "__metadata__.step: value is not a string"},
        {"meta_not_object.st", "{\"__metadata__\":[]}", 0, 0, "__metadata__ is not an object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        scratch_path(path, sizeof path, cases[i].file);
        CHECK(write_safetensors_raw(path, cases[i].header, zeros, cases[i].data_len,
                                    cases[i].len_override) == 0);
        expect_open_fails(path, cases[i].want);
    }
    /* Truncated: fewer than the 8 bytes of the length prefix; and an empty file. */
    scratch_path(path, sizeof path, "truncated.st");
    CHECK(write_bytes(path, "\x02\x00\x00", 3) == 0);
    expect_open_fails(path, "truncated: 3 bytes");
    scratch_path(path, sizeof path, "empty.st");
    CHECK(write_bytes(path, "", 0) == 0);
    expect_open_fails(path, "truncated: 0 bytes");
    scratch_path(path, sizeof path, "does_not_exist.st");
    expect_open_fails(path, "cannot open");

    /* NaN and Inf in the data: the header is valid, reading the tensor fails naming the
     * tensor, the element and its byte offset. Header is 60 bytes long, so data starts at
     * byte 68; element 1 is at 72. */
    const char *h = "{\"g\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}      ";
    CHECK(strlen(h) == 60);
    uint8_t nan_data[8] = {0, 0, 0x80, 0x3f, 0, 0, 0xc0, 0x7f}; /* 1.0f, NaN */
    scratch_path(path, sizeof path, "nan.st");
    CHECK(write_safetensors_raw(path, h, nan_data, 8, 0) == 0);
    gc_trace_file f;
    float v[2];
    CHECK(gc_trace_open(path, &f, err, sizeof err) == 0);
    CHECK(gc_trace_read_f32(&f, 0, v, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "tensor 'g': element 1 (byte offset 72) is NaN");
    gc_trace_close(&f);
    uint8_t inf_data[4] = {0x00, 0x7c, 0, 0}; /* F16 +Inf, then 0 */
    const char *h16 = "{\"g\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]}}";
    scratch_path(path, sizeof path, "inf.st");
    CHECK(write_safetensors_raw(path, h16, inf_data, 4, 0) == 0);
    CHECK(gc_trace_open(path, &f, err, sizeof err) == 0);
    CHECK(gc_trace_read_f32(&f, 0, v, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "element 0");
    CHECK_STR_CONTAINS(err, "is Inf");
    gc_trace_close(&f);

    /* .npy, one case per rule. Dicts are padded by the writer of real files; the reader
     * does not require padding, only a well-formed literal. */
    npy_case("big_endian.npy", "\x01\x00", "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }\n",
             8, "descr '>f4' is big-endian");
    npy_case("fortran.npy", "\x01\x00", "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }\n",
             16, "Fortran (column-major) order");
    npy_case("float64.npy", "\x01\x00", "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }\n",
             16, "descr '<f8' is not supported");
    npy_case("truncated.npy", "\x01\x00", "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }\n",
             20, "truncated .npy: data from byte offset 70 needs 24 bytes, the file has 20");
    npy_case("trailing.npy", "\x01\x00", "{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }\n",
             8, "2 trailing bytes");
    npy_case("version.npy", "\x04\x00", "{'descr': '<f4', 'fortran_order': False, 'shape': (), }\n",
             4, "version 4.0");
    npy_case("missing_key.npy", "\x01\x00", "{'descr': '<f4', 'shape': (1,), }\n", 4,
             "lacks 'fortran_order'");
    npy_case("extra_key.npy", "\x01\x00", "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}\n",
             4, "unexpected or repeated key 'x'");
    npy_case("bad_shape.npy", "\x01\x00", "{'descr': '<f4', 'fortran_order': False, 'shape': (1; 2), }\n",
             8, "expected ',' or ')' at byte offset");
    /* Header length beyond the end of the file. */
    scratch_path(path, sizeof path, "long_header.npy");
    CHECK(write_bytes(path, "\x93NUMPY\x01\x00\xff\x00{}", 12) == 0);
    expect_open_fails(path, "header length 255 at byte offset 8 is longer");
    scratch_path(path, sizeof path, "short.npy");
    CHECK(write_bytes(path, "\x93NUMPY\x01", 7) == 0);
    expect_open_fails(path, "truncated .npy: 7 bytes");
    CHECK_DONE();
}
