/* bench/compressors/bench_codec_model.c: the codec cost model's counts (sim/codec,
 * docs/codec.md) priced at this CPU core's rates, next to the C library's measured CPU
 * time, both as a ratio to memcpy measured in the same run.
 *
 * The model counts, per element, the bytes an encoder moves and the work that is not
 * moving bytes: uniforms drawn, bounded draws, FLOPs, elements sorted, element-serial
 * steps and random accesses. The bench measures the rate of each on this core with a
 * reference loop that does only that (bench_refs.h), then prices the counts at those
 * rates and adds the terms (gcsim_codec_work_encode_s, the function that prices them at a
 * GPU's rates in gcsim): that is the model's time. The measured time is the encoder's
 * thread CPU time, the best of 5 runs (the first allocates the codec's state; on a shared
 * machine one run in a few is slowed by a neighbour). Both are printed over memcpy's time.
 *
 * Tolerance: measured / model within [1/3, 3] counts as agreeing. Exit 1 when any
 * compressor falls outside: then a count in the model does not describe the work the C
 * library does.
 *
 * usage: bench_codec_model [--n ELEMENTS] [--runs R] [SPEC ...] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "codec.h"
#include "bench_refs.h"
#include "bench_setup.h"
#include "compressor.h"

#define TOLERANCE 3.0

/* every compressor of the library (none does no work), and the error-feedback wrapper */
static const char *const default_specs[] = {
    "fp16", "bf16", "terngrad", "qsgd", "signsgd", "onebit", "ecq", "orq", "linear",
    "bingrad-pb", "bingrad-b", "topk:ratio=0.01", "topk:ratio=0.01,sample=0.01",
    "dgc:ratio=0.001", "randomk:ratio=0.01", "threshold", "powersgd:rank=1",
    "powersgd:rank=4", "ef+signsgd",
};

static const char *const term_names[GCSIM_CODEC_TERMS] = {
    "launch", "bytes", "draws", "bdraws", "flops", "sort", "serial", "gather", "chain"};

int main(int argc, char **argv)
{
    bench_setup b;
    if (bench_setup_init(&b, argc, argv, "bench_codec_model", (size_t)16 << 20, 5, default_specs,
                         sizeof default_specs / sizeof *default_specs))
        return 2;
    size_t n = b.n;
    int runs = b.runs, nspecs = b.nspecs;
    const char *const *specs = b.specs;
    float *g = b.g;
    gc_rng rng; /* the encoders' random draws */
    gc_rng_seed(&rng, 2);
    double best = bench_memcpy_s(&b);
    gcsim_codec_rates cpu;
    if (bench_cpu_rates(&b, &cpu) != 0)
        return 2;
    printf("gradient: %zu fp32 elements; memcpy %.3f ms = %.2f GB/s read+write (best of %d)\n",
           n, best * 1e3, 8.0 * (double)n / best / 1e9, runs + 1);
    printf("this core: %.3g B/s streamed with ordinary stores, %.3g uniforms/s (block "
           "generator), %.3g bounded draws/s, %.3g FLOP/s, %.3g elements sorted/s, %.3g "
           "serial steps/s, %.3g random accesses/s, %.3g chained fp64 adds/s\n",
           cpu.mem_Bps, cpu.draws_per_s, cpu.scalar_draws_per_s, cpu.flops, cpu.sorted_per_s,
           cpu.serial_per_s, cpu.gathers_per_s, cpu.chained_per_s);
    printf("model = sum of its terms at these rates; tolerance: measured/model in "
           "[1/%.0f, %.0f]\n", TOLERANCE, TOLERANCE);
    printf("%-28s %7s %-14s %11s %11s %9s %s\n", "compressor", "B/elem", "largest term",
           "model x mcpy", "meas x mcpy", "meas/model", "verdict");
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
            p.len = 0;
            double t0 = bench_now_s();
            if (gc_compressor_encode(c, 0, g, n, &rng, &p, NULL, err, sizeof err) != 0) {
                fprintf(stderr, "%s: %s\n", specs[s], err);
                return 2;
            }
            double t = bench_now_s() - t0;
            enc = t < enc ? t : enc;
            gc_compressor_next_step(c);
        }
        double terms[GCSIM_CODEC_TERMS];
        double model_s = gcsim_codec_work_encode_s(&w, &cpu, (double)n, (double)p.len, terms);
        int top = 1;
        for (int i = 0; i < GCSIM_CODEC_TERMS; i++)
            top = terms[i] > terms[top] ? i : top;
        double bytes_per_elem = w.enc_bytes_per_elem +
                                w.enc_payload_passes * (double)p.len / (double)n;
        double model = model_s / best, meas = enc / best, q = meas / model;
        bool ok = q >= 1.0 / TOLERANCE && q <= TOLERANCE;
        char largest[32];
        snprintf(largest, sizeof largest, "%s %.0f%%", term_names[top],
                 100 * terms[top] / model_s);
        failed |= !ok;
        printf("%-28s %7.3f %-14s %11.3f %11.3f %9.2f %s\n", specs[s], bytes_per_elem,
               largest, model, meas, q, ok ? "ok" : q > TOLERANCE ? "SLOWER than the model"
                                                                  : "FASTER than the model");
        fflush(stdout);
        gc_bytes_free(&p);
        gc_compressor_free(c);
    }
    free(b.g);
    free(b.out);
    return failed;
}
