/* compressors/select.c: radix sort of floats and exact k-th largest magnitude (radix
 * select), both O(n) in passes, used by ORQ/linear/BinGrad levels and top-k selection. */
#include <stdlib.h>

#include "internal.h"

/* Order-preserving map of a float's bits to an unsigned key. */
static inline uint32_t key_of(float f)
{
    uint32_t u = gc_f2u(f);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
static inline float float_of(uint32_t k)
{
    return gc_u2f((k & 0x80000000u) ? (k & 0x7fffffffu) : ~k);
}

void gc_sort_floats(float *x, size_t n, uint32_t *tmp)
{
    if (n < 2)
        return;
    if (n <= 32) {
        for (size_t i = 1; i < n; i++) {
            float v = x[i];
            size_t j = i;
            while (j > 0 && key_of(x[j - 1]) > key_of(v)) {
                x[j] = x[j - 1];
                j--;
            }
            x[j] = v;
        }
        return;
    }
    /* LSD radix sort on 8-bit digits of the ordered keys, ping-pong in tmp's halves; 32-bit
     * counts when they suffice (smaller tables to clear for the usual 512-element buckets) */
    uint32_t *a = tmp, *b = tmp + n;
    if (n <= 0xffffffffu) {
        uint32_t count[4][256];
        memset(count, 0, sizeof count);
        for (size_t i = 0; i < n; i++) {
            uint32_t k = key_of(x[i]);
            a[i] = k;
            count[0][k & 255]++;
            count[1][(k >> 8) & 255]++;
            count[2][(k >> 16) & 255]++;
            count[3][k >> 24]++;
        }
        for (int d = 0; d < 4; d++) {
            if (count[d][a[0] >> (8 * d) & 255] == n) /* every key agrees: no pass */
                continue;
            uint32_t sum = 0;
            for (int v = 0; v < 256; v++) {
                uint32_t c = count[d][v];
                count[d][v] = sum;
                sum += c;
            }
            for (size_t i = 0; i < n; i++) {
                uint32_t k = a[i];
                b[count[d][(k >> (8 * d)) & 255]++] = k;
            }
            uint32_t *t = a;
            a = b;
            b = t;
        }
    } else {
        size_t count[4][256];
        memset(count, 0, sizeof count);
        for (size_t i = 0; i < n; i++) {
            uint32_t k = key_of(x[i]);
            a[i] = k;
            count[0][k & 255]++;
            count[1][(k >> 8) & 255]++;
            count[2][(k >> 16) & 255]++;
            count[3][k >> 24]++;
        }
        for (int d = 0; d < 4; d++) {
            if (count[d][a[0] >> (8 * d) & 255] == n)
                continue;
            size_t sum = 0;
            for (int v = 0; v < 256; v++) {
                size_t c = count[d][v];
                count[d][v] = sum;
                sum += c;
            }
            for (size_t i = 0; i < n; i++) {
                uint32_t k = a[i];
                b[count[d][(k >> (8 * d)) & 255]++] = k;
            }
            uint32_t *t = a;
            a = b;
            b = t;
        }
    }
    for (size_t i = 0; i < n; i++)
        x[i] = float_of(a[i]);
}

uint32_t gc_kth_largest_abs_bits(const float *x, size_t n, size_t k, size_t *above_out)
{
    /* Pass 1: histogram of the top 16 bits of |x| (bits 30..15). */
    size_t *hist = calloc(65536, sizeof *hist);
    if (!hist) { /* out of memory: signalled by an impossible count */
        *above_out = SIZE_MAX;
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        hist[(gc_f2u(x[i]) & 0x7fffffffu) >> 15]++;
    size_t above = 0;
    uint32_t hi = 0;
    for (int b = 65535; b >= 0; b--) {
        if (above + hist[b] >= k) {
            hi = (uint32_t)b;
            break;
        }
        above += hist[b];
    }
    /* Pass 2: among values in bin hi, histogram the low 15 bits. */
    memset(hist, 0, 32768 * sizeof *hist);
    for (size_t i = 0; i < n; i++) {
        uint32_t a = gc_f2u(x[i]) & 0x7fffffffu;
        if ((a >> 15) == hi)
            hist[a & 32767]++;
    }
    uint32_t lo = 0;
    for (int b = 32767; b >= 0; b--) {
        if (above + hist[b] >= k) {
            lo = (uint32_t)b;
            break;
        }
        above += hist[b];
    }
    free(hist);
    *above_out = above;
    return hi << 15 | lo;
}
