/* compressors/compressor.c: the public layer. Parses specs, owns per-tensor state, writes
 * and checks the payload header, rejects non-finite input, and implements the generic
 * error-feedback wrapper ("ef+NAME:..."): e <- (g + e) - Q(g + e), sending Q(g + e). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

static const gc_codec *const registry[] = {
    &gc_codec_none,    &gc_codec_fp16,      &gc_codec_bf16,      &gc_codec_terngrad,
    &gc_codec_qsgd,    &gc_codec_dgc,       &gc_codec_topk,      &gc_codec_randomk,
    &gc_codec_threshold, &gc_codec_orq,     &gc_codec_linear,    &gc_codec_bingrad_b,
    &gc_codec_bingrad_pb, &gc_codec_signsgd, &gc_codec_onebit,   &gc_codec_ecq,
    &gc_codec_powersgd, &gc_codec_described,
};
#define NCODECS (sizeof registry / sizeof registry[0])

/* The registered compressors a user picks by name; "described" (c_described.c) is written by
 * the simulator from a description file, so it is not listed. */
static const char *const names[NCODECS] = {
    "none",    "fp16",   "bf16",      "terngrad",  "qsgd",    "dgc",
    "topk",    "randomk", "threshold", "orq",      "linear",  "bingrad-b",
    "bingrad-pb", "signsgd", "onebit", "ecq",      "powersgd", NULL,
};

const char *const *gc_compressor_names(void) { return names; }

const gc_codec *gc_codec_find(const char *name)
{
    for (size_t i = 0; i < NCODECS; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

const char *gc_aggregation_name(gc_aggregation a)
{
    switch (a) {
    case GC_AGG_DENSE_SUMMABLE: return "dense-summable";
    case GC_AGG_SHARED_SCALE: return "shared-scale";
    case GC_AGG_SPARSE: return "sparse";
    case GC_AGG_PER_WORKER_SCALE: return "per-worker-scale";
    }
    return "unknown";
}

int gc_compressor_create(const char *spec, gc_compressor **out, char *err, size_t err_len)
{
    *out = NULL;
    if (!spec || !*spec) {
        gc_errf(err, err_len, "empty compressor spec");
        return -1;
    }
    const char *whole = spec; /* messages quote what was given, "ef+" included */
    bool ef = false;
    if (strncmp(spec, "ef+", 3) == 0) {
        ef = true;
        spec += 3;
    }
    char name[64];
    const char *colon = strchr(spec, ':');
    size_t nlen = colon ? (size_t)(colon - spec) : strlen(spec);
    if (nlen == 0) {
        gc_errf(err, err_len, "compressor spec \"%s\": no compressor name %s", whole,
                ef ? "after \"ef+\" (e.g. ef+signsgd)" : "before ':' (e.g. qsgd:s=4)");
        return -1;
    }
    if (nlen >= sizeof name) {
        gc_errf(err, err_len, "compressor spec \"%.60s...\": a name of %zu characters, longer "
                "than any compressor's", whole, nlen);
        return -1;
    }
    memcpy(name, spec, nlen);
    name[nlen] = 0;
    const gc_codec *codec = gc_codec_find(name);
    if (!codec) {
        char known[400] = "";
        for (size_t i = 0; names[i]; i++) {
            strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
            strncat(known, names[i], sizeof known - strlen(known) - 1);
        }
        gc_errf(err, err_len, "unknown compressor \"%s\" (known: %s; prefix ef+ adds error feedback)",
                name, known);
        return -1;
    }
    if (colon && colon[1] == '\0') {
        gc_errf(err, err_len, "compressor %s: nothing after ':' (give key=value items, or "
                "no ':')", name);
        return -1;
    }
    gc_compressor *c = calloc(1, sizeof *c);
    if (!c) {
        gc_errf(err, err_len, "out of memory");
        return -1;
    }
    c->codec = codec;
    c->ef = ef;
    if (gc_spec_parse_keys(codec, colon ? colon + 1 : "", c->p, err, err_len) != 0 ||
        (codec->check && codec->check(c->p, err, err_len) != 0)) {
        free(c);
        return -1;
    }
    gc_spec_format(codec, c->p, ef, c->spec, sizeof c->spec);
    *out = c;
    return 0;
}

static void free_state(gc_tstate *s)
{
    free(s->a);
    free(s->b);
    free(s->c);
    free(s->ef);
}

void gc_compressor_free(gc_compressor *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nstates; i++)
        free_state(&c->states[i]);
    free(c->states);
    free(c->scratch);
    free(c);
}

const char *gc_compressor_spec(const gc_compressor *c) { return c->spec; }
const char *gc_compressor_name(const gc_compressor *c) { return c->codec->name; }

gc_aggregation gc_compressor_aggregation(const gc_compressor *c)
{
    return c->codec->agg_of ? c->codec->agg_of(c->p) : c->codec->agg;
}

const char *gc_compressor_cost_reference(const gc_compressor *c)
{
    return c->codec == &gc_codec_described ? gc_described_cost_reference(c->p) : c->codec->name;
}

unsigned gc_compressor_exchanges(const gc_compressor *c)
{
    return c->codec == &gc_codec_described ? gc_described_exchanges(c->p) : GC_EXCHANGES_ANY;
}

int gc_compressor_described_rank(const gc_compressor *c)
{
    return c->codec == &gc_codec_described ? gc_described_rank(c->p) : 0;
}

bool gc_compressor_is_unbiased(const gc_compressor *c)
{
    /* error feedback makes any compressor biased step by step */
    return !c->ef && c->codec->unbiased && c->codec->unbiased(c->p);
}

bool gc_compressor_checks_input(const gc_compressor *c)
{
    return c->ef || !c->codec->checks_finite;
}

bool gc_compressor_is_stateful(const gc_compressor *c)
{
    const char *n = c->codec->name;
    return c->ef || !strcmp(n, "dgc") || !strcmp(n, "onebit") || !strcmp(n, "ecq") ||
           !strcmp(n, "powersgd");
}

size_t gc_payload_header_bytes(size_t n) { return 1 + gc_uleb_len(n); }

bool gc_compressor_fixed_payload_bytes(const gc_compressor *c, size_t n, size_t *bytes)
{
    size_t body;
    if (!c->codec->fixed_body || !c->codec->fixed_body(c->p, n, &body))
        return false;
    *bytes = gc_payload_header_bytes(n) + body;
    return true;
}

bool gc_compressor_fixed_payload_bytes_last_layer(const gc_compressor *c, size_t n,
                                                  size_t *bytes)
{
    if (!c->codec->fixed_body_last)
        return gc_compressor_fixed_payload_bytes(c, n, bytes);
    size_t body;
    if (!c->codec->fixed_body_last(c->p, n, &body))
        return false;
    *bytes = gc_payload_header_bytes(n) + body;
    return true;
}

bool gc_compressor_vector_payload_bytes(const gc_compressor *c, size_t n, size_t *bytes)
{
    size_t body;
    if (!c->codec->fixed_body_vector || !c->codec->fixed_body_vector(c->p, n, &body))
        return false;
    *bytes = gc_payload_header_bytes(n) + body;
    return true;
}

int gc_compressor_levels(const gc_compressor *c)
{
    return c->codec->levels ? c->codec->levels(c->p) : 0;
}

size_t gc_compressor_bucket_elems(const gc_compressor *c, size_t n)
{
    size_t b = c->codec->bucket ? c->codec->bucket(c->p, n) : n;
    return b == 0 || b > n ? n : b;
}

bool gc_compressor_variance_bound(const gc_compressor *c, const float *g, size_t n,
                                  double *bound)
{
    return c->codec->variance_bound && c->codec->variance_bound(c->p, g, n, bound);
}

/* The state slot for tensor_id, created on first use. */
static gc_tstate *state_slot(gc_compressor *c, int tensor_id, char *err, size_t err_len)
{
    if (tensor_id < 0 || tensor_id > 100000000) {
        gc_errf(err, err_len, "tensor id %d out of range [0, 100000000]", tensor_id);
        return NULL;
    }
    size_t id = (size_t)tensor_id;
    if (id >= c->nstates) {
        size_t nn = c->nstates ? c->nstates : 8;
        while (nn <= id)
            nn *= 2;
        gc_tstate *s = realloc(c->states, nn * sizeof *s);
        if (!s) {
            gc_errf(err, err_len, "out of memory");
            return NULL;
        }
        memset(s + c->nstates, 0, (nn - c->nstates) * sizeof *s);
        c->states = s;
        c->nstates = nn;
    }
    return &c->states[id];
}

/* The error-feedback wrapper's two passes, compiled as the codecs' hot loops (fixed-count
 * blocks vectorize at -O2; a plain loop of unknown count did not) */
GC_HOT static void ef_add(const float *restrict g, const float *restrict e, size_t n,
                          float *restrict v)
{
    size_t i = 0;
    for (; i + 256 <= n; i += 256)
        for (size_t j = i; j < i + 256; j++)
            v[j] = g[j] + e[j];
    for (; i < n; i++)
        v[i] = g[i] + e[i];
}
GC_HOT static void ef_residual(const float *restrict v, const float *restrict q, size_t n,
                               float *restrict e)
{
    size_t i = 0;
    for (; i + 256 <= n; i += 256)
        for (size_t j = i; j < i + 256; j++)
            e[j] = v[j] - q[j];
    for (; i < n; i++)
        e[i] = v[i] - q[i];
}

GC_HOT static int check_finite(const float *restrict g, size_t n, char *err, size_t err_len)
{
    /* Branch-free scan in fixed blocks (vectorizes): an exponent of all ones is NaN or Inf;
     * the element is located only on failure. */
    enum { B = 1024 };
    size_t i0 = 0;
    for (; i0 + B <= n; i0 += B) {
        uint32_t bad = 0;
        for (size_t i = 0; i < B; i++)
            bad |= (gc_f2u(g[i0 + i]) & 0x7f800000u) == 0x7f800000u;
        if (bad)
            return gc_nonfinite_error(g, n, err, err_len);
    }
    for (size_t i = i0; i < n; i++)
        if (gc_nonfinite_bit(gc_f2u(g[i])))
            return gc_nonfinite_error(g, n, err, err_len);
    return 0;
}

static float *scratch(gc_compressor *c, size_t nfloats)
{
    if (c->scratch_len < nfloats) {
        float *s = realloc(c->scratch, nfloats * sizeof *s);
        if (!s)
            return NULL;
        c->scratch = s;
        c->scratch_len = nfloats;
    }
    return c->scratch;
}

int gc_compressor_encode(gc_compressor *c, int tensor_id, const float *grad, size_t n,
                         gc_rng *rng, gc_bytes *payload, float *quantized, char *err,
                         size_t err_len)
{
    if (n > 0 && !grad) {
        gc_errf(err, err_len, "gradient pointer is NULL");
        return -1;
    }
    gc_tstate *st = state_slot(c, tensor_id, err, err_len);
    if (!st)
        return -1;
    if (st->used && st->n != n && gc_compressor_is_stateful(c)) {
        gc_errf(err, err_len, "tensor %d had %zu elements in an earlier step, now %zu",
                tensor_id, st->n, n);
        return -1;
    }
    if (gc_compressor_checks_input(c) && check_finite(grad, n, err, err_len) != 0)
        return -1;
    gc_rng fallback;
    if (!rng) { /* deterministic compressors need none; stochastic ones get seed 0 */
        gc_rng_seed(&fallback, 0);
        rng = &fallback;
    }
    st->step = c->step;
    payload->len = 0;
    if (gc_put_u8(payload, c->codec->format_id) != 0 || gc_put_uleb(payload, n) != 0) {
        gc_errf(err, err_len, "out of memory");
        return -1;
    }
    if (!c->ef) {
        int rc = c->codec->encode(c->p, st, grad, n, rng, payload, quantized, err, err_len);
        if (rc == 0) {
            st->used = true;
            st->n = n;
        }
        return rc;
    }
    if (!st->ef && n > 0) {
        st->ef = calloc(n, sizeof *st->ef);
        if (!st->ef) {
            gc_errf(err, err_len, "out of memory for the error-feedback residual");
            return -1;
        }
    }
    float *buf = scratch(c, 2 * n);
    if (n > 0 && !buf) {
        gc_errf(err, err_len, "out of memory");
        return -1;
    }
    float *v = buf, *q = quantized ? quantized : buf + n;
    ef_add(grad, st->ef, n, v);
    if (check_finite(v, n, err, err_len) != 0)
        return -1;
    int rc = c->codec->encode(c->p, st, v, n, rng, payload, q, err, err_len);
    if (rc != 0)
        return rc;
    ef_residual(v, q, n, st->ef);
    st->used = true;
    st->n = n;
    return 0;
}

int gc_compressor_decode(const gc_compressor *c, const uint8_t *payload, size_t len,
                         float *out, size_t n, char *err, size_t err_len)
{
    gc_reader r = {payload, payload ? len : 0, 0};
    uint8_t id;
    uint64_t count;
    if (gc_get_u8(&r, &id, "format id", err, err_len) != 0)
        return -1;
    if (id != c->codec->format_id) {
        gc_errf(err, err_len, "bad format id at byte offset 0: %u is not %s's (%u)", id,
                c->codec->name, c->codec->format_id);
        return -1;
    }
    if (gc_get_uleb(&r, &count, "element count", err, err_len) != 0)
        return -1;
    if (count != n) {
        gc_errf(err, err_len,
                "element count at byte offset 1 is %llu, the caller expects %zu",
                (unsigned long long)count, n);
        return -1;
    }
    if (n > 0 && !out) {
        gc_errf(err, err_len, "output pointer is NULL");
        return -1;
    }
    if (c->codec->decode(c->p, &r, out, n, err, err_len) != 0)
        return -1;
    if (r.pos != r.len) {
        gc_errf(err, err_len, "%zu trailing bytes at byte offset %zu", r.len - r.pos, r.pos);
        return -1;
    }
    return 0;
}

void gc_compressor_next_step(gc_compressor *c) { c->step++; }

long gc_compressor_step(const gc_compressor *c) { return c->step; }

double gc_compressor_density(const gc_compressor *c)
{
    double d = gc_sparse_density(c->codec, c->p, c->step);
    return d < 0 ? 1.0 : d;
}

bool gc_compressor_local_scale(gc_compressor *c, int tensor_id, const float *grad, size_t n,
                               float *scale)
{
    (void)tensor_id;
    if (!c->codec->local_scale || c->ef)
        return false;
    return c->codec->local_scale(c->p, grad, n, scale);
}

void gc_compressor_set_shared_scale(gc_compressor *c, int tensor_id, float scale)
{
    if (!c->codec->local_scale || c->ef || !(scale >= 0) || !isfinite(scale))
        return;
    gc_tstate *st = state_slot(c, tensor_id, NULL, 0);
    if (!st)
        return;
    st->has_shared_scale = true;
    st->shared_scale = scale;
}

int gc_compressor_set_shape(gc_compressor *c, int tensor_id, size_t rows, size_t cols,
                            char *err, size_t err_len)
{
    gc_tstate *st = state_slot(c, tensor_id, err, err_len);
    if (!st)
        return -1;
    if ((rows == 0) != (cols == 0)) {
        gc_errf(err, err_len, "tensor %d: shape %zu x %zu: both or neither must be 0",
                tensor_id, rows, cols);
        return -1;
    }
    if (st->used && rows && rows * cols != st->n) {
        gc_errf(err, err_len, "tensor %d: shape %zu x %zu does not hold its %zu elements",
                tensor_id, rows, cols, st->n);
        return -1;
    }
    st->rows = rows;
    st->cols = cols;
    return 0;
}

int gc_compressor_set_last_layer(gc_compressor *c, int tensor_id, bool last)
{
    gc_tstate *st = state_slot(c, tensor_id, NULL, 0);
    if (!st)
        return -1;
    st->last_layer = last;
    return 0;
}

int gc_compressor_set_vector(gc_compressor *c, int tensor_id, bool vector)
{
    gc_tstate *st = state_slot(c, tensor_id, NULL, 0);
    if (!st)
        return -1;
    st->vector = vector;
    return 0;
}

/* Forget one slot's state; its shape, last-layer and 1-D flags stay. */
static void clear_state(gc_tstate *s)
{
    free_state(s);
    s->a = s->b = s->c = s->ef = NULL;
    s->a_len = s->b_len = s->c_len = 0;
    s->used = false;
    s->n = 0;
    s->has_shared_scale = false;
}

void gc_compressor_reset(gc_compressor *c)
{
    for (size_t i = 0; i < c->nstates; i++)
        clear_state(&c->states[i]);
    c->step = 0;
}

void gc_compressor_reset_tensor(gc_compressor *c, int tensor_id)
{
    if (tensor_id >= 0 && (size_t)tensor_id < c->nstates)
        clear_state(&c->states[tensor_id]);
    c->step = 0;
}
