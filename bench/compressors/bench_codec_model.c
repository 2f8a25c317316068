/* bench/compressors/bench_codec_model.c: the codec cost model's pass counts (sim/codec,
 * docs/codec.md) next to the C library's measured CPU speed, both as a ratio to memcpy
 * measured in the same run.
 *
 * The model says encode moves B bytes per element (reads + writes, payload included);
 * memcpy moves 8 (read 4, write 4). If encode is bound by memory like memcpy, its time
 * over memcpy's is B / 8: that is the model's ratio. The measured ratio is the encoder's
 * thread CPU time over memcpy's on the same gradient (best of several runs). Their
 * quotient measured / model is 1 for a codec that streams memory as fast as memcpy.
 *
 * Tolerance: measured / model within [1/3, 3] counts as agreeing ("ok"). A CPU core runs
 * the random draws, bit packing and selection of several codecs slower than it streams
 * memory, so these exceed the band (compute-bound here, not on a GPU); the column says
 * which. Exit 1 if a codec whose model is a pure streaming pass (none, fp16, bf16) falls
 * outside the band: then the model's byte counting itself is wrong.
 *
 * usage: bench_codec_model [--n ELEMENTS] [--runs R] [SPEC ...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codec.h"
#include "bench_setup.h"
#include "compressor.h"

#define TOLERANCE 3.0

static const char *const default_specs[] = {
    "fp16", "bf16", "terngrad", "qsgd", "signsgd", "onebit", "ecq", "orq", "topk:ratio=0.01",
    "topk:ratio=0.01,sample=0.01", "dgc:ratio=0.001", "randomk:ratio=0.01", "threshold",
    "powersgd:rank=1", "powersgd:rank=4",
};

static bool streaming(const char *spec)
{
    return !strcmp(spec, "fp16") || !strcmp(spec, "bf16");
}

int main(int argc, char **argv)
{
    bench_setup b;
    if (bench_setup_init(&b, argc, argv, "bench_codec_model", (size_t)16 << 20, default_specs,
                         sizeof default_specs / sizeof *default_specs))
        return 2;
    size_t n = b.n;
    int runs = b.runs, nspecs = b.nspecs;
    const char *const *specs = b.specs;
    float *g = b.g, *out = b.out;
    gc_rng rng; /* the encoders' random draws */
    gc_rng_seed(&rng, 2);
    double best = bench_memcpy_s(&b);
    printf("gradient: %zu fp32 elements; memcpy %.3f ms = %.2f GB/s read+write (best of %d); "
           "tolerance: measured/model in [1/%.0f, %.0f]\n",
           n, best * 1e3, 8.0 * (double)n / best / 1e9, runs + 1, TOLERANCE, TOLERANCE);
    printf("%-30s %9s %11s %11s %9s %s\n", "compressor", "B/elem", "model x mcpy",
           "meas x mcpy", "meas/model", "verdict");
    int failed = 0;
    for (int s = 0; s < nspecs; s++) {
        gc_compressor *c = NULL;
        char err[256];
        gcsim_error gerr;
        gcsim_codec_work w;
        if (gc_compressor_create(specs[s], &c, err, sizeof err) != 0 ||
            gcsim_codec_work_of(specs[s], &w, &gerr) != 0) {
            fprintf(stderr, "%s: %s\n", specs[s], c ? gerr.message : err);
            return 2;
        }
        gc_bytes p = {0};
        double enc = 1e30;
        for (int r = 0; r < runs; r++) {
            double t0 = bench_now_s();
            if (gc_compressor_encode(c, 0, g, n, &rng, &p, NULL, err, sizeof err) != 0) {
                fprintf(stderr, "%s: %s\n", specs[s], err);
                return 2;
            }
            double t = bench_now_s() - t0;
            enc = t < enc ? t : enc;
            gc_compressor_next_step(c);
        }
        double bytes_per_elem = w.enc_bytes_per_elem +
                                w.enc_payload_passes * (double)p.len / (double)n;
        double model = bytes_per_elem / 8.0, meas = enc / best, q = meas / model;
        bool ok = q >= 1.0 / TOLERANCE && q <= TOLERANCE;
        const char *verdict = ok ? "ok" : q > TOLERANCE ? "slower: compute-bound on this CPU"
                                                         : "faster than its passes";
        if (!ok && streaming(specs[s]))
            failed = 1;
        printf("%-30s %9.3f %11.3f %11.3f %9.2f %s\n", specs[s], bytes_per_elem, model, meas, q,
               verdict);
        fflush(stdout);
        gc_bytes_free(&p);
        gc_compressor_free(c);
    }
    free(g);
    free(out);
    return failed;
}
