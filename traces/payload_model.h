/*
 * traces/payload_model.h: the payload model: how many bytes a compressor really produces
 * for a layer that has no gradient trace of its own (AlexNet or ResNet-50 at full size).
 *
 * Fixed-width formats are sized exactly by the compressor library. Data-dependent formats
 * (Elias-coded QSGD and ECQ, sparse selections) are sized by running the real encoder on
 * n_elements values resampled from real gradients of the same layer kind in the shipped
 * traces (traces/data/, every capture except step 0): each source tensor is divided by its
 * RMS, and values are drawn with replacement from this pool, each with a random sign
 * (GC_PAYLOAD_BLOCK = 1). One resampled warm-up step is encoded first, so that
 * error-feedback residuals and momentum are not empty, and the second step's payload is
 * returned. docs/traces.md argues for the method and reports its measured error on
 * held-back layers, against a block bootstrap that keeps runs of neighbouring values.
 *
 * The trace directory is $GCSIM_TRACE_DIR if set, else the source tree's traces/data
 * (compiled in).
 */
#ifndef GCSIM_TRACES_PAYLOAD_MODEL_H
#define GCSIM_TRACES_PAYLOAD_MODEL_H

#include <stddef.h>
#include <stdint.h>

/* Consecutive source values copied per draw. 1 (independent draws) measured as accurate
 * as blocks of 256, which keep the local structure a bucketed quantizer sees, on held-back
 * layers (mean |error| 5.2% against 5.6%; docs/traces.md), so the simpler method is used. */
#define GC_PAYLOAD_BLOCK 1
/* Layers above this many elements are sized by encoding a resampled chunk of this size
 * and scaling the bytes by n / chunk (docs/traces.md measures the error). */
#define GC_PAYLOAD_CHUNK_MAX ((size_t)1 << 22)

/*
 * Payload bytes the compressor `compressor_spec` produces for one layer of n_elements
 * gradient values of kind layer_kind: exact for fixed-width formats; otherwise the exact
 * payload of the resampled tensor (scaled by n / chunk above GC_PAYLOAD_CHUNK_MAX).
 * Kinds are the model's (conv, fc, bn, norm, lstm, attention, embedding, other); each is
 * sized from the traces of its own kind when the directory has any, else from the
 * fallback gc_trace_payload_kinds lists (attention, embedding, lstm, other: fc; norm:
 * layer-norm, group-norm, then bn). "threshold"
 * (an absolute threshold) is refused: its payload depends on the gradient scale, which
 * the normalised traces do not carry. The same arguments give the same bytes. Results and the
 * loaded traces are cached for the life of the process (a mutex makes this thread-safe);
 * the cache only saves time, it never changes a result.
 */
int gc_trace_payload_estimate(const char *compressor_spec, const char *layer_kind,
                              size_t n_elements, uint64_t seed, size_t *payload_bytes,
                              char *err, size_t err_len);

/* The trace kinds (layer_kinds metadata values written by traces/capture/gcsim_capture.py)
 * a model layer kind is sized from, best first: the first with tensors in the trace
 * directory is used. Writes up to GC_TRACE_PAYLOAD_MAX_KINDS names, returns how many
 * (0: unknown layer kind). */
#define GC_TRACE_PAYLOAD_MAX_KINDS 3
int gc_trace_payload_kinds(const char *layer_kind, const char **trace_kinds);

/* Which traces size layers of layer_kind, for reports: e.g. "attention from fc traces, no
 * attention traces (12 tensors: fmnist_lenet, fmnist_lenet300)". 0, or -1 with err. */
int gc_trace_payload_source(const char *layer_kind, char *out, size_t out_len, char *err,
                            size_t err_len);

/* $GCSIM_TRACE_DIR, else the folder set by gc_trace_payload_set_default_dir, else the
 * compiled-in source tree's traces/data. */
const char *gc_trace_payload_dir(void);
/* The folder used when $GCSIM_TRACE_DIR is not set (an installed program's copy of the
 * traces). Call before the first estimate: cached results are keyed by folder, so a later
 * change is still correct, only slower. NULL or "" restores the compiled-in folder. */
void gc_trace_payload_set_default_dir(const char *dir);

/* The explicit, cache-free layer under gc_trace_payload_estimate, also used to measure
 * the model's error on held-back layers. A pool holds every tensor of one kind found in
 * DIR/<series>/ *.safetensors (kinds from the layer_kinds metadata written by the capture
 * tool), except captures at step 0 and the tensor named by exclude, each divided by its
 * RMS. Returns 0, -1 on an error, or 1 (with a message, *out NULL) when the directory has
 * no tensor of that kind. exclude is NULL, "<series>:<tensor>" (that layer at every step) or
 * "<series>:<tensor>@<step>" (that layer at one step only). */
typedef struct gc_payload_pool gc_payload_pool;

int gc_payload_pool_load(const char *trace_dir, const char *kind, const char *exclude,
                         gc_payload_pool **out, char *err, size_t err_len);
void gc_payload_pool_free(gc_payload_pool *p);
size_t gc_payload_pool_elements(const gc_payload_pool *p);
size_t gc_payload_pool_tensors(const gc_payload_pool *p);
/* The series (sub-directories of the trace directory) that gave the pool tensors, e.g.
 * "fmnist_lenet, fmnist_resnet20". */
const char *gc_payload_pool_series(const gc_payload_pool *p);

/* n resampled values: blocks of `block` values (1 = i.i.d. sampling with replacement). */
void gc_payload_pool_resample(const gc_payload_pool *p, size_t n, size_t block, uint64_t seed,
                              float *out);

/* The estimate from a pool: fixed-width formats exactly, others by encoding (with the
 * warm-up step) min(n, chunk_max) resampled values and scaling by n / chunk. */
int gc_payload_pool_estimate(const gc_payload_pool *p, const char *spec, size_t n,
                             size_t block, size_t chunk_max, uint64_t seed,
                             size_t *payload_bytes, char *err, size_t err_len);
/* The encoded length of m resampled values (the warm-up step, then the measured one) that
 * gc_payload_pool_estimate scales: the same for every n of at least chunk_max, so a caller
 * may keep it per (pool, spec, m, block, seed). given: NULL, or the two steps' resamples
 * (gc_payload_pool_resample with seed * 2 and seed * 2 + 1), at least m values each: with
 * block 1, the first m values of a longer resample are the resample of m (the draws come
 * in the same order), so a caller may resample once for all its sizes. -1 with err on an
 * error. */
int gc_payload_pool_encoded_len(const gc_payload_pool *p, const char *spec, size_t m,
                                size_t block, uint64_t seed, const float *const given[2],
                                size_t *len, char *err, size_t err_len);
/* len scaled from m values to n, as gc_payload_pool_estimate does (len itself when m == n). */
size_t gc_payload_pool_scaled(size_t len, size_t n, size_t m);

#endif
