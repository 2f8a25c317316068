/* PowerSGD's payloads pinned over the shapes its row loops treat differently (issue 47:
 * the encoder's loops were rewritten in blocks, rank-major, four rows of M^T P per pass, M
 * and the residual in e's own array; every float must stay the same). Each case encodes 4
 * steps, asking for the reconstruction on steps 1 and 3 only, so that the residual written
 * in one pass (no reconstruction asked: steps 0 and 2) feeds the next step's payload too.
 * The FNV-1a 64 hashes of the payloads and of the decoded values were recorded from the
 * library before the rewrite (commit 9851dbc, RelWithDebInfo) with --print. Also checked:
 * the reconstruction the encoder returns is bit for bit what decoding gives.
 *
 * Shapes: default ones (cols = ceil(sqrt(n)), a short last row), an explicit one whose row
 * count is a multiple of 4 (every M^T P pass takes four full rows) and one that is not,
 * columns fewer than one 64-element block (cols=50) and not a multiple of it, ranks 1 to 7. */
#include <inttypes.h>

#include "../check.h"
#include "tutil.h"

typedef struct {
    const char *spec;
    size_t n, rows, cols; /* rows = 0: the default shape */
    uint64_t payload, decoded;
} pinned;

static const pinned table[] = {
    {"powersgd", 20011, 0, 0, 0xb839f7b0cd3ec97eull, 0x045080e5527426d6ull},
    {"powersgd:rank=2", 20011, 0, 0, 0x881d1755e6670920ull, 0x60313dfe1e1b0ac9ull},
    {"powersgd:rank=4", 65536, 0, 0, 0xd068dc8b628fdab6ull, 0x2da19ea6c9050ca9ull},
    {"powersgd:rank=4", 65536, 256, 256, 0xd068dc8b628fdab6ull, 0x2da19ea6c9050ca9ull},
    {"powersgd:rank=3", 65536, 128, 512, 0xd8db7292434f2695ull, 0xc4312498be4f3251ull},
    {"powersgd:rank=7", 30000, 150, 200, 0xab2b664f280af297ull, 0x22277b69817cd9ccull},
    {"powersgd:rank=1", 65537, 0, 0, 0x4a64996c3b939723ull, 0xc89dfdfbe9a082d0ull},
    {"powersgd:rank=3,cols=50", 20011, 0, 0, 0xa3912661f40d8ba3ull, 0x5432e38c475faea8ull},
    {"powersgd:rank=5,cols=333", 100003, 0, 0, 0xc8212fab0fdec2bcull, 0x2fbde42ca870e950ull},
    {"powersgd:rank=2,warm_start=0", 40000, 200, 200, 0x977f0b49ffd6d412ull, 0x9965d35a73985a3dull},
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
    int print = argc > 1 && !strcmp(argv[1], "--print");
    enum { STEPS = 4 };
    char err[256];
    for (size_t s = 0; s < NPINNED; s++) {
        const pinned *t = &table[s];
        gc_compressor *c = make(t->spec);
        if (t->rows && gc_compressor_set_shape(c, 0, t->rows, t->cols, err, sizeof err) != 0) {
            fprintf(stderr, "%s: %s\n", t->spec, err);
            return 1;
        }
        float *g = falloc(t->n), *q = falloc(t->n), *d = falloc(t->n);
        gc_rng rng;
        gc_rng_seed(&rng, 17);
        gc_bytes p = {0};
        uint64_t hp = 0xcbf29ce484222325ull, hd = hp;
        for (int step = 0; step < STEPS; step++) {
            fill_grad(g, t->n, 300 + (uint64_t)step);
            float *want = step % 2 ? q : NULL;
            if (gc_compressor_encode(c, 0, g, t->n, &rng, &p, want, err, sizeof err) != 0 ||
                gc_compressor_decode(c, p.data, p.len, d, t->n, err, sizeof err) != 0) {
                fprintf(stderr, "%s: %s\n", t->spec, err);
                return 1;
            }
            CHECK(p.len > 0 && p.data[gc_payload_header_bytes(t->n)] == 0); /* factors sent */
            if (want)
                CHECK(memcmp(q, d, t->n * sizeof *d) == 0);
            hp = fnv1a(hp, p.data, p.len);
            hd = fnv1a(hd, d, t->n * sizeof *d);
            gc_compressor_next_step(c);
        }
        if (print)
            printf("    {\"%s\", %zu, %zu, %zu, 0x%016" PRIx64 "ull, 0x%016" PRIx64 "ull},\n",
                   t->spec, t->n, t->rows, t->cols, hp, hd);
        else if (hp != t->payload || hd != t->decoded) {
            CHECK(hp == t->payload);
            CHECK(hd == t->decoded);
            fprintf(stderr, "  %s n=%zu %zux%zu: payload %016" PRIx64 ", decoded %016" PRIx64 "\n",
                    t->spec, t->n, t->rows, t->cols, hp, hd);
        }
        gc_bytes_free(&p);
        gc_compressor_free(c);
        free(g), free(q), free(d);
    }
    if (print)
        return 0;
    CHECK_DONE();
}
