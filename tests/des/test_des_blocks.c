/*
 * tests/des/test_des_blocks.c: the blocks a pipelined phase runs in (sim/des/des_blocks.c),
 * on a hand-built phase of 6 steps whose runs (a pair's consecutive stretches) are
 *   A 0->1 steps 0-5;  B 1->2 steps 0-2 then C 1->2 steps 3-5 (one run, 0-5);
 *   D 2->3 steps 2-5;  E 3->0 step 0.
 * The active runs change at steps 1 (E ends) and 2 (D starts): intervals [0], [1], [2-5].
 * A block grows while the runs active in only part of it are at most slack x the runs
 * active in any of it:
 *   [0]+[1]: 3 active (A, BC, E), 2 throughout (A, BC): grows when slack >= 1/3;
 *   [0]+[1]+[2-5]: 4 active, 2 throughout: grows when slack >= 1/2;
 *   [1]+[2-5]: 3 active (A, BC, D), 2 throughout: grows when slack >= 1/3.
 * So slack 0 and 0.3: [0] [1] [2-5]; 0.34: [0-1] [2-5]; 0.5 and 1: one block [0-5].
 */
#include <stdio.h>
#include <stdlib.h>

#include "../check.h"
#include "des_internal.h"

static void expect(const gcsim_phase *ph, double slack, const int *want, int n_want)
{
    int *b = NULL;
    int n = des_blocks_of(ph, slack, NULL, &b);
    CHECK(n == n_want);
    for (int k = 0; n == n_want && k <= n; k++)
        CHECK(b[k] == want[k]);
    if (n != n_want)
        fprintf(stderr, "slack %g: %d blocks, expected %d\n", slack, n, n_want);
    free(b);
}

int main(void)
{
    gcsim_flow flows[] = {
        {.src = 0, .dst = 1, .share = 0.25, .k0 = 1, .first_step = 0, .last_step = 5}, /* A */
        {.src = 1, .dst = 2, .share = 0.25, .k0 = 2, .first_step = 0, .last_step = 2}, /* B */
        {.src = 1, .dst = 2, .share = 0.5, .k0 = 2, .first_step = 3, .last_step = 5},  /* C */
        {.src = 2, .dst = 3, .share = 0.25, .k0 = 3, .first_step = 2, .last_step = 5}, /* D */
        {.src = 3, .dst = 0, .share = 0.25, .k0 = 4, .first_step = 0, .last_step = 0}, /* E */
    };
    gcsim_phase ph = {.name = "hand", .steps = 6, .n_flows = 5, .flows = flows};
    CHECK(des_same_run(&flows[1], &flows[2]));  /* B then C: one run */
    CHECK(!des_same_run(&flows[0], &flows[1])); /* another pair */
    CHECK(!des_same_run(&flows[2], &flows[1])); /* not the step after */
    const int three[] = {0, 1, 2, 6}, two[] = {0, 2, 6}, one[] = {0, 6};
    expect(&ph, 0, three, 3);
    expect(&ph, 0.3, three, 3);
    expect(&ph, 0.34, two, 2);
    expect(&ph, 0.5, one, 1);
    expect(&ph, 1, one, 1);
    /* a gap between a pair's stretches ends the run: B 0-1 and C 3-5 are two runs, and
     * step 2 (B not active) starts an interval of its own */
    flows[1].last_step = 1;
    CHECK(!des_same_run(&flows[1], &flows[2]));
    const int gap[] = {0, 1, 2, 3, 6};
    expect(&ph, 0, gap, 4);
    CHECK_DONE();
}
