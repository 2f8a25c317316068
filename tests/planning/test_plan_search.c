/* The GPU counts of gcsim plan's default search (sim/planning/plan_search.c): every count up to
 * PLAN_EXACT_GPUS, then whole-node counts at most PLAN_GRID_REL apart, always ending at the
 * platform's size (issue 15: the search used to stop at 65,536 GPUs). */
#include <stdlib.h>

#include "check.h"
#include "plan_search.h"

/* The properties every search must have, whatever the platform. */
static void check_grid(long long capacity, int per_node, bool whole_nodes)
{
    static int counts[PLAN_MAX_DEFAULT_COUNTS];
    int n = plan_default_counts(capacity, per_node, whole_nodes, counts, PLAN_MAX_DEFAULT_COUNTS);
    CHECK(n > 0);
    if (n <= 0)
        return;
    CHECK(counts[0] == 1);
    CHECK(counts[n - 1] == capacity); /* the whole platform is always searched */
    for (int k = 1; k < n; k++) {
        CHECK(counts[k] > counts[k - 1]);
        if (counts[k] <= PLAN_EXACT_GPUS) {
            /* exact range: no count skipped (with whole_nodes: none of the allowed ones) */
            int want = counts[k - 1] + 1;
            if (whole_nodes && want > per_node)
                want = (want + per_node - 1) / per_node * per_node;
            CHECK(counts[k] == want);
        } else {
            CHECK(counts[k] % per_node == 0);
            /* a step is one node, or at most 1% of the count it starts from */
            long long step = counts[k] - counts[k - 1];
            CHECK(step <= per_node || (double)step <= counts[k - 1] * PLAN_GRID_REL);
        }
    }
}

int main(void)
{
    /* Small platforms: every count, as before. 512 GPUs of 4: 1..512. */
    int c[PLAN_MAX_DEFAULT_COUNTS];
    CHECK(plan_default_counts(512, 4, false, c, PLAN_MAX_DEFAULT_COUNTS) == 512);
    CHECK(c[0] == 1 && c[511] == 512);
    /* --whole-nodes on 4 nodes of 8: 1..8, 16, 24, 32 (11 counts). */
    CHECK(plan_default_counts(32, 8, true, c, PLAN_MAX_DEFAULT_COUNTS) == 11);
    CHECK(c[7] == 8 && c[8] == 16 && c[10] == 32);
    /* 4096 + 8 GPUs (513 nodes of 8): every count to 4096, then the last node (4104). */
    CHECK(plan_default_counts(4104, 8, false, c, PLAN_MAX_DEFAULT_COUNTS) == 4097);
    CHECK(c[4095] == 4096 && c[4096] == 4104);
    /* Beyond 4096 with 8 per node: 1% of 4096 is 40.96, 40 GPUs = 5 nodes: 4136 next. */
    CHECK(plan_default_counts(100000, 8, false, c, PLAN_MAX_DEFAULT_COUNTS) > 4096);
    CHECK(c[4096] == 4136);

    check_grid(600, 8, false);          /* 75 nodes: the size that crashed plan */
    check_grid(100000, 8, false);       /* 12,500 nodes: beyond the old 65,536 stop */
    check_grid(100000, 8, true);
    check_grid(65537 * 3, 3, false);    /* a node size that does not divide 4096 */
    check_grid(1LL << 28, 256, false);  /* the largest platform the loader accepts */
    check_grid(1LL << 20, 1, true);

    /* The largest platform fits in PLAN_MAX_DEFAULT_COUNTS; a buffer too small is an error. */
    int n = plan_default_counts(1LL << 28, 256, false, c, PLAN_MAX_DEFAULT_COUNTS);
    CHECK(n > 4096 && n < PLAN_MAX_DEFAULT_COUNTS);
    CHECK(plan_default_counts(1LL << 28, 256, false, c, 100) == -1);
    CHECK_DONE();
}
