/*
 * compressors/compressor.h: the gradient compressor library's public interface.
 *
 * A compressor turns a float32 gradient tensor into the exact byte stream a worker would
 * send, decodes such a stream back, and keeps per-tensor state across steps (error feedback,
 * momentum). It knows nothing of SimGrid or of the simulator.
 *
 * Compressors are named by spec strings, "name[:key=value,...]", e.g. "terngrad:clip=2.5",
 * "qsgd:s=4,bucket=512,norm=linf", "dgc:ratio=0.001". Unknown names or keys are errors.
 *
 * Errors are values: functions return 0 on success and -1 on failure, with a message
 * written to err (err_len bytes, always NUL-terminated).
 */
#ifndef GCSIM_COMPRESSORS_COMPRESSOR_H
#define GCSIM_COMPRESSORS_COMPRESSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rng.h"

/* How payloads from N workers combine on the way through a collective. The simulator
 * needs this to size each hop (DESIGN.md, "Compression meets the collective"). */
typedef enum {
    GC_AGG_DENSE_SUMMABLE,   /* fp32, fp16, bf16, PowerSGD factors: any all-reduce */
    GC_AGG_SHARED_SCALE,     /* TernGrad with scaler sharing: k partial sums need
                                log2(2k+1) bits per element */
    GC_AGG_SPARSE,           /* top-k, DGC, random-k, threshold: density can double per
                                reduce-scatter step; all-gather moves N payloads */
    GC_AGG_PER_WORKER_SCALE  /* QSGD, ORQ, BinGrad, SignSGD, 1-bit, ECQ: not summable as
                                encoded; all-gather or decode-sum-encode */
} gc_aggregation;

const char *gc_aggregation_name(gc_aggregation a);

/* A growable byte buffer that encoders write into. */
typedef struct {
    uint8_t *data;
    size_t len;
    size_t cap;
} gc_bytes;

void gc_bytes_free(gc_bytes *b);

typedef struct gc_compressor gc_compressor;

/* Parse a spec and create a compressor with empty state. */
int gc_compressor_create(const char *spec, gc_compressor **out, char *err, size_t err_len);
void gc_compressor_free(gc_compressor *c);

/* The spec with every default filled in, e.g. "qsgd:s=4,bucket=512,norm=l2,code=fixed". */
const char *gc_compressor_spec(const gc_compressor *c);
const char *gc_compressor_name(const gc_compressor *c);
gc_aggregation gc_compressor_aggregation(const gc_compressor *c);

/* Whether quantization is unbiased (E[Q(g)] = g): terngrad, qsgd, orq, randomk, ... */
bool gc_compressor_is_unbiased(const gc_compressor *c);

/* Exact payload length in bytes for an n-element tensor, headers included, when the
 * format is fixed-width (it does not depend on the values). Returns false for
 * data-dependent formats (Elias coding, sparse selections), whose size must be measured
 * by encoding real data. */
bool gc_compressor_fixed_payload_bytes(const gc_compressor *c, size_t n, size_t *bytes);

/* The same for a tensor marked as the last layer (gc_compressor_set_last_layer): what
 * encoding such a tensor produces, computed without encoding one. */
bool gc_compressor_fixed_payload_bytes_last_layer(const gc_compressor *c, size_t n,
                                                  size_t *bytes);

/* Encode one tensor of n float32 values into payload (its previous contents are replaced).
 * tensor_id keys the per-tensor state (residuals, momentum); ids are small non-negative
 * integers chosen by the caller. If quantized is not NULL it receives the n values the
 * receiver will reconstruct (decode of the payload), so callers need not decode.
 * NaN or Inf in grad is an error naming the element index. */
int gc_compressor_encode(gc_compressor *c, int tensor_id, const float *grad, size_t n,
                         gc_rng *rng, gc_bytes *payload, float *quantized,
                         char *err, size_t err_len);

/* Decode a payload of len bytes into n floats. Arbitrary bytes never crash: a payload
 * that is truncated or inconsistent with n is an error naming the byte offset. */
int gc_compressor_decode(const gc_compressor *c, const uint8_t *payload, size_t len,
                         float *out, size_t n, char *err, size_t err_len);

/* Advance the training step (DGC warm-up schedule, momentum). */
void gc_compressor_next_step(gc_compressor *c);

/* TernGrad scaler sharing across workers: each worker reports its local scaler for a
 * tensor, the caller takes the maximum and hands it back before encoding. Compressors
 * without a shareable scale return false / ignore the call. */
bool gc_compressor_local_scale(gc_compressor *c, int tensor_id, const float *grad, size_t n,
                               float *scale);
void gc_compressor_set_shared_scale(gc_compressor *c, int tensor_id, float scale);

/* Names of all registered compressors, NULL-terminated, for --help and tests. */
const char *const *gc_compressor_names(void);
/* One line saying what the named compressor does (compressors/summary.c), or NULL for a
 * name that is not registered. */
const char *gc_compressor_summary(const char *name);

/* ---- Additions by the compressors library (beyond the lead's original interface) ---- */

/* Notes on the calls above: gc_compressor_encode's quantized must not overlap grad, and its
 * rng may be NULL (seed 0; deterministic compressors draw nothing). A spec may be prefixed
 * with "ef+" to add error feedback to any compressor (docs/compressors.md). A shared scale
 * (gc_compressor_set_shared_scale) applies to the next encode of that tensor only, and only
 * to per-tensor TernGrad (bucket=0): set it again before every step. */

/* Bytes of the self-describing header every payload starts with: one format-id byte and
 * the element count n as an unsigned LEB128 varint. */
size_t gc_payload_header_bytes(size_t n);

/* Whether the compressor keeps state across steps (error feedback, momentum, PowerSGD Q). */
bool gc_compressor_is_stateful(const gc_compressor *c);

/* Whether encode reads the gradient once more before the codec runs, to reject NaN and
 * Inf (codecs whose own first pass does not check; every error-feedback wrapper). The
 * codec cost model counts that pass on the CPU. */
bool gc_compressor_checks_input(const gc_compressor *c);

/* Quantization levels per bucket for multi-level quantizers (terngrad 3, qsgd/ecq 2s+1,
 * orq/linear s, binary ones 2), 0 for others; and the bucket length used on n elements
 * (n when the compressor works per tensor). Metrics use them for level utilization. */
int gc_compressor_levels(const gc_compressor *c);
size_t gc_compressor_bucket_elems(const gc_compressor *c, size_t n);

/* Theoretical bound on E||Q(g)-g||^2 for a fresh state (QSGD Lemma 3.1 as quoted by the
 * ECQ-SGD paper, Eq. 11: sum over buckets of min(d/s^2, sqrt(d)/s) ||g_b||^2 for the l2
 * norm; d ||g_b||_inf^2 / (4 s^2) for l-inf). false for compressors without one. */
bool gc_compressor_variance_bound(const gc_compressor *c, const float *g, size_t n,
                                  double *bound);

/* PowerSGD: treat tensor_id as a rows x cols row-major matrix (rows * cols must equal n at
 * encode). 0 x 0 restores the default rule (the key cols, else cols = ceil(sqrt(n))). */
int gc_compressor_set_shape(gc_compressor *c, int tensor_id, size_t rows, size_t cols,
                            char *err, size_t err_len);

/* TernGrad: mark tensor_id as the last (classifier) layer; with key last=fp32 (default) it
 * is sent as fp32, as the TernGrad paper does. Other compressors ignore the flag. */
int gc_compressor_set_last_layer(gc_compressor *c, int tensor_id, bool last);

/* Mark tensor_id as 1-D (a bias, a normalization scale or shift). DGC with dense_1d=1
 * (default) sends such a tensor dense, as DGC's reference implementation does; other
 * compressors ignore the flag. Unflagged tensors are treated as weight matrices. */
int gc_compressor_set_vector(gc_compressor *c, int tensor_id, bool vector);

/* Exact payload bytes of an n-element tensor flagged 1-D, when the compressor sends such
 * tensors by a fixed rule of its own (DGC with dense_1d=1: header + uleb(n + 1) + 4n);
 * false when a 1-D tensor is encoded like any other (then size it as usual). */
bool gc_compressor_vector_payload_bytes(const gc_compressor *c, size_t n, size_t *bytes);

/* The compressor whose codec work and stack programs price this one: for "described" (a
 * compressor known only by its payload format, c_described.c) the built-in its key codec
 * names; for every other compressor its own name. */
const char *gc_compressor_cost_reference(const gc_compressor *c);
/* The exchanges a compressor's format supports, a bit each: a description may list fewer
 * (key exchanges); every built-in supports all three (what its aggregation allows). */
#define GC_EXCHANGE_BIT_ALLREDUCE 1u
#define GC_EXCHANGE_BIT_ALLGATHER 2u
#define GC_EXCHANGE_BIT_PS 4u
#define GC_EXCHANGES_ANY 7u
unsigned gc_compressor_exchanges(const gc_compressor *c);
/* The rank of a described low-rank payload (payload=lowrank), 0 for anything else. */
int gc_compressor_described_rank(const gc_compressor *c);

/* Steps taken (gc_compressor_next_step calls since creation or reset). */
long gc_compressor_step(const gc_compressor *c);

/* Target density (fraction of elements sent) of top-k, DGC (following its warm-up
 * schedule at the current step) and random-k; 1 for every other compressor. */
double gc_compressor_density(const gc_compressor *c);

/* Forget all per-tensor state (residuals, momentum, PowerSGD Q) and the step count; tensor
 * shapes, last-layer and 1-D flags are kept. */
void gc_compressor_reset(gc_compressor *c);

/* The same for one tensor (and the step count): what a measurement that only ever encodes
 * that tensor needs, in time independent of how many tensors c has seen. */
void gc_compressor_reset_tensor(gc_compressor *c, int tensor_id);

#endif
