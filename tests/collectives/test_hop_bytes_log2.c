/*
 * tests/collectives/test_hop_bytes_log2.c: a shared-scale payload's hop bytes
 * (gcsim_hop_bytes, hop_bytes.c), whose log2(2k + 1) comes from a table for whole k below
 * 4096 (issue 47), against the rule written out with libm's log2: the same doubles, bit
 * for bit, for every whole k from 0 to 5000 (both sides of the table's end), halves and a
 * few fractions, and a payload the dense size caps. And every aggregation class, compressed
 * or not, with and without uncompressed layers, a payload above its dense size and an empty
 * one, against gcsim_hop_bytes's rule as it read before the rule was taken apart once per
 * bucket (hop_rule.h, issue 47): the same doubles, bit for bit.
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

/* gcsim_hop_bytes as one function with its switch (hop_bytes.c at d3df8fd). */
static double rule_switch(const gcsim_bucket_bytes *b, double k)
{
    double fixed = b->fixed_bytes;
    double packed = b->payload_bytes - fixed, dense = b->dense_bytes - fixed, v = packed;
    if (k < 1)
        k = 1;
    if (b->compressed && packed > 0) {
        switch (b->aggregation) {
        case PAYLOAD_SHARED_SCALE:
            v = packed * fmax(1.0, log2(2.0 * k + 1.0) / 2.0);
            break;
        case PAYLOAD_SPARSE:
            v = packed * k;
            break;
        case PAYLOAD_DENSE_SUMMABLE:
        case PAYLOAD_PER_WORKER_SCALE:
            break;
        }
        if (v > dense)
            v = dense;
    }
    return v + fixed;
}

/* Every class and shape of bucket at k = -1, 0, 0.5, 1 .. 300 and a few large k; returns
 * how many hop sizes differ from rule_switch. */
static int every_class(int *checked)
{
    const gcsim_payload_aggregation agg[] = {PAYLOAD_DENSE_SUMMABLE, PAYLOAD_SHARED_SCALE,
                                             PAYLOAD_SPARSE, PAYLOAD_PER_WORKER_SCALE};
    /* dense, payload, fixed: compressed 1:16, with fp32 layers, above dense, none */
    const double shape[][3] = {{4e9, 2.5e8, 0}, {4e9, 2.5e8 + 3e5, 3e5}, {1e6, 2e6, 0},
                               {1e6, 0, 0}, {1e6, 3e5, 3e5}, {8e6, 8e3 + 1, 1}};
    const double big[] = {-1, 0, 0.5, 1e3, 4095.5, 4096, 1e5, 1e9};
    int differ = 0;
    for (int a = 0; a < 4; a++)
        for (int sh = 0; sh < 6; sh++)
            for (int cmp = 0; cmp < 2; cmp++) {
                gcsim_bucket_bytes b = {.dense_bytes = shape[sh][0],
                                        .payload_bytes = shape[sh][1],
                                        .fixed_bytes = shape[sh][2], .aggregation = agg[a],
                                        .compressed = cmp};
                for (int k = 1; k <= 300 + 8; k++, (*checked)++) {
                    double kk = k <= 300 ? k : big[k - 301];
                    if (gcsim_hop_bytes(&b, kk) != rule_switch(&b, kk))
                        differ++;
                }
            }
    return differ;
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
    CHECK(every_class(&checked) == 0);
    /* and what the classes say in plain numbers: sparse 5 x 8,001 bytes at k = 5, capped at
     * dense 8e6 - 1 beyond it (+ 1 fixed); per-worker scale the payload whatever k */
    gcsim_bucket_bytes sp = {.dense_bytes = 8e6, .payload_bytes = 8e3 + 1, .fixed_bytes = 1,
                             .aggregation = PAYLOAD_SPARSE, .compressed = true};
    CHECK(gcsim_hop_bytes(&sp, 5) == 5 * 8e3 + 1);
    CHECK(gcsim_hop_bytes(&sp, 2000) == 8e6);
    sp.aggregation = PAYLOAD_PER_WORKER_SCALE;
    CHECK(gcsim_hop_bytes(&sp, 2000) == 8e3 + 1);
    printf("%d hop sizes compared\n", checked);
    CHECK_DONE();
}
