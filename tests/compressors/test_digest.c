/* Payload and reconstruction digests pinned across builds: every compressor encodes the same
 * gradient (20,011 elements, 3 steps so that stateful ones use their state) and the FNV-1a
 * 64-bit hash of the payload bytes and of the reconstruction's bits must equal the values
 * below, which were recorded from the RelWithDebInfo (-O2) build. The Release (-O3) build,
 * the AVX2 and baseline variants of the hot loops and any rewrite of a loop must give the
 * same bytes: the hot loops promise the same IEEE operations in the same order (issue 28). */
#include <inttypes.h>

#include "../check.h"
#include "tutil.h"

typedef struct {
    const char *spec;
    uint64_t payload, quantized; /* FNV-1a 64 over the 3 steps */
} pinned;

static const pinned table[] = {
#include "digest_table.inc"
};
#define NPINNED (sizeof table / sizeof table[0])

static uint64_t fnv1a(uint64_t h, const void *p, size_t len)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < len; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

int main(int argc, char **argv)
{
    /* --print writes the table (used once, to record it from the -O2 build) */
    int print = argc > 1 && !strcmp(argv[1], "--print");
    enum { N = 20011, STEPS = 3 };
    float *g = falloc(N), *q = falloc(N);
    char err[256];
    for (size_t s = 0; s < NPINNED; s++) {
        gc_compressor *c = make(table[s].spec);
        gc_rng rng;
        gc_rng_seed(&rng, 11);
        gc_bytes p = {0};
        uint64_t hp = 0xcbf29ce484222325ull, hq = hp;
        for (int step = 0; step < STEPS; step++) {
            fill_grad(g, N, 100 + (uint64_t)step);
            if (gc_compressor_encode(c, 0, g, N, &rng, &p, q, err, sizeof err) != 0) {
                fprintf(stderr, "%s: %s\n", table[s].spec, err);
                return 1;
            }
            hp = fnv1a(hp, p.data, p.len);
            hq = fnv1a(hq, q, N * sizeof *q);
            gc_compressor_next_step(c);
        }
        if (print)
            printf("    {\"%s\", 0x%016" PRIx64 "ull, 0x%016" PRIx64 "ull},\n", table[s].spec, hp,
                   hq);
        else {
            CHECK(hp == table[s].payload);
            CHECK(hq == table[s].quantized);
            if (hp != table[s].payload || hq != table[s].quantized)
                fprintf(stderr, "  %s: payload %016" PRIx64 ", reconstruction %016" PRIx64 "\n",
                        table[s].spec, hp, hq);
        }
        gc_bytes_free(&p);
        gc_compressor_free(c);
    }
    free(g);
    free(q);
    if (print)
        return 0;
    CHECK_DONE();
}
