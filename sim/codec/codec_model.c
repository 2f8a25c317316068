/*
 * sim/codec/codec_model.c: the work each compressor of compressors/ does per tensor, as the
 * C library implements it, counted as bytes moved through device memory, kernels launched
 * and floating-point operations (docs/codec.md, "The model"). A kernel that reads and
 * writes fp32 arrays moves 4 bytes per element per array; counts are per element of the
 * tensor unless they scale with the payload.
 *
 * Time of one call = kernels x launch + bytes / memory bandwidth + FLOPs / fp32 peak: the
 * three are added, not overlapped, because the kernels run one after another and each is
 * either bound by memory or (PowerSGD's products) by arithmetic.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "compressor.h"

/* A key's value in a normalized spec ("name:k1=v1,k2=v2"), or def when absent. */
static double spec_value(const char *spec, const char *key, double def)
{
    const char *colon = strchr(spec, ':');
    if (!colon)
        return def;
    size_t kl = strlen(key);
    for (const char *q = colon + 1; *q;) {
        if (strncmp(q, key, kl) == 0 && q[kl] == '=')
            return strtod(q + kl + 1, NULL);
        const char *comma = strchr(q, ',');
        if (!comma)
            break;
        q = comma + 1;
    }
    return def;
}

/* Decoding any dense format: read the payload, read the running fp32 sum, write it. */
static void dense_decode(gcsim_codec_work *w)
{
    w->dec_bytes_per_elem = 8;
    w->dec_payload_passes = 1;
    w->dec_kernels = 1;
}

/* Decoding a sparse payload: read it, then read and write the sum at each selected index
 * (8 bytes per 8-byte index/value pair: about the payload again). */
static void sparse_decode(gcsim_codec_work *w)
{
    w->dec_bytes_per_elem = 0;
    w->dec_payload_passes = 2;
    w->dec_kernels = 1;
}

int gcsim_codec_work_of(const char *spec_in, gcsim_codec_work *w, gcsim_error *err)
{
    memset(w, 0, sizeof *w);
    gc_compressor *c;
    char msg[256];
    if (gc_compressor_create(spec_in ? spec_in : "none", &c, msg, sizeof msg) != 0)
        return gcsim_fail(err, "codec model: %s", msg);
    const char *spec = gc_compressor_spec(c);
    const char *name = gc_compressor_name(c);
    bool ef = strncmp(spec, "ef+", 3) == 0;
    int rc = 0;
    if (strcmp(name, "none") == 0) {
        /* fp32 is summed by the collective as it is: nothing to encode or decode. */
    } else if (strcmp(name, "fp16") == 0 || strcmp(name, "bf16") == 0) {
        /* one cast: read fp32, write the 2-byte payload */
        w->enc_bytes_per_elem = 4;
        w->enc_payload_passes = 1;
        w->enc_kernels = 1;
        dense_decode(w);
    } else if (strcmp(name, "terngrad") == 0 || strcmp(name, "qsgd") == 0 ||
               strcmp(name, "orq") == 0 || strcmp(name, "linear") == 0 ||
               strcmp(name, "bingrad-b") == 0 || strcmp(name, "bingrad-pb") == 0 ||
               strcmp(name, "signsgd") == 0) {
        /* a reduction for the scale (max, norm or mean of |g| per tensor or bucket), then
         * one quantizing pass that draws its random numbers in registers and packs */
        w->enc_bytes_per_elem = 8;
        w->enc_payload_passes = 1;
        w->enc_kernels = 2;
        dense_decode(w);
    } else if (strcmp(name, "ecq") == 0 || strcmp(name, "onebit") == 0) {
        /* the same plus the error (residual) state: read it into g + e, write it back */
        w->enc_bytes_per_elem = 16;
        w->enc_payload_passes = 1;
        w->enc_kernels = 3;
        dense_decode(w);
    } else if (strcmp(name, "topk") == 0) {
        double sample = spec_value(spec, "sample", 0);
        if (sample > 0) {
            /* DGC's sampled threshold: read the sample, select on it, one pass to keep
             * what passes the threshold */
            w->enc_bytes_per_elem = 4 + 8 * sample;
            w->enc_kernels = 4;
        } else {
            /* exact selection: write |g| (read 4, write 4), quickselect's expected two
             * partitioning passes over it (read and write, 16) */
            w->enc_bytes_per_elem = 24;
            w->enc_kernels = 4;
        }
        w->enc_payload_passes = 1;
        sparse_decode(w);
    } else if (strcmp(name, "dgc") == 0) {
        /* momentum correction and accumulation (Eq. 7): read g, u, v, write u, v (20);
         * sampled threshold: read the sample and select on it; count and select with the
         * threshold: read v twice (8); momentum factor masking clears u and v at the
         * selected indices (about the payload again); clipping reads g once more */
        double sample = spec_value(spec, "sample", 0.01);
        w->enc_bytes_per_elem = 28 + 8 * sample;
        w->enc_kernels = 6;
        if (spec_value(spec, "clip_norm", 0) > 0) {
            w->enc_bytes_per_elem += 4;
            w->enc_kernels += 1;
        }
        w->enc_payload_passes = spec_value(spec, "mask", 1) > 0 ? 2 : 1;
        sparse_decode(w);
    } else if (strcmp(name, "randomk") == 0) {
        /* Floyd's sampling into a bitmap of n bits (zeroed, then scanned: n/8 bytes
         * twice), then k values gathered: the payload's share of memory */
        w->enc_bytes_per_elem = 0.25;
        w->enc_payload_passes = 2;
        w->enc_kernels = 2;
        sparse_decode(w);
    } else if (strcmp(name, "threshold") == 0) {
        /* one compare-and-count pass, one gather */
        w->enc_bytes_per_elem = 8;
        w->enc_payload_passes = 1;
        w->enc_kernels = 2;
        sparse_decode(w);
    } else if (strcmp(name, "powersgd") == 0) {
        /* M = g + e (read 8, write 4), P = M Q and Q = M^T P (read M twice, 8), the
         * approximation P Q^T and e = M - P Q^T (read M, write e, 8); FLOPs added by
         * gcsim_codec_encode_s from the rank */
        w->powersgd_rank = (int)spec_value(spec, "rank", 1);
        w->enc_bytes_per_elem = 28;
        w->enc_payload_passes = 1;
        w->enc_kernels = 6;
        /* decode: P Q^T added into the sum (read and write it) */
        w->dec_bytes_per_elem = 8;
        w->dec_payload_passes = 1;
        w->dec_kernels = 1;
    } else {
        rc = gcsim_fail(err, "codec model: no cost model for compressor \"%s\" (spec %s)",
                        name, spec);
    }
    if (rc == 0 && ef && strcmp(name, "none") != 0) {
        /* the generic error-feedback wrapper: read e into g + e, write e = (g + e) - Q */
        w->enc_bytes_per_elem += 16;
        w->enc_kernels += 2;
    }
    gc_compressor_free(c);
    return rc;
}

static double model_time_s(const gcsim_gpu_params *g, double kernels, double bytes,
                           double flops)
{
    return kernels * g->launch_s + bytes / g->mem_Bps + flops / g->fp32_flops;
}

/* PowerSGD's matrix of a tensor, as the C library shapes it by default: cols =
 * ceil(sqrt(n)), rows = ceil(n / cols). A tensor that rank r would not shrink is sent
 * dense (no encode; its decode is a plain add). */
static bool powersgd_shape(double n, int r, double *rows, double *cols)
{
    *cols = ceil(sqrt(n));
    *rows = ceil(n / *cols);
    return r * (*rows + *cols) < n;
}

double gcsim_codec_model_encode_s(const gcsim_codec *c, double n, double payload_bytes)
{
    const gcsim_codec_work *w = &c->work;
    if (n <= 0 || w->enc_kernels == 0)
        return 0;
    double flops = 0;
    if (w->powersgd_rank > 0) {
        double rows, cols, r = w->powersgd_rank;
        if (!powersgd_shape(n, w->powersgd_rank, &rows, &cols))
            return 0;
        /* M Q, M^T P, P Q^T (2 n r each) and Householder QR of the rows x r P */
        flops = 6 * n * r + 4 * rows * r * r;
    }
    return model_time_s(&c->gpu, w->enc_kernels,
                        w->enc_bytes_per_elem * n + w->enc_payload_passes * payload_bytes, flops);
}

double gcsim_codec_model_decode_s(const gcsim_codec *c, double n, double payload_bytes)
{
    const gcsim_codec_work *w = &c->work;
    if (n <= 0 || w->dec_kernels == 0)
        return 0;
    double flops = 0;
    if (w->powersgd_rank > 0) {
        double rows, cols;
        if (powersgd_shape(n, w->powersgd_rank, &rows, &cols))
            flops = 2 * n * w->powersgd_rank;
    }
    return model_time_s(&c->gpu, w->dec_kernels,
                        w->dec_bytes_per_elem * n + w->dec_payload_passes * payload_bytes, flops);
}
