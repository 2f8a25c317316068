/*
 * sim/collectives/tuner_memo.c: the tuners' answers per (platform, question) (tuner_memo.h).
 *
 * Platforms are interned by content (a copy compared byte for byte, the last one asked for
 * checked first), as the schedule memo does, so two loads of one file share answers and a
 * platform freed and another loaded at its address never see each other's. Answers sit in
 * an open-addressing table that doubles as it fills.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "content_hash.h"
#include "tuner_memo.h"

typedef struct {
    gcsim_tuner_memo_key key;
    int platform; /* interned id; -1: a free slot */
    size_t size;
    void *value;
} entry;

enum { PLATFORMS_MAX = 64 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static gcsim_platform *platforms[PLATFORMS_MAX];
static uint64_t platform_hash[PLATFORMS_MAX]; /* gcsim_content_hash of each */
static int n_platforms, last_platform = -1;
static const gcsim_platform *last_address;
static entry *table;
static size_t capacity, n_entries, hits;

static void clear_locked(void)
{
    for (size_t k = 0; k < capacity; k++)
        if (table[k].platform >= 0)
            free(table[k].value);
    free(table);
    table = NULL;
    capacity = n_entries = 0;
    for (int k = 0; k < n_platforms; k++)
        free(platforms[k]);
    n_platforms = 0;
    last_platform = -1;
    last_address = NULL;
}

void gcsim_tuner_memo_clear(void)
{
    pthread_mutex_lock(&lock);
    clear_locked();
    pthread_mutex_unlock(&lock);
}

/* p's id by content; -1 when it is not interned and `add` is false, or out of memory. */
static int platform_id(const gcsim_platform *p, bool add)
{
    if (last_platform >= 0 && p == last_address &&
        memcmp(platforms[last_platform], p, sizeof *p) == 0)
        return last_platform;
    uint64_t h = gcsim_content_hash(p, sizeof *p);
    for (int k = 0; k < n_platforms; k++)
        if (platform_hash[k] == h && memcmp(platforms[k], p, sizeof *p) == 0) {
            last_platform = k;
            last_address = p;
            return k;
        }
    if (!add)
        return -1;
    if (n_platforms == PLATFORMS_MAX)
        clear_locked();
    gcsim_platform *copy = malloc(sizeof *copy);
    if (!copy)
        return -1;
    memcpy(copy, p, sizeof *copy);
    platforms[n_platforms] = copy;
    platform_hash[n_platforms] = h;
    last_platform = n_platforms++;
    last_address = p;
    return last_platform;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v;
    return h * 1099511628211ull; /* FNV-1a, a field at a time */
}

static uint64_t key_hash(int platform, const gcsim_tuner_memo_key *k)
{
    uint64_t bits;
    memcpy(&bits, &k->bytes, sizeof bits);
    uint64_t h = 1469598103934665603ull;
    const int v[7] = {platform, (int)k->kind, k->gpus, k->nodes, k->op, k->collective,
                      k->protocol};
    for (int i = 0; i < 7; i++)
        h = mix(h, (uint32_t)v[i]);
    h = mix(h, bits);
    return h ^ (h >> 29);
}

static bool same(const entry *e, int platform, const gcsim_tuner_memo_key *k)
{
    return e->platform == platform && e->key.kind == k->kind && e->key.gpus == k->gpus &&
           e->key.nodes == k->nodes && e->key.op == k->op &&
           e->key.collective == k->collective && e->key.protocol == k->protocol &&
           memcmp(&e->key.bytes, &k->bytes, sizeof k->bytes) == 0;
}

/* The slot of (platform, k): its entry, or the free slot where it belongs. */
static entry *slot_of(int platform, const gcsim_tuner_memo_key *k)
{
    size_t i = (size_t)key_hash(platform, k) & (capacity - 1);
    while (table[i].platform >= 0 && !same(&table[i], platform, k))
        i = (i + 1) & (capacity - 1);
    return &table[i];
}

static int grow(void)
{
    size_t old_cap = capacity, cap = capacity ? 2 * capacity : 256;
    entry *old = table, *fresh = malloc(cap * sizeof *fresh);
    if (!fresh)
        return -1;
    for (size_t k = 0; k < cap; k++)
        fresh[k].platform = -1;
    table = fresh;
    capacity = cap;
    for (size_t k = 0; k < old_cap; k++)
        if (old[k].platform >= 0)
            *slot_of(old[k].platform, &old[k].key) = old[k];
    free(old);
    return 0;
}

bool gcsim_tuner_memo_get(const gcsim_platform *p, const gcsim_tuner_memo_key *k, void *value,
                          size_t size)
{
    bool found = false;
    pthread_mutex_lock(&lock);
    int id = capacity ? platform_id(p, false) : -1;
    if (id >= 0) {
        const entry *e = slot_of(id, k);
        if (e->platform >= 0 && e->size == size) {
            memcpy(value, e->value, size);
            hits++;
            found = true;
        }
    }
    pthread_mutex_unlock(&lock);
    return found;
}

void gcsim_tuner_memo_put(const gcsim_platform *p, const gcsim_tuner_memo_key *k,
                          const void *value, size_t size)
{
    pthread_mutex_lock(&lock);
    if (n_entries >= GCSIM_TUNER_MEMO_ENTRIES)
        clear_locked();
    void *copy = malloc(size);
    int id = copy ? platform_id(p, true) : -1;
    if (id < 0 || (2 * (n_entries + 1) > capacity && grow() != 0)) {
        free(copy);
        pthread_mutex_unlock(&lock);
        return;
    }
    entry *e = slot_of(id, k);
    if (e->platform >= 0) { /* kept meanwhile: the same answer */
        free(copy);
    } else {
        memcpy(copy, value, size);
        *e = (entry){.key = *k, .platform = id, .size = size, .value = copy};
        n_entries++;
    }
    pthread_mutex_unlock(&lock);
}

size_t gcsim_tuner_memo_entries(void)
{
    pthread_mutex_lock(&lock);
    size_t n = n_entries;
    pthread_mutex_unlock(&lock);
    return n;
}

size_t gcsim_tuner_memo_hits(void)
{
    pthread_mutex_lock(&lock);
    size_t n = hits;
    pthread_mutex_unlock(&lock);
    return n;
}
