/* The payload model: bytes on the wire per layer for a compressor (payload.h). */
#include "payload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compressor.h"
#include "payload_model.h"

/* Seed of the surrogate gradients used to size data-dependent payloads: fixed, so the
 * same inputs always give the same prediction. */
#define PAYLOAD_SEED 20171205u

static gcsim_payload_aggregation aggregation_of(gc_aggregation a)
{
    switch (a) {
    case GC_AGG_DENSE_SUMMABLE:
        return PAYLOAD_DENSE_SUMMABLE;
    case GC_AGG_SHARED_SCALE:
        return PAYLOAD_SHARED_SCALE;
    case GC_AGG_SPARSE:
        return PAYLOAD_SPARSE;
    case GC_AGG_PER_WORKER_SCALE:
        break;
    }
    return PAYLOAD_PER_WORKER_SCALE;
}

/* Bytes for one tensor: exact when the format is fixed-width, else measured by encoding
 * a real trace tensor of the same kind resampled to n elements. The model's last layer is
 * sized as the compressor sends it (TernGrad keeps it in fp32, as its paper does), without
 * encoding a tensor of that size: a last layer of 10^12 parameters costs no memory. */
static int tensor_bytes(gc_compressor *c, const char *spec, const gcsim_model *m, int layer,
                        const char *tensor, long long n, bool last_layer, bool vector,
                        bool *measured, double *bytes, gcsim_error *err)
{
    size_t fixed = 0;
    char msg[512];
    if (n == 0) {
        *bytes = 0.0;
        return 0;
    }
    /* 1-D tensors (biases, normalization parameters): DGC sends them dense. */
    if (vector && gc_compressor_vector_payload_bytes(c, (size_t)n, &fixed)) {
        *bytes = (double)fixed;
        return 0;
    }
    if (last_layer ? gc_compressor_fixed_payload_bytes_last_layer(c, (size_t)n, &fixed)
                   : gc_compressor_fixed_payload_bytes(c, (size_t)n, &fixed)) {
        *bytes = (double)fixed;
        return 0;
    }
    size_t estimate = 0;
    const gcsim_layer *l = &m->layers[layer];
    if (gc_trace_payload_estimate(spec, l->kind, (size_t)n, PAYLOAD_SEED, &estimate, msg,
                                  sizeof msg))
        return gcsim_fail(err, "%s: $.layers[%d] ('%s') %s, %lld elements: payload of %s: %s",
                          m->source_path, layer, l->name, tensor, n, spec, msg);
    *measured = true;
    *bytes = (double)estimate;
    return 0;
}

/* Appends to the plan's method which traces sized each layer kind that was measured
 * (a kind's own traces or its fallback, traces/payload_model.h). */
static int describe_sources(const gcsim_model *m, gcsim_payload_plan *pl, gcsim_error *err)
{
    size_t len = strlen(pl->method);
    snprintf(pl->method + len, sizeof pl->method - len, "; traces in %s:",
             gc_trace_payload_dir());
    for (int i = 0; i < m->n_layers; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = pl->layer_measured[j] && strcmp(m->layers[j].kind, m->layers[i].kind) == 0;
        if (seen || !pl->layer_measured[i])
            continue;
        char src[512], msg[512];
        if (gc_trace_payload_source(m->layers[i].kind, src, sizeof src, msg, sizeof msg))
            return gcsim_fail(err, "%s: payload traces: %s", m->source_path, msg);
        len = strlen(pl->method);
        snprintf(pl->method + len, sizeof pl->method - len, " %s;", src);
    }
    len = strlen(pl->method);
    if (len && pl->method[len - 1] == ';')
        pl->method[len - 1] = '\0';
    return 0;
}

int gcsim_payload_plan_build(const char *spec, const gcsim_model *model,
                             gcsim_payload_plan *out, gcsim_error *err)
{
    memset(out, 0, sizeof *out);
    char msg[512];
    gc_compressor *c = NULL;
    if (gc_compressor_create(spec ? spec : "none", &c, msg, sizeof msg))
        return gcsim_fail(err, "--compressor: %s", msg);
    snprintf(out->spec, sizeof out->spec, "%s", gc_compressor_spec(c));
    out->aggregation = aggregation_of(gc_compressor_aggregation(c));
    out->layer_bytes = calloc((size_t)model->n_layers, sizeof *out->layer_bytes);
    out->layer_measured = calloc((size_t)model->n_layers, sizeof *out->layer_measured);
    if (!out->layer_bytes || !out->layer_measured) {
        free(out->layer_measured);
        free(out->layer_bytes);
        out->layer_bytes = NULL;
        out->layer_measured = NULL;
        gc_compressor_free(c);
        return gcsim_fail(err, "%s: out of memory for %d layers", model->source_path,
                          model->n_layers);
    }
    out->n_layers = model->n_layers;
    out->dense_bytes = gcsim_model_gradient_bytes(model);
    for (int i = 0; i < model->n_layers; i++) {
        const gcsim_layer *l = &model->layers[i];
        /* Frameworks keep weights, bias and normalization parameters as separate tensors,
         * each compressed (and headed) on its own; bias and normalization parameters are
         * 1-D, which DGC sends dense. */
        long long tensors[3] = {l->weights, l->bias, l->other_params};
        static const char *const tensor_names[3] = {"weights", "bias", "other_params"};
        double layer = 0.0;
        bool last = i == model->n_layers - 1;
        for (int t = 0; t < 3; t++) {
            double b = 0.0;
            if (tensor_bytes(c, out->spec, model, i, tensor_names[t], tensors[t], last, t > 0,
                             &out->layer_measured[i], &b, err)) {
                gc_compressor_free(c);
                gcsim_payload_plan_free(out);
                return -1;
            }
            layer += b;
        }
        out->layer_bytes[i] = layer;
        out->total_bytes += layer;
        out->measured = out->measured || out->layer_measured[i];
    }
    /* Uncompressed gradients travel at the training precision: bf16/fp16 halves them.
     * Compressors take the fp32 gradient (dense_bytes) and size their own output. */
    if (strcmp(out->spec, "none") == 0 && gcsim_precision_grad_elem_bytes(model->precision) == 2) {
        out->total_bytes = 0.0;
        for (int i = 0; i < out->n_layers; i++) {
            const gcsim_layer *l = &model->layers[i];
            long long tensors[3] = {l->weights, l->bias, l->other_params};
            double layer = 0.0;
            for (int t = 0; t < 3; t++)
                if (tensors[t] > 0)
                    layer += (double)gc_payload_header_bytes((size_t)tensors[t]) +
                             2.0 * (double)tensors[t];
            out->layer_bytes[i] = layer;
            out->total_bytes += layer;
        }
    }
    snprintf(out->method, sizeof out->method, "%s",
             out->measured ? "encoded real trace tensors resampled to each layer's size"
                           : "exact fixed-width payload sizes");
    if (out->measured && describe_sources(model, out, err)) {
        gc_compressor_free(c);
        gcsim_payload_plan_free(out);
        return -1;
    }
    gc_compressor_free(c);
    return 0;
}

void gcsim_payload_plan_free(gcsim_payload_plan *p)
{
    free(p->layer_bytes);
    free(p->layer_measured);
    p->layer_bytes = NULL;
    p->layer_measured = NULL;
    p->n_layers = 0;
}
