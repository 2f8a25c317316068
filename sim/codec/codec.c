/*
 * sim/codec/codec.c: choosing where a compressor's codec cost comes from (codec.h) and
 * evaluating it per tensor.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codec_internal.h"
#include "compressor.h"
#include "compressor_file.h"

/* The normalized spec whose costs price spec: a described compressor is priced as the
 * built-in it names (its model, its entry of a measured profile). */
static int normalize(const char *spec, char *out, size_t len, gcsim_error *err)
{
    return gcsim_codec_cost_spec(spec, out, len, err);
}

int gcsim_codec_init_model(gcsim_codec *c, const gcsim_gpu_params *gpu, const char *spec,
                           gcsim_error *err)
{
    memset(c, 0, sizeof *c);
    if (normalize(spec, c->spec, sizeof c->spec, err) ||
        gcsim_codec_work_of(c->spec, &c->work, err))
        return -1;
    c->gpu = *gpu;
    if (strcmp(c->spec, "none") == 0) {
        c->source = CODEC_COST_NONE;
        snprintf(c->description, sizeof c->description, "none: no encode or decode");
        return 0;
    }
    c->source = CODEC_COST_MODEL;
    snprintf(c->description, sizeof c->description,
             "model (sim/codec, docs/codec.md) on %s: %.0f GB/s, %.2f TFLOP/s fp32, launch "
             "%.2f us",
             gpu->type, gpu->mem_Bps / 1e9, gpu->fp32_flops / 1e12, gpu->launch_s * 1e6);
    return 0;
}

int gcsim_codec_init(gcsim_codec *c, const gcsim_platform *p, const char *spec,
                     gcsim_error *err)
{
    memset(c, 0, sizeof *c);
    char norm[256];
    if (normalize(spec, norm, sizeof norm, err))
        return -1;
    if (strcmp(norm, "none") == 0) {
        snprintf(c->spec, sizeof c->spec, "%s", norm);
        c->source = CODEC_COST_NONE;
        snprintf(c->description, sizeof c->description, "none: no encode or decode");
        return 0;
    }
    if (p->gpu.codec_Bps > 0) {
        snprintf(c->spec, sizeof c->spec, "%s", norm);
        c->source = CODEC_COST_THROUGHPUT;
        c->throughput_Bps = p->gpu.codec_Bps;
        snprintf(c->description, sizeof c->description,
                 "%s: $.gpu.codec_throughput %.4g GB/s (deprecated: one rate for every "
                 "compressor; overrides the model and any profile)",
                 p->source_path, p->gpu.codec_Bps / 1e9);
        return 0;
    }
    const char *measured_gpu = NULL;
    const gcsim_codec_profile_entry *own = gcsim_compressor_file_codec(spec, &measured_gpu);
    if (own) {
        /* a description's own measured costs (compressor_file.h), on the GPU they were
         * measured on only: no scaling law between GPUs is assumed for them */
        const char *file = gcsim_compressor_file_of(spec);
        if (strcmp(measured_gpu, p->gpu.type) != 0)
            return gcsim_fail(err, "%s: $.codec.measured.gpu: measured on %s, but %s's GPU is %s",
                              file, measured_gpu, p->source_path, p->gpu.type);
        c->n_points = own->n_points;
        memcpy(c->elements, own->elements, sizeof c->elements);
        memcpy(c->encode_s, own->encode_s, sizeof c->encode_s);
        memcpy(c->decode_s, own->decode_s, sizeof c->decode_s);
        c->source = CODEC_COST_PROFILE;
        snprintf(c->spec, sizeof c->spec, "%s", norm);
        snprintf(c->description, sizeof c->description,
                 "measured by the description %s, $.codec.measured (%.300s) on %s; linear in "
                 "size between points", file, own->measured_as, measured_gpu);
        return 0;
    }
    if (p->gpu.codec_profile[0]) {
        int rc = gcsim_codec_profile_load(c, p->gpu.codec_profile, norm, p->gpu.type, err);
        if (rc <= 0)
            return rc;
    }
    const gcsim_gpu_params *g;
    if (gcsim_gpu_params_find(p->gpu.type, &g, err)) {
        char why[sizeof err->message];
        snprintf(why, sizeof why, "%s", err->message);
        return gcsim_fail(err, "%s: %s", p->source_path, why);
    }
    if (gcsim_codec_init_model(c, g, norm, err))
        return -1;
    if (p->gpu.codec_profile[0]) {
        size_t used = strlen(c->description);
        snprintf(c->description + used, sizeof c->description - used,
                 " (profile %s has no entry for %s)", p->gpu.codec_profile, norm);
    }
    return 0;
}

/* Piecewise linear in the tensor's element count between measured sizes; below the
 * smallest, the smallest's time (launch-bound); above the largest, proportional to size
 * (bandwidth-bound). */
static double interpolate(const gcsim_codec *c, const double *t, double n)
{
    int k = c->n_points;
    if (n <= c->elements[0])
        return t[0];
    if (n >= c->elements[k - 1])
        return t[k - 1] * n / c->elements[k - 1];
    int i = 1;
    while (c->elements[i] < n)
        i++;
    double x0 = c->elements[i - 1], x1 = c->elements[i];
    return t[i - 1] + (t[i] - t[i - 1]) * (n - x0) / (x1 - x0);
}

double gcsim_codec_encode_s(const gcsim_codec *c, double elements, double payload_bytes)
{
    if (!c || elements <= 0)
        return 0;
    switch (c->source) {
    case CODEC_COST_NONE: return 0;
    case CODEC_COST_THROUGHPUT: return 4 * elements / c->throughput_Bps;
    case CODEC_COST_PROFILE: return interpolate(c, c->encode_s, elements);
    case CODEC_COST_MODEL: return gcsim_codec_model_encode_s(c, elements, payload_bytes);
    }
    return 0;
}

double gcsim_codec_decode_s(const gcsim_codec *c, double elements, double payload_bytes)
{
    if (!c || elements <= 0)
        return 0;
    switch (c->source) {
    case CODEC_COST_NONE: return 0;
    case CODEC_COST_THROUGHPUT: return 4 * elements / c->throughput_Bps;
    case CODEC_COST_PROFILE: return interpolate(c, c->decode_s, elements);
    case CODEC_COST_MODEL: return gcsim_codec_model_decode_s(c, elements, payload_bytes);
    }
    return 0;
}
