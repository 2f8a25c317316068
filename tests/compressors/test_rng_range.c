/* tests/compressors/test_rng_range.c: gc_rng_below_range (compressors/rng.h) against
 * gc_rng_below: the same values and the same stream afterwards, for bounds at every
 * power of two and its neighbours (where the rejection limit and the remainder's rounding
 * change), 1, UINT64_MAX and random ones; and the remainder formula alone against % on
 * words near the top and bottom of the range (rejection never passes those to it). */
#include <stdint.h>
#include <stdio.h>

#include "rng.h"

static int failures;

static void same_draws(uint64_t bound, int draws)
{
    gc_rng a, b;
    gc_rng_seed(&a, bound ^ 12345);
    gc_rng_seed(&b, bound ^ 12345);
    gc_rng_range g;
    gc_rng_range_init(&g, bound);
    for (int i = 0; i < draws; i++) {
        uint64_t x = gc_rng_below(&a, bound), y = gc_rng_below_range(&b, &g);
        if (x != y) {
            fprintf(stderr, "bound %llu draw %d: %llu != %llu\n", (unsigned long long)bound, i,
                    (unsigned long long)x, (unsigned long long)y);
            failures++;
            return;
        }
    }
    if (gc_rng_next(&a) != gc_rng_next(&b)) {
        fprintf(stderr, "bound %llu: streams diverged\n", (unsigned long long)bound);
        failures++;
    }
}

/* the remainder of the range's formula for word x (no rejection) */
static uint64_t rem(const gc_rng_range *g, uint64_t x)
{
    gc_u128 low = g->m * x;
    return (uint64_t)(((low >> 64) * g->bound + (((low & UINT64_MAX) * g->bound) >> 64)) >> 64);
}

int main(void)
{
    int bounds = 0;
    for (int k = 0; k < 64; k++)
        for (int d = -1; d <= 1; d++) {
            uint64_t bound = ((uint64_t)1 << k) + (uint64_t)(int64_t)d;
            if (bound == 0)
                continue;
            same_draws(bound, 2000);
            bounds++;
        }
    same_draws(UINT64_MAX, 2000);
    gc_rng r;
    gc_rng_seed(&r, 7);
    for (int i = 0; i < 2000; i++, bounds++) {
        uint64_t bound = gc_rng_next(&r) >> (gc_rng_next(&r) % 64);
        same_draws(bound ? bound : 1, 200);
    }
    /* the formula on the words rejection may or may not let through */
    const uint64_t words[] = {0, 1, 2, UINT64_MAX, UINT64_MAX - 1, (uint64_t)1 << 63,
                              ((uint64_t)1 << 63) - 1, 0xFFFFFFFFu, 0x100000000u};
    for (int i = 0; i < 3000; i++) {
        uint64_t bound = gc_rng_next(&r) >> (i % 64);
        if (!bound)
            bound = 3;
        gc_rng_range g;
        gc_rng_range_init(&g, bound);
        for (size_t w = 0; w < sizeof words / sizeof *words; w++)
            if (rem(&g, words[w]) != words[w] % bound) {
                fprintf(stderr, "bound %llu word %llu: remainder wrong\n",
                        (unsigned long long)bound, (unsigned long long)words[w]);
                failures++;
            }
        uint64_t x = gc_rng_next(&r);
        if (rem(&g, x) != x % bound)
            failures++;
    }
    printf("%d bounds checked, %d failures\n", bounds, failures);
    return failures ? 1 : 0;
}
