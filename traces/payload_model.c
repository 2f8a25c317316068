/*
 * traces/payload_model.c: gc_trace_payload_estimate, the simulator's entry point: kind
 * mapping, the trace directory, and the per-process caches of loaded pools and results.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compressor.h"
#include "payload_model.h"
#include "traces_internal.h"

#ifndef GCSIM_TRACE_DIR
#define GCSIM_TRACE_DIR "traces/data"
#endif

/* Model layer kind -> the trace kinds it is sized from, best first. A kind with traces of
 * its own uses them; without any in the trace directory, the next entry is the documented
 * fallback (docs/traces.md, "The payload model", item 3): attention projections, embeddings and
 * recurrent weights are dense weight matrices, sized like fc; layer and group norms are
 * per-channel scale and shift vectors, sized like batch norm. */
static const struct {
    const char *layer_kind;
    const char *trace_kinds[GC_TRACE_PAYLOAD_MAX_KINDS];
} kind_chains[] = {
    {"conv", {"conv"}},
    {"fc", {"fc"}},
    {"bn", {"bn"}},
    {"norm", {"layer-norm", "group-norm", "bn"}},
    {"lstm", {"lstm", "fc"}},
    {"attention", {"attention", "fc"}},
    {"embedding", {"embedding", "fc"}},
    {"other", {"other", "fc"}},
};

int gc_trace_payload_kinds(const char *layer_kind, const char **trace_kinds)
{
    for (size_t i = 0; layer_kind && i < sizeof kind_chains / sizeof kind_chains[0]; i++)
        if (strcmp(layer_kind, kind_chains[i].layer_kind) == 0) {
            int n = 0;
            while (n < GC_TRACE_PAYLOAD_MAX_KINDS && kind_chains[i].trace_kinds[n]) {
                trace_kinds[n] = kind_chains[i].trace_kinds[n];
                n++;
            }
            return n;
        }
    return 0;
}

/* Set once by the program before any estimate (an installed gcsim points it at its
 * share/gcsim/traces/data); empty: the compiled-in source tree's folder. */
static char default_dir[1024];

void gc_trace_payload_set_default_dir(const char *dir)
{
    snprintf(default_dir, sizeof default_dir, "%s", dir ? dir : "");
}

const char *gc_trace_payload_dir(void)
{
    const char *env = getenv("GCSIM_TRACE_DIR");
    if (env && *env)
        return env;
    return default_dir[0] ? default_dir : GCSIM_TRACE_DIR;
}

/* Caches: loaded pools per (directory, kind), results per full argument set. They are
 * process-wide because the function's signature has no context; they hold only values
 * derived deterministically from the arguments and the files, so they never change an
 * answer, and the mutex keeps them consistent if engines call from several threads. */
#define POOL_CACHE 8
#define RESULT_CACHE 1024

typedef struct {
    char dir[1024];
    char kind[16];
    gc_payload_pool *pool;  /* NULL with empty set: the directory has no tensor of kind */
    int empty;
} pool_entry;

typedef struct {
    char dir[1024];
    char spec[256];
    char kind[16];
    size_t n;
    uint64_t seed;
    size_t bytes;
} result_entry;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static pool_entry pools[POOL_CACHE];
static result_entry results[RESULT_CACHE];
static size_t n_results, next_result;

/* The pool of one trace kind: 0 with *out set, 1 when the directory holds no tensor of
 * that kind (remembered, so a fallback does not rescan), -1 on an error. */
static int cached_pool(const char *dir, const char *kind, gc_payload_pool **out, char *err,
                       size_t err_len)
{
    for (int i = 0; i < POOL_CACHE; i++)
        if ((pools[i].pool || pools[i].empty) && strcmp(pools[i].dir, dir) == 0 &&
            strcmp(pools[i].kind, kind) == 0) {
            *out = pools[i].pool;
            return pools[i].empty;
        }
    gc_payload_pool *p = NULL;
    int rc = gc_payload_pool_load(dir, kind, NULL, &p, err, err_len);
    if (rc < 0)
        return -1;
    int slot = 0;
    while (slot < POOL_CACHE - 1 && (pools[slot].pool || pools[slot].empty))
        slot++;
    gc_payload_pool_free(pools[slot].pool); /* full: replace the last slot */
    snprintf(pools[slot].dir, sizeof pools[slot].dir, "%s", dir);
    snprintf(pools[slot].kind, sizeof pools[slot].kind, "%s", kind);
    pools[slot].pool = p;
    pools[slot].empty = rc == 1;
    *out = p;
    return rc;
}

/* The first trace kind of layer_kind's chain with tensors in dir: its pool and name.
 * Called with cache_lock held. */
static int resolve_pool(const char *dir, const char *layer_kind, gc_payload_pool **pool,
                        const char **trace_kind, char *err, size_t err_len)
{
    const char *chain[GC_TRACE_PAYLOAD_MAX_KINDS];
    int n = gc_trace_payload_kinds(layer_kind, chain);
    char tried[128] = "";
    for (int i = 0; i < n; i++) {
        int rc = cached_pool(dir, chain[i], pool, err, err_len);
        if (rc < 0)
            return -1;
        if (rc == 0) {
            *trace_kind = chain[i];
            return 0;
        }
        size_t have = strlen(tried);
        snprintf(tried + have, sizeof tried - have, "%s%s", have ? ", " : "", chain[i]);
    }
    return gc_trace_fail(err, err_len, "%s: no captured gradient of kind %s (for model layers "
                         "of kind \"%s\"; traces need step and layer_kinds metadata, see "
                         "docs/traces.md)", dir, tried, layer_kind);
}

/* A sampled threshold (dgc, topk:sample>0) selects a count that varies by about +-10% (sd)
 * around k from one sample to the next (up to [0.8k, 1.25k]); measured on the fc and conv
 * pools at 1M and 4M elements, 24 seeds each: mean count 0.98-1.03 x exact top-k
 * (docs/compressors.md, "DGC payloads vs the paper"). One draw, reused for every layer
 * sized from the same chunk, would bias a whole model by that draw (0.84 x for AlexNet's and
 * the PTB LSTM's large layers), so the model sizes the expected count: exact selection,
 * i.e. the canonical spec with sample=0. Writes that spec to out and returns 1, or 0 when
 * the spec has no sampled selection. */
static int expected_count_spec(const char *canonical, char *out, size_t out_len)
{
    const char *at = strstr(canonical, "sample=");
    if (!at || (at != canonical && at[-1] != ',' && at[-1] != ':'))
        return 0;
    const char *val = at + strlen("sample="), *end = strchr(val, ',');
    size_t vlen = end ? (size_t)(end - val) : strlen(val);
    if (vlen == 1 && val[0] == '0')
        return 0;
    int w = snprintf(out, out_len, "%.*ssample=0%s", (int)(at - canonical), canonical,
                     end ? end : "");
    return w > 0 && (size_t)w < out_len;
}

/* Layers past GC_PAYLOAD_CHUNK_MAX elements are sized from one chunk of that many resampled
 * values, the same chunk whatever the layer's size (the resample depends on the pool, the
 * spec and the seed only): its encoded length is kept per (directory, trace kind, spec,
 * seed) and scaled per layer, as gc_payload_pool_estimate scales it. A model's large layers
 * and the same compressor over several models were each encoding the same 4M values (most
 * of a sweep's start-up, issue 47). Called with cache_lock held. */
#define CHUNK_CACHE 64

typedef struct {
    char dir[1024];
    char trace_kind[16];
    char spec[512];
    uint64_t seed;
    size_t len;
} chunk_entry;

static chunk_entry chunks[CHUNK_CACHE];
static size_t n_chunks, next_chunk;

/* The two steps' resamples of one pool and seed, kept and grown (geometrically, up to
 * GC_PAYLOAD_CHUNK_MAX values): with block 1 the resample of m values is the first m of any
 * longer one, so every layer size reads its values from here instead of drawing them again
 * (drawing was most of the payload plans' time: random reads of a pool larger than the
 * caches). At most RESAMPLE_CACHE of them, 2 x 16 MB each at most. Called with cache_lock
 * held; NULL when out of memory (the caller then draws its own). */
#define RESAMPLE_CACHE 2

typedef struct {
    char dir[1024];
    char trace_kind[16];
    uint64_t seed;
    size_t n;
    float *x[2];
} resample_entry;

static resample_entry resamples[RESAMPLE_CACHE];
static size_t next_resample;

static const float *const *resampled(const gc_payload_pool *pool, const char *dir,
                                     const char *trace_kind, uint64_t seed, size_t m)
{
    if (GC_PAYLOAD_BLOCK > 1 || strlen(dir) >= sizeof resamples[0].dir ||
        strlen(trace_kind) >= sizeof resamples[0].trace_kind)
        return NULL;
    resample_entry *e = NULL;
    for (int i = 0; i < RESAMPLE_CACHE && !e; i++)
        if (resamples[i].x[0] && resamples[i].seed == seed &&
            strcmp(resamples[i].trace_kind, trace_kind) == 0 && strcmp(resamples[i].dir, dir) == 0)
            e = &resamples[i];
    if (e && e->n >= m)
        return (const float *const *)e->x;
    if (!e) {
        e = &resamples[next_resample];
        next_resample = (next_resample + 1) % RESAMPLE_CACHE;
        free(e->x[0]);
        free(e->x[1]);
        memset(e, 0, sizeof *e);
        snprintf(e->dir, sizeof e->dir, "%s", dir);
        snprintf(e->trace_kind, sizeof e->trace_kind, "%s", trace_kind);
        e->seed = seed;
    }
    size_t n = 2 * e->n > m ? 2 * e->n : m;
    if (n > GC_PAYLOAD_CHUNK_MAX)
        n = GC_PAYLOAD_CHUNK_MAX > m ? GC_PAYLOAD_CHUNK_MAX : m;
    for (int step = 0; step < 2; step++) {
        float *x = malloc(n * sizeof *x);
        if (!x) {
            free(e->x[0]);
            free(e->x[1]);
            memset(e, 0, sizeof *e);
            return NULL;
        }
        gc_payload_pool_resample(pool, n, GC_PAYLOAD_BLOCK, seed * 2 + (uint64_t)step, x);
        free(e->x[step]);
        e->x[step] = x;
    }
    e->n = n;
    return (const float *const *)e->x;
}

/* gc_payload_pool_estimate of n values of spec from pool (dir's trace_kind), with the
 * values from resampled() and, past GC_PAYLOAD_CHUNK_MAX, the chunk's encoded length kept:
 * the same bytes. */
static int model_estimate(const gc_payload_pool *pool, const char *dir, const char *trace_kind,
                          const char *spec, size_t n, uint64_t seed, size_t *bytes, char *err,
                          size_t err_len)
{
    gc_compressor *c;
    if (gc_compressor_create(spec, &c, err, err_len) != 0)
        return -1;
    size_t fixed;
    int is_fixed = gc_compressor_fixed_payload_bytes(c, n, &fixed);
    gc_compressor_free(c);
    if (is_fixed) {
        *bytes = fixed;
        return 0;
    }
    if (n == 0)
        return gc_trace_fail(err, err_len, "payload model: a layer of 0 elements");
    const size_t m = n > GC_PAYLOAD_CHUNK_MAX ? GC_PAYLOAD_CHUNK_MAX : n;
    bool keep = n > GC_PAYLOAD_CHUNK_MAX && strlen(dir) < sizeof chunks[0].dir &&
                strlen(trace_kind) < sizeof chunks[0].trace_kind &&
                strlen(spec) < sizeof chunks[0].spec;
    if (keep)
        for (size_t i = 0; i < n_chunks; i++) {
            const chunk_entry *e = &chunks[i];
            if (e->seed == seed && strcmp(e->spec, spec) == 0 &&
                strcmp(e->trace_kind, trace_kind) == 0 && strcmp(e->dir, dir) == 0) {
                *bytes = gc_payload_pool_scaled(e->len, n, m);
                return 0;
            }
        }
    size_t len;
    const float *const *given = resampled(pool, dir, trace_kind, seed, m);
    if (gc_payload_pool_encoded_len(pool, spec, m, GC_PAYLOAD_BLOCK, seed, given, &len, err,
                                    err_len) != 0)
        return -1;
    if (keep) {
        chunk_entry *e = &chunks[next_chunk];
        snprintf(e->dir, sizeof e->dir, "%s", dir);
        snprintf(e->trace_kind, sizeof e->trace_kind, "%s", trace_kind);
        snprintf(e->spec, sizeof e->spec, "%s", spec);
        e->seed = seed;
        e->len = len;
        next_chunk = (next_chunk + 1) % CHUNK_CACHE;
        if (n_chunks < CHUNK_CACHE)
            n_chunks++;
    }
    *bytes = gc_payload_pool_scaled(len, n, m);
    return 0;
}

int gc_trace_payload_estimate(const char *compressor_spec, const char *layer_kind,
                              size_t n_elements, uint64_t seed, size_t *payload_bytes,
                              char *err, size_t err_len)
{
    if (!compressor_spec || !payload_bytes)
        return gc_trace_fail(err, err_len, "payload model: missing argument");
    const char *chain[GC_TRACE_PAYLOAD_MAX_KINDS];
    if (gc_trace_payload_kinds(layer_kind, chain) == 0)
        return gc_trace_fail(err, err_len,
                             "payload model: unknown layer kind \"%s\" (conv, fc, bn, norm, "
                             "lstm, attention, embedding or other)", layer_kind ? layer_kind : "");
    /* Fixed-width formats need no trace at all. */
    gc_compressor *c;
    if (gc_compressor_create(compressor_spec, &c, err, err_len) != 0)
        return -1;
    size_t fixed;
    int is_fixed = gc_compressor_fixed_payload_bytes(c, n_elements, &fixed);
    /* An absolute threshold selects by the gradient's scale, which resampling from
     * RMS-normalised traces does not know: refuse rather than guess. */
    int scale_bound = strcmp(gc_compressor_name(c), "threshold") == 0;
    char exact_spec[512];
    int expected = expected_count_spec(gc_compressor_spec(c), exact_spec, sizeof exact_spec);
    gc_compressor_free(c);
    if (scale_bound)
        return gc_trace_fail(err, err_len, "payload model: \"%s\" selects by an absolute "
                             "threshold, so its payload depends on the layer's gradient scale, "
                             "which the model does not know; use dgc or topk with a ratio",
                             compressor_spec);
    if (is_fixed) {
        *payload_bytes = fixed;
        return 0;
    }
    const char *dir = gc_trace_payload_dir();
    if (strlen(dir) >= sizeof results[0].dir || strlen(compressor_spec) >= sizeof results[0].spec)
        return gc_trace_fail(err, err_len, "payload model: trace directory or spec too long");
    const char *kind = layer_kind; /* results are cached per model layer kind */
    pthread_mutex_lock(&cache_lock);
    for (size_t i = 0; i < n_results; i++) {
        const result_entry *r = &results[i];
        if (r->n == n_elements && r->seed == seed && strcmp(r->kind, kind) == 0 &&
            strcmp(r->spec, compressor_spec) == 0 && strcmp(r->dir, dir) == 0) {
            *payload_bytes = r->bytes;
            pthread_mutex_unlock(&cache_lock);
            return 0;
        }
    }
    int rc = -1;
    gc_payload_pool *pool = NULL;
    const char *trace_kind;
    size_t bytes = 0;
    if (resolve_pool(dir, layer_kind, &pool, &trace_kind, err, err_len) == 0)
        rc = model_estimate(pool, dir, trace_kind, expected ? exact_spec : compressor_spec,
                            n_elements, seed, &bytes, err, err_len);
    if (rc == 0) {
        result_entry *r = &results[next_result];
        snprintf(r->dir, sizeof r->dir, "%s", dir);
        snprintf(r->spec, sizeof r->spec, "%s", compressor_spec);
        snprintf(r->kind, sizeof r->kind, "%s", kind);
        r->n = n_elements;
        r->seed = seed;
        r->bytes = bytes;
        next_result = (next_result + 1) % RESULT_CACHE;
        if (n_results < RESULT_CACHE)
            n_results++;
        *payload_bytes = bytes;
    }
    pthread_mutex_unlock(&cache_lock);
    return rc;
}

int gc_trace_payload_source(const char *layer_kind, char *out, size_t out_len, char *err,
                            size_t err_len)
{
    const char *chain[GC_TRACE_PAYLOAD_MAX_KINDS];
    if (gc_trace_payload_kinds(layer_kind, chain) == 0)
        return gc_trace_fail(err, err_len, "payload model: unknown layer kind \"%s\"",
                             layer_kind ? layer_kind : "");
    const char *dir = gc_trace_payload_dir();
    gc_payload_pool *pool = NULL;
    const char *trace_kind = NULL;
    pthread_mutex_lock(&cache_lock);
    int rc = resolve_pool(dir, layer_kind, &pool, &trace_kind, err, err_len);
    if (rc == 0) {
        if (strcmp(trace_kind, chain[0]) == 0)
            snprintf(out, out_len, "%s from %s traces (%zu tensors: %s)", layer_kind, trace_kind,
                     gc_payload_pool_tensors(pool), gc_payload_pool_series(pool));
        else
            snprintf(out, out_len, "%s from %s traces, no %s traces (%zu tensors: %s)",
                     layer_kind, trace_kind, chain[0], gc_payload_pool_tensors(pool),
                     gc_payload_pool_series(pool));
    }
    pthread_mutex_unlock(&cache_lock);
    return rc;
}
