/*
 * bench/compressors/bench_refs.h: the reference rates of this CPU core, measured in the
 * same run as the encoders, for each kind of work the codec model counts (sim/codec/
 * codec_model.c, docs/codec.md "Compute terms"). Each is a short loop doing only that
 * work, with the library's own generator, sort and hot-loop compilation (GC_HOT), so that
 * the model's count x this rate predicts the encoder's CPU time. Best of runs + 1.
 */
#ifndef GCSIM_BENCH_REFS_H
#define GCSIM_BENCH_REFS_H

#include "bench_setup.h"
#include "codec.h"
#include "ublock.h"

/* Keeps a result alive so the compiler cannot drop the loop that made it. */
static volatile double bench_sink;

/* bytes streamed as the encoders stream them: one pass reading an fp32 array and writing
 * another with ordinary stores (memcpy of large arrays uses non-temporal stores, which
 * skip reading each written line first; no encoder loop does). "+ 0.0f" keeps the
 * compiler from turning the loop into a memcpy call and costs nothing next to memory. */
GC_HOT static void ref_stream(const float *restrict g, size_t n, float *restrict out)
{
    size_t i = 0;
    for (; i + 256 <= n; i += 256) /* fixed-count blocks vectorize at -O2 */
        for (size_t j = i; j < i + 256; j++)
            out[j] = g[j] + 0.0f;
    for (; i < n; i++)
        out[i] = g[i] + 0.0f;
}
static double ref_stream_s(const bench_setup *b)
{
    double t0 = bench_now_s();
    ref_stream(b->g, b->n, b->out);
    double t = bench_now_s() - t0;
    bench_sink = b->out[b->n / 2];
    return t;
}

/* uniforms of the block generator (what stochastic rounding draws), summed; compiled as
 * the encoders' hot loops are */
GC_HOT static uint32_t ref_draw_blocks(gc_ulanes *restrict lanes, size_t count)
{
    int32_t u[GC_UBLK];
    uint32_t acc = 0;
    for (size_t i = 0; i < count; i += GC_UBLK) {
        gc_ulanes_fill(lanes, u);
        for (size_t j = 0; j < GC_UBLK; j++)
            acc += (uint32_t)u[j];
    }
    return acc;
}
static double ref_draws_s(size_t count)
{
    gc_rng r;
    gc_rng_seed(&r, 3);
    gc_ulanes lanes;
    gc_ulanes_seed(&lanes, &r);
    double t0 = bench_now_s();
    uint32_t acc = ref_draw_blocks(&lanes, count);
    double t = bench_now_s() - t0;
    bench_sink = acc;
    return t;
}

/* bounded draws as Floyd's sampling makes them: gc_rng_below(j + 1) for large j */
static double ref_scalar_draws_s(size_t count, size_t n)
{
    gc_rng r;
    gc_rng_seed(&r, 4);
    uint64_t acc = 0;
    double t0 = bench_now_s();
    for (size_t j = n - count; j < n; j++)
        acc += gc_rng_below(&r, (uint64_t)j + 1);
    double t = bench_now_s() - t0;
    bench_sink = (double)acc;
    return t;
}

/* fp32 FLOPs: dot products over a 4,096-element block that stays in cache (8 x 8
 * accumulators, as PowerSGD's dot is written), 2 FLOPs per element */
GC_HOT static double ref_dot(const float *restrict a, const float *restrict b, size_t len)
{
    float acc[8][8] = {{0}};
    size_t i = 0;
    for (; i + 64 <= len; i += 64)
        for (int jj = 0; jj < 8; jj++)
            for (int l = 0; l < 8; l++)
                acc[jj][l] += a[i + 8 * jj + l] * b[i + 8 * jj + l];
    double s = 0;
    for (int jj = 0; jj < 8; jj++)
        for (int l = 0; l < 8; l++)
            s += acc[jj][l];
    return s;
}
static double ref_flops_s(const float *g, size_t flops)
{
    double acc = 0, t0 = bench_now_s();
    for (size_t done = 0; done < flops; done += 2 * 4096)
        acc += ref_dot(g, g + 4096, 4096);
    double t = bench_now_s() - t0;
    bench_sink = acc;
    return t;
}

/* elements sorted by the library's radix sort, in buckets of 512 (ORQ's default) */
static double ref_sorted_s(const float *g, size_t count, float *x, uint32_t *tmp)
{
    double t0 = bench_now_s();
    for (size_t i = 0; i + 512 <= count; i += 512) {
        memcpy(x, g + i, 512 * sizeof *x);
        gc_sort_floats(x, 512, tmp);
    }
    double t = bench_now_s() - t0;
    bench_sink = x[0];
    return t;
}

/* element-serial steps: the branch-free compaction threshold top-k and selection use
 * (write the index, advance when selected), over a 16,384-element block in cache */
GC_HOT static size_t ref_compact(const float *restrict x, size_t len, float thr,
                                 uint32_t *restrict idx)
{
    size_t c = 0;
    for (size_t i = 0; i < len; i++) {
        idx[c] = (uint32_t)i;
        c += fabsf(x[i]) > thr;
    }
    return c;
}
static double ref_serial_s(const float *g, size_t count, uint32_t *idx)
{
    size_t acc = 0;
    double t0 = bench_now_s();
    for (size_t done = 0; done < count; done += 16384)
        acc += ref_compact(g, 16384, 1e-3f, idx);
    double t = bench_now_s() - t0;
    bench_sink = (double)acc;
    return t;
}

/* chained additions: an ordered fp64 sum over a 16,384-element block in cache (each add
 * waits for the one before), as means and prefix sums are taken */
static double ref_chained_s(const float *g, size_t count)
{
    double acc = 0, t0 = bench_now_s();
    for (size_t done = 0; done < count; done += 16384)
        for (size_t i = 0; i < 16384; i++)
            acc += g[i];
    double t = bench_now_s() - t0;
    bench_sink = acc;
    return t;
}

/* random accesses: one value gathered per 100 elements of the whole gradient, at a random
 * offset in each stride, in index order (what a 1% sparse payload gathers) */
static double ref_gathers_s(const float *g, size_t n, uint32_t *idx, size_t *count)
{
    gc_rng r;
    gc_rng_seed(&r, 5);
    size_t m = 0;
    for (size_t i = 0; i + 100 <= n; i += 100)
        idx[m++] = (uint32_t)(i + gc_rng_below(&r, 100));
    double acc = 0, t0 = bench_now_s();
    for (size_t j = 0; j < m; j++)
        acc += g[idx[j]];
    double t = bench_now_s() - t0;
    bench_sink = acc;
    *count = m;
    return t;
}

static double best_of(double a, double b) { return a < b ? a : b; }

/* This core's rates, each the best of runs + 1. Returns 0, or 2 when out of memory. */
static int bench_cpu_rates(const bench_setup *b, gcsim_codec_rates *r)
{
    size_t n = b->n;
    float *x = malloc(512 * sizeof *x);
    uint32_t *tmp = malloc(1024 * sizeof *tmp + 16), *idx = malloc((n / 100 + 16384 + 1) *
                                                                 sizeof *idx);
    if (!x || !tmp || !idx || n < 16384) {
        free(x), free(tmp), free(idx);
        fprintf(stderr, "bench: out of memory, or fewer than 16,384 elements\n");
        return 2;
    }
    double ch = 1e30, st = 1e30, dr = 1e30, sd = 1e30, fl = 1e30, so = 1e30, se = 1e30, ga = 1e30;
    size_t nd = n, nsd = n / 64, nfl = 2 * n, nso = n / 4, nse = n, nga = 0;
    for (int k = 0; k < b->runs + 1; k++) {
        st = best_of(st, ref_stream_s(b));
        ch = best_of(ch, ref_chained_s(b->g, n / 4));
        dr = best_of(dr, ref_draws_s(nd));
        sd = best_of(sd, ref_scalar_draws_s(nsd, n));
        fl = best_of(fl, ref_flops_s(b->g, nfl));
        so = best_of(so, ref_sorted_s(b->g, nso, x, tmp));
        se = best_of(se, ref_serial_s(b->g, nse, idx));
        ga = best_of(ga, ref_gathers_s(b->g, n, idx, &nga));
    }
    free(x), free(tmp), free(idx);
    r->launch_s = 0; /* one thread calls its loops directly */
    r->mem_Bps = 8.0 * (double)n / st;
    r->draws_per_s = (double)nd / dr;
    r->scalar_draws_per_s = (double)nsd / sd;
    r->flops = (double)nfl / fl;
    r->sorted_per_s = (double)(nso / 512 * 512) / so;
    r->serial_per_s = (double)nse / se;
    r->chained_per_s = (double)(n / 4 / 16384 * 16384 + (n / 4 % 16384 ? 16384 : 0)) / ch;
    r->gathers_per_s = (double)nga / ga;
    r->line_elems = 16; /* 64-byte cache lines (x86-64, ARMv8 server cores) */
    r->input_check = true; /* the library's NaN/Inf pass runs here */
    return 0;
}

#endif
