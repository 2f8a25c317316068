/*
 * sim/codec/codec_model.c: the work each compressor of compressors/ does per tensor, as the
 * C library implements it, counted as bytes moved through device memory, kernels launched
 * and floating-point operations (docs/codec.md, "The model"). A kernel that reads and
 * writes fp32 arrays moves 4 bytes per element per array; counts are per element of the
 * tensor unless they scale with the payload.
 *
 * Work that is not moving bytes is counted apart, per element (docs/codec.md, "Compute
 * terms"): uniforms drawn, bounded draws, FLOPs, elements sorted, element-serial steps
 * (data-dependent compaction, histogram increments, prefix sums) and random accesses.
 * The same counts are priced at a GPU's rates here (gcsim_codec_rates_of_gpu) and at a
 * CPU core's measured rates by bench/compressors/bench_codec_model, which checks them.
 *
 * Time of one call = kernels x launch + bytes / memory bandwidth + each count / its rate:
 * the terms are added, not overlapped, because the kernels (or one CPU thread's loops) run
 * one after another and each is bound by one of them.
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

int gcsim_codec_cost_spec(const char *spec, char *out, size_t out_len, gcsim_error *err)
{
    gc_compressor *c;
    char msg[256];
    if (gc_compressor_create(spec ? spec : "none", &c, msg, sizeof msg) != 0)
        return gcsim_fail(err, "%s", msg);
    const char *norm = gc_compressor_spec(c);
    if (strcmp(gc_compressor_name(c), gc_compressor_cost_reference(c)) == 0) {
        snprintf(out, out_len, "%s", norm);
    } else {
        int rank = gc_compressor_described_rank(c);
        char ref[96];
        snprintf(ref, sizeof ref, "%s%s", strncmp(norm, "ef+", 3) == 0 ? "ef+" : "",
                 gc_compressor_cost_reference(c));
        if (rank > 0)
            snprintf(ref + strlen(ref), sizeof ref - strlen(ref), ":rank=%d", rank);
        gc_compressor_free(c);
        /* normalized as the built-in's own spec is: a profile is keyed by that */
        if (gc_compressor_create(ref, &c, msg, sizeof msg) != 0)
            return gcsim_fail_internal(err, "%s", msg);
        snprintf(out, out_len, "%s", gc_compressor_spec(c));
    }
    gc_compressor_free(c);
    return 0;
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
    if (strcmp(name, gc_compressor_cost_reference(c)) != 0) {
        /* a described compressor does the work of the built-in it names */
        char ref[96];
        gc_compressor_free(c);
        if (gcsim_codec_cost_spec(spec_in, ref, sizeof ref, err))
            return -1;
        return gcsim_codec_work_of(ref, w, err);
    }
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
        bool sorts = strcmp(name, "orq") == 0 || strcmp(name, "linear") == 0 ||
                     strcmp(name, "bingrad-pb") == 0;
        /* one uniform per element for stochastic rounding (signsgd and BinGrad-b, which
         * rounds to the nearer of its two levels, are deterministic) */
        w->enc_draws_per_elem =
            strcmp(name, "signsgd") == 0 || strcmp(name, "bingrad-b") == 0 ? 0 : 1;
        if (sorts) /* levels from each bucket sorted (radix sort, select.c) */
            w->enc_sorted_per_elem = 1;
        if (strcmp(name, "orq") == 0 || strcmp(name, "linear") == 0)
            w->enc_chained_per_elem = 1; /* the bucket's prefix sums, in fp64 */
        if (strcmp(name, "bingrad-b") == 0) {
            /* Eq. 17's fixed point (c_bingrad.c solve_b): the bucket's mean, an ordered
             * fp64 sum, then per iteration a pass that splits and sums the bucket
             * (compare, select, two adds: 4 FLOPs per element, vectorized). Iterations
             * depend on the data: 4.66 per 512-element bucket measured on the bench's
             * gradient (N(0, 1e-3), 2^22 elements; 3.1 at bucket 64, 8 per whole
             * tensor); counted as 5. */
            w->enc_chained_per_elem = 1;
            w->enc_flops_per_elem = 4 * 5;
        }
        dense_decode(w);
    } else if (strcmp(name, "onebit") == 0) {
        /* the same plus the error (residual) state: read it into g + e, write it back */
        w->enc_bytes_per_elem = 16;
        w->enc_payload_passes = 1;
        w->enc_kernels = 3;
        dense_decode(w);
    } else if (strcmp(name, "ecq") == 0) {
        /* as c_ecq.c does it, one array at a time (as an unfused tensor library would):
         * v = g + alpha h (read 8, write 4), QSGD's norm and quantizing passes over v
         * (read 8) writing Q (4), h = beta h + (g - Q) (read 12, write 4) */
        w->enc_bytes_per_elem = 40;
        w->enc_payload_passes = 1;
        w->enc_kernels = 4;
        w->enc_draws_per_elem = 1; /* QSGD's stochastic rounding */
        dense_decode(w);
    } else if (strcmp(name, "topk") == 0) {
        double sample = spec_value(spec, "sample", 0);
        if (sample > 0) {
            /* DGC's sampled threshold: read the sample, select on it, one pass to keep
             * what passes the threshold */
            w->enc_bytes_per_elem = 4 + 8 * sample;
            w->enc_kernels = 4;
            /* the sample is strided (one access per sampled element); counting with the
             * threshold collects candidates, an element-serial step */
            w->enc_gathers_per_elem = sample;
            w->enc_serial_per_elem = 1;
        } else {
            /* exact selection: write |g| (read 4, write 4), quickselect's expected two
             * partitioning passes over it (read and write, 16). The C library selects by
             * radix (select.c): two histogram passes and a compaction, element-serial */
            w->enc_bytes_per_elem = 24;
            w->enc_kernels = 4;
            w->enc_serial_per_elem = 3;
        }
        w->enc_payload_passes = 1;
        w->enc_gathers_per_payload_byte = 1.0 / 8; /* each selected value, index order */
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
        /* strided sample, candidate collection (serial), the selected values gathered */
        w->enc_gathers_per_elem = sample;
        w->enc_serial_per_elem = 1;
        w->enc_gathers_per_payload_byte = 1.0 / 8;
        sparse_decode(w);
    } else if (strcmp(name, "randomk") == 0) {
        /* Floyd's sampling into a bitmap of n bits kept zero between calls (scanned: n/8
         * bytes), then k values gathered: the payload's share of memory */
        w->enc_bytes_per_elem = 0.125;
        w->enc_payload_passes = 2;
        w->enc_kernels = 2;
        /* k bounded draws (Floyd); k bits tested and set at random words of the n-bit
         * bitmap (n/8 bytes: past the caches for large tensors), k values gathered */
        double ratio = spec_value(spec, "ratio", 0.01);
        w->enc_scalar_draws_per_elem = ratio;
        w->enc_gathers_per_elem = ratio;
        w->enc_gathers_per_payload_byte = 1.0 / 8;
        sparse_decode(w);
    } else if (strcmp(name, "threshold") == 0) {
        /* one compare-and-count pass, one gather */
        w->enc_bytes_per_elem = 8;
        w->enc_payload_passes = 1;
        w->enc_kernels = 2;
        w->enc_serial_per_elem = 1; /* indices compacted one element at a time */
        w->enc_gathers_per_payload_byte = 1.0 / 8;
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
    if (rc == 0 && strcmp(name, "none") != 0 && gc_compressor_checks_input(c))
        w->enc_check_bytes_per_elem = 4;
    if (rc == 0 && ef && strcmp(name, "none") != 0) {
        /* the generic error-feedback wrapper (compressor.c): v = g + e (read 8, write 4),
         * Q written by the codec (4), e = v - Q (read 8, write 4); on a CPU the library
         * also checks v for NaN and Inf (read 4) */
        w->enc_bytes_per_elem += 28;
        w->enc_kernels += 2;
        w->enc_check_bytes_per_elem += 4;
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

/* Integer operations per unit of work on a GPU, counted from the C library's loops (the
 * same algorithm run one element per thread), issued at the fp32 rate (V100 and A100 have
 * as many INT32 as FP32 units; an assumption elsewhere):
 *   a block-generator uniform: one xoshiro128+ lane step (ublock.h): add, 2 shifts,
 *     5 xors, a rotate (2 shifts, an or) = 11;
 *   a bounded draw: a xoshiro256** step (rng.c: 2 multiplies, 2 rotates, a shift, 5 xors,
 *     about 14 64-bit operations = 28 32-bit ones) and a 64-bit remainder, which GPUs
 *     emulate in software: counted as 64 (an assumption, not measured) = 92;
 *   a sorted element: LSD radix sort on 8-bit digits (select.c): key map (3), four
 *     histogram increments (3 each), four scatter passes (5 each) = 35;
 *   a serial step (compare, add, store: a compaction's or histogram's element) = 4;
 *   a chained addition = 1 (a GPU sums in a tree or scans, not in one chain).
 * A random access moves one 32-byte DRAM sector, the GPU's smallest transaction (CUDA C++
 * Best Practices Guide, "Coalesced Access to Global Memory"). */
#define GPU_OPS_PER_DRAW 11.0
#define GPU_OPS_PER_SCALAR_DRAW 92.0
#define GPU_OPS_PER_SORTED 35.0
#define GPU_OPS_PER_SERIAL 4.0
#define GPU_OPS_PER_CHAINED 1.0
#define GPU_SECTOR_BYTES 32.0

void gcsim_codec_rates_of_gpu(const gcsim_gpu_params *g, gcsim_codec_rates *out)
{
    out->launch_s = g->launch_s;
    out->mem_Bps = g->mem_Bps;
    out->flops = g->fp32_flops;
    out->draws_per_s = g->fp32_flops / GPU_OPS_PER_DRAW;
    out->scalar_draws_per_s = g->fp32_flops / GPU_OPS_PER_SCALAR_DRAW;
    out->sorted_per_s = g->fp32_flops / GPU_OPS_PER_SORTED;
    out->serial_per_s = g->fp32_flops / GPU_OPS_PER_SERIAL;
    out->chained_per_s = g->fp32_flops / GPU_OPS_PER_CHAINED;
    out->gathers_per_s = g->mem_Bps / GPU_SECTOR_BYTES;
    out->line_elems = GPU_SECTOR_BYTES / 4;
    out->input_check = false;
}

double gcsim_codec_work_encode_s(const gcsim_codec_work *w, const gcsim_codec_rates *r,
                                 double n, double payload_bytes,
                                 double terms[GCSIM_CODEC_TERMS])
{
    double t[GCSIM_CODEC_TERMS] = {0};
    if (n > 0 && w->enc_kernels > 0) {
        double flops = w->enc_flops_per_elem * n;
        bool work = true;
        if (w->powersgd_rank > 0) {
            double rows, cols, rk = w->powersgd_rank;
            if (!powersgd_shape(n, w->powersgd_rank, &rows, &cols))
                work = false;
            /* M Q, M^T P, P Q^T (2 n r each) and Householder QR of the rows x r P */
            flops += 6 * n * rk + 4 * rows * rk * rk;
        }
        if (work) {
            t[0] = w->enc_kernels * r->launch_s;
            double check = r->input_check ? w->enc_check_bytes_per_elem : 0;
            t[1] = ((w->enc_bytes_per_elem + check) * n +
                    w->enc_payload_passes * payload_bytes) / r->mem_Bps;
            t[2] = w->enc_draws_per_elem * n / r->draws_per_s;
            t[3] = w->enc_scalar_draws_per_elem * n / r->scalar_draws_per_s;
            t[4] = flops / r->flops;
            t[5] = w->enc_sorted_per_elem * n / r->sorted_per_s;
            t[6] = w->enc_serial_per_elem * n / r->serial_per_s;
            /* k values gathered at uniformly spread indices touch L (1 - e^(-k/L)) of the
             * gradient's L lines or sectors: k when sparse, every line once when dense */
            double k = w->enc_gathers_per_payload_byte * payload_bytes;
            double lines = n / (r->line_elems > 0 ? r->line_elems : 1);
            double touched = k > 0 ? lines * -expm1(-k / lines) : 0;
            t[7] = (w->enc_gathers_per_elem * n + touched) / r->gathers_per_s;
            t[8] = w->enc_chained_per_elem * n / r->chained_per_s;
        }
    }
    double sum = 0;
    for (int i = 0; i < GCSIM_CODEC_TERMS; i++) {
        sum += t[i];
        if (terms)
            terms[i] = t[i];
    }
    return sum;
}

double gcsim_codec_model_encode_s(const gcsim_codec *c, double n, double payload_bytes)
{
    gcsim_codec_rates r;
    gcsim_codec_rates_of_gpu(&c->gpu, &r);
    return gcsim_codec_work_encode_s(&c->work, &r, n, payload_bytes, NULL);
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
