/*
 * compressors/metrics.h: accuracy proxies of a compressor on real gradients (issue 3),
 * per tensor and in total.
 *
 * Per tensor (gc_metrics_tensor, from g, its reconstruction q and the payload length):
 *   payload bytes (exact, header included), bits per element, compression ratio against
 *   fp32 (4n / bytes) and fp16 (2n / bytes), normalized error ||q-g||^2 / ||g||^2, cosine
 *   similarity, density (non-zeros of q / n), level utilization (multi-level quantizers:
 *   mean over buckets of distinct values used / levels available).
 * Totals: gc_metrics_add sums the raw quantities of tensors and recomputes the ratios, so a
 *   total is the metric of the concatenated gradient, not an average of ratios.
 * Bias and variance (gc_metrics_bias, R independent seeds on a fresh state each):
 *   bias ||mean_r Q_r(g) - g|| / ||g||, mse mean_r ||Q_r(g) - g||^2, variance around the mean,
 *   and for QSGD and ECQ the ratio mse / (theoretical bound of E||Q(g)-g||^2).
 *
 * Conventions for degenerate tensors: with ||g|| = 0, the normalized error and bias are 0 when
 * q = 0 and +Inf otherwise; the cosine is 1 when both are 0 and 0 when only one is; n = 0 gives
 * bits per element 0 and density 0. Quantities that do not apply are NaN.
 */
#ifndef GCSIM_COMPRESSORS_METRICS_H
#define GCSIM_COMPRESSORS_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "compressor.h"

typedef struct {
    /* derived */
    size_t n;
    size_t payload_bytes;
    double bits_per_element;
    double ratio_fp32;
    double ratio_fp16;
    double norm_error;        /* ||q - g||^2 / ||g||^2 */
    double cosine;            /* <q, g> / (||q|| ||g||) */
    double density;           /* non-zeros of q / n */
    double level_utilization; /* NaN when the compressor is not multi-level */
    /* raw sums, for totals */
    double sq_err, sq_g, sq_q, dot;
    size_t nnz;
    double levels_used;       /* sum over buckets of distinct values / levels */
    size_t buckets;           /* buckets counted in levels_used */
} gc_tensor_metrics;

/* Metrics of one tensor: g the gradient, q the reconstruction (gc_compressor_encode's
 * quantized output or a decode), payload_bytes the payload length. c may be NULL (no level
 * utilization). Returns 0, or -1 when out of memory. */
int gc_metrics_tensor(const gc_compressor *c, const float *g, const float *q, size_t n,
                      size_t payload_bytes, gc_tensor_metrics *m);

/* An empty total, and adding one tensor to it. */
void gc_metrics_init(gc_tensor_metrics *total);
void gc_metrics_add(gc_tensor_metrics *total, const gc_tensor_metrics *m);

typedef struct {
    int repeats;
    double bias;        /* ||mean_r Q_r(g) - g|| / ||g|| */
    double mse;         /* mean_r ||Q_r(g) - g||^2 */
    double variance;    /* sum_r ||Q_r(g) - mean||^2 / (R - 1) */
    double bound;       /* bound on E||Q(g) - g||^2 (NaN if the compressor has none) */
    double bound_ratio; /* mse / bound (NaN if no bound or bound = 0) */
    /* raw sums, for totals */
    double sq_bias, sq_g;
} gc_bias_metrics;

/* Encode g `repeats` times (>= 2) with seeds seed, seed+1, ... on tensor_id of c, resetting
 * tensor_id's state and the step count (gc_compressor_reset_tensor) before each repeat and
 * after the last: use a compressor kept for measuring, not one whose training state
 * matters. */
int gc_metrics_bias(gc_compressor *c, int tensor_id, const float *g, size_t n, int repeats,
                    uint64_t seed, gc_bias_metrics *out, char *err, size_t err_len);

void gc_bias_init(gc_bias_metrics *total);
void gc_bias_add(gc_bias_metrics *total, const gc_bias_metrics *m);

#endif
