/* Every compressor: decode(encode(x)) equals the encoder's reconstruction bit for bit, on
 * sizes 0, 1, 3, 4, 1000, 4097 and a multi-bucket size, over several steps for stateful
 * ones; fixed-width payload sizes agree with gc_compressor_fixed_payload_bytes; the same
 * seed gives the same bytes; an all-zero gradient gives a zero reconstruction. */
#include <math.h>

#include "../check.h"
#include "tutil.h"

static const char *const specs[] = {
    "none", "fp16", "bf16",
    "terngrad", "terngrad:clip=0", "terngrad:bucket=512", "terngrad:min_size=100",
    "qsgd", "qsgd:s=1", "qsgd:s=7,norm=linf", "qsgd:code=elias", "qsgd:s=2,bucket=0,code=elias",
    "qsgd:code=gamma", "qsgd:s=2,bucket=0,code=gamma", "qsgd:s=300,bucket=100,code=elias",
    "dgc", "dgc:code=pairs,sample=0", "dgc:warmup_steps=1,clip_norm=0.01,workers=4",
    "topk", "topk:ratio=0.01,code=rle", "topk:ratio=0.05,sample=0.05",
    "randomk", "randomk:ratio=0.1,code=rle", "threshold:thr=0.002", "threshold:thr=0.001,code=rle",
    "orq", "orq:s=5", "orq:s=9,bucket=100", "linear", "linear:s=5",
    "bingrad-b", "bingrad-pb", "bingrad-b:bucket=0", "signsgd", "signsgd:bucket=512",
    "onebit", "ecq", "ecq:norm=linf,code=elias,alpha=0.1,beta=0.9",
    "ecq:code=gamma",
    "ef+qsgd:s=2", "ef+topk:ratio=0.01", "ef+signsgd",
    "powersgd", "powersgd:rank=2", "powersgd:rank=3,cols=50",
};
#define NSPECS (sizeof specs / sizeof specs[0])

/* 3 full buckets of 512 plus a partial one */
static const size_t sizes[] = {0, 1, 3, 4, 1000, 4097, 3 * 512 + 17};
#define NSIZES (sizeof sizes / sizeof sizes[0])

int main(void)
{
    size_t maxn = 4097;
    float *g = falloc(maxn), *q = falloc(maxn), *d = falloc(maxn), *q2 = falloc(maxn);
    char err[256];
    for (size_t si = 0; si < NSPECS; si++) {
        for (size_t ni = 0; ni < NSIZES; ni++) {
            size_t n = sizes[ni];
            gc_compressor *c = make(specs[si]);
            gc_compressor *c2 = make(specs[si]);
            gc_rng rng, rng2;
            gc_rng_seed(&rng, 42);
            gc_rng_seed(&rng2, 42);
            gc_bytes p = {0}, p2 = {0};
            for (int step = 0; step < 3; step++) {
                fill_grad(g, n, 1000 + (uint64_t)step * 7 + n);
                int rc = gc_compressor_encode(c, 0, g, n, &rng, &p, q, err, sizeof err);
                if (rc != 0)
                    fprintf(stderr, "%s n=%zu: %s\n", specs[si], n, err);
                CHECK(rc == 0);
                /* decode reproduces the quantized vector bit for bit */
                for (size_t i = 0; i < n; i++)
                    d[i] = NAN;
                rc = gc_compressor_decode(c, p.data, p.len, d, n, err, sizeof err);
                if (rc != 0)
                    fprintf(stderr, "%s n=%zu decode: %s\n", specs[si], n, err);
                CHECK(rc == 0);
                if (n && memcmp(d, q, n * sizeof *q) != 0) {
                    fprintf(stderr, "%s n=%zu step %d: decode differs from quantized\n",
                            specs[si], n, step);
                    CHECK(0);
                }
                /* fixed-width formats: the predicted size is the real size */
                size_t fixed;
                if (gc_compressor_fixed_payload_bytes(c, n, &fixed) && fixed != p.len) {
                    fprintf(stderr, "%s n=%zu: fixed size %zu, real %zu\n", specs[si], n, fixed,
                            p.len);
                    CHECK(0);
                }
                /* header: format id byte then n as LEB128 */
                CHECK(p.len >= gc_payload_header_bytes(n));
                /* same seed, same state history -> same bytes */
                rc = gc_compressor_encode(c2, 0, g, n, &rng2, &p2, NULL, err, sizeof err);
                CHECK(rc == 0);
                CHECK(p2.len == p.len && (p.len == 0 || memcmp(p.data, p2.data, p.len) == 0));
                gc_compressor_next_step(c);
                gc_compressor_next_step(c2);
            }
            /* all-zero gradient on a fresh state: no division by zero, zero reconstruction */
            gc_compressor_reset(c);
            memset(g, 0, n * sizeof *g);
            for (size_t i = 0; i < n; i++)
                q[i] = NAN;
            CHECK(gc_compressor_encode(c, 0, g, n, &rng, &p, q, err, sizeof err) == 0);
            for (size_t i = 0; i < n; i++)
                if (q[i] != 0.0f) {
                    fprintf(stderr, "%s n=%zu: zero gradient gave q[%zu] = %g\n", specs[si], n,
                            i, (double)q[i]);
                    CHECK(0);
                    break;
                }
            CHECK(gc_compressor_decode(c, p.data, p.len, q2, n, err, sizeof err) == 0);
            CHECK(n == 0 || memcmp(q, q2, n * sizeof *q) == 0);
            gc_bytes_free(&p);
            gc_bytes_free(&p2);
            gc_compressor_free(c);
            gc_compressor_free(c2);
        }
    }
    /* every registered name is covered above */
    for (const char *const *nm = gc_compressor_names(); *nm; nm++) {
        int found = 0;
        for (size_t si = 0; si < NSPECS; si++)
            found |= strncmp(specs[si], *nm, strlen(*nm)) == 0 &&
                     (specs[si][strlen(*nm)] == 0 || specs[si][strlen(*nm)] == ':');
        if (!found)
            fprintf(stderr, "compressor %s is not round-trip tested\n", *nm);
        CHECK(found);
    }
    free(g), free(q), free(d), free(q2);
    CHECK_DONE();
}
