/*
 * sim/collectives/tree_intern.c: sequences of ints kept once each, with an id, and doubles
 * kept in them, for the pipelined trees' template (tree_cost.c) and its steady form
 * (tree_steady.c); tree_internal.h.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slot_table.h"
#include "tree_internal.h"

/* ---- interning sequences of ints ---- */

/* Two ints per round (a 64-bit word), then the odd one: half the dependent multiplies of
 * one round per int, which made hashing the templates' and steady forms' keys (6 to 20
 * ints) about a third of interning them. Only slots depend on it, never ids (the order of
 * first appearance), so the kinds and expressions are the same. */
static uint64_t seq_hash(const int *v, int n)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)(uint32_t)n;
    int i = 0;
    for (; i + 1 < n; i += 2) {
        h ^= (uint64_t)(uint32_t)v[i] << 32 | (uint32_t)v[i + 1];
        h *= 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    if (i < n) {
        h ^= (uint64_t)(uint32_t)v[i];
        h *= 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    return h ^ (h >> 32);
}

void tree_intern_free(tree_intern *t)
{
    free(t->data);
    free(t->off);
    free(t->len);
    free(t->slot);
}

static size_t intern_hash(const void *entries, int k)
{
    const tree_intern *t = entries;
    return seq_hash(t->data + t->off[k], t->len[k]);
}

static int intern_rehash(tree_intern *t, size_t cap)
{
    int *slot = gcsim_slot_table(cap, t->n, intern_hash, t);
    if (!slot)
        return -1;
    free(t->slot);
    t->slot = slot;
    t->mask = cap - 1;
    return 0;
}

int tree_intern_find(const tree_intern *t, const int *v, int n)
{
    if (!t->slot)
        return -1;
    for (size_t i = seq_hash(v, n) & t->mask; t->slot[i] >= 0; i = (i + 1) & t->mask) {
        int k = t->slot[i];
        if (t->len[k] == n &&
            (n == 0 || memcmp(t->data + t->off[k], v, sizeof(int) * (size_t)n) == 0))
            return k;
    }
    return -1;
}

int tree_intern_id(tree_intern *t, const int *v, int n)
{
    if (!t->slot && intern_rehash(t, 256))
        return -1;
    size_t i = seq_hash(v, n) & t->mask;
    for (; t->slot[i] >= 0; i = (i + 1) & t->mask) {
        int k = t->slot[i];
        if (t->len[k] == n &&
            (n == 0 || memcmp(t->data + t->off[k], v, sizeof(int) * (size_t)n) == 0))
            return k;
    }
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        int *off = realloc(t->off, sizeof(int) * (size_t)cap);
        if (off)
            t->off = off;
        int *len = realloc(t->len, sizeof(int) * (size_t)cap);
        if (len)
            t->len = len;
        if (!off || !len)
            return -1;
        t->cap = cap;
    }
    if (t->n_data + (size_t)n > t->cap_data) {
        size_t cap = 2 * (t->n_data + (size_t)n) + 256;
        int *data = realloc(t->data, sizeof(int) * cap);
        if (!data)
            return -1;
        t->data = data;
        t->cap_data = cap;
    }
    if (n > 0) /* an empty sequence may come before any data */
        memcpy(t->data + t->n_data, v, sizeof(int) * (size_t)n);
    int k = t->n++;
    t->off[k] = (int)t->n_data;
    t->len[k] = n;
    t->n_data += (size_t)n;
    t->slot[i] = k;
    if (2 * (size_t)t->n > t->mask + 1 && intern_rehash(t, 2 * (t->mask + 1)))
        return -1;
    return k;
}

void tree_put_double(int *v, double x)
{
    uint64_t u;
    x += 0.0;
    memcpy(&u, &x, sizeof u);
    v[0] = (int)(uint32_t)(u >> 32);
    v[1] = (int)(uint32_t)u;
}

double tree_get_double(const int *v)
{
    uint64_t u = (uint64_t)(uint32_t)v[0] << 32 | (uint32_t)v[1];
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}
