/*
 * traces/payload_pool.c: pools of real gradient values of one layer kind, the block
 * bootstrap that resamples them to any size, and the encoder run that measures a payload
 * (method and rationale in payload_model.h and docs/traces.md).
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "compressor.h"
#include "payload_model.h"
#include "rng.h"
#include "traces_internal.h"

struct gc_payload_pool {
    float *values;     /* every tensor, RMS-normalised, back to back */
    size_t n_values;
    size_t *starts;    /* n_segments + 1 offsets into values */
    size_t n_segments;
    size_t cap_values, cap_segments;
    char series[512];  /* the trace series (sub-directories) that gave tensors, for reports */
};

size_t gc_payload_pool_elements(const gc_payload_pool *p) { return p->n_values; }
size_t gc_payload_pool_tensors(const gc_payload_pool *p) { return p->n_segments; }
const char *gc_payload_pool_series(const gc_payload_pool *p) { return p->series; }

/* Adds a series name to the pool's list once (a truncated list still names the first). */
static void note_series(gc_payload_pool *p, const char *series)
{
    size_t n = strlen(series), have = strlen(p->series);
    for (const char *at = strstr(p->series, series); at; at = strstr(at + 1, series))
        if ((at == p->series || at[-1] == ' ') && (at[n] == ',' || at[n] == '\0'))
            return;
    if (have + n + 3 < sizeof p->series)
        snprintf(p->series + have, sizeof p->series - have, "%s%s", have ? ", " : "", series);
}

void gc_payload_pool_free(gc_payload_pool *p)
{
    if (!p)
        return;
    free(p->values);
    free(p->starts);
    free(p);
}

static int pool_append(gc_payload_pool *p, const float *x, size_t n)
{
    double sq = 0;
    for (size_t i = 0; i < n; i++)
        sq += (double)x[i] * x[i];
    double rms = n ? sqrt(sq / (double)n) : 0;
    if (!(rms > 0))
        return 0; /* an all-zero tensor carries no distribution to sample */
    if (p->n_values + n > p->cap_values) {
        size_t cap = p->cap_values ? p->cap_values : 1 << 16;
        while (cap < p->n_values + n)
            cap *= 2;
        float *v = realloc(p->values, cap * sizeof *v);
        if (!v)
            return -1;
        p->values = v;
        p->cap_values = cap;
    }
    if (p->n_segments + 2 > p->cap_segments) {
        size_t cap = p->cap_segments ? 2 * p->cap_segments : 64;
        size_t *s = realloc(p->starts, cap * sizeof *s);
        if (!s)
            return -1;
        p->starts = s;
        p->cap_segments = cap;
    }
    for (size_t i = 0; i < n; i++)
        p->values[p->n_values + i] = (float)(x[i] / rms);
    p->starts[p->n_segments] = p->n_values;
    p->n_values += n;
    p->n_segments++;
    p->starts[p->n_segments] = p->n_values;
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int not_hidden(const struct dirent *d)
{
    return d->d_name[0] != '.';
}

/* Whether exclude ("<series>:<tensor>" or "<series>:<tensor>@<step>") names this tensor. */
static int excluded(const char *exclude, const char *series, const char *tensor, long long step)
{
    if (!exclude)
        return 0;
    size_t ls = strlen(series), lt = strlen(tensor);
    if (strncmp(exclude, series, ls) != 0 || exclude[ls] != ':' ||
        strncmp(exclude + ls + 1, tensor, lt) != 0)
        return 0;
    const char *rest = exclude + ls + 1 + lt;
    if (*rest == '\0')
        return 1;
    if (*rest != '@')
        return 0;
    char *end;
    long long s = strtoll(rest + 1, &end, 10);
    return *end == '\0' && s == step;
}

/* Adds the tensors of `kind` from one file. Files without step or layer_kinds metadata
 * are not captures of ours and are skipped; so is step 0 (the gradient of the random
 * initialisation, unlike any later step). */
static int load_file(gc_payload_pool *p, const char *path, const char *series, const char *kind,
                     const char *exclude, char *err, size_t err_len)
{
    gc_trace_file f;
    if (gc_trace_open(path, &f, err, err_len) != 0)
        return -1;
    long long step;
    const char *kinds_text = gc_trace_meta_get(&f, "layer_kinds");
    if (!kinds_text || gc_trace_step(&f, &step, NULL, 0) != 0 || step == 0) {
        gc_trace_close(&f);
        return 0;
    }
    cJSON *kinds = cJSON_Parse(kinds_text);
    if (!cJSON_IsObject(kinds)) {
        cJSON_Delete(kinds);
        gc_trace_close(&f);
        return gc_trace_fail(err, err_len, "%s: __metadata__.layer_kinds is not a JSON object",
                             path);
    }
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < f.n_tensors; i++) {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(kinds, f.tensors[i].name);
        if (!cJSON_IsString(k) || strcmp(k->valuestring, kind) != 0 ||
            excluded(exclude, series, f.tensors[i].name, step))
            continue;
        float *x;
        if (gc_trace_load_f32(&f, i, &x, err, err_len) != 0) {
            rc = -1;
            break;
        }
        size_t before = p->n_segments;
        if (pool_append(p, x, f.tensors[i].n_elements) != 0)
            rc = gc_trace_fail(err, err_len, "%s: out of memory", path);
        else if (p->n_segments > before)
            note_series(p, series);
        free(x);
    }
    cJSON_Delete(kinds);
    gc_trace_close(&f);
    return rc;
}

int gc_payload_pool_load(const char *trace_dir, const char *kind, const char *exclude,
                         gc_payload_pool **out, char *err, size_t err_len)
{
    *out = NULL;
    gc_payload_pool *p = calloc(1, sizeof *p);
    if (!p)
        return gc_trace_fail(err, err_len, "out of memory");
    struct dirent **series = NULL;
    int n_series = scandir(trace_dir, &series, not_hidden, alphasort);
    if (n_series < 0) {
        gc_payload_pool_free(p);
        return gc_trace_fail(err, err_len, "%s: cannot list the trace directory (set "
                             "GCSIM_TRACE_DIR to the folder holding the shipped traces)",
                             trace_dir);
    }
    int rc = 0;
    char path[4096];
    for (int s = 0; s < n_series; s++) {
        snprintf(path, sizeof path, "%s/%s", trace_dir, series[s]->d_name);
        struct stat st;
        struct dirent **files = NULL;
        int n_files = rc == 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode)
                          ? scandir(path, &files, not_hidden, alphasort) : 0;
        for (int i = 0; i < n_files; i++) {
            if (rc == 0 && ends_with(files[i]->d_name, ".safetensors")) {
                char file[4096 + 512];
                snprintf(file, sizeof file, "%s/%s", path, files[i]->d_name);
                rc = load_file(p, file, series[s]->d_name, kind, exclude, err, err_len);
            }
            free(files[i]);
        }
        free(files);
        free(series[s]);
    }
    free(series);
    if (rc == 0 && p->n_values == 0) {
        gc_trace_fail(err, err_len, "%s: no captured gradient of kind \"%s\" (traces need "
                      "step and layer_kinds metadata, see docs/traces.md)", trace_dir, kind);
        gc_payload_pool_free(p);
        return 1; /* not an error for callers that fall back to another kind */
    }
    if (rc != 0) {
        gc_payload_pool_free(p);
        return -1;
    }
    *out = p;
    return 0;
}

/* The segment holding value index v (binary search over starts). */
static size_t segment_of(const gc_payload_pool *p, size_t v)
{
    size_t lo = 0, hi = p->n_segments;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (p->starts[mid] <= v)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

void gc_payload_pool_resample(const gc_payload_pool *p, size_t n, size_t block, uint64_t seed,
                              float *out)
{
    gc_rng rng;
    gc_rng_seed(&rng, seed);
    if (block <= 1) {
        /* Independent draws: every pool position equally likely, so no segment lookup;
         * one random word supplies the signs of 64 values. The 64 positions are drawn
         * first and their loads started together: the pool is larger than the caches and
         * one miss at a time was nearly all of a payload estimate's time. The draws come
         * in the order they always did (the signs, then the positions). */
        gc_rng_range values;
        gc_rng_range_init(&values, p->n_values);
        /* Two blocks in flight: block b + 1's positions are drawn and their loads started
         * before block b's values are read, so a miss has a block's draws to arrive. */
        uint64_t at[2][64], signs[2] = {0, 0};
        size_t blocks = (n + 63) / 64;
        for (size_t b = 0; b <= blocks; b++) {
            if (b < blocks) {
                size_t base = b * 64, count = n - base < 64 ? n - base : 64;
                uint64_t *to = at[b & 1];
                signs[b & 1] = gc_rng_next_inline(&rng);
                for (size_t j = 0; j < count; j++) {
                    to[j] = gc_rng_below_range(&rng, &values);
                    __builtin_prefetch(&p->values[to[j]]);
                }
            }
            if (b == 0)
                continue;
            size_t base = (b - 1) * 64, count = n - base < 64 ? n - base : 64;
            const uint64_t *from = at[(b - 1) & 1], sg = signs[(b - 1) & 1];
            for (size_t j = 0; j < count; j++) {
                float v = p->values[from[j]];
                out[base + j] = (sg >> j) & 1 ? -v : v;
            }
        }
        return;
    }
    size_t pos = 0;
    while (pos < n) {
        size_t want = n - pos < block ? n - pos : block;
        /* A segment with probability proportional to its length, then a start where the
         * block fits: every position of the pool is about equally likely. */
        size_t seg = segment_of(p, (size_t)gc_rng_below(&rng, p->n_values));
        size_t seg_start = p->starts[seg], seg_len = p->starts[seg + 1] - seg_start;
        size_t len = want < seg_len ? want : seg_len;
        size_t start = seg_start + (size_t)gc_rng_below(&rng, seg_len - len + 1);
        float sign = (gc_rng_next(&rng) >> 63) ? -1.0f : 1.0f;
        for (size_t i = 0; i < len; i++)
            out[pos + i] = sign * p->values[start + i];
        pos += len;
    }
}

int gc_payload_pool_encoded_len(const gc_payload_pool *p, const char *spec, size_t m,
                                size_t block, uint64_t seed, const float *const given[2],
                                size_t *len, char *err, size_t err_len)
{
    gc_compressor *c;
    if (gc_compressor_create(spec, &c, err, err_len) != 0)
        return -1;
    float *x = given ? NULL : malloc((m ? m : 1) * sizeof *x);
    gc_bytes payload = {0};
    if (!given && !x) {
        gc_compressor_free(c);
        return gc_trace_fail(err, err_len, "payload model: out of memory for %zu floats", m);
    }
    gc_rng rng;
    gc_rng_seed(&rng, seed ^ 0x9e3779b97f4a7c15ULL);
    /* Warm-up step, then the measured step, each from its own resample. */
    int rc = 0;
    for (int step = 0; rc == 0 && step < 2; step++) {
        const float *v = given ? given[step] : x;
        if (!given)
            gc_payload_pool_resample(p, m, block, seed * 2 + (uint64_t)step, x);
        rc = gc_compressor_encode(c, 0, v, m, &rng, &payload, NULL, err, err_len);
        gc_compressor_next_step(c);
    }
    if (rc == 0)
        *len = payload.len;
    free(x);
    gc_bytes_free(&payload);
    gc_compressor_free(c);
    return rc;
}

size_t gc_payload_pool_scaled(size_t len, size_t n, size_t m)
{
    return m == n ? len : (size_t)llround((double)len * (double)n / (double)m);
}

int gc_payload_pool_estimate(const gc_payload_pool *p, const char *spec, size_t n,
                             size_t block, size_t chunk_max, uint64_t seed,
                             size_t *payload_bytes, char *err, size_t err_len)
{
    gc_compressor *c;
    if (gc_compressor_create(spec, &c, err, err_len) != 0)
        return -1;
    size_t fixed;
    int is_fixed = gc_compressor_fixed_payload_bytes(c, n, &fixed);
    gc_compressor_free(c);
    if (is_fixed) {
        *payload_bytes = fixed;
        return 0;
    }
    if (n == 0)
        return gc_trace_fail(err, err_len, "payload model: a layer of 0 elements");
    size_t m = chunk_max && n > chunk_max ? chunk_max : n, len;
    if (gc_payload_pool_encoded_len(p, spec, m, block, seed, NULL, &len, err, err_len) != 0)
        return -1;
    *payload_bytes = gc_payload_pool_scaled(len, n, m);
    return 0;
}
