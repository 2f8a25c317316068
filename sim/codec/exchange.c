/*
 * sim/codec/exchange.c: which exchange a compressor's payload needs, and how --exchange and
 * --collective combine (codec.h, docs/codec.md "The exchange").
 *
 * Payloads with per-worker scales or indices cannot be added as they are encoded: stacks
 * that ship such compressors (Horovod's compression, BytePS, PyTorch DDP comm hooks for
 * sign and top-k) gather every worker's payload and decode each, which is what gcsim does
 * by default. All-reduce with a hop rule (density growth for sparse payloads,
 * decode-sum-encode for per-worker scales) stays selectable.
 */
#include <stdio.h>
#include <string.h>

#include "codec.h"
#include "compressor.h"
#include "compressor_file.h"

static const char *const names[] = {"auto", "allreduce", "allgather", "ps", "terngrad-pattern"};

const char *gcsim_exchange_name(gcsim_exchange e)
{
    return (unsigned)e <= GCSIM_EXCHANGE_PATTERN ? names[e] : "?";
}

int gcsim_exchange_parse(const char *text, gcsim_exchange *out)
{
    for (int i = 0; i <= GCSIM_EXCHANGE_PS; i++)
        if (strcmp(text, names[i]) == 0) {
            *out = (gcsim_exchange)i;
            return 0;
        }
    return -1;
}

bool gcsim_compressor_summable(const char *spec)
{
    gc_compressor *c;
    char msg[256];
    if (gc_compressor_create(spec ? spec : "none", &c, msg, sizeof msg) != 0)
        return false;
    const char *n = gc_compressor_cost_reference(c);
    /* random-k: workers that share the seed draw the same indices, so values add in
     * place; the other sparse selections differ per worker */
    bool summable = gc_compressor_aggregation(c) == GC_AGG_DENSE_SUMMABLE ||
                    strcmp(n, "randomk") == 0;
    gc_compressor_free(c);
    return summable;
}

/* The exchange's bit in gc_compressor_exchanges (compressor.h); 0 for auto and the papers'
 * patterns, which any format may be modelled by. */
static unsigned exchange_bit(gcsim_exchange e)
{
    switch (e) {
    case GCSIM_EXCHANGE_ALLREDUCE: return GC_EXCHANGE_BIT_ALLREDUCE;
    case GCSIM_EXCHANGE_ALLGATHER: return GC_EXCHANGE_BIT_ALLGATHER;
    case GCSIM_EXCHANGE_PS: return GC_EXCHANGE_BIT_PS;
    case GCSIM_EXCHANGE_AUTO:
    case GCSIM_EXCHANGE_PATTERN: break;
    }
    return 0;
}

unsigned gcsim_compressor_exchanges(const char *spec)
{
    /* searches ask once per candidate: the last answer of each thread is kept */
    static _Thread_local char last_spec[256];
    static _Thread_local unsigned last_bits;
    static _Thread_local bool have_last;
    const char *text = spec ? spec : "none";
    size_t len = strlen(text);
    if (have_last && len < sizeof last_spec && memcmp(last_spec, text, len + 1) == 0)
        return last_bits;
    gc_compressor *c;
    char msg[256];
    if (gc_compressor_create(text, &c, msg, sizeof msg) != 0)
        return GC_EXCHANGES_ANY; /* a bad spec fails elsewhere, with its message */
    unsigned bits = gc_compressor_exchanges(c);
    gc_compressor_free(c);
    have_last = len < sizeof last_spec;
    if (have_last) {
        memcpy(last_spec, text, len + 1);
        last_bits = bits;
    }
    return bits;
}

bool gcsim_compressor_allows(const char *spec, gcsim_exchange e)
{
    unsigned bit = exchange_bit(e);
    return !bit || (gcsim_compressor_exchanges(spec) & bit);
}

static bool is_randomk(const char *spec)
{
    gc_compressor *c;
    char msg[256];
    if (gc_compressor_create(spec ? spec : "none", &c, msg, sizeof msg) != 0)
        return false;
    bool r = strcmp(gc_compressor_cost_reference(c), "randomk") == 0;
    gc_compressor_free(c);
    return r;
}

static bool is_allreduce(gcsim_collective c)
{
    return gcsim_collective_exchange(c) == GCSIM_EXCHANGE_ALLREDUCE;
}

static int set(gcsim_exchange_choice *o, gcsim_exchange e, gcsim_collective c, const char *why)
{
    o->exchange = e;
    o->collective = c;
    snprintf(o->why, sizeof o->why, "%s", why);
    return 0;
}

static int resolve(gcsim_exchange requested, gcsim_collective collective,
                   gcsim_collective_origin origin, const char *spec, gcsim_exchange_choice *o,
                   gcsim_error *err);

/* "allreduce, ps" for a mask of exchange bits. */
static void bits_text(unsigned bits, char *buf, size_t size)
{
    snprintf(buf, size, "%s%s%s%s%s", bits & GC_EXCHANGE_BIT_ALLREDUCE ? "allreduce" : "",
             (bits & GC_EXCHANGE_BIT_ALLREDUCE) && (bits & 6u) ? ", " : "",
             bits & GC_EXCHANGE_BIT_ALLGATHER ? "allgather" : "",
             (bits & GC_EXCHANGE_BIT_ALLGATHER) && (bits & GC_EXCHANGE_BIT_PS) ? ", " : "",
             bits & GC_EXCHANGE_BIT_PS ? "ps" : "");
}

int gcsim_exchange_resolve(gcsim_exchange requested, gcsim_collective collective,
                           gcsim_collective_origin origin, const char *spec,
                           gcsim_exchange_choice *o, gcsim_error *err)
{
    if (resolve(requested, collective, origin, spec, o, err))
        return -1;
    if (gcsim_compressor_allows(spec, o->exchange))
        return 0;
    /* A description that lists fewer exchanges (compressor_file.h): auto takes the first
     * listed one it can; an exchange asked for by name is refused. */
    unsigned bits = gcsim_compressor_exchanges(spec);
    if (requested == GCSIM_EXCHANGE_AUTO && origin != COLLECTIVE_FROM_CLI) {
        static const gcsim_exchange order[] = {GCSIM_EXCHANGE_ALLREDUCE,
                                               GCSIM_EXCHANGE_ALLGATHER, GCSIM_EXCHANGE_PS};
        for (int k = 0; k < 3; k++)
            if (bits & exchange_bit(order[k]))
                return resolve(order[k], collective, origin, spec, o, err);
    }
    char listed[64];
    bits_text(bits, listed, sizeof listed);
    const char *file = gcsim_compressor_file_of(spec);
    return gcsim_fail(err, "%s%sthe exchange %s (%s) is not one the description lists (%s)",
                      file ? file : "", file ? ": $.exchanges: " : "--compressor: ",
                      gcsim_exchange_name(o->exchange), o->why, listed);
}

static int resolve(gcsim_exchange requested, gcsim_collective collective,
                   gcsim_collective_origin origin, const char *spec, gcsim_exchange_choice *o,
                   gcsim_error *err)
{
    memset(o, 0, sizeof *o);
    bool summable = gcsim_compressor_summable(spec);
    bool named = origin != COLLECTIVE_FROM_DEFAULT;
    const char *who = origin == COLLECTIVE_FROM_CLI ? "--collective" : "the platform's collective";
    switch (requested) {
    case GCSIM_EXCHANGE_AUTO:
        if (named && collective == COLLECTIVE_TERNGRAD)
            return set(o, GCSIM_EXCHANGE_PATTERN, collective,
                       origin == COLLECTIVE_FROM_CLI
                           ? "--collective terngrad: the TernGrad paper's Appendix B model"
                           : "the platform's collective terngrad: the TernGrad paper's model");
        if (named && collective == COLLECTIVE_DGC_PAPER)
            return set(o, GCSIM_EXCHANGE_PATTERN, collective,
                       "dgc-paper: DGC Sec. 5's model, TernGrad's pattern with sparse density "
                       "doubling at every aggregation");
        if (named && collective == COLLECTIVE_ALLGATHER)
            return set(o, GCSIM_EXCHANGE_ALLGATHER, collective, "named by the collective");
        if (named && collective == COLLECTIVE_PARAMETER_SERVER)
            return set(o, GCSIM_EXCHANGE_PS, collective, "named by the collective");
        if (origin == COLLECTIVE_FROM_CLI) {
            /* an all-reduce algorithm named on the command line is asked for as such */
            set(o, GCSIM_EXCHANGE_ALLREDUCE, collective,
                summable ? "--collective: all-reduce" : "--collective: all-reduce with the hop rule of the payload class");
            o->shared_support = is_randomk(spec);
            return 0;
        }
        if (summable) {
            set(o, GCSIM_EXCHANGE_ALLREDUCE, collective, "auto: summable payload");
            o->shared_support = is_randomk(spec);
            return 0;
        }
        return set(o, GCSIM_EXCHANGE_ALLGATHER, COLLECTIVE_ALLGATHER,
                   "auto: per-worker scales or indices are not summable");
    case GCSIM_EXCHANGE_ALLREDUCE:
        if (!is_allreduce(collective)) {
            if (origin == COLLECTIVE_FROM_CLI)
                return gcsim_fail(err, "--exchange allreduce needs an all-reduce --collective "
                                       "(ring, halving-doubling, tree, double-tree, "
                                       "hierarchical), got %s",
                                  gcsim_collective_name(collective));
            collective = COLLECTIVE_RING;
        }
        set(o, GCSIM_EXCHANGE_ALLREDUCE, collective,
            summable ? "--exchange allreduce" : "--exchange allreduce: hop rule of the payload class");
        o->shared_support = is_randomk(spec);
        return 0;
    case GCSIM_EXCHANGE_ALLGATHER:
    case GCSIM_EXCHANGE_PS: {
        gcsim_collective want = requested == GCSIM_EXCHANGE_PS ? COLLECTIVE_PARAMETER_SERVER
                                                              : COLLECTIVE_ALLGATHER;
        if (origin == COLLECTIVE_FROM_CLI && collective != want)
            return gcsim_fail(err, "--exchange %s runs the %s schedule; %s %s names another "
                                   "(leave --collective out, or use --exchange allreduce)",
                              gcsim_exchange_name(requested), gcsim_collective_name(want), who,
                              gcsim_collective_name(collective));
        return set(o, requested, want, requested == GCSIM_EXCHANGE_PS ? "--exchange ps"
                                                                      : "--exchange allgather");
    }
    case GCSIM_EXCHANGE_PATTERN: break;
    }
    return gcsim_fail(err, "unknown exchange");
}
