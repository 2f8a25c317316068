/*
 * bench/compressors/bench_setup.h: what both compressor benchmarks share: their command
 * line, the gradient they encode, the clock and the memcpy reference measured in the same
 * run. Thread CPU time, not wall time: on a shared machine a thread waits for a core; CPU
 * time (user + system, page faults included) does not.
 */
#ifndef GCSIM_BENCH_SETUP_H
#define GCSIM_BENCH_SETUP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compressor.h"

typedef struct {
    size_t n;              /* gradient elements */
    int runs;              /* timed runs (best of runs + 1, the first one warms up) */
    const char *specs[64];
    int nspecs;
    float *g, *out;        /* gradient ~ N(0, 1e-3) and a buffer of the same size */
} bench_setup;

static inline double bench_now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Parses [--n ELEMENTS] [--runs R] [SPEC ...] (default specs when none; R default_runs)
 * and fills the gradient. Returns 0, or prints why to stderr and returns 2 (the exit
 * status). */
static inline int bench_setup_init(bench_setup *b, int argc, char **argv, const char *prog,
                                   size_t default_n, int default_runs,
                                   const char *const *defaults, size_t n_defaults)
{
    memset(b, 0, sizeof *b);
    b->n = default_n;
    b->runs = default_runs;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--n") && i + 1 < argc)
            b->n = (size_t)strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            b->runs = atoi(argv[++i]);
        else if (b->nspecs < 64)
            b->specs[b->nspecs++] = argv[i];
    }
    if (b->runs < 1 || b->n == 0) {
        fprintf(stderr, "usage: %s [--n ELEMENTS] [--runs R] [SPEC ...]\n", prog);
        return 2;
    }
    if (!b->nspecs)
        for (size_t i = 0; i < n_defaults && i < 64; i++)
            b->specs[b->nspecs++] = defaults[i];
    b->g = malloc(b->n * sizeof *b->g);
    b->out = malloc(b->n * sizeof *b->out);
    if (!b->g || !b->out) {
        fprintf(stderr, "%s: out of memory for %zu elements\n", prog, b->n);
        return 2;
    }
    gc_rng rng;
    gc_rng_seed(&rng, 1);
    for (size_t i = 0; i < b->n; i++)
        b->g[i] = (float)(gc_rng_normal(&rng) * 1e-3);
    memset(b->out, 0, b->n * sizeof *b->out);
    return 0;
}

/* Best CPU seconds of runs + 1 memcpys of the gradient: the reference of both benches. */
static inline double bench_memcpy_s(const bench_setup *b)
{
    double best = 1e30;
    for (int r = 0; r < b->runs + 1; r++) {
        double t0 = bench_now_s();
        memcpy(b->out, b->g, b->n * sizeof *b->g);
        double t = bench_now_s() - t0;
        best = t < best ? t : best;
    }
    return best;
}

#endif
