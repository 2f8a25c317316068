/*
 * sim/config/payload.h: the payload model: how many bytes of each layer's gradient cross
 * a link once compressed, and how such payloads aggregate in a collective.
 *
 * Fixed-width formats (fp16, TernGrad's 2-bit packing, fixed-width QSGD, sign bits) are
 * sized exactly by the compressor library. Data-dependent formats (Elias-coded QSGD, DGC
 * and other sparse selections) are sized by encoding a real gradient tensor of the same
 * kind from a shipped trace (its own kind's traces, else a documented fallback), resampled
 * to the layer's size (traces/); `method` names the traces used.
 */
#ifndef GCSIM_CONFIG_PAYLOAD_H
#define GCSIM_CONFIG_PAYLOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "gcsim_error.h"
#include "model.h"

typedef enum {
    PAYLOAD_DENSE_SUMMABLE,
    PAYLOAD_SHARED_SCALE,
    PAYLOAD_SPARSE,
    PAYLOAD_PER_WORKER_SCALE
} gcsim_payload_aggregation;

typedef struct {
    char spec[256];                 /* normalized compressor spec */
    gcsim_payload_aggregation aggregation;
    int n_layers;
    double *layer_bytes;            /* payload bytes per layer, forward order */
    double total_bytes;             /* sum of layer_bytes */
    double dense_bytes;             /* fp32 gradient bytes |g| */
    bool measured;                  /* some sizes came from encoding trace data */
    bool *layer_measured;           /* per layer: sized from trace data */
    char method[1024];              /* how the sizes were obtained and from which traces */
} gcsim_payload_plan;

int gcsim_payload_plan_build(const char *compressor_spec, const gcsim_model *model,
                             gcsim_payload_plan *out, gcsim_error *err);
void gcsim_payload_plan_free(gcsim_payload_plan *p);

#endif
