/* The payload model: exact sizes for fixed-width formats, determinism, kind mapping,
 * errors, the resampler's properties, and a held-back real layer whose true payload the
 * estimate must match within the tolerance measured by gcsim_payload_eval.
 * Usage: traces_test_payload_model TRACE_DIR */
#include <stdlib.h>

#include "../check.h"
#include "compressor.h"
#include "payload_model.h"
#include "traces.h"

int main(int argc, char **argv)
{
    if (argc < 2)
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

    /* Kind mapping. */
    CHECK(strcmp(gc_trace_payload_kind("lstm"), "fc") == 0);
    CHECK(strcmp(gc_trace_payload_kind("embedding"), "fc") == 0);
    CHECK(strcmp(gc_trace_payload_kind("norm"), "bn") == 0);
    CHECK(strcmp(gc_trace_payload_kind("conv"), "conv") == 0);
    CHECK(gc_trace_payload_kind("pool") == NULL);
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
    /* An absolute threshold depends on the gradient scale the model does not know. */
    CHECK(gc_trace_payload_estimate("threshold", "fc", 1000, 1, &bytes, err, sizeof err) == -1);
    CHECK_STR_CONTAINS(err, "absolute threshold");
    /* "lstm" is sized like fc: identical bytes. */
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
    CHECK_DONE();
}
