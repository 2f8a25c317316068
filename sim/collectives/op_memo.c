/*
 * sim/collectives/op_memo.c: a stack's op costs kept for a group of cases (collectives.h).
 *
 * A training stack's ops (PowerSGD's encode, unpack, orthogonalize and decode, a codec's
 * per-tensor kernels) are priced layer by layer from measured laws, and the price depends
 * on the bucket, not on the GPU count. A sweep prices the same buckets once per GPU count;
 * PowerSGD's four op lists made their pricing 12% of a sweep's time per case. The memo is
 * owned by the caller that knows what stays fixed (the sweep, per group: one platform,
 * stack, model and compressor), so its keys are only what changes inside that group.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collectives.h"

typedef struct {
    const void *ops; /* the op list (inside the group's stack entry) */
    int first, last, rank, op_rank, min_rate;
    double elements, payloads;
    double seconds;
} op_memo_entry;

struct gcsim_op_memo {
    op_memo_entry *entries;
    size_t capacity, n; /* open addressing, capacity a power of two; used: ops != NULL */
};

gcsim_op_memo *gcsim_op_memo_new(void)
{
    return calloc(1, sizeof(gcsim_op_memo));
}

void gcsim_op_memo_free(gcsim_op_memo *m)
{
    if (!m)
        return;
    free(m->entries);
    free(m);
}

static bool same(const op_memo_entry *a, const op_memo_entry *b)
{
    /* numbers compared bit for bit: a reused price is the one the ops would give */
    return a->ops == b->ops && a->first == b->first && a->last == b->last &&
           a->rank == b->rank && a->op_rank == b->op_rank && a->min_rate == b->min_rate &&
           memcmp(&a->elements, &b->elements, sizeof a->elements) == 0 &&
           memcmp(&a->payloads, &b->payloads, sizeof a->payloads) == 0;
}

static size_t hash(const op_memo_entry *k)
{
    uint64_t e, p;
    memcpy(&e, &k->elements, sizeof e);
    memcpy(&p, &k->payloads, sizeof p);
    uint64_t h = (uint64_t)(uintptr_t)k->ops * 0x9e3779b97f4a7c15ull ^
                 (uint64_t)(uint32_t)k->first * 0xc2b2ae3d27d4eb4full ^
                 (uint64_t)(uint32_t)k->last * 0x165667b19e3779f9ull ^
                 (uint64_t)(uint32_t)(k->rank * 31 + k->op_rank * 7 + k->min_rate) *
                     0xd6e8feb86659fd93ull ^
                 e * 0xff51afd7ed558ccdull ^ p * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return (size_t)h;
}

static op_memo_entry *slot(const gcsim_op_memo *m, const op_memo_entry *k)
{
    size_t i = hash(k) & (m->capacity - 1);
    while (m->entries[i].ops && !same(&m->entries[i], k))
        i = (i + 1) & (m->capacity - 1);
    return &m->entries[i];
}

bool gcsim_op_memo_get(const gcsim_op_memo *m, const gcsim_op_memo_key *key, double *seconds)
{
    if (!m || !m->n)
        return false;
    op_memo_entry k = {key->ops, key->first, key->last, key->rank, key->op_rank,
                       key->min_rate, key->elements, key->payloads, 0};
    const op_memo_entry *e = slot(m, &k);
    if (!e->ops)
        return false;
    *seconds = e->seconds;
    return true;
}

void gcsim_op_memo_put(gcsim_op_memo *m, const gcsim_op_memo_key *key, double seconds)
{
    if (!m || !key->ops)
        return;
    if (2 * (m->n + 1) > m->capacity) { /* grow; when that fails, the price is not kept */
        size_t cap = m->capacity ? 2 * m->capacity : 64;
        op_memo_entry *old = m->entries, *fresh = calloc(cap, sizeof *fresh);
        if (!fresh)
            return;
        size_t old_cap = m->capacity;
        m->entries = fresh;
        m->capacity = cap;
        for (size_t i = 0; i < old_cap; i++)
            if (old[i].ops)
                *slot(m, &old[i]) = old[i];
        free(old);
    }
    op_memo_entry k = {key->ops, key->first, key->last, key->rank, key->op_rank,
                       key->min_rate, key->elements, key->payloads, seconds};
    op_memo_entry *e = slot(m, &k);
    if (!e->ops)
        m->n++;
    *e = k;
}
