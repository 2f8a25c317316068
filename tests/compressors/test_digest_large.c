/* Payload and reconstruction digests of the sparsifiers on tensors of >= 65,536 elements,
 * where topk selects with one filtering pass and DGC fuses its momentum correction, sample
 * and count into one pass (c_sparse.c, issue 28): the bytes must be those the library gave
 * before those passes were fused. The table below was recorded with this file's --print
 * from the library at commit 2295174 (separate passes), 5 steps each, on two gradients:
 * gradient-like values (fill_grad) and one whose large values all sit in the 256 runs DGC's
 * provisional threshold is estimated from (so that it is too high and the selection must
 * count over v again). */
#include <inttypes.h>
#include <math.h>

#include "../check.h"
#include "tutil.h"

typedef struct {
    const char *spec;
    int grad; /* 0: fill_grad, 1: large values in DGC's estimation runs */
    uint64_t payload, quantized;
} pinned;

static const pinned table[] = {
#include "digest_large_table.inc"
};
#define NPINNED (sizeof table / sizeof table[0])

enum { N = 200003, STEPS = 5 };

static uint64_t fnv1a(uint64_t h, const void *p, size_t len)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < len; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static void fill(float *g, int grad, uint64_t seed)
{
    fill_grad(g, N, seed);
    if (grad == 1) /* runs of 64 every N / 256 elements, as dgc_fused reads them */
        for (size_t i = 0; i < N; i++)
            if (i % (N / 256) >= 64)
                g[i] *= 1e-3f;
}

int main(int argc, char **argv)
{
    int print = argc > 1 && !strcmp(argv[1], "--print");
    static const char *const specs[] = {
        "dgc", "dgc:code=pairs", "dgc:ratio=0.01", "dgc:ratio=0.1", "dgc:sample=0.001",
        "dgc:mask=0,momentum=0.5", "dgc:warmup_steps=1,clip_norm=0.01,workers=4",
        "dgc:sample=0", "topk", "topk:ratio=0.01", "topk:ratio=0.2", "topk:sample=0.01",
        "topk:code=rle", "ef+topk:ratio=0.01",
    };
    size_t nspecs = sizeof specs / sizeof *specs;
    float *g = falloc(N), *q = falloc(N);
    char err[256];
    size_t row = 0;
    for (int grad = 0; grad < 2; grad++)
        for (size_t s = 0; s < nspecs; s++, row++) {
            gc_compressor *c = make(specs[s]);
            gc_rng rng;
            gc_rng_seed(&rng, 11);
            gc_bytes p = {0};
            uint64_t hp = 0xcbf29ce484222325ull, hq = hp;
            for (int step = 0; step < STEPS; step++) {
                fill(g, grad, 100 + (uint64_t)step);
                if (gc_compressor_encode(c, 0, g, N, &rng, &p, q, err, sizeof err) != 0) {
                    fprintf(stderr, "%s: %s\n", specs[s], err);
                    return 1;
                }
                hp = fnv1a(hp, p.data, p.len);
                hq = fnv1a(hq, q, N * sizeof *q);
                gc_compressor_next_step(c);
            }
            if (print)
                printf("    {\"%s\", %d, 0x%016" PRIx64 "ull, 0x%016" PRIx64 "ull},\n", specs[s],
                       grad, hp, hq);
            else if (row >= NPINNED || strcmp(table[row].spec, specs[s]) ||
                     table[row].grad != grad) {
                fprintf(stderr, "table row %zu is not %s on gradient %d\n", row, specs[s], grad);
                CHECK(0);
            } else {
                CHECK(hp == table[row].payload);
                CHECK(hq == table[row].quantized);
                if (hp != table[row].payload || hq != table[row].quantized)
                    fprintf(stderr, "  %s (gradient %d): payload %016" PRIx64
                            ", reconstruction %016" PRIx64 "\n", specs[s], grad, hp, hq);
            }
            gc_bytes_free(&p);
            gc_compressor_free(c);
        }
    free(g);
    free(q);
    if (print)
        return 0;
    CHECK(row == NPINNED);
    CHECK_DONE();
}
