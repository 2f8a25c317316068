/*
 * sim/collectives/tree_sort.h: a typed stable sort for the trees' template (tree_classes.c).
 *
 * Building a template sorts, node by node, its pairs and the links they cross: small arrays
 * sorted tens of thousands of times per template set (a sweep builds one per GPU count and
 * network). Through qsort each comparison is a call and each move a generic copy: qsort was
 * three fifths of a template's time, a fifth of the double tree's cases in the 307,200-case
 * sweep (issue 47). This sort compares inline. It is stable, as glibc's qsort (a merge sort)
 * is, so for the same order it gives the same array, ties included: the template does not
 * change (tests/collectives/test_tree_sort.c checks it against qsort, ties and all).
 *
 * TREE_STABLE_SORT(name, type, less) defines
 *     static int name(type *a, size_t n)
 * sorting a[0 .. n) by less(const type *x, const type *y) (x strictly before y); returns
 * -1 when out of memory (a is then unchanged), else 0.
 */
#ifndef GCSIM_TREE_SORT_H
#define GCSIM_TREE_SORT_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Runs at most this long are sorted by insertion; longer ones merged from them. */
#define TREE_SORT_RUN 24

#define TREE_STABLE_SORT(name, type, less)                                                   \
    static void name##_insert(type *a, size_t n)                                             \
    {                                                                                        \
        for (size_t i = 1; i < n; i++) {                                                     \
            type t = a[i];                                                                   \
            size_t j = i;                                                                    \
            for (; j > 0 && less(&t, &a[j - 1]); j--)                                        \
                a[j] = a[j - 1];                                                             \
            a[j] = t;                                                                        \
        }                                                                                    \
    }                                                                                        \
    /* a[0 .. n) sorted, tmp of n: the left element first on ties (stable) */               \
    static void name##_merge(type *a, size_t n, type *tmp)                                   \
    {                                                                                        \
        if (n <= TREE_SORT_RUN) {                                                            \
            name##_insert(a, n);                                                             \
            return;                                                                          \
        }                                                                                    \
        size_t h = n / 2, i = 0, j = h, k = 0;                                               \
        name##_merge(a, h, tmp);                                                             \
        name##_merge(a + h, n - h, tmp);                                                     \
        if (!less(&a[h], &a[h - 1]))                                                         \
            return; /* already in order */                                                   \
        while (i < h && j < n)                                                               \
            tmp[k++] = less(&a[j], &a[i]) ? a[j++] : a[i++];                                 \
        while (i < h)                                                                        \
            tmp[k++] = a[i++];                                                               \
        memcpy(a, tmp, sizeof *a * k); /* a[j .. n) is in place */                           \
    }                                                                                        \
    static int name(type *a, size_t n)                                                       \
    {                                                                                        \
        if (n <= TREE_SORT_RUN) {                                                            \
            name##_insert(a, n);                                                             \
            return 0;                                                                        \
        }                                                                                    \
        type *tmp = malloc(sizeof *a * n);                                                   \
        if (!tmp)                                                                            \
            return -1;                                                                       \
        name##_merge(a, n, tmp);                                                             \
        free(tmp);                                                                           \
        return 0;                                                                            \
    }

#endif
