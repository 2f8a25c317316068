/*
 * tests/des/test_des_collectives.c: every collective runs to completion on 4 nodes x 4 GPUs
 * and sends the number of messages its schedule implies (N = 16, j = 4 nodes, i = 4):
 *   ring            2 N (N-1)                         = 480
 *   halving-doubl.  N x 2 log2 N                      = 128
 *   tree            (N-1) up + (N-1) down             = 30
 *   double tree     two trees                         = 60
 *   hierarchical    j (i-1) up + 2 j (j-1) ring + j (i-1) down = 12 + 24 + 12 = 48
 *   parameter srv.  N x S pushes + N x S pulls, S = j  = 128
 *   all-gather      N (N-1)                           = 240
 *   terngrad        N log2 i intra + j copies + j log2 j network = 32 + 4 + 8 = 44
 * and, on one node, the two binary trees of a double tree finish sooner than one tree
 * carrying everything (each carries half the data over different links).
 */
#include <stdio.h>

#include "../check.h"
#include "des.h"
#include "des_test_platform.h"

int main(void)
{
    gcsim_platform p = des_test_platform(4, 4);
    gcsim_error err;
    const long long expected[COLLECTIVE_COUNT] = {
        [COLLECTIVE_TERNGRAD] = 44,          [COLLECTIVE_RING] = 480,
        [COLLECTIVE_HALVING_DOUBLING] = 128, [COLLECTIVE_TREE] = 30,
        [COLLECTIVE_DOUBLE_TREE] = 60,       [COLLECTIVE_HIERARCHICAL] = 48,
        [COLLECTIVE_PARAMETER_SERVER] = 128, [COLLECTIVE_ALLGATHER] = 240,
    };
    for (int c = 0; c < COLLECTIVE_COUNT; c++) {
        double t = 0;
        gcsim_des_details d = {0};
        int rc = gcsim_des_collective_time(&p, 16, (gcsim_collective)c, 1048576.0, 0, NULL, &t, &d, &err);
        CHECK(rc == 0);
        if (rc) {
            fprintf(stderr, "%s: %s\n", gcsim_collective_name((gcsim_collective)c), err.message);
            continue;
        }
        printf("%-18s %8.3f ms %5lld transfers\n", gcsim_collective_name((gcsim_collective)c),
               t * 1e3, d.transfers);
        CHECK(t > 0);
        CHECK(d.transfers == expected[c]);
        CHECK(d.n_buckets == 1 && d.buckets[0].exchange_end_s == t);
        gcsim_des_details_free(&d);
    }
    double one = 0, two = 0;
    CHECK(gcsim_des_collective_time(&p, 4, COLLECTIVE_TREE, 64e6, 0, NULL, &one, NULL, &err) == 0);
    CHECK(gcsim_des_collective_time(&p, 4, COLLECTIVE_DOUBLE_TREE, 64e6, 0, NULL, &two, NULL, &err) == 0);
    CHECK(two < one);
    CHECK_DONE();
}
