/* The payload model: exact sizes for fixed-width formats, determinism, kind mapping,
 * errors, the resampler's properties, and a held-back real layer whose true payload the
 * estimate must match within the tolerance measured by gcsim_payload_eval.
 * Usage: traces_test_payload_model TRACE_DIR SCRATCH_DIR */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "../check.h"
#include "compressor.h"
#include "payload_model.h"
#include "traces.h"

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const char *dir = argv[1];
    setenv("GCSIM_TRACE_DIR", dir, 1);
    char err[1024];
    size_t bytes = 0, again = 0, fixed = 0;

    /* Fixed-width: exactly what the library says, whatever the kind. */
    gc_compressor *c;
    CHECK(gc_compressor_create("terngrad", &c, err, sizeof err) == 0);
    CHECK(gc_compressor_fixed_payload_bytes(c, 2359296, &fixed));
    gc_compressor_free(c);
    CHECK(gc_trace_payload_estimate("terngrad", "conv", 2359296, 1, &bytes, err, sizeof err) == 0);
    CHECK(bytes == fixed);

    /* Kind mapping: every model kind has a chain, its own kind first. */
    const char *chain[GC_TRACE_PAYLOAD_MAX_KINDS];
    CHECK(gc_trace_payload_kinds("lstm", chain) == 2 && strcmp(chain[0], "lstm") == 0 &&
          strcmp(chain[1], "fc") == 0);
    CHECK(gc_trace_payload_kinds("attention", chain) == 2 && strcmp(chain[0], "attention") == 0);
    CHECK(gc_trace_payload_kinds("embedding", chain) == 2 && strcmp(chain[1], "fc") == 0);
    CHECK(gc_trace_payload_kinds("norm", chain) == 3 && strcmp(chain[0], "layer-norm") == 0 &&
          strcmp(chain[2], "bn") == 0);
    CHECK(gc_trace_payload_kinds("conv", chain) == 1 && strcmp(chain[0], "conv") == 0);
    CHECK(gc_trace_payload_kinds("pool", chain) == 0);
    CHECK(gc_trace_payload_estimate("qsgd:code=elias", "pool", 100, 1, &bytes, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "unknown layer kind \"pool\"");
    CHECK(gc_trace_payload_estimate("qsgd:nope=1", "fc", 100, 1, &bytes, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "nope");

    /* Data-dependent: deterministic, and the cache returns the same value. */
    CHECK(gc_trace_payload_estimate("qsgd:code=elias", "conv", 100000, 7, &bytes, err, sizeof err) == 0);
    CHECK(gc_trace_payload_estimate("qsgd:code=elias", "conv", 100000, 7, &again, err, sizeof err) == 0);
    CHECK(bytes == again && bytes > 0);
    gc_payload_pool *pool;
    CHECK(gc_payload_pool_load(dir, "conv", NULL, &pool, err, sizeof err) == 0);
    size_t direct = 0;
    CHECK(gc_payload_pool_estimate(pool, "qsgd:code=elias", 100000, GC_PAYLOAD_BLOCK,
                                   GC_PAYLOAD_CHUNK_MAX, 7, &direct, err, sizeof err) == 0);
    CHECK(direct == bytes);
    /* The model keeps each (kind, seed)'s resamples and encodes prefixes of them, and a
     * chunk's length past GC_PAYLOAD_CHUNK_MAX (issue 47): every size, in an order that
     * grows, shrinks and grows the kept resamples, with three (kind, seed) pairs taking
     * turns in two kept slots, gives what the pool's own estimate gives. */
    {
        gc_payload_pool *fc_pool;
        CHECK(gc_payload_pool_load(dir, "fc", NULL, &fc_pool, err, sizeof err) == 0);
        const size_t sizes[] = {1000, 77777, 5000, 300001, 63, 65, 4194305, 1500000,
                                GC_PAYLOAD_CHUNK_MAX, 9000000, 129};
        const char *kinds[] = {"conv", "fc", "conv"};
        const uint64_t seeds[] = {11, 11, 12};
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
            for (int k = 0; k < 3; k++) {
                size_t via_model = 0, via_pool = 0;
                CHECK(gc_trace_payload_estimate("qsgd:code=elias", kinds[k], sizes[i], seeds[k],
                                                &via_model, err, sizeof err) == 0);
                CHECK(gc_payload_pool_estimate(k == 1 ? fc_pool : pool, "qsgd:code=elias",
                                               sizes[i], GC_PAYLOAD_BLOCK, GC_PAYLOAD_CHUNK_MAX,
                                               seeds[k], &via_pool, err, sizeof err) == 0);
                CHECK(via_model == via_pool && via_model > 0);
            }
        gc_payload_pool_free(fc_pool);
    }
    /* An absolute threshold depends on the gradient scale the model does not know. */
    CHECK(gc_trace_payload_estimate("threshold", "fc", 1000, 1, &bytes, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "absolute threshold");
    /* The shipped traces have no lstm tensors: "lstm" falls back to fc, identical bytes,
     * and the source says so. */
    char source[512];
    CHECK(gc_trace_payload_source("lstm", source, sizeof source, err, sizeof err) == 0);
    CHECK_STR_CONTAINS(source, "lstm from fc traces, no lstm traces");
    CHECK_STR_CONTAINS(source, "fmnist_lenet");
    CHECK(gc_trace_payload_source("conv", source, sizeof source, err, sizeof err) == 0);
    CHECK_STR_CONTAINS(source, "conv from conv traces (");
    CHECK(gc_trace_payload_estimate("dgc", "lstm", 50000, 3, &bytes, err, sizeof err) == 0);
    CHECK(gc_trace_payload_estimate("dgc", "fc", 50000, 3, &again, err, sizeof err) == 0);
    CHECK(bytes == again);

    /* The pool is RMS-normalised per tensor, so its overall RMS is 1 (to rounding); a
     * resample draws values from it up to sign, so its mean square estimates 1 with
     * relative spread sqrt((kurtosis - 1) / n): about 3% for n = 2^16 and kurtosis 50,
     * heavier than any tensor in the traces; 15% on the RMS is a safe bound. */
    size_t n = 1 << 16;
    float *x = malloc(n * sizeof *x);
    gc_payload_pool_resample(pool, n, GC_PAYLOAD_BLOCK, 5, x);
    double sq = 0;
    for (size_t i = 0; i < n; i++)
        sq += (double)x[i] * x[i];
    CHECK(fabs(sqrt(sq / (double)n) - 1.0) < 0.15);
    /* Same seed, same values; another seed, other values. */
    float *y = malloc(n * sizeof *y);
    gc_payload_pool_resample(pool, n, GC_PAYLOAD_BLOCK, 5, y);
    CHECK(memcmp(x, y, n * sizeof *x) == 0);
    gc_payload_pool_resample(pool, n, GC_PAYLOAD_BLOCK, 6, y);
    CHECK(memcmp(x, y, n * sizeof *x) != 0);
    free(x);
    free(y);
    gc_payload_pool_free(pool);

    /* Held back: LeNet's fc1 (400,000 values) is left out of the pool; the estimate for
     * its size must be within 15% of the payload of the real tensor at step 1499 (warmed
     * up on step 700, as the model does). gcsim_payload_eval measured -4% to -8% for these
     * compressors on this layer (docs/traces.md); 15% is the stated tolerance. */
    CHECK(gc_payload_pool_load(dir, "fc", "fmnist_lenet:fc1.weight", &pool, err, sizeof err) == 0);
    char path[1024];
    float *prev = NULL, *cur = NULL;
    gc_trace_file f;
    const char *steps[2] = {"000700", "001499"};
    for (int s = 0; s < 2; s++) {
        snprintf(path, sizeof path, "%s/fmnist_lenet/lenet_step%s_rank0.safetensors", dir, steps[s]);
        CHECK(gc_trace_open(path, &f, err, sizeof err) == 0);
        long i = gc_trace_find(&f, "fc1.weight");
        CHECK(i >= 0);
        CHECK(gc_trace_load_f32(&f, (size_t)i, s ? &cur : &prev, err, sizeof err) == 0);
        gc_trace_close(&f);
    }
    /* Elias-coded quantizers only: DGC's payload varies by +-20% from one random threshold
     * sample to the next even on the same tensor, which gcsim_payload_eval averages out. */
    const char *specs[] = {"qsgd:code=elias", "ecq:code=elias"};
    for (int k = 0; k < 2 && prev && cur; k++) {
        gc_rng rng;
        gc_rng_seed(&rng, 1);
        gc_bytes p = {0};
        CHECK(gc_compressor_create(specs[k], &c, err, sizeof err) == 0);
        CHECK(gc_compressor_encode(c, 0, prev, 400000, &rng, &p, NULL, err, sizeof err) == 0);
        gc_compressor_next_step(c);
        CHECK(gc_compressor_encode(c, 0, cur, 400000, &rng, &p, NULL, err, sizeof err) == 0);
        size_t truth = p.len, est = 0;
        gc_bytes_free(&p);
        gc_compressor_free(c);
        CHECK(gc_payload_pool_estimate(pool, specs[k], 400000, GC_PAYLOAD_BLOCK,
                                       GC_PAYLOAD_CHUNK_MAX, 1, &est, err, sizeof err) == 0);
        CHECK_REL((double)est, (double)truth, 0.15);
    }
    free(prev);
    free(cur);
    gc_payload_pool_free(pool);

    /* A missing trace directory is an error naming it (data-dependent formats only). */
    CHECK(gc_payload_pool_load("/nonexistent/traces", "fc", NULL, &pool, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "/nonexistent/traces");

    /* Kinds with traces of their own use them. A one-series directory: a sparse, heavy-
     * tailed "attention" tensor (9 in 10 values 0) and a dense "fc" one, at step 1. */
    const char *scratch = argv[2];
    char series[1024], file[1200];
    snprintf(series, sizeof series, "%s/own", scratch);
    mkdir(scratch, 0755);
    mkdir(series, 0755);
    snprintf(file, sizeof file, "%s/t_step000001_rank0.safetensors", series);
    enum { N = 4096 };
    static float attn[N], dense[N];
    for (int i = 0; i < N; i++) {
        attn[i] = i % 10 == 0 ? (float)(i % 7 + 1) * (i % 20 == 0 ? 1.0f : -1.0f) : 0.0f;
        dense[i] = (float)sin(0.37 * i);
    }
    uint64_t shape[1] = {N};
    gc_trace_write_tensor ts[2] = {{"blk.attn.in_proj_weight", attn, 1, shape, GC_TRACE_F32},
                                   {"head.weight", dense, 1, shape, GC_TRACE_F32}};
    gc_trace_meta meta[2] = {{"step", "1"},
                             {"layer_kinds", "{\"blk.attn.in_proj_weight\":\"attention\","
                                             "\"head.weight\":\"fc\"}"}};
    CHECK(gc_trace_write_safetensors(file, ts, 2, meta, 2, err, sizeof err) == 0);
    setenv("GCSIM_TRACE_DIR", scratch, 1);
    size_t own = 0, fc = 0, from_pool = 0;
    CHECK(gc_trace_payload_estimate("qsgd:code=elias", "attention", 20000, 5, &own, err,
                                    sizeof err) == 0);
    CHECK(gc_trace_payload_estimate("qsgd:code=elias", "fc", 20000, 5, &fc, err, sizeof err) == 0);
    CHECK(gc_payload_pool_load(scratch, "attention", NULL, &pool, err, sizeof err) == 0);
    CHECK(gc_payload_pool_tensors(pool) == 1);
    CHECK(gc_payload_pool_estimate(pool, "qsgd:code=elias", 20000, GC_PAYLOAD_BLOCK,
                                   GC_PAYLOAD_CHUNK_MAX, 5, &from_pool, err, sizeof err) == 0);
    gc_payload_pool_free(pool);
    /* the attention pool, not fc's: 9 in 10 zeros code in far fewer bits */
    CHECK(own == from_pool);
    CHECK(own < fc);
    CHECK(gc_trace_payload_source("attention", source, sizeof source, err, sizeof err) == 0);
    CHECK_STR_CONTAINS(source, "attention from attention traces (1 tensors: own)");
    /* no embedding traces there: fc's, said so */
    CHECK(gc_trace_payload_estimate("qsgd:code=elias", "embedding", 20000, 5, &again, err,
                                    sizeof err) == 0);
    CHECK(again == fc);
    CHECK(gc_trace_payload_source("embedding", source, sizeof source, err, sizeof err) == 0);
    CHECK_STR_CONTAINS(source, "embedding from fc traces, no embedding traces");
    /* no norm and no batch-norm traces at all: an error naming every kind tried */
    CHECK(gc_payload_pool_load(scratch, "bn", NULL, &pool, err, sizeof err) == 1 && !pool);
    CHECK(gc_trace_payload_estimate("qsgd:code=elias", "norm", 100, 5, &again, err,
                                    sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "layer-norm, group-norm, bn");
    CHECK_DONE();
}
