/*
 * tests/collectives/test_hop_bytes_log2.c: a shared-scale payload's hop bytes
 * (gcsim_hop_bytes, hop_bytes.c), whose log2(2k + 1) comes from a table for whole k below
 * 4096 (issue 47), against the rule written out with libm's log2: the same doubles, bit
 * for bit, for every whole k from 0 to 5000 (both sides of the table's end), halves and a
 * few fractions, and a payload the dense size caps.
 */
#include <math.h>
#include <stdio.h>

#include "../check.h"
#include "collectives.h"

static double rule(const gcsim_bucket_bytes *b, double k)
{
    double fixed = b->fixed_bytes, packed = b->payload_bytes - fixed;
    double dense = b->dense_bytes - fixed;
    if (k < 1)
        k = 1;
    double v = packed * fmax(1.0, log2(2.0 * k + 1.0) / 2.0);
    return (v > dense ? dense : v) + fixed;
}

int main(void)
{
    gcsim_bucket_bytes b = {.dense_bytes = 4e9, .payload_bytes = 1.25e8 + 3e5,
                            .fixed_bytes = 3e5, .aggregation = PAYLOAD_SHARED_SCALE,
                            .compressed = true};
    int differ = 0, checked = 0;
    for (int k = 0; k <= 5000; k++) {
        const double ks[] = {k, k + 0.5, k + 0.125};
        for (int i = 0; i < 3; i++, checked++)
            if (gcsim_hop_bytes(&b, ks[i]) != rule(&b, ks[i]))
                differ++;
    }
    CHECK(differ == 0);
    /* the values themselves: k = 1 gives log2(3) / 2 < 1, so the payload as it is; k = 4095
     * gives log2(8191) / 2 = 6.4998...; the dense size caps a large k */
    CHECK(gcsim_hop_bytes(&b, 1) == 1.25e8 + 3e5);
    CHECK_REL(gcsim_hop_bytes(&b, 4095), 1.25e8 * log2(8191.0) / 2 + 3e5, 1e-15);
    b.dense_bytes = 2e8;
    CHECK(gcsim_hop_bytes(&b, 4000) == 2e8);
    printf("%d hop sizes compared\n", checked);
    CHECK_DONE();
}
