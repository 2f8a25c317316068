/* tests/compressors/tutil.h: helpers shared by the compressor tests. */
#ifndef GCSIM_TESTS_COMPRESSORS_TUTIL_H
#define GCSIM_TESTS_COMPRESSORS_TUTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compressor.h"
#include "rng.h"

/* A gradient-like vector: normal values with scale that varies by block, some exact zeros. */
static inline void fill_grad(float *g, size_t n, uint64_t seed)
{
    gc_rng r;
    gc_rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) {
        double scale = 1e-3 * (1 + (double)((i / 97) % 5));
        g[i] = (float)(gc_rng_normal(&r) * scale);
        if (i % 13 == 7)
            g[i] = 0.0f;
    }
}

static inline gc_compressor *make(const char *spec)
{
    gc_compressor *c = NULL;
    char err[256];
    if (gc_compressor_create(spec, &c, err, sizeof err) != 0) {
        fprintf(stderr, "create(%s): %s\n", spec, err);
        exit(1);
    }
    return c;
}

static inline float *falloc(size_t n) { return (float *)calloc(n ? n : 1, sizeof(float)); }

#endif
