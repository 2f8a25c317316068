/* Exact top-k on tensors large enough (>= 65,536 elements) for topk's one-pass filtered
 * selection (c_sparse.c, filtered_topk): the indices sent must be exactly those of a
 * brute-force reference (sort by |g| descending, ties by lower index, zeros never sent),
 * whether the sampled threshold holds or the selection falls back to the full histograms
 * (a gradient whose large values all sit where the stride sample looks), with heavy ties,
 * with fewer non-zeros than k, and NaN/Inf must still be refused (issue 28). */
#include <math.h>

#include "../check.h"
#include "tutil.h"

enum { N = 200003 }; /* sample stride (N / 65536) | 1 = 3, positions 1, 4, 7, ... */

static const float *g_ref; /* the gradient the comparator reads */

static int by_mag_then_index(const void *a, const void *b)
{
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    float x = fabsf(g_ref[i]), y = fabsf(g_ref[j]);
    if (x != y)
        return x > y ? -1 : 1;
    return i < j ? -1 : 1;
}
static int by_index(const void *a, const void *b)
{
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    return i < j ? -1 : i > j;
}

/* The reference selection of k among g's non-zeros, ascending; returns the count. */
static size_t reference(const float *g, size_t k, uint32_t *sel)
{
    uint32_t *order = malloc(N * sizeof *order);
    for (uint32_t i = 0; i < N; i++)
        order[i] = i;
    g_ref = g;
    qsort(order, N, sizeof *order, by_mag_then_index);
    size_t c = 0;
    for (size_t j = 0; j < k && g[order[j]] != 0; j++)
        sel[c++] = order[j];
    free(order);
    qsort(sel, c, sizeof *sel, by_index);
    return c;
}

/* Encodes g with spec (code=pairs) and compares the pairs with the reference. */
static void check_same(const char *what, const char *spec, const float *g, size_t k)
{
    uint32_t *sel = malloc(N * sizeof *sel);
    size_t c = reference(g, k, sel);
    gc_compressor *cmp = make(spec);
    gc_bytes p = {0};
    char err[256];
    gc_rng rng;
    gc_rng_seed(&rng, 5);
    int ok = gc_compressor_encode(cmp, 0, g, N, &rng, &p, NULL, err, sizeof err) == 0;
    CHECK(ok);
    /* header: id, uleb(N) (3 bytes), uleb(count), then count x (u32 index, f32 value) */
    size_t at = 4, cnt = 0;
    for (int shift = 0; ok && at < p.len; shift += 7) {
        cnt |= (size_t)(p.data[at] & 0x7f) << shift;
        if (!(p.data[at++] & 0x80))
            break;
    }
    int same = ok && cnt == c && p.len == at + 8 * c;
    for (size_t j = 0; same && j < c; j++) {
        uint32_t i;
        float v;
        memcpy(&i, p.data + at + 8 * j, 4);
        memcpy(&v, p.data + at + 8 * j + 4, 4);
        same = i == sel[j] && v == g[i];
    }
    if (!same)
        fprintf(stderr, "%s (%s): selection differs from the reference (%zu sent, %zu expected)\n",
                what, spec, cnt, c);
    CHECK(same);
    gc_bytes_free(&p);
    gc_compressor_free(cmp);
    free(sel);
}

int main(void)
{
    float *g = falloc(N);
    /* gradient-like values: the sampled threshold holds */
    fill_grad(g, N, 31);
    check_same("normal", "topk", g, 200); /* k = round(0.001 N) */
    check_same("normal", "topk:ratio=0.01", g, 2000);
    check_same("normal", "topk:ratio=0.3", g, 60001); /* too large for the sample */
    /* heavy ties: 7 magnitudes, the k-th largest shared by thousands of elements */
    for (size_t i = 0; i < N; i++)
        g[i] = (float)((int)(i * 2654435761u % 7) - 3) * 0.25f;
    check_same("ties", "topk:ratio=0.05", g, 10000);
    check_same("ties", "topk", g, 200);
    /* large values only at the sampled positions (1, 4, 7, ...): the threshold from the
     * sample is too high, fewer than k pass it, the full histograms select */
    for (size_t i = 0; i < N; i++)
        g[i] = (i % 3 == 1 ? 1.0f : 1e-3f) * (float)(1 + (i * 40503u) % 1000);
    check_same("aliased", "topk", g, 200);
    check_same("aliased", "topk:ratio=0.01", g, 2000);
    /* fewer non-zeros than k: every non-zero is sent, no zero */
    memset(g, 0, N * sizeof *g);
    for (size_t i = 0; i < 150; i++)
        g[(i * 1327) % N] = (float)(i + 1) * (i % 2 ? -1.0f : 1.0f);
    check_same("sparse", "topk", g, 200);
    /* NaN and Inf refused, by the filtered pass and by the full-histogram path */
    const char *specs[] = {"topk", "topk:ratio=0.3", "topk:sample=0.01"};
    for (size_t s = 0; s < 3; s++) {
        fill_grad(g, N, 32);
        g[N - 5] = s == 1 ? INFINITY : NAN;
        gc_compressor *c = make(specs[s]);
        gc_bytes p = {0};
        char err[256] = "";
        gc_rng rng;
        gc_rng_seed(&rng, 5);
        CHECK(gc_compressor_encode(c, 0, g, N, &rng, &p, NULL, err, sizeof err) != 0);
        CHECK_STR_CONTAINS(err, "gradient element 199998 is");
        gc_bytes_free(&p);
        gc_compressor_free(c);
    }
    free(g);
    CHECK_DONE();
}
