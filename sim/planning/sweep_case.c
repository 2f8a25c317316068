/* Shared case evaluation for sweep, plan and check (sweep_case.h). */
#include "case_build.h"
#include "number_text.h"
#include "sweep_case.h"
#include "sharding.h"

#include "codec.h"
#include "step.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char *path; /* NULL for the embedded default */
    void *value;
} cache_entry;

typedef struct {
    const gcsim_model *model;
    char *spec;
    gcsim_payload_plan *plan;
} payload_entry;

struct sweep_cache {
    cache_entry *platforms, *models, *stacks;
    int n_platforms, n_models, n_stacks;
    payload_entry *payloads;
    int n_payloads;
    sweep_loaders load;
};

static int load_platform_file(const char *path, gcsim_platform *out, gcsim_error *err)
{
    if (!path)
        return gcsim_fail(err, "no platform file named");
    return gcsim_platform_load(path, out, err);
}

static int load_model_file(const char *path, gcsim_model *out, gcsim_error *err)
{
    if (!path)
        return gcsim_fail(err, "no model file named");
    return gcsim_model_load(path, out, err);
}

sweep_cache *sweep_cache_new(const sweep_loaders *loaders)
{
    sweep_cache *c = calloc(1, sizeof(sweep_cache));
    if (c)
        c->load = loaders ? *loaders : (sweep_loaders){load_platform_file, load_model_file};
    return c;
}

void sweep_cache_free(sweep_cache *c)
{
    if (!c)
        return;
    for (int i = 0; i < c->n_platforms; i++) {
        free(c->platforms[i].path);
        free(c->platforms[i].value);
    }
    for (int i = 0; i < c->n_models; i++) {
        free(c->models[i].path);
        gcsim_model_free(c->models[i].value);
        free(c->models[i].value);
    }
    for (int i = 0; i < c->n_stacks; i++) {
        free(c->stacks[i].path);
        free(c->stacks[i].value);
    }
    for (int i = 0; i < c->n_payloads; i++) {
        free(c->payloads[i].spec);
        gcsim_payload_plan_free(c->payloads[i].plan);
        free(c->payloads[i].plan);
    }
    free(c->platforms);
    free(c->models);
    free(c->stacks);
    free(c->payloads);
    free(c);
}

static bool same_path(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static char *dup_or_null(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Appends an entry; returns it or NULL when out of memory. */
static cache_entry *append(cache_entry **list, int *n, const char *path, void *value)
{
    cache_entry *l = realloc(*list, (size_t)(*n + 1) * sizeof *l);
    if (!l)
        return NULL;
    *list = l;
    l[*n] = (cache_entry){dup_or_null(path), value};
    if (path && !l[*n].path)
        return NULL;
    return &l[(*n)++];
}

const gcsim_platform *sweep_cache_platform(sweep_cache *c, const char *path, gcsim_error *err)
{
    for (int i = 0; i < c->n_platforms; i++)
        if (same_path(c->platforms[i].path, path))
            return c->platforms[i].value;
    gcsim_platform *p = malloc(sizeof *p);
    if (!p) {
        gcsim_fail(err, "out of memory");
        return NULL;
    }
    if (c->load.platform(path, p, err)) {
        free(p);
        return NULL;
    }
    if (!append(&c->platforms, &c->n_platforms, path, p)) {
        free(p);
        gcsim_fail(err, "out of memory");
        return NULL;
    }
    return p;
}

/* The model cached under `key`, else read from `path`, trained at `precision` with
 * `optimizer` (-1: the file's), and cached under `key`. */
static const gcsim_model *cached_model(sweep_cache *c, const char *key, const char *path,
                                       int precision, int optimizer, gcsim_error *err)
{
    for (int i = 0; i < c->n_models; i++)
        if (same_path(c->models[i].path, key))
            return c->models[i].value;
    gcsim_model *m = calloc(1, sizeof *m);
    if (!m) {
        gcsim_fail(err, "out of memory");
        return NULL;
    }
    if (c->load.model(path, m, err)) {
        gcsim_model_free(m);
        free(m);
        return NULL;
    }
    if (precision >= 0)
        gcsim_model_set_precision(m, (gcsim_precision)precision);
    if (optimizer >= 0)
        m->optimizer = (gcsim_optimizer)optimizer;
    if (!append(&c->models, &c->n_models, key, m)) {
        gcsim_model_free(m);
        free(m);
        gcsim_fail(err, "out of memory");
        return NULL;
    }
    return m;
}

const gcsim_model *sweep_cache_model(sweep_cache *c, const char *path, gcsim_error *err)
{
    return cached_model(c, path, path, -1, -1, err);
}

const gcsim_model *sweep_cache_model_as(sweep_cache *c, const char *path, int precision,
                                        int optimizer, gcsim_error *err)
{
    if (precision < 0 && optimizer < 0)
        return sweep_cache_model(c, path, err);
    /* A key no file path has: the path, then the two settings on their own lines. */
    char key[4200];
    snprintf(key, sizeof key, "%s\n%d\n%d", path ? path : "(embedded)", precision, optimizer);
    return cached_model(c, key, path, precision, optimizer, err);
}

const gcsim_stack *sweep_cache_stack(sweep_cache *c, const char *name_or_path, gcsim_error *err)
{
    for (int i = 0; i < c->n_stacks; i++)
        if (same_path(c->stacks[i].path, name_or_path))
            return c->stacks[i].value;
    gcsim_stack *st = malloc(sizeof *st); /* ~270 KB (its op laws by setting): too big for the stack */
    if (!st) {
        gcsim_fail(err, "out of memory");
        return NULL;
    }
    if (gcsim_stack_load(name_or_path, st, err)) {
        free(st);
        return NULL;
    }
    if (!append(&c->stacks, &c->n_stacks, name_or_path, st)) {
        free(st);
        gcsim_fail(err, "out of memory");
        return NULL;
    }
    return st;
}

const gcsim_payload_plan *sweep_cache_payload(sweep_cache *c, const gcsim_model *m,
                                              const char *spec, gcsim_error *err)
{
    for (int i = 0; i < c->n_payloads; i++)
        if (c->payloads[i].model == m && same_path(c->payloads[i].spec, spec))
            return c->payloads[i].plan;
    gcsim_payload_plan *plan = calloc(1, sizeof *plan);
    if (!plan) {
        gcsim_fail(err, "out of memory");
        return NULL;
    }
    if (gcsim_payload_plan_build(spec, m, plan, err)) {
        gcsim_payload_plan_free(plan);
        free(plan);
        return NULL;
    }
    payload_entry *l = realloc(c->payloads, (size_t)(c->n_payloads + 1) * sizeof *l);
    if (!l) {
        gcsim_payload_plan_free(plan);
        free(plan);
        gcsim_fail(err, "out of memory");
        return NULL;
    }
    c->payloads = l;
    l[c->n_payloads++] = (payload_entry){m, dup_or_null(spec), plan};
    return plan;
}

int sweep_case_setup(const sweep_case *c, gcsim_stack_setup *ss, gcsim_error *err)
{
    return case_build_setup(c, ss, err);
}

/* The collectives a tuned scenario's calls run (sweep_result.tuned): the tuner picks them
 * while the iteration is built, so it is built once more here (its buckets come from the
 * case memo when there is one). 0 when the scenario does not tune: one GPU, a sharded
 * exchange (its own ring reduce-scatters and all-gathers), an exchange that is no
 * all-reduce. */
static int tuned_collectives(const gcsim_scenario *s, gcsim_exchange exchange, unsigned *mask,
                             gcsim_error *err)
{
    *mask = 0;
    if (!s->tune_allreduce || s->placement.gpus < 2 || exchange != GCSIM_EXCHANGE_ALLREDUCE ||
        s->sharding.strategy != GCSIM_SHARD_DDP)
        return 0;
    gcsim_iteration it;
    if (gcsim_iteration_build(&it, s, err))
        return -1;
    for (int k = 0; k < it.n_calls; k++)
        if ((unsigned)it.calls[k].collective < 32)
            *mask |= 1u << it.calls[k].collective;
    gcsim_iteration_free(&it);
    return 0;
}

void sweep_collective_label(const sweep_result *r, char *buf, size_t size)
{
    if (!r->tuned) {
        snprintf(buf, size, "%s", gcsim_collective_name(r->collective));
        return;
    }
    size_t n = (size_t)snprintf(buf, size, "tuned:");
    for (int c = 0; c < 32 && n < size; c++)
        if (r->tuned & (1u << c))
            n += (size_t)snprintf(buf + n, size - n, "%s%s", buf[n - 1] == ':' ? "" : "+",
                                  gcsim_collective_name((gcsim_collective)c));
}

int sweep_case_run_with(const sweep_case *c, const gcsim_stack_setup *setup, sweep_result *out,
                        gcsim_error *err)
{
    memset(out, 0, sizeof *out);
    out->batch = sweep_case_batch(c);
    out->stack = c->stack;
    if (case_build_check(c, &out->placement, err))
        return -1;
    /* The setup must outlive the engine's use of the scenario, which points into it. */
    gcsim_stack_setup own;
    if (!setup) {
        if (case_build_setup(c, &own, err))
            return -1;
        setup = &own;
    }
    gcsim_scenario s;
    if (case_build_scenario(c, setup, &s, err))
        return -1;
    out->exchange = setup->cs.exchange.exchange;
    out->collective = setup->cs.exchange.collective;
    if (engine_run(c->engine, &s, &out->p, err))
        return -1;
    return c->label_tuned ? tuned_collectives(&s, out->exchange, &out->tuned, err) : 0;
}

int sweep_case_run(const sweep_case *c, sweep_result *out, gcsim_error *err)
{
    return sweep_case_run_with(c, NULL, out, err);
}

sweep_bottleneck sweep_bottleneck_of(const gcsim_prediction *p)
{
    if (p->compute_s >= p->exposed_comm_s && p->compute_s >= p->compress_s)
        return BOTTLENECK_COMPUTE;
    if (p->exposed_comm_s >= p->compress_s)
        return BOTTLENECK_NETWORK;
    return BOTTLENECK_COMPRESSION;
}

const char *sweep_bottleneck_name(sweep_bottleneck b)
{
    return b == BOTTLENECK_COMPUTE ? "compute" : b == BOTTLENECK_NETWORK ? "network"
                                                                         : "compression";
}

const char *sweep_exchange_label(const gcsim_sharding *s, gcsim_exchange ran)
{
    return s->strategy != GCSIM_SHARD_DDP ? "sharded" : gcsim_exchange_name(ran);
}

/* Text appended at t->buf + t->n, cut where snprintf into the whole buffer would cut it. */
typedef struct {
    char *buf;
    size_t n, size;
} id_text;

static void id_put(id_text *t, const char *s)
{
    size_t len = strlen(s), room = t->size - 1 - t->n;
    if (len > room)
        len = room;
    memcpy(t->buf + t->n, s, len);
    t->n += len;
    t->buf[t->n] = '\0';
}

static void id_put_int(id_text *t, int v)
{
    char d[NUMBER_TEXT_MAX];
    number_text_lld(d, v);
    id_put(t, d);
}

/* FNV-1a, 64 bits: offset basis 14695981039346656037, prime 1099511628211 (Fowler, Noll,
 * Vo; IETF draft-eastlake-fnv), continued from h over n bytes of s. */
static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        h ^= (unsigned char)s[k];
        h *= 1099511628211ull;
    }
    return h;
}

/* The text of the id up to its GPU count ("platform=%s;model=%s;compressor=%s;stack=%s;
 * collective=%s;scaling=%s;batch=%d;engine=%s;gpus="), put piece by piece into t. */
static void id_prefix_text(const sweep_case *c, id_text *t)
{
    t->buf[0] = '\0';
    id_put(t, "platform=");
    id_put(t, c->platform->name);
    id_put(t, ";model=");
    id_put(t, c->model->name);
    id_put(t, ";compressor=");
    id_put(t, c->payload->spec);
    id_put(t, ";stack=");
    id_put(t, c->stack ? c->stack->name : "");
    id_put(t, ";collective=");
    id_put(t, gcsim_collective_name(c->collective));
    id_put(t, ";scaling=");
    id_put(t, gcsim_scaling_name(c->scaling));
    id_put(t, ";batch=");
    id_put_int(t, sweep_case_batch(c));
    id_put(t, ";engine=");
    id_put(t, engine_name(c->engine));
    id_put(t, ";gpus=");
}

enum { ID_TEXT = 2048 };

sweep_id_prefix sweep_case_id_prefix(const sweep_case *c)
{
    char text[ID_TEXT];
    id_text t = {text, 0, sizeof text};
    id_prefix_text(c, &t);
    return (sweep_id_prefix){fnv1a(14695981039346656037ull, text, t.n), t.n};
}

/* The id from its prefix's hash and length: the rest of the text (the GPU count and, for
 * sharded cases, their options), cut where the whole text would be, hashed on. */
static void id_finish(const sweep_case *c, uint64_t h, size_t prefix, char *text,
                      char out[17])
{
    id_text t = {text, prefix, ID_TEXT};
    text[prefix] = '\0';
    id_put_int(&t, c->gpus);
    /* sharded cases only: a plain data-parallel case keeps the id it had before */
    if (c->sharding.strategy != GCSIM_SHARD_DDP || c->grad_accum > 1 || c->act_ckpt) {
        char sh[48];
        gcsim_sharding_format(&c->sharding, sh, sizeof sh);
        size_t n = t.n; /* strlen(text): the prefix's bytes hold no NUL (and may not be here) */
        snprintf(text + n, ID_TEXT - n, ";sharding=%s;grad_accum=%d;act_ckpt=%d", sh,
                 c->grad_accum > 1 ? c->grad_accum : 1, c->act_ckpt);
        /* a selective policy only: full checkpointing keeps the id it had before */
        if (c->act_ckpt && c->act_ckpt_policy.mode != GCSIM_CKPT_FULL) {
            char policy[48];
            gcsim_act_ckpt_format(&c->act_ckpt_policy, policy, sizeof policy);
            n += strlen(text + n);
            snprintf(text + n, ID_TEXT - n, ";act_ckpt_policy=%s", policy);
        }
    }
    h = fnv1a(h, text + prefix, strlen(text + prefix));
    static const char hex[] = "0123456789abcdef";
    for (int k = 0; k < 16; k++)
        out[k] = hex[(h >> (60 - 4 * k)) & 15];
    out[16] = '\0';
}

void sweep_case_id_from(const sweep_case *c, sweep_id_prefix p, char out[17])
{
    /* the prefix's bytes are not needed again, only room after them (the text is cut at
     * ID_TEXT - 1 as a whole, so the suffix has what the prefix left) */
    char text[ID_TEXT];
    id_finish(c, p.hash, p.len, text, out);
}

void sweep_case_id(const sweep_case *c, char out[17])
{
    char text[ID_TEXT];
    id_text t = {text, 0, sizeof text};
    id_prefix_text(c, &t);
    /* The text so far is a sweep group's, the same for all its GPU counts: its hash is
     * kept (per thread) with a copy of it, and reused while the text is the same. */
    static _Thread_local char last_prefix[sizeof text];
    static _Thread_local size_t last_len = (size_t)-1;
    static _Thread_local uint64_t last_hash;
    size_t prefix = t.n;
    uint64_t h;
    if (prefix == last_len && memcmp(text, last_prefix, prefix) == 0) {
        h = last_hash;
    } else {
        h = fnv1a(14695981039346656037ull, text, prefix);
        memcpy(last_prefix, text, prefix);
        last_len = prefix;
        last_hash = h;
    }
    id_finish(c, h, prefix, text, out);
}
