/*
 * traces/payload_model.c: gc_trace_payload_estimate, the simulator's entry point: kind
 * mapping, the trace directory, and the per-process caches of loaded pools and results.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compressor.h"
#include "payload_model.h"
#include "traces_internal.h"

#ifndef GCSIM_TRACE_DIR
#define GCSIM_TRACE_DIR "traces/data"
#endif

const char *gc_trace_payload_kind(const char *layer_kind)
{
    if (!layer_kind)
        return NULL;
    if (strcmp(layer_kind, "conv") == 0)
        return "conv";
    if (strcmp(layer_kind, "bn") == 0 || strcmp(layer_kind, "norm") == 0)
        return "bn";
    /* Recurrent, attention and embedding layers are dense weight matrices, like fc. */
    if (strcmp(layer_kind, "fc") == 0 || strcmp(layer_kind, "lstm") == 0 ||
        strcmp(layer_kind, "attention") == 0 || strcmp(layer_kind, "embedding") == 0 ||
        strcmp(layer_kind, "other") == 0)
        return "fc";
    return NULL;
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
    char kind[8];
    gc_payload_pool *pool;
} pool_entry;

typedef struct {
    char dir[1024];
    char spec[256];
    char kind[8];
    size_t n;
    uint64_t seed;
    size_t bytes;
} result_entry;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static pool_entry pools[POOL_CACHE];
static result_entry results[RESULT_CACHE];
static size_t n_results, next_result;

static gc_payload_pool *cached_pool(const char *dir, const char *kind, char *err, size_t err_len)
{
    for (int i = 0; i < POOL_CACHE; i++)
        if (pools[i].pool && strcmp(pools[i].dir, dir) == 0 && strcmp(pools[i].kind, kind) == 0)
            return pools[i].pool;
    gc_payload_pool *p;
    if (gc_payload_pool_load(dir, kind, NULL, &p, err, err_len) != 0)
        return NULL;
    int slot = 0;
    while (slot < POOL_CACHE - 1 && pools[slot].pool)
        slot++;
    gc_payload_pool_free(pools[slot].pool); /* full: replace the last slot */
    snprintf(pools[slot].dir, sizeof pools[slot].dir, "%s", dir);
    snprintf(pools[slot].kind, sizeof pools[slot].kind, "%s", kind);
    pools[slot].pool = p;
    return p;
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

int gc_trace_payload_estimate(const char *compressor_spec, const char *layer_kind,
                              size_t n_elements, uint64_t seed, size_t *payload_bytes,
                              char *err, size_t err_len)
{
    if (!compressor_spec || !payload_bytes)
        return gc_trace_fail(err, err_len, "payload model: missing argument");
    const char *kind = gc_trace_payload_kind(layer_kind);
    if (!kind)
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
    gc_payload_pool *pool = cached_pool(dir, kind, err, err_len);
    size_t bytes = 0;
    if (pool)
        rc = gc_payload_pool_estimate(pool, expected ? exact_spec : compressor_spec,
                                      n_elements, GC_PAYLOAD_BLOCK,
                                      GC_PAYLOAD_CHUNK_MAX, seed, &bytes, err, err_len);
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
