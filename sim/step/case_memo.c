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

/* Arrays an iteration of the group holds, with the elements each has room for: lent to
 * gcsim_iteration_build (case_memo_lend) and given back by gcsim_iteration_free
 * (case_memo_take_back), so that the cases of a group allocate none (issue 47: malloc and
 * free were 6% of a sweep's case). Their contents are never read again: every element a
 * case uses is written by that case's build. */
typedef struct {
    gcsim_step *steps;
    gcsim_call *calls;
    gcsim_block *blocks;
    gcsim_bucket *buckets; /* layers_room elements, as copy_buckets sizes it */
    int *layer_bucket;
    double *layer_payload_bytes, *layer_encode_s, *layer_decode_s, *layer_elements;
    int steps_room, calls_room, blocks_room, layers_room;
} case_arrays;

struct gcsim_case_memo {
    op_price_entry *entries;
    size_t capacity, n; /* open addressing, capacity a power of two; used: ops != NULL */
    bool have_buckets;
    buckets_key key;
    gcsim_iteration it; /* its layers and buckets only */
    /* The program entry memo (program.h) with what it was found for: a group's cases
     * share their stack, spec and platform, and the entry's look-up (which creates the
     * compressor and formats its spec), the spec's setting and the GPU's parameters cost
     * ~800 instructions a case (issue 47). */
    bool have_entry;
    const void *entry_stack, *entry_platform; /* compared as the buckets' key is */
    char entry_spec[sizeof ((gcsim_payload_plan *)0)->spec]; /* compared as text */
    program_entry_memo entry;
    case_arrays spare;  /* the arrays the last case gave back (NULL ones: none) */
    case_arrays lent;   /* the arrays an iteration holds now, when lent_out */
    bool lent_out;
};

static void layer_arrays_free(case_arrays *a)
{
    free(a->buckets);
    free(a->layer_bucket);
    free(a->layer_payload_bytes);
    free(a->layer_encode_s);
    free(a->layer_decode_s);
    free(a->layer_elements);
    a->buckets = NULL;
    a->layer_bucket = NULL;
    a->layer_payload_bytes = a->layer_encode_s = a->layer_decode_s = a->layer_elements = NULL;
    a->layers_room = 0;
}

static void arrays_free(case_arrays *a)
{
    layer_arrays_free(a);
    free(a->steps);
    free(a->calls);
    free(a->blocks);
    memset(a, 0, sizeof *a);
}

gcsim_case_memo *gcsim_case_memo_new(void)
{
    return calloc(1, sizeof(gcsim_case_memo));
}

void gcsim_case_memo_free(gcsim_case_memo *m)
{
    if (!m)
        return;
    free(m->entries);
    iteration_arrays_free(&m->it); /* the memo's own copy: never lent */
    arrays_free(&m->spare); /* lent ones are an iteration's: it must be freed first */
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
        iteration_arrays_free(to);
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

bool case_memo_entry(const gcsim_case_memo *m, const gcsim_scenario *s, program_entry_memo *out)
{
    if (!m || !m->have_entry || m->entry_stack != (const void *)s->stack ||
        m->entry_platform != (const void *)s->platform || !s->payload ||
        strcmp(m->entry_spec, s->payload->spec) != 0)
        return false;
    *out = m->entry;
    return true;
}

void case_memo_keep_entry(gcsim_case_memo *m, const gcsim_scenario *s,
                          const program_entry_memo *e)
{
    if (!m || !s->payload)
        return;
    m->have_entry = true;
    m->entry_stack = s->stack;
    m->entry_platform = s->platform;
    memcpy(m->entry_spec, s->payload->spec, sizeof m->entry_spec);
    m->entry = *e;
}

/* Whether m keeps layers and buckets built from s's inputs (field for field). */
static bool kept_for(const gcsim_case_memo *m, const gcsim_scenario *s)
{
    if (!m || !m->have_buckets)
        return false;
    buckets_key k = key_of(s);
    const buckets_key *c = &m->key;
    return !(k.platform != c->platform || k.model != c->model || k.payload != c->payload ||
             k.stack != c->stack || k.codec != c->codec || k.collective != c->collective ||
             k.scaling != c->scaling || k.batch != c->batch || k.overlap != c->overlap ||
             k.shared_support != c->shared_support || k.compressed != c->compressed ||
             memcmp(&k.bucket_bytes, &c->bucket_bytes, sizeof k.bucket_bytes) != 0);
}

bool case_memo_buckets(const gcsim_case_memo *m, const gcsim_scenario *s, gcsim_iteration *it)
{
    return kept_for(m, s) && copy_buckets(it, &m->it) == 0;
}

bool case_memo_lend(gcsim_case_memo *m, const gcsim_scenario *s, gcsim_iteration *it)
{
    /* one iteration at a time holds the memo's arrays; another copies (case_memo_buckets) */
    if (!kept_for(m, s) || m->lent_out)
        return false;
    const gcsim_iteration *from = &m->it;
    int nl = from->n_layers, nb = from->n_buckets + 1; /* blocks: plain_blocks' count */
    case_arrays a = m->spare;
    memset(&m->spare, 0, sizeof m->spare);
    if (a.layers_room < nl) {
        layer_arrays_free(&a);
        size_t n = (size_t)nl;
        a.buckets = malloc(n * sizeof *a.buckets);
        a.layer_bucket = malloc(n * sizeof *a.layer_bucket);
        a.layer_payload_bytes = malloc(n * sizeof *a.layer_payload_bytes);
        a.layer_encode_s = malloc(n * sizeof *a.layer_encode_s);
        a.layer_decode_s = malloc(n * sizeof *a.layer_decode_s);
        a.layer_elements = malloc(n * sizeof *a.layer_elements);
        a.layers_room = nl;
    }
    if (a.blocks_room < nb) {
        free(a.blocks);
        a.blocks = malloc((size_t)nb * sizeof *a.blocks);
        a.blocks_room = nb;
    }
    if (!a.buckets || !a.layer_bucket || !a.layer_payload_bytes || !a.layer_encode_s ||
        !a.layer_decode_s || !a.layer_elements || !a.blocks) {
        arrays_free(&a);
        return false;
    }
    /* what copy_buckets copies, but of the buckets only the n_buckets an iteration has
     * (step.h; the rest of the array, room for one bucket per layer, is never read: a
     * resnet-50's 161 buckets' room was most of the bytes copied, issue 47) */
    size_t n = (size_t)nl;
    memcpy(a.buckets, from->buckets, (size_t)from->n_buckets * sizeof *a.buckets);
    memcpy(a.layer_bucket, from->layer_bucket, n * sizeof *a.layer_bucket);
    memcpy(a.layer_payload_bytes, from->layer_payload_bytes, n * sizeof *a.layer_payload_bytes);
    memcpy(a.layer_encode_s, from->layer_encode_s, n * sizeof *a.layer_encode_s);
    memcpy(a.layer_decode_s, from->layer_decode_s, n * sizeof *a.layer_decode_s);
    it->compute_s = from->compute_s;
    it->forward_s = from->forward_s;
    it->overlap = from->overlap;
    it->n_layers = from->n_layers;
    it->n_buckets = from->n_buckets;
    it->buckets = a.buckets;
    it->layer_bucket = a.layer_bucket;
    it->layer_payload_bytes = a.layer_payload_bytes;
    it->layer_encode_s = a.layer_encode_s;
    it->layer_decode_s = a.layer_decode_s;
    it->layer_elements = a.layer_elements; /* for gcsim_iteration_build to fill */
    it->blocks = a.blocks;                 /* ditto, n_buckets + 1 of them */
    it->steps = a.steps;                   /* empty, with their room */
    it->steps_room = a.steps_room;
    it->calls = a.calls;
    it->calls_room = a.calls_room;
    it->lender = m;
    m->lent = a;
    m->lent_out = true;
    return true;
}

/* The array kept at *kept when `given` is still it; else `given` is the iteration's own
 * (freed) and none is kept. */
static void take(void **kept, void *given)
{
    if (given != *kept) {
        free(given);
        *kept = NULL;
    }
}

void case_memo_take_back(gcsim_case_memo *m, gcsim_iteration *it)
{
    case_arrays a = m->lent;
    memset(&m->lent, 0, sizeof m->lent);
    m->lent_out = false;
    /* steps and calls grow (program.c): whatever they are now, with the room recorded */
    a.steps = it->steps;
    a.steps_room = it->steps_room;
    a.calls = it->calls;
    a.calls_room = it->calls_room;
    if (a.steps_room <= 0) {
        free(a.steps);
        a.steps = NULL;
        a.steps_room = 0;
    }
    if (a.calls_room <= 0) {
        free(a.calls);
        a.calls = NULL;
        a.calls_room = 0;
    }
    /* the others are never reallocated; one that is not the array lent is not kept */
    take((void **)&a.blocks, it->blocks);
    take((void **)&a.buckets, it->buckets);
    take((void **)&a.layer_bucket, it->layer_bucket);
    take((void **)&a.layer_payload_bytes, it->layer_payload_bytes);
    take((void **)&a.layer_encode_s, it->layer_encode_s);
    take((void **)&a.layer_decode_s, it->layer_decode_s);
    take((void **)&a.layer_elements, it->layer_elements);
    if (!a.blocks)
        a.blocks_room = 0;
    if (!a.buckets || !a.layer_bucket || !a.layer_payload_bytes || !a.layer_encode_s ||
        !a.layer_decode_s || !a.layer_elements)
        layer_arrays_free(&a);
    arrays_free(&m->spare); /* none: lend took them */
    m->spare = a;
    it->steps = NULL;
    it->calls = NULL;
    it->blocks = NULL;
    it->buckets = NULL;
    it->layer_bucket = NULL;
    it->layer_payload_bytes = it->layer_encode_s = it->layer_decode_s = NULL;
    it->layer_elements = NULL;
    it->steps_room = it->calls_room = 0;
    it->lender = NULL;
}

void case_memo_keep_buckets(gcsim_case_memo *m, const gcsim_scenario *s,
                            const gcsim_iteration *it)
{
    if (!m)
        return;
    iteration_arrays_free(&m->it); /* the memo's own copy: never lent */
    memset(&m->it, 0, sizeof m->it);
    m->have_buckets = copy_buckets(&m->it, it) == 0;
    m->key = key_of(s);
}
