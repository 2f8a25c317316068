/*
 * tests/fuzz/make_seeds.c: writes the binary seed corpora of the fuzz targets: payloads
 * of every spec in decode_specs.h (valid ones and near-valid ones: truncated, one byte
 * too many, count off by one), safetensors and .npy files (valid ones in each dtype and
 * near-valid ones: truncated data, lying header lengths, gaps, NaN). The text corpora
 * (platform, model, spec) are written by hand. Run once and commit the output:
 *
 *   fuzz_make_seeds tests/fuzz/corpus
 *
 * Deterministic: a fixed seed, so rerunning it rewrites the same bytes.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compressor.h"
#include "decode_specs.h"
#include "traces.h"

static const char *root;

static void die(const char *what, const char *why)
{
    fprintf(stderr, "make_seeds: %s: %s\n", what, why);
    exit(1);
}

static void write_bytes(const char *target, const char *name, const void *a, size_t alen,
                        const void *b, size_t blen)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", root, target);
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        die(path, strerror(errno));
    snprintf(path, sizeof path, "%s/%s/%s", root, target, name);
    FILE *f = fopen(path, "wb");
    if (!f)
        die(path, strerror(errno));
    if ((alen && fwrite(a, 1, alen, f) != alen) || (blen && fwrite(b, 1, blen, f) != blen))
        die(path, "short write");
    if (fclose(f) != 0)
        die(path, strerror(errno));
}

static void decode_seeds(void)
{
    static const size_t sizes[] = {0, 1, 5, 64, 300};
    gc_rng rng;
    gc_rng_seed(&rng, 7);
    float grad[300];
    for (size_t i = 0; i < FUZZ_N_DECODE_SPECS; i++) {
        gc_compressor *c;
        char err[512];
        if (gc_compressor_create(fuzz_decode_specs[i], &c, err, sizeof err) != 0)
            die(fuzz_decode_specs[i], err);
        uint8_t sel = (uint8_t)i;
        for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
            size_t n = sizes[k];
            for (size_t j = 0; j < n; j++)
                grad[j] = (j % 7 == 0) ? 0.0f : (float)gc_rng_normal(&rng);
            gc_bytes p = {0};
            if (gc_compressor_encode(c, (int)k, grad, n, &rng, &p, NULL, err, sizeof err) != 0)
                die(fuzz_decode_specs[i], err);
            char name[128];
            snprintf(name, sizeof name, "%02zu-%s-n%zu", i, gc_compressor_name(c), n);
            write_bytes("decode", name, &sel, 1, p.data, p.len);
            if (n == 64) { /* near-valid: one byte short, one byte too many */
                snprintf(name, sizeof name, "%02zu-%s-n%zu-short", i, gc_compressor_name(c), n);
                write_bytes("decode", name, &sel, 1, p.data, p.len - 1);
                uint8_t *longer = malloc(p.len + 1);
                memcpy(longer, p.data, p.len);
                longer[p.len] = 0x5a;
                snprintf(name, sizeof name, "%02zu-%s-n%zu-long", i, gc_compressor_name(c), n);
                write_bytes("decode", name, &sel, 1, longer, p.len + 1);
                free(longer);
            }
            gc_bytes_free(&p);
        }
        gc_compressor_free(c);
    }
}

/* Reads back a file written by the trace writer. */
static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die(path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc((size_t)n + 1);
    if (fread(b, 1, (size_t)n, f) != (size_t)n)
        die(path, "short read");
    fclose(f);
    *len = (size_t)n;
    return b;
}

static void st_raw(const char *name, const char *header, const void *data, size_t dlen)
{
    size_t h = strlen(header);
    uint8_t len8[8];
    for (int i = 0; i < 8; i++)
        len8[i] = (uint8_t)((uint64_t)h >> (8 * i));
    uint8_t *buf = malloc(8 + h + dlen + 1);
    memcpy(buf, len8, 8);
    memcpy(buf + 8, header, h);
    if (dlen)
        memcpy(buf + 8 + h, data, dlen);
    write_bytes("safetensors", name, buf, 8 + h + dlen, NULL, 0);
    free(buf);
}

static void safetensors_seeds(void)
{
    float a[12], b[5], c[1];
    for (int i = 0; i < 12; i++)
        a[i] = (float)(i - 6) * 0.25f;
    for (int i = 0; i < 5; i++)
        b[i] = 1.0f / (float)(i + 1);
    c[0] = -3.5f;
    uint64_t sa[2] = {3, 4}, sb[1] = {5}, sz[2] = {0, 7};
    gc_trace_write_tensor t[4] = {
        {"conv1.weight", a, 2, sa, GC_TRACE_F32},
        {"conv1.bias", b, 1, sb, GC_TRACE_F16},
        {"fc.bias", c, 0, NULL, GC_TRACE_BF16},
        {"empty", NULL, 2, sz, GC_TRACE_F32},
    };
    gc_trace_meta meta[2] = {{"step", "10"}, {"model", "lenet"}};
    char path[1024], err[512];
    snprintf(path, sizeof path, "%s/safetensors.tmp", root);
    if (gc_trace_write_safetensors(path, t, 4, meta, 2, err, sizeof err) != 0)
        die("write", err);
    size_t len;
    uint8_t *f = slurp(path, &len);
    remove(path);
    write_bytes("safetensors", "valid-4-tensors", f, len, NULL, 0);
    write_bytes("safetensors", "truncated-data", f, len - 3, NULL, 0);
    write_bytes("safetensors", "truncated-header", f, 40, NULL, 0);
    write_bytes("safetensors", "length-only", f, 8, NULL, 0);
    uint8_t *lie = malloc(len);
    memcpy(lie, f, len);
    lie[0] = (uint8_t)(lie[0] + 8); /* header length lies by 8 bytes */
    write_bytes("safetensors", "header-length-lies", lie, len, NULL, 0);
    memcpy(lie, f, len);
    lie[7] = 0x80; /* a header length near 2^63 */
    write_bytes("safetensors", "header-length-huge", lie, len, NULL, 0);
    free(lie);
    free(f);

    if (gc_trace_write_safetensors(path, t, 1, NULL, 0, err, sizeof err) != 0)
        die("write", err);
    f = slurp(path, &len);
    remove(path);
    write_bytes("safetensors", "valid-1-tensor", f, len, NULL, 0);
    free(f);

    float nan_data[2] = {1.0f, NAN};
    st_raw("nan-element", "{\"g\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
           nan_data, sizeof nan_data);
    st_raw("gap", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},"
                  "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}",
           a, 12);
    st_raw("overlap", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
                      "\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}",
           a, 8);
    st_raw("shape-lies", "{\"a\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,8]}}", a,
           8);
    st_raw("dtype-f64", "{\"a\":{\"dtype\":\"F64\",\"shape\":[1],\"data_offsets\":[0,8]}}", a, 8);
    st_raw("offsets-past-end",
           "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", a, 8);
    st_raw("metadata-only", "{\"__metadata__\":{\"step\":\"x\"}}", NULL, 0);
    st_raw("empty-object", "{}", NULL, 0);
    st_raw("big-dims",
           "{\"a\":{\"dtype\":\"BF16\",\"shape\":[4294967296,4294967296,2],"
           "\"data_offsets\":[0,4]}}", a, 4);
}

static void npy_raw(const char *name, int major, const char *dict, const void *data,
                    size_t dlen, size_t cut)
{
    size_t pre = major == 1 ? 10 : 12;
    size_t h = strlen(dict) + 1; /* newline-terminated, padded to 64 as NumPy does */
    size_t padded = ((pre + h + 63) / 64) * 64 - pre;
    uint8_t *buf = calloc(pre + padded + dlen + 1, 1);
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (uint8_t)major;
    buf[7] = 0;
    for (size_t i = 0; i < (major == 1 ? 2u : 4u); i++)
        buf[8 + i] = (uint8_t)(padded >> (8 * i));
    memset(buf + pre, ' ', padded);
    memcpy(buf + pre, dict, h - 1);
    buf[pre + padded - 1] = '\n';
    if (dlen)
        memcpy(buf + pre + padded, data, dlen);
    write_bytes("npy", name, buf, pre + padded + dlen - cut, NULL, 0);
    free(buf);
}

static void npy_seeds(void)
{
    float a[12];
    for (int i = 0; i < 12; i++)
        a[i] = (float)i - 5.5f;
    uint16_t h[5];
    for (int i = 0; i < 5; i++)
        h[i] = gc_trace_f32_to_f16((float)i * 0.5f);
    npy_raw("v1-f4-3x4", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", a,
            sizeof a, 0);
    npy_raw("v1-f2-5", 1, "{'descr': '<f2', 'fortran_order': False, 'shape': (5,), }", h,
            sizeof h, 0);
    npy_raw("v2-f4-12", 2, "{'descr': '<f4', 'fortran_order': False, 'shape': (12,), }", a,
            sizeof a, 0);
    npy_raw("v3-scalar", 3, "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", a, 4, 0);
    npy_raw("zero-size", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }",
            NULL, 0, 0);
    npy_raw("truncated", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }", a,
            sizeof a, 5);
    npy_raw("trailing", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 4), }", a,
            sizeof a, 0);
    npy_raw("fortran", 1, "{'descr': '<f4', 'fortran_order': True, 'shape': (3, 4), }", a,
            sizeof a, 0);
    npy_raw("big-endian", 1, "{'descr': '>f4', 'fortran_order': False, 'shape': (3, 4), }", a,
            sizeof a, 0);
    npy_raw("f8", 1, "{'descr': '<f8', 'fortran_order': False, 'shape': (6,), }", a, sizeof a,
            0);
    npy_raw("missing-shape", 1, "{'descr': '<f4', 'fortran_order': False, }", a, sizeof a, 0);
    npy_raw("huge-dims", 1,
            "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 99999999999), }",
            a, sizeof a, 0);
    float nan_data[3] = {1.0f, INFINITY, 2.0f};
    npy_raw("inf-element", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
            nan_data, sizeof nan_data, 0);
    uint8_t short_pre[9] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0x40};
    write_bytes("npy", "preamble-cut", short_pre, sizeof short_pre, NULL, 0);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_make_seeds CORPUS_ROOT (tests/fuzz/corpus)\n");
        return 2;
    }
    root = argv[1];
    if (mkdir(root, 0755) != 0 && errno != EEXIST)
        die(root, strerror(errno));
    decode_seeds();
    safetensors_seeds();
    npy_seeds();
    return 0;
}
