/*
 * compressors/internal.h: what the compressor implementations share and the public layer
 * (compressor.c) dispatches through. Not part of the public interface.
 *
 * Every compressor is a gc_codec: a name, a table of spec keys with defaults, and encode /
 * decode functions for the payload *body*. The public layer writes and checks the header
 * (format id + element count), checks the input for NaN/Inf, keeps per-tensor state and
 * implements the generic error-feedback wrapper ("ef+NAME").
 */
#ifndef GCSIM_COMPRESSORS_INTERNAL_H
#define GCSIM_COMPRESSORS_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "compressor.h"

#define GC_MAX_KEYS 16

/* Hot loops are compiled three times on x86-64 with GCC 12 or later (x86-64-v4, i.e.
 * AVX-512 with VL/BW/DQ; AVX2; baseline), twice with older GCC (AVX2 and baseline), the
 * variant picked at load time. All do the same IEEE operations in the same order, so
 * payloads do not depend on the machine: no FMA contraction (ISO C mode, and
 * -ffp-contract=off in compressors/CMakeLists.txt, since x86-64-v4 has FMA). The AVX-512
 * variant matters for the generator of ublock.h: one-instruction rotates (vprold) and
 * three-input logic (vpternlogd) cut the serial chain of the 8 xoshiro128+ lanes, 16 M
 * uniforms in 3.3 ms instead of 5.5 ms on this machine's AMD EPYC (issue 28). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#if __GNUC__ >= 12
#define GC_HOT __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define GC_HOT __attribute__((target_clones("avx2", "default")))
#endif
#else
#define GC_HOT
#endif

/* Written on the 8-lane inner loop of a reduction (for l < 8: acc[l] += ...) to keep it a
 * loop. At -O3 GCC 12's early complete unrolling (cunrolli) turned it into 8 scalar
 * statements before the vectorizer ran; the vectorizer then gave up (gc_stats, gc_maxabs
 * ran scalar) or vectorized the outer loop with permutes and blends per block (l1_norm,
 * gc_sumsq): 2-3x slower than -O2, and signsgd, qsgd and terngrad fell below their targets
 * in the Release build (issue 28). Kept a loop, it is one 8-wide vector operation at -O2
 * and -O3 alike; the lanes and their order of additions do not change. */
#if defined(__GNUC__)
#define GC_LANE_LOOP _Pragma("GCC unroll 1")
#else
#define GC_LANE_LOOP
#endif

/* Payloads are little-endian; on little-endian hosts bulk copies replace byte-wise stores. */
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define GC_LITTLE_ENDIAN 1
#else
#define GC_LITTLE_ENDIAN 0
#endif

/* ---- spec keys ---------------------------------------------------------------------- */

typedef enum { GK_INT, GK_REAL, GK_ENUM } gc_key_type;

typedef struct {
    const char *name;
    gc_key_type type;
    const char *def;             /* default, as it would be written in a spec */
    double min, max;             /* inclusive bounds for GK_INT and GK_REAL */
    const char *const *choices;  /* NULL-terminated, GK_ENUM only; the value is the index */
} gc_key;

/* ---- per-tensor state ----------------------------------------------------------------- */

typedef struct {
    bool used;
    size_t n;             /* element count the state was created for */
    float *a, *b;         /* codec state (momentum, accumulation, residual, PowerSGD Q) */
    size_t a_len, b_len;  /* lengths of a and b in floats */
    float *c;             /* codec scratch kept across steps (large buffers would otherwise
                             be page-faulted in at every encode) */
    size_t c_len;
    float *ef;            /* error-feedback residual of the ef+ wrapper (n floats) */
    bool has_shared_scale;
    float shared_scale;   /* TernGrad scaler sharing */
    size_t rows, cols;    /* PowerSGD matrix shape, 0 = default rule */
    bool last_layer;      /* TernGrad: send this tensor as fp32 when last=fp32 */
    bool vector;          /* a 1-D tensor (bias, normalization): DGC sends it dense */
    long step;            /* the compressor's training step at this encode (DGC warm-up) */
} gc_tstate;

/* ---- codec ------------------------------------------------------------------------------ */

typedef struct gc_codec gc_codec;

/* Reader over a payload with bounds checks; pos is the absolute byte offset. */
typedef struct {
    const uint8_t *p;
    size_t len;
    size_t pos;
} gc_reader;

struct gc_codec {
    const char *name;
    uint8_t format_id;  /* first byte of every payload, unique per codec */
    const gc_key *keys;
    int nkeys;
    gc_aggregation agg;
    /* the aggregation when a key sets it (optional: agg otherwise) */
    gc_aggregation (*agg_of)(const double *p);
    /* true when E[Q(g)] = g for the given parameters */
    bool (*unbiased)(const double *p);
    /* cross-key checks after parsing (optional) */
    int (*check)(const double *p, char *err, size_t err_len);
    /* Append the body for g (finite, n elements) to out (already holding the header).
     * q, when not NULL, receives the reconstruction (bit for bit what decode gives). */
    int (*encode)(const double *p, gc_tstate *st, const float *g, size_t n, gc_rng *rng,
                  gc_bytes *out, float *q, char *err, size_t err_len);
    /* Decode the body starting at r->pos; must consume every byte up to r->len. */
    int (*decode)(const double *p, gc_reader *r, float *out, size_t n, char *err,
                  size_t err_len);
    /* Body bytes for n elements when fixed-width (optional). */
    bool (*fixed_body)(const double *p, size_t n, size_t *bytes);
    /* The same for a tensor flagged as the last layer, where that differs (optional:
     * fixed_body otherwise). */
    bool (*fixed_body_last)(const double *p, size_t n, size_t *bytes);
    /* Body bytes of a tensor flagged 1-D when the codec sends those by a fixed rule of its
     * own (optional: DGC's dense 1-D tensors). */
    bool (*fixed_body_vector)(const double *p, size_t n, size_t *bytes);
    /* Quantization levels per bucket (0: not a multi-level quantizer) and bucket size. */
    int (*levels)(const double *p);
    size_t (*bucket)(const double *p, size_t n);
    /* E||Q(g)-g||^2 bound for a fresh state (optional). */
    bool (*variance_bound)(const double *p, const float *g, size_t n, double *bound);
    /* TernGrad's local scaler (optional). */
    bool (*local_scale)(const double *p, const float *g, size_t n, float *scale);
    /* true when encode itself rejects NaN/Inf (fused into its first pass, for speed) with
     * gc_nonfinite_error; otherwise the public layer scans the input first */
    bool checks_finite;
    /* the canonical spec leaves out keys at their default (gc_spec_format) */
    bool omit_defaults;
};

struct gc_compressor {
    const gc_codec *codec;
    double p[GC_MAX_KEYS];
    bool ef;            /* generic error-feedback wrapper around codec */
    char spec[512];
    long step;          /* training step, advanced by gc_compressor_next_step */
    gc_tstate *states;  /* indexed by tensor_id */
    size_t nstates;
    float *scratch;     /* ef wrapper input/reconstruction */
    size_t scratch_len;
};

/* ---- registry ------------------------------------------------------------------------- */

extern const gc_codec gc_codec_none, gc_codec_fp16, gc_codec_bf16, gc_codec_terngrad,
    gc_codec_qsgd, gc_codec_ecq, gc_codec_dgc, gc_codec_topk, gc_codec_randomk,
    gc_codec_threshold, gc_codec_orq, gc_codec_linear, gc_codec_bingrad_b,
    gc_codec_bingrad_pb, gc_codec_signsgd, gc_codec_onebit, gc_codec_powersgd,
    gc_codec_described;
/* The described compressor's cost reference (key codec) and low-rank rank (0 unless
 * payload=lowrank), c_described.c. */
const char *gc_described_cost_reference(const double *p);
int gc_described_rank(const double *p);
unsigned gc_described_exchanges(const double *p);

const gc_codec *gc_codec_find(const char *name);
/* Target density of a sparsifier at a step (c_sparse.c), -1 for others. */
double gc_sparse_density(const gc_codec *codec, const double *p, long step);

/* ---- spec parsing (spec.c) -------------------------------------------------------------- */

/* Parse "key=value,..." (may be empty) against codec's key table into p[]. */
int gc_spec_parse_keys(const gc_codec *codec, const char *keys, double *p, char *err,
                       size_t err_len);
/* Canonical spec with every key, written into buf. */
void gc_spec_format(const gc_codec *codec, const double *p, bool ef, char *buf, size_t len);

/* ---- helpers (util.c) -------------------------------------------------------------------- */

/* The error for a gradient known to hold NaN or Inf: names the first such element. */
int gc_nonfinite_error(const float *g, size_t n, char *err, size_t err_len);
/* Sum of squares / max |x| alone (as gc_stats), *bad set when x holds NaN or Inf. */
double gc_sumsq(const float *restrict x, size_t m, uint32_t *bad);
float gc_maxabs(const float *restrict x, size_t m, uint32_t *bad);
/* 1 when f is NaN or Inf (exponent all ones), branch-free. */
static inline uint32_t gc_nonfinite_bit(uint32_t bits) { return (bits & 0x7f800000u) == 0x7f800000u; }

void gc_errf(char *err, size_t err_len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

int gc_bytes_reserve(gc_bytes *b, size_t extra);
/* Grow b to len + extra and return a pointer to the new area (NULL on failure). */
uint8_t *gc_bytes_extend(gc_bytes *b, size_t extra);
int gc_put_u8(gc_bytes *b, uint8_t v);
int gc_put_f32(gc_bytes *b, float v);
int gc_put_uleb(gc_bytes *b, uint64_t v);
size_t gc_uleb_len(uint64_t v);

static inline void gc_store_f32(uint8_t *d, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    d[0] = (uint8_t)u;
    d[1] = (uint8_t)(u >> 8);
    d[2] = (uint8_t)(u >> 16);
    d[3] = (uint8_t)(u >> 24);
}
static inline float gc_load_f32(const uint8_t *s)
{
    uint32_t u = (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 |
                 (uint32_t)s[3] << 24;
    float v;
    memcpy(&v, &u, 4);
    return v;
}
static inline void gc_store_u32(uint8_t *d, uint32_t u)
{
    d[0] = (uint8_t)u;
    d[1] = (uint8_t)(u >> 8);
    d[2] = (uint8_t)(u >> 16);
    d[3] = (uint8_t)(u >> 24);
}
static inline uint32_t gc_load_u32(const uint8_t *s)
{
    return (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 | (uint32_t)s[3] << 24;
}
static inline uint32_t gc_f2u(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static inline float gc_u2f(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Reader: each returns 0 or -1 with an error naming the byte offset. */
int gc_get_u8(gc_reader *r, uint8_t *v, const char *what, char *err, size_t err_len);
int gc_get_f32(gc_reader *r, float *v, const char *what, char *err, size_t err_len);
int gc_get_uleb(gc_reader *r, uint64_t *v, const char *what, char *err, size_t err_len);
/* Pointer to the next n bytes, advancing; NULL (with error) if fewer remain. */
const uint8_t *gc_get_bytes(gc_reader *r, size_t n, const char *what, char *err,
                            size_t err_len);
/* n little-endian fp32 values into out, advancing; -1 (with error) when n is too large to
 * address or fewer bytes remain. The dense payloads (none, and the fp32 mode of terngrad
 * and powersgd) share it so that they read and fail alike. */
int gc_get_f32_array(gc_reader *r, float *out, size_t n, const char *what, char *err,
                     size_t err_len);
/* Writes n fp32 values little-endian at d (4 n bytes); the writer's side of the above. */
void gc_store_f32_array(uint8_t *d, const float *g, size_t n);
/* A stored scale or level must be finite; names the offset of the offending float. */
int gc_check_finite_at(float v, size_t offset, const char *what, char *err, size_t err_len);

/* Number of buckets of size bucket (0 = one bucket of n) covering n elements. */
static inline size_t gc_nbuckets(size_t n, size_t bucket)
{
    if (n == 0)
        return 0;
    if (bucket == 0 || bucket >= n)
        return 1;
    return (n + bucket - 1) / bucket;
}

/* Bytes of n codes of width bits, packed LSB first. */
size_t gc_packed_bytes(size_t n, int width);
/* Write cnt codes of w bits for elements first.. (LSB first); calls must come in element
 * order (a first byte shared with earlier elements keeps their bits), no clearing needed. */
void gc_pack_codes(uint8_t *area, size_t first, const uint32_t *restrict c, size_t cnt, int w);
/* Sum, sum of squares and max |x| of x[0..m) (block-wise float partial sums, then double);
 * returns nonzero when x holds NaN or Inf. */
uint32_t gc_stats(const float *restrict x, size_t m, double *sum, double *sumsq, float *maxabs);

/* out[i] = bit i of the LSB-first stream ? hi : lo, for i in [i0, i1) (branch-free). */
void gc_expand_bits(const uint8_t *restrict bits, size_t i0, size_t i1, float lo, float hi,
                    float *restrict out);

/* Radix sort of floats ascending (total order on finite values); tmp has 2n words. */
void gc_sort_floats(float *x, size_t n, uint32_t *tmp);
/* The k-th largest |x[i]| (1 <= k <= n) as the bit pattern of |x|, exact, O(n); *above
 * receives how many elements are strictly larger (< k), or SIZE_MAX when out of memory. */
uint32_t gc_kth_largest_abs_bits(const float *x, size_t n, size_t k, size_t *above);

#endif
