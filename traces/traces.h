/*
 * traces/traces.h: gradient traces on disk: reading safetensors and NumPy .npy files,
 * writing safetensors, and per-tensor statistics. Pure C; knows nothing of the simulator.
 *
 * Reading loads the file into memory, validates its header completely before anything else is
 * looked at, and converts tensor data (F32, F16 or BF16) to float32 on request. Every
 * error is a value: functions return 0 or -1 and write a message naming the file and the
 * byte offset or the tensor name into err (err_len bytes, always NUL-terminated).
 *
 * Formats (docs/traces.md has the full rules):
 *   safetensors: 8-byte little-endian header length N, N bytes of JSON header
 *     {"name": {"dtype": "F32"|"F16"|"BF16", "shape": [...], "data_offsets": [b, e]}, ...,
 *      "__metadata__": {"key": "value", ...}} and the data buffer; offsets are relative to
 *     the buffer, which the tensors must cover exactly (no gap, no overlap).
 *   .npy versions 1.0, 2.0 and 3.0 with descr '<f4' or '<f2', fortran_order False; the
 *     tensor is named after the file (base name without ".npy").
 */
#ifndef GCSIM_TRACES_TRACES_H
#define GCSIM_TRACES_TRACES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum { GC_TRACE_F32 = 0, GC_TRACE_F16 = 1, GC_TRACE_BF16 = 2 } gc_trace_dtype;

/* "F32", "F16", "BF16" (the safetensors spelling). */
const char *gc_trace_dtype_name(gc_trace_dtype d);
size_t gc_trace_dtype_bytes(gc_trace_dtype d);

/* IEEE half and bfloat16 conversions; float -> half/bfloat16 rounds to nearest even. */
float gc_trace_f16_to_f32(uint16_t h);
uint16_t gc_trace_f32_to_f16(float f);
float gc_trace_bf16_to_f32(uint16_t h);
uint16_t gc_trace_f32_to_bf16(float f);

#define GC_TRACE_MAX_DIMS 8
/* The largest trace file gc_trace_open reads (it holds the whole file in memory): 64 GiB. */
#define GC_TRACE_MAX_FILE_BYTES (1ULL << 36)

typedef struct {
    char *name;
    gc_trace_dtype dtype;
    int ndim;
    uint64_t shape[GC_TRACE_MAX_DIMS];
    size_t n_elements;
    uint64_t file_offset_bytes; /* absolute offset of the tensor's first byte in the file */
    uint64_t data_bytes;        /* n_elements * dtype size */
} gc_trace_tensor;

typedef struct {
    char *key;
    char *value;
} gc_trace_meta;

typedef enum { GC_TRACE_FORMAT_SAFETENSORS, GC_TRACE_FORMAT_NPY } gc_trace_format;

typedef struct {
    char *path;
    gc_trace_format format;
    const uint8_t *data;  /* the whole file, read into memory (NULL for an empty file) */
    size_t file_bytes;
    size_t n_tensors;
    gc_trace_tensor *tensors; /* in the order of their data in the file */
    size_t n_meta;
    gc_trace_meta *meta;      /* safetensors __metadata__, in header order */
    /* tensors' indices sorted by name (gc_trace_open builds it), so that gc_trace_find is
     * a binary search: a series of 200,000 tensors looked up one by one was quadratic
     * (issue 45). NULL (a file filled by hand, or no memory for it): a linear scan. */
    size_t *by_name;
} gc_trace_file;

/* Opens and validates a trace. The format is chosen by content: the .npy magic
 * "\x93NUMPY", otherwise safetensors. On failure *out is left empty (safe to close). */
int gc_trace_open(const char *path, gc_trace_file *out, char *err, size_t err_len);
void gc_trace_close(gc_trace_file *f);

/* Index of the tensor with that name, or -1 (O(log n) in a file from gc_trace_open). */
long gc_trace_find(const gc_trace_file *f, const char *name);
/* Metadata value for key, or NULL. */
const char *gc_trace_meta_get(const gc_trace_file *f, const char *key);
/* The "step" metadata as an integer; -1 with a message when absent or not an integer. */
int gc_trace_step(const gc_trace_file *f, long long *step, char *err, size_t err_len);

/* Converts tensor `index` to float32 into dst (n_elements floats). NaN or Inf is an error
 * naming the tensor, the element index and its byte offset: gradients in a trace must be
 * finite, and every statistic and compressor downstream would be meaningless otherwise. */
int gc_trace_read_f32(const gc_trace_file *f, size_t index, float *dst, char *err,
                      size_t err_len);
/* Same, into a malloc'ed buffer the caller frees. */
int gc_trace_load_f32(const gc_trace_file *f, size_t index, float **out, char *err,
                      size_t err_len);

/* One tensor to write: float32 values stored as dtype (converted, rounding to nearest). */
typedef struct {
    const char *name;
    const float *data;
    int ndim;
    const uint64_t *shape;
    gc_trace_dtype dtype;
} gc_trace_write_tensor;

/* Writes a safetensors file atomically: a temporary file in the same directory, fsync,
 * then rename, so a failure never leaves a partial file at path. Tensors are stored in
 * the given order; names must be unique, non-empty and not "__metadata__"; values must be
 * finite. The header is padded with spaces to a multiple of 8 bytes so the data buffer is
 * aligned. */
int gc_trace_write_safetensors(const char *path, const gc_trace_write_tensor *tensors,
                               size_t n_tensors, const gc_trace_meta *meta, size_t n_meta,
                               char *err, size_t err_len);

/*
 * Per-tensor statistics, computed in double precision (two passes: mean, then central
 * moments).
 *   mean, std        population mean and standard deviation (divide by n)
 *   max_abs          max |g|
 *   rms              sqrt(mean of g^2)
 *   kurtosis         Pearson kurtosis m4 / m2^2 (a normal distribution gives 3); NaN when
 *                    the tensor is constant (m2 = 0) or empty
 *   near_zero_fraction  fraction of entries with |g| <= GC_TRACE_NEAR_ZERO_REL * max_abs
 *                    (exact zeros included); 1 when max_abs is 0. Relative to the largest
 *                    magnitude because that is what a scaled quantizer (TernGrad, QSGD with
 *                    max norm) rounds to zero at its finest resolution.
 *   zero_fraction    fraction of entries exactly equal to 0 (dead ReLU units, unused rows)
 */
#define GC_TRACE_NEAR_ZERO_REL 1e-3

typedef struct {
    size_t n;
    double mean, std, max_abs, rms, kurtosis, near_zero_fraction, zero_fraction;
} gc_trace_stats;

void gc_trace_stats_compute(const float *x, size_t n, gc_trace_stats *out);

#endif
