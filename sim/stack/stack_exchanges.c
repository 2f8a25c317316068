/*
 * sim/stack/stack_exchanges.c: the exchanges a stack implements, per payload kind (stack.h,
 * docs/stacks.md). `--exchange best`, predict's exchange warning and plan's default
 * collectives search only these: Horovod cannot all-reduce a QSGD payload nor run a
 * parameter server, and a recommendation it cannot follow is a wrong answer.
 */
#include <stdio.h>
#include <string.h>

#include "compressor.h"
#include "compressor_file.h"
#include "stack_exchanges.h"

static const char *const kind_names[STACK_PAYLOAD_KINDS] = {"summable", "low-rank", "sparse",
                                                            "quantized"};

/* The exchanges a list may name, as gcsim_exchange values (their names: gcsim_exchange_name). */
static const gcsim_exchange listable[] = {GCSIM_EXCHANGE_ALLREDUCE, GCSIM_EXCHANGE_ALLGATHER,
                                          GCSIM_EXCHANGE_PS};
#define N_LISTABLE 3

const char *gcsim_stack_payload_name(gcsim_stack_payload k)
{
    return (unsigned)k < STACK_PAYLOAD_KINDS ? kind_names[k] : "?";
}

static gcsim_stack_payload kind_of(const gc_compressor *c)
{
    /* a described compressor has its reference's kind (compressor_file.c checks they agree) */
    const char *n = gc_compressor_cost_reference(c);
    if (strcmp(n, "powersgd") == 0)
        return STACK_PAYLOAD_LOW_RANK;
    /* random-k: the workers share the seed, so the values add in place (the same rule as
     * gcsim_compressor_summable) */
    if (strcmp(n, "randomk") == 0)
        return STACK_PAYLOAD_SUMMABLE;
    switch (gc_compressor_aggregation(c)) {
    case GC_AGG_DENSE_SUMMABLE: return STACK_PAYLOAD_SUMMABLE;
    case GC_AGG_SPARSE: return STACK_PAYLOAD_SPARSE;
    case GC_AGG_SHARED_SCALE:
    case GC_AGG_PER_WORKER_SCALE: break;
    }
    return STACK_PAYLOAD_QUANTIZED;
}

int gcsim_stack_payload_of(const char *spec, gcsim_stack_payload *out, gcsim_error *err)
{
    /* one spec after another is the common case (a sweep, a search): creating the
     * compressor parses its spec, so the last answer is kept */
    static _Thread_local char last_spec[256];
    static _Thread_local gcsim_stack_payload last_kind;
    static _Thread_local bool have_last;
    const char *text = spec ? spec : "none";
    size_t len = strlen(text);
    if (have_last && len < sizeof last_spec && memcmp(last_spec, text, len + 1) == 0) {
        *out = last_kind;
        return 0;
    }
    gc_compressor *c;
    char msg[256];
    if (gc_compressor_create(text, &c, msg, sizeof msg))
        return gcsim_fail(err, "%s", msg);
    *out = kind_of(c);
    gc_compressor_free(c);
    have_last = len < sizeof last_spec;
    if (have_last) {
        memcpy(last_spec, text, len + 1);
        last_kind = *out;
    }
    return 0;
}

bool gcsim_stack_implements(const gcsim_stack *s, const char *spec, gcsim_exchange e)
{
    if (e == GCSIM_EXCHANGE_AUTO || e == GCSIM_EXCHANGE_PATTERN)
        return true;
    gcsim_stack_payload k;
    gcsim_error err;
    if (gcsim_stack_payload_of(spec, &k, &err))
        return false;
    /* and the compressor's format supports it (a description may list fewer) */
    return ((s->exchanges[k] >> e) & 1u) && gcsim_compressor_allows(spec, e);
}

/* "allreduce, allgather" for a kind's bits ("none" when empty, which finish() rules out). */
static void list_text(unsigned bits, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int k = 0; k < N_LISTABLE && len < size; k++)
        if ((bits >> listable[k]) & 1u)
            len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
                                    gcsim_exchange_name(listable[k]));
    if (!buf[0])
        snprintf(buf, size, "none");
}

int gcsim_stack_unimplemented(const gcsim_stack *s, const char *spec, gcsim_exchange e,
                              char *buf, size_t size)
{
    if (gcsim_stack_implements(s, spec, e))
        return 0;
    gcsim_stack_payload k;
    gcsim_error err;
    if (gcsim_stack_payload_of(spec, &k, &err)) {
        snprintf(buf, size, "%s", err.message);
        return 1;
    }
    if (!gcsim_compressor_allows(spec, e)) {
        const char *file = gcsim_compressor_file_of(spec);
        snprintf(buf, size, "%s: $.exchanges does not list %s", file ? file : "the description",
                 gcsim_exchange_name(e));
        return 1;
    }
    char has[64];
    list_text(s->exchanges[k], has, sizeof has);
    /* the compressor's name, not its parameters (the tables print names) */
    const char *name = spec ? spec : "none";
    int name_len = (int)strcspn(name, ":");
    /* a long stack name may cut the sentence short: it is for reading only */
    if (snprintf(buf, size, "stack %s does not implement %s for %s payloads (%.*s); it "
                 "implements %s", s->name, gcsim_exchange_name(e), kind_names[k],
                 name_len > 64 ? 64 : name_len, name, has) < 0)
        buf[0] = '\0';
    return 1;
}

int stack_exchanges_parse(const cJSON *v, gcsim_stack *s, json_ctx *ctx)
{
    static const char *const keys[] = {"summable", "low-rank", "sparse", "quantized", "source",
                                       NULL};
    const char *path = "$.exchanges";
    char source[1024], got[96];
    if (!v)
        return 0;
    if (json_expect_object(v, path, keys, ctx) ||
        json_string(v, path, "source", true, source, sizeof source, ctx))
        return -1;
    for (int k = 0; k < STACK_PAYLOAD_KINDS; k++) {
        const cJSON *a = json_member(v, kind_names[k]);
        /* every kind said: a stack that runs no exchange of a kind says so by refusing its
         * compressors, not by leaving the kind out */
        if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1)
            return gcsim_fail(ctx->err, "%s: %s.%s: expected a non-empty array of exchanges "
                                        "(allreduce, allgather, ps), got %s",
                              ctx->origin, path, kind_names[k],
                              a ? json_describe(a, got, sizeof got) : "nothing");
        int i = 0;
        for (const cJSON *x = a->child; x; x = x->next, i++) {
            gcsim_exchange e;
            if (!cJSON_IsString(x) || gcsim_exchange_parse(x->valuestring, &e) ||
                e == GCSIM_EXCHANGE_AUTO)
                return gcsim_fail(ctx->err, "%s: %s.%s[%d]: expected allreduce, allgather or ps, "
                                            "got %s",
                                  ctx->origin, path, kind_names[k], i,
                                  json_describe(x, got, sizeof got));
            if ((s->exchanges[k] >> e) & 1u)
                return gcsim_fail(ctx->err, "%s: %s.%s[%d]: %s listed twice", ctx->origin, path,
                                  kind_names[k], i, x->valuestring);
            s->exchanges[k] |= 1u << e;
        }
    }
    s->exchanges_listed = true;
    return 0;
}

/* The exchange an entry runs its compressor with, as a gcsim_exchange. */
static gcsim_exchange own_exchange(const gcsim_stack_entry *e)
{
    return e->exchange == STACK_EXCHANGE_ALLGATHER ? GCSIM_EXCHANGE_ALLGATHER
                                                   : GCSIM_EXCHANGE_ALLREDUCE;
}

int stack_exchanges_finish(gcsim_stack *s, json_ctx *ctx)
{
    if (s->codec_model && !s->exchanges_listed) {
        /* the fused stack's own: what gcsim_exchange_resolve picks for auto */
        s->exchanges[STACK_PAYLOAD_SUMMABLE] = 1u << GCSIM_EXCHANGE_ALLREDUCE;
        s->exchanges[STACK_PAYLOAD_LOW_RANK] = 1u << GCSIM_EXCHANGE_ALLREDUCE;
        s->exchanges[STACK_PAYLOAD_SPARSE] = 1u << GCSIM_EXCHANGE_ALLGATHER;
        s->exchanges[STACK_PAYLOAD_QUANTIZED] = 1u << GCSIM_EXCHANGE_ALLGATHER;
        return 0;
    }
    for (int k = 0; k < s->n_entries; k++) {
        const gcsim_stack_entry *e = &s->entries[k];
        if (e->refusal[0])
            continue;
        gcsim_stack_payload kind;
        if (gcsim_stack_payload_of(e->compressor, &kind, ctx->err))
            return -1;
        gcsim_exchange own = own_exchange(e);
        if (!s->exchanges_listed)
            s->exchanges[kind] |= 1u << own;
        else if (!((s->exchanges[kind] >> own) & 1u))
            return gcsim_fail(ctx->err, "%s: $.compressors.%s.exchange: the stack runs %s by "
                                        "%s, which $.exchanges.%s does not list",
                              ctx->origin, e->compressor, e->compressor,
                              gcsim_exchange_name(own), kind_names[kind]);
    }
    return 0;
}
