/*
 * NCCL's double binary tree across nodes (sim/collectives/tree_nodes.c, issue 42): the
 * shapes NVIDIA/nccl src/graph/trees.cc draws (commit 5067397: a 14-node tree, its 12-node
 * mirror and its 13-node shift), by hand, and for every node count from 1 to 1,100 and
 * both tree kinds: one root, every parent lists its child, at most two children, the
 * bottom-up order a permutation with children first, positions and nodes inverse; each
 * node interior (with children) in at most one of the two trees when there are 3 or more
 * nodes (on an odd count, node 0 excepted: tree 0's root); and on 4 nodes the links per node, 2 and 4, that put 2 x a channel's data on the
 * NICs of the two interior nodes.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../check.h"
#include "tree_nodes.h"

/* node's parent and children in tree kind k over n nodes, as nodes */
static void links(int n, int k, int node, int *up, int *d0, int *d1)
{
    int u, a, b;
    gcsim_btree(n, gcsim_dtree_position(n, k, node), &u, &a, &b);
    *up = u < 0 ? -1 : gcsim_dtree_node(n, k, u);
    *d0 = a < 0 ? -1 : gcsim_dtree_node(n, k, a);
    *d1 = b < 0 ? -1 : gcsim_dtree_node(n, k, b);
}

static int is(int n, int k, int node, int up, int d0, int d1)
{
    int u, a, b;
    links(n, k, node, &u, &a, &b);
    if (u != up || a != d0 || b != d1)
        printf("n=%d k=%d node %d: up %d down %d %d, want %d %d %d\n", n, k, node, u, a, b, up,
               d0, d1);
    return u == up && a == d0 && b == d1;
}

int main(void)
{
    /* trees.cc's first picture: 0-8, 8-{4,12}, 4-{2,6}, 12-{10,13}, 2-{1,3}, 6-{5,7},
     * 10-{9,11} */
    CHECK(is(14, 0, 0, -1, -1, 8));
    CHECK(is(14, 0, 8, 0, 4, 12));
    CHECK(is(14, 0, 12, 8, 10, 13));
    CHECK(is(14, 0, 13, 12, -1, -1));
    CHECK(is(14, 0, 6, 4, 5, 7));
    /* its mirror on 12 nodes: 11-3, 3-{1,7}, 7-{5,9}, 1-{0,2} (children as nodes: the
     * mirror of the first tree's d0 = pos - b/2 is the larger node) */
    CHECK(is(12, 1, 11, -1, -1, 3));
    CHECK(is(12, 1, 3, 11, 7, 1));
    CHECK(is(12, 1, 7, 3, 9, 5));
    CHECK(is(12, 1, 1, 3, 2, 0));
    /* its shift on 13 nodes: 1-9, 9-{5,0}, 5-{3,7}, 0-{11}, 3-{2,4}, 11-{10,12} */
    CHECK(is(13, 1, 1, -1, -1, 9));
    CHECK(is(13, 1, 9, 1, 5, 0));
    CHECK(is(13, 1, 0, 9, 11, -1));
    CHECK(is(13, 1, 11, 0, 10, 12));
    CHECK(is(13, 1, 3, 5, 2, 4));

    /* 4 nodes: tree 0 is 0-2-{1,3}, tree 1 is 3-1-{2,0}: links per node 2, 4, 4, 2 */
    int want4[4] = {2, 4, 4, 2};
    for (int node = 0; node < 4; node++) {
        int deg = 0;
        for (int k = 0; k < 2; k++) {
            int u, a, b;
            links(4, k, node, &u, &a, &b);
            deg += (u >= 0) + (a >= 0) + (b >= 0);
        }
        CHECK(deg == want4[node]);
    }

    int *order = malloc(sizeof(int) * 1100), *seen = malloc(sizeof(int) * 1100);
    CHECK(order && seen);
    for (int n = 1; n <= 1100 && order && seen; n++) {
        int interior[1100] = {0};
        for (int k = 0; k < 2; k++) {
            gcsim_btree_bottom_up(n, order);
            for (int p = 0; p < n; p++)
                seen[p] = -1;
            int bad = 0, roots = 0;
            for (int x = 0; x < n; x++) {
                if (order[x] < 0 || order[x] >= n || seen[order[x]] >= 0) {
                    bad++;
                    continue;
                }
                seen[order[x]] = x;
            }
            for (int p = 0; p < n && !bad; p++) {
                int u, a, b;
                gcsim_btree(n, p, &u, &a, &b);
                roots += u < 0;
                if (u >= 0) {
                    int uu, ua, ub;
                    gcsim_btree(n, u, &uu, &ua, &ub);
                    bad += (ua != p && ub != p) || seen[u] < seen[p];
                }
                bad += (a >= n) + (b >= n) + (a >= 0 && a == b);
                int node = gcsim_dtree_node(n, k, p);
                bad += node < 0 || node >= n || gcsim_dtree_position(n, k, node) != p;
                if (a >= 0 || b >= 0)
                    interior[node]++;
            }
            bad += roots != 1;
            if (bad)
                printf("n=%d k=%d: %d faults\n", n, k, bad);
            CHECK(bad == 0);
        }
        int twice = 0;
        for (int node = 0; node < n; node++)
            twice += interior[node] > 1;
        /* an odd count's shifted tree makes node 0 (tree 0's root, one child) interior
         * again; no other node is */
        if (n >= 3 && twice > n % 2)
            printf("n=%d: %d nodes interior in both trees\n", n, twice);
        CHECK(n < 3 || twice <= n % 2);
    }
    free(order);
    free(seen);
    CHECK_DONE();
}
