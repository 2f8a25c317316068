/*
 * sim/step/case_memo.c: what a group of cases shares (step.h, case_memo.h).
 *
 * A training stack's ops (PowerSGD's encode, unpack, orthogonalize and decode, a codec's
 * per-tensor kernels) are priced layer by layer from measured laws, and the price depends
 * on the bucket, not on the GPU count. A sweep prices the same buckets once per GPU count;
 * PowerSGD's four op lists made their pricing 12% of a sweep's time per case. The memo is
 * owned by the caller that knows what stays fixed (the sweep, per group: one platform,
 * stack, model, compressor, collective, scaling and batch), so the prices are keyed only
 * by what changes inside that group.
 *
 * The iteration's layers and buckets (gcsim_iteration_build, up to the programs) do not
 * depend on the GPU count under weak scaling without sharding, except through whether a
 * compressor runs at all (not at 1 GPU): they are kept once with the scenario fields they
 * come from and copied for every case whose fields match, field for field.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "case_memo.h"

typedef struct {
    const void *ops; /* the op list (inside the group's stack entry) */
    int first, last, rank, op_rank, min_rate;
    double elements, payloads;
    double seconds;
} op_price_entry;

/* The scenario fields an iteration's layers and buckets come from (gcsim_iteration_build,
 * up to the programs), compared before they are reused. */
typedef struct {
    const void *platform, *model, *payload, *stack, *codec;
    int collective, scaling, batch;
    double bucket_bytes;
    bool overlap, shared_support, compressed; /* compressed: not at 1 GPU (scenario.h) */
} buckets_key;

struct gcsim_case_memo {
    op_price_entry *entries;
    size_t capacity, n; /* open addressing, capacity a power of two; used: ops != NULL */
    bool have_buckets;
    buckets_key key;
    gcsim_iteration it; /* its layers and buckets only */
};

gcsim_case_memo *gcsim_case_memo_new(void)
{
    return calloc(1, sizeof(gcsim_case_memo));
}

void gcsim_case_memo_free(gcsim_case_memo *m)
{
    if (!m)
        return;
    free(m->entries);
    gcsim_iteration_free(&m->it);
    free(m);
}

static bool same(const op_price_entry *a, const op_price_entry *b)
{
    /* numbers compared bit for bit: a reused price is the one the ops would give */
    return a->ops == b->ops && a->first == b->first && a->last == b->last &&
           a->rank == b->rank && a->op_rank == b->op_rank && a->min_rate == b->min_rate &&
           memcmp(&a->elements, &b->elements, sizeof a->elements) == 0 &&
           memcmp(&a->payloads, &b->payloads, sizeof a->payloads) == 0;
}

static size_t hash(const op_price_entry *k)
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

static op_price_entry *slot(const gcsim_case_memo *m, const op_price_entry *k)
{
    size_t i = hash(k) & (m->capacity - 1);
    while (m->entries[i].ops && !same(&m->entries[i], k))
        i = (i + 1) & (m->capacity - 1);
    return &m->entries[i];
}

bool gcsim_case_memo_price(const gcsim_case_memo *m, const gcsim_op_price_key *key, double *seconds)
{
    if (!m || !m->n)
        return false;
    op_price_entry k = {key->ops, key->first, key->last, key->rank, key->op_rank,
                       key->min_rate, key->elements, key->payloads, 0};
    const op_price_entry *e = slot(m, &k);
    if (!e->ops)
        return false;
    *seconds = e->seconds;
    return true;
}

void gcsim_case_memo_keep_price(gcsim_case_memo *m, const gcsim_op_price_key *key, double seconds)
{
    if (!m || !key->ops)
        return;
    if (2 * (m->n + 1) > m->capacity) { /* grow; when that fails, the price is not kept */
        size_t cap = m->capacity ? 2 * m->capacity : 64;
        op_price_entry *old = m->entries, *fresh = calloc(cap, sizeof *fresh);
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
    op_price_entry k = {key->ops, key->first, key->last, key->rank, key->op_rank,
                       key->min_rate, key->elements, key->payloads, seconds};
    op_price_entry *e = slot(m, &k);
    if (!e->ops)
        m->n++;
    *e = k;
}

static buckets_key key_of(const gcsim_scenario *s)
{
    buckets_key k;
    k.platform = s->platform;
    k.model = s->model;
    k.payload = s->payload;
    k.stack = s->stack;
    k.codec = s->codec;
    k.collective = (int)s->collective;
    k.scaling = (int)s->scaling;
    k.batch = s->batch;
    k.bucket_bytes = s->bucket_bytes;
    k.overlap = s->overlap;
    k.shared_support = s->shared_support;
    k.compressed = gcsim_scenario_compresses(s);
    return k;
}

/* Copies the layers and buckets of `from` into `to` (zeroed); -1 when out of memory. */
static int copy_buckets(gcsim_iteration *to, const gcsim_iteration *from)
{
    size_t nl = (size_t)from->n_layers;
    to->compute_s = from->compute_s;
    to->forward_s = from->forward_s;
    to->overlap = from->overlap;
    to->n_layers = from->n_layers;
    to->n_buckets = from->n_buckets;
    to->buckets = malloc(nl * sizeof *to->buckets);
    to->layer_bucket = malloc(nl * sizeof *to->layer_bucket);
    to->layer_payload_bytes = malloc(nl * sizeof *to->layer_payload_bytes);
    to->layer_encode_s = malloc(nl * sizeof *to->layer_encode_s);
    to->layer_decode_s = malloc(nl * sizeof *to->layer_decode_s);
    if (!to->buckets || !to->layer_bucket || !to->layer_payload_bytes || !to->layer_encode_s ||
        !to->layer_decode_s) {
        gcsim_iteration_free(to);
        memset(to, 0, sizeof *to);
        return -1;
    }
    memcpy(to->buckets, from->buckets, nl * sizeof *to->buckets);
    memcpy(to->layer_bucket, from->layer_bucket, nl * sizeof *to->layer_bucket);
    memcpy(to->layer_payload_bytes, from->layer_payload_bytes,
           nl * sizeof *to->layer_payload_bytes);
    memcpy(to->layer_encode_s, from->layer_encode_s, nl * sizeof *to->layer_encode_s);
    memcpy(to->layer_decode_s, from->layer_decode_s, nl * sizeof *to->layer_decode_s);
    return 0;
}

bool case_memo_buckets(const gcsim_case_memo *m, const gcsim_scenario *s, gcsim_iteration *it)
{
    if (!m || !m->have_buckets)
        return false;
    buckets_key k = key_of(s);
    const buckets_key *c = &m->key;
    if (k.platform != c->platform || k.model != c->model || k.payload != c->payload ||
        k.stack != c->stack || k.codec != c->codec || k.collective != c->collective ||
        k.scaling != c->scaling || k.batch != c->batch || k.overlap != c->overlap ||
        k.shared_support != c->shared_support || k.compressed != c->compressed ||
        memcmp(&k.bucket_bytes, &c->bucket_bytes, sizeof k.bucket_bytes) != 0)
        return false;
    return copy_buckets(it, &m->it) == 0;
}

void case_memo_keep_buckets(gcsim_case_memo *m, const gcsim_scenario *s,
                            const gcsim_iteration *it)
{
    if (!m)
        return;
    gcsim_iteration_free(&m->it);
    memset(&m->it, 0, sizeof m->it);
    m->have_buckets = copy_buckets(&m->it, it) == 0;
    m->key = key_of(s);
}
