/*
 * The trees' typed stable sort (sim/collectives/tree_sort.h, issue 47) against qsort made
 * stable (ties broken by the element's place before sorting: the one order a stable sort
 * can give). Keys from small ranges, so most arrays hold many ties, which a sort that is
 * not stable would reorder (each element carries its place to tell); lengths 0 .. 700,
 * across the insertion runs (TREE_SORT_RUN) and the merges above them; already sorted,
 * reversed and constant arrays too. Two-field keys as the template's pairs and crossings
 * have, one-field keys as its link keys.
 *   test_tree_sort */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../check.h"
#include "tree_sort.h"

typedef struct {
    int a, b, place;
} item;

static inline bool ab_before(const item *x, const item *y)
{
    return x->a != y->a ? x->a < y->a : x->b < y->b;
}
TREE_STABLE_SORT(sort_ab, item, ab_before)

static inline bool a_before(const item *x, const item *y)
{
    return x->a < y->a;
}
TREE_STABLE_SORT(sort_a, item, a_before)

static int by_ab_place(const void *p, const void *q)
{
    const item *x = p, *y = q;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    return (x->place > y->place) - (x->place < y->place);
}

static int by_a_place(const void *p, const void *q)
{
    const item *x = p, *y = q;
    if (x->a != y->a)
        return x->a < y->a ? -1 : 1;
    return (x->place > y->place) - (x->place < y->place);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static int next_int(int range)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int)(rng % (uint64_t)range);
}

/* fill: 0 random, 1 sorted, 2 reversed, 3 constant */
static void fill(item *v, int n, int range, int how)
{
    for (int i = 0; i < n; i++) {
        int a = how == 0 ? next_int(range) : how == 1 ? i / 3 : how == 2 ? n - i / 2 : 7;
        v[i] = (item){a, how == 0 ? next_int(3) : 1, i};
    }
}

static int same(const item *x, const item *y, int n)
{
    for (int i = 0; i < n; i++)
        if (x[i].a != y[i].a || x[i].b != y[i].b || x[i].place != y[i].place)
            return 0;
    return 1;
}

int main(void)
{
    enum { MAX = 700 };
    static item mine[MAX], ref[MAX];
    int compared = 0, reordered_ties = 0;
    for (int n = 0; n <= MAX; n += n < 80 ? 1 : 37)
        for (int how = 0; how < 4; how++)
            for (int range = 1; range <= 64; range *= 4) {
                fill(mine, n, range, how);
                for (int i = 0; i < n; i++)
                    ref[i] = mine[i];
                CHECK(sort_ab(mine, (size_t)n) == 0);
                qsort(ref, (size_t)n, sizeof *ref, by_ab_place);
                CHECK(same(mine, ref, n));
                fill(mine, n, range, how);
                for (int i = 0; i < n; i++)
                    ref[i] = mine[i];
                CHECK(sort_a(mine, (size_t)n) == 0);
                qsort(ref, (size_t)n, sizeof *ref, by_a_place);
                CHECK(same(mine, ref, n));
                /* the ties kept in their places: some element has a later place before an
                 * earlier one with the same key only if the sort reordered ties */
                for (int i = 1; i < n; i++)
                    if (mine[i].a == mine[i - 1].a && mine[i].place < mine[i - 1].place)
                        reordered_ties++;
                compared += 2;
            }
    CHECK(reordered_ties == 0);
    CHECK(compared > 1000); /* the grid ran */
    printf("%d sorts compared with qsort made stable\n", compared);
    CHECK_DONE();
}
