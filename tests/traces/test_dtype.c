/* Half and bfloat16 conversions: hand-checked bit patterns and exhaustive round trips. */
#include <stdint.h>

#include "../check.h"
#include "traces.h"

int main(void)
{
    /* 1.0 = 0 01111 0000000000 (half), 0 01111111 0000000 (bfloat16). */
    CHECK(gc_trace_f32_to_f16(1.0f) == 0x3c00);
    CHECK(gc_trace_f32_to_bf16(1.0f) == 0x3f80);
    CHECK(gc_trace_f32_to_f16(-2.0f) == 0xc000);
    /* 65504 is the largest half (0x7bff); 65520 is halfway to 65536 and ties to even,
     * i.e. up to Inf; 65519 rounds down to 65504. */
    CHECK(gc_trace_f32_to_f16(65504.0f) == 0x7bff);
    CHECK(gc_trace_f32_to_f16(65520.0f) == 0x7c00);
    CHECK(gc_trace_f32_to_f16(65519.0f) == 0x7bff);
    /* 2^-24 is the smallest half subnormal (0x0001); 2^-25 ties to even, i.e. to 0;
     * 1.5 * 2^-25 rounds up to 0x0001. */
    CHECK(gc_trace_f32_to_f16(5.9604644775390625e-8f) == 0x0001);
    CHECK(gc_trace_f32_to_f16(2.98023223876953125e-8f) == 0x0000);
    CHECK(gc_trace_f32_to_f16(4.470348358154296875e-8f) == 0x0001);
    /* 0.1f = 0x3dcccccd; half mantissa 0x266 with remainder above half -> 0x2e66. */
    CHECK(gc_trace_f32_to_f16(0.1f) == 0x2e66);
    /* bfloat16 of 0x3f808000 is a tie: keep even 0x3f80; 0x3f818000 ties up to 0x3f82. */
    CHECK(gc_trace_f32_to_bf16(1.00390625f) == 0x3f80);
    CHECK(gc_trace_f32_to_bf16(1.01171875f) == 0x3f82);
    CHECK(gc_trace_bf16_to_f32(0xc040) == -3.0f);
    CHECK(gc_trace_f16_to_f32(0x0001) == 5.9604644775390625e-8f);
    CHECK(gc_trace_f16_to_f32(0x3555) == 0.333251953125f);
    /* Every finite half survives half -> float -> half exactly; same for bfloat16. */
    int bad_h = 0, bad_b = 0;
    for (uint32_t h = 0; h < 65536; h++) {
        if ((h & 0x7c00) != 0x7c00 && gc_trace_f32_to_f16(gc_trace_f16_to_f32((uint16_t)h)) != h)
            bad_h++;
        if ((h & 0x7f80) != 0x7f80 &&
            gc_trace_f32_to_bf16(gc_trace_bf16_to_f32((uint16_t)h)) != h)
            bad_b++;
    }
    CHECK(bad_h == 0);
    CHECK(bad_b == 0);
    /* Inf and NaN stay Inf and NaN. */
    CHECK(gc_trace_f32_to_f16(INFINITY) == 0x7c00);
    CHECK(isnan(gc_trace_f16_to_f32(gc_trace_f32_to_f16(NAN))));
    CHECK(isnan(gc_trace_bf16_to_f32(gc_trace_f32_to_bf16(NAN))));
    CHECK_DONE();
}
