/* fp16 / bf16 conversions against a reference: the nearest representable value, ties to
 * even, |x| >= 65520 to Inf (IEEE binary16), checked on 2^20 random bit patterns plus every
 * half and the boundaries; every finite half survives fp16 -> fp32 -> fp16. */
#include <math.h>

#include "../check.h"
#include "tutil.h"

static double half_value(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : ldexp(1024 + m, e - 25);
    return (h & 0x8000) ? -v : v;
}

/* reference: binary search among positive finite halves 0x0000..0x7bff (monotone in bits) */
static uint16_t ref_f16(float f)
{
    double a = fabs((double)f);
    uint16_t sign = signbit(f) ? 0x8000 : 0;
    if (a >= 65520.0)
        return sign | 0x7c00;
    unsigned lo = 0, hi = 0x7bff; /* largest h with value <= a */
    while (lo < hi) {
        unsigned mid = (lo + hi + 1) / 2;
        if (half_value((uint16_t)mid) <= a)
            lo = mid;
        else
            hi = mid - 1;
    }
    uint16_t h = (uint16_t)lo;
    if (h < 0x7bff) {
        double d0 = a - half_value(h), d1 = half_value((uint16_t)(h + 1)) - a;
        if (d1 < d0 || (d1 == d0 && (h & 1)))
            h++;
    }
    return sign | h;
}

static uint16_t encode_one(gc_compressor *c, float x, float *back)
{
    gc_bytes p = {0};
    char err[128];
    if (gc_compressor_encode(c, 0, &x, 1, NULL, &p, back, err, sizeof err) != 0) {
        fprintf(stderr, "encode(%a): %s\n", (double)x, err);
        CHECK(0);
        return 0;
    }
    uint16_t h = (uint16_t)(p.data[2] | p.data[3] << 8); /* after 2 header bytes */
    gc_bytes_free(&p);
    return h;
}

int main(void)
{
    gc_compressor *c = make("fp16"), *cb = make("bf16");
    /* bulk: 2^20 random finite floats in one tensor (the vectorized path), plus scaled
     * copies around the fp16 subnormal and overflow ranges */
    size_t n = (size_t)1 << 20;
    float *x = falloc(n), *q = falloc(n);
    gc_rng r;
    gc_rng_seed(&r, 4);
    for (size_t i = 0; i < n; i++) {
        uint32_t u;
        do {
            u = (uint32_t)gc_rng_next(&r);
            if (i % 4 == 1) /* exponents of fp16 subnormals and small normals */
                u = (u & 0x807fffffu) | ((uint32_t)(101 + gc_rng_below(&r, 14)) << 23);
            if (i % 4 == 2) /* near the top of the fp16 range */
                u = (u & 0x807fffffu) | ((uint32_t)(140 + gc_rng_below(&r, 4)) << 23);
        } while ((u & 0x7f800000u) == 0x7f800000u);
        memcpy(&x[i], &u, 4);
    }
    x[0] = 65504.0f, x[4] = 65519.99f, x[8] = 65520.0f, x[12] = -5.9604645e-08f;
    x[16] = 2.9802322e-08f; /* half the smallest subnormal: ties to even -> 0 */
    x[20] = 2.9802326e-08f; /* just above: rounds up to the smallest subnormal */
    x[24] = 6.1035156e-05f; /* smallest normal */
    gc_bytes p = {0};
    char err[128];
    CHECK(gc_compressor_encode(c, 0, x, n, NULL, &p, q, err, sizeof err) == 0);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        uint16_t h = (uint16_t)(p.data[4 + 2 * i] | p.data[5 + 2 * i] << 8); /* header 1 + 3 */
        uint16_t want = ref_f16(x[i]);
        if (h != want && bad++ < 5)
            fprintf(stderr, "fp16(%a) = %04x, reference %04x\n", (double)x[i], h, want);
        double back = half_value(want);
        if ((want & 0x7c00) != 0x7c00 && (double)q[i] != back && bad++ < 5)
            fprintf(stderr, "decoded fp16 %04x = %a, reference %a\n", want, (double)q[i], back);
    }
    CHECK(bad == 0);
    /* every finite half: fp16 -> fp32 (exact) -> fp16 gives the same bits */
    for (unsigned h = 0; h < 65536; h++) {
        if ((h & 0x7c00) == 0x7c00)
            continue;
        float f = (float)half_value((uint16_t)h), back;
        uint16_t again = encode_one(c, f, &back);
        if (again != h && !(h == 0x8000 && again == 0x8000))
            CHECK(again == h);
        CHECK(back == f);
    }
    /* bf16: top 16 bits rounded to nearest even */
    float y[4] = {1.0f, 1.00390625f /* tie, even down */, 1.01171875f /* tie, odd up */,
                  3.0e38f};
    float yq[4];
    CHECK(gc_compressor_encode(cb, 0, y, 4, NULL, &p, yq, err, sizeof err) == 0);
    CHECK(yq[0] == 1.0f && yq[1] == 1.0f && yq[2] == 1.015625f);
    CHECK_REL(yq[3], 3.0e38, 4e-3);
    gc_bytes_free(&p);
    gc_compressor_free(c);
    gc_compressor_free(cb);
    free(x), free(q);
    CHECK_DONE();
}
