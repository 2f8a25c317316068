/*
 * sim/des/des_timeline.c: Chrome trace event JSON of one simulated iteration (see
 * des_timeline.h). Events are kept in memory during the run and written at the end.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "des_timeline.h"

#include "atomic_file.h"
#include "des_link_rates.h"

typedef struct {
    int endpoint;
    int track;
    long long start_ns, end_ns; /* rounded once; ts and dur both come from these */
    des_event_args args;
    char name[56];
} event;

typedef struct {
    uint64_t key;
    long slice;
    int is_sender;
} flow_end;

struct des_timeline {
    int gpus, nodes, shards;
    size_t n, cap;
    event *ev;
    size_t n_flows, cap_flows;
    flow_end *flows;
    int failed; /* out of memory while recording */
    int stragglers; /* des_timeline_stragglers called: track 6 named, the list written */
    des_straggler shown;
    des_straggler *all;
    int n_all;
    des_link_rates *links; /* the shared links' counters (des_link_rates.h), or NULL */
};

void des_timeline_stragglers(des_timeline *t, const des_straggler *shown,
                             const des_straggler *all, int n_all)
{
    if (!t)
        return;
    t->stragglers = 1;
    t->shown = *shown;
    if (all && n_all > 0) {
        t->all = malloc(sizeof *all * (size_t)n_all);
        if (!t->all) {
            t->failed = 1;
            return;
        }
        memcpy(t->all, all, sizeof *all * (size_t)n_all);
        t->n_all = n_all;
    }
}

des_event_args des_event_args_of(const char *kind)
{
    return (des_event_args){.kind = kind, .bucket = -1, .phase = -1, .step = -1, .peer = -1,
                            .peers = -1, .bytes = -1.0, .bytes_sent = -1.0,
                            .bytes_received = -1.0, .modelled_key = NULL, .modelled_s = -1.0,
                            .layer = NULL, .elements = -1.0, .apportioned = NULL,
                            .factor = -1.0, .wait_s = -1.0, .iteration = -1};
}

uint64_t des_flow_key(int bucket, int phase, int step, int flow)
{
    /* 16 bits of bucket, 8 of phase, 20 of step (all ones: coalesced), 20 of flow. */
    uint64_t s = step < 0 ? 0xFFFFFu : (uint64_t)step & 0xFFFFFu;
    return ((uint64_t)bucket & 0xFFFFu) << 48 | ((uint64_t)phase & 0xFFu) << 40 | s << 20 |
           ((uint64_t)flow & 0xFFFFFu);
}

des_timeline *des_timeline_new(const des_plan *plan)
{
    des_timeline *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->gpus = plan->gpus;
    t->nodes = plan->nodes;
    t->shards = 0; /* shards run on the node CPUs */
    des_shared_link *shared = NULL;
    int n = des_shared_links(&plan->topology, &shared);
    if (n < 0)
        t->failed = 1;
    else if (n > 0)
        t->links = des_link_rates_new(shared, n, &t->failed);
    free(shared);
    return t;
}

static long long to_ns(double s)
{
    return llround(s * 1e9);
}

long des_timeline_add(des_timeline *t, int endpoint, des_track track, const char *name,
                      double start_s, double end_s, const des_event_args *args)
{
    if (!t)
        return -1;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 1024;
        event *e = realloc(t->ev, cap * sizeof *e);
        if (!e) {
            t->failed = 1;
            return -1;
        }
        t->ev = e;
        t->cap = cap;
    }
    event *e = &t->ev[t->n];
    e->endpoint = endpoint;
    e->track = track;
    e->start_ns = to_ns(start_s);
    e->end_ns = to_ns(end_s);
    if (e->end_ns < e->start_ns)
        e->end_ns = e->start_ns;
    e->args = args ? *args : des_event_args_of(name);
    size_t len = strlen(name);
    snprintf(e->name, sizeof e->name, "%s", name);
    if (len >= sizeof e->name) {
        /* cut on a character boundary: a layer name may be UTF-8 */
        size_t k = sizeof e->name - 1;
        while (k > 0 && ((unsigned char)e->name[k - 1] & 0xC0) == 0x80)
            k--;
        if (k > 0 && ((unsigned char)e->name[k - 1] & 0xC0) == 0xC0)
            k--;
        e->name[k] = '\0';
    }
    return (long)t->n++;
}

void des_timeline_message(des_timeline *t, const void *comm, double bytes)
{
    if (t)
        des_link_rates_message(t->links, comm, bytes);
}

void des_timeline_flow(des_timeline *t, long slice, uint64_t key, int is_sender)
{
    if (!t || slice < 0)
        return;
    if (t->n_flows == t->cap_flows) {
        size_t cap = t->cap_flows ? 2 * t->cap_flows : 1024;
        flow_end *f = realloc(t->flows, cap * sizeof *f);
        if (!f) {
            t->failed = 1;
            return;
        }
        t->flows = f;
        t->cap_flows = cap;
    }
    t->flows[t->n_flows++] = (flow_end){key, slice, is_sender};
}

static void endpoint_name(const des_timeline *t, int ep, char *buf, size_t len)
{
    if (ep < t->gpus)
        snprintf(buf, len, "GPU %d", ep);
    else if (ep < t->gpus + t->nodes)
        snprintf(buf, len, "node %d host", ep - t->gpus);
    else
        snprintf(buf, len, "PS shard %d", ep - t->gpus - t->nodes);
}

/* Microseconds from integer nanoseconds: three exact decimals, then a fourth, 1 (0.1 ns).
 * Readers turn ts and dur into nanoseconds separately: some round x * 1000, older Perfetto
 * truncates it, where 42803.599 * 1000 = 42803598.99999... would land 1 ns low and make
 * neighbours overlap again; 42803.5991 gives 42803599 whether rounded, truncated or parsed
 * as a decimal. */
static void put_us(FILE *f, long long ns)
{
    fprintf(f, "%lld.%03lld1", ns / 1000, ns % 1000);
}

/* A JSON string: layer names come from the model file and may hold any character. */
static void put_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void put_args(FILE *f, const des_event_args *a)
{
    /* kinds and keys are generated by the engine: no characters that need escaping */
    fprintf(f, "\"args\":{\"kind\":\"%s\"", a->kind ? a->kind : "");
    const char *ikeys[] = {"bucket", "phase", "step", "peer", "peers"};
    int ivals[] = {a->bucket, a->phase, a->step, a->peer, a->peers};
    for (int k = 0; k < 5; k++)
        if (ivals[k] >= 0)
            fprintf(f, ",\"%s\":%d", ikeys[k], ivals[k]);
    if (a->bytes >= 0)
        fprintf(f, ",\"bytes\":%.17g", a->bytes);
    if (a->bytes_sent >= 0)
        fprintf(f, ",\"bytes_sent\":%.17g", a->bytes_sent);
    if (a->bytes_received >= 0)
        fprintf(f, ",\"bytes_received\":%.17g", a->bytes_received);
    if (a->modelled_key && a->modelled_s >= 0)
        fprintf(f, ",\"%s\":%.17g", a->modelled_key, a->modelled_s);
    if (a->layer) {
        fputs(",\"layer\":", f);
        put_str(f, a->layer);
    }
    if (a->elements >= 0)
        fprintf(f, ",\"elements\":%.17g", a->elements);
    if (a->apportioned)
        fprintf(f, ",\"apportioned\":\"%s\"", a->apportioned);
    if (a->factor >= 0)
        fprintf(f, ",\"factor\":%.17g", a->factor);
    if (a->wait_s >= 0)
        fprintf(f, ",\"wait_s\":%.17g", a->wait_s);
    if (a->iteration >= 0)
        fprintf(f, ",\"iteration\":%d", a->iteration);
    fputc('}', f);
}

static int by_key(const void *x, const void *y)
{
    const flow_end *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->is_sender != b->is_sender)
        return a->is_sender ? -1 : 1; /* sender first */
    return a->slice < b->slice ? -1 : a->slice > b->slice;
}

/* A flow starts just after its sender's slice starts and finishes just before its
 * receiver's slice ends (1 ns inside, so it binds to that slice and not to a neighbour
 * that ends or starts at the same time): the data cannot arrive before it was sent, so
 * the arrow never points back in time. */
static long long inside_ns(const event *e, int at_start)
{
    long long eps = e->end_ns - e->start_ns >= 2 ? 1 : 0;
    return at_start ? e->start_ns + eps : e->end_ns - eps;
}

static void write_flows(const des_timeline *t, FILE *f)
{
    qsort(t->flows, t->n_flows, sizeof *t->flows, by_key);
    long long id = 0;
    for (size_t k = 0; k + 1 < t->n_flows; k++) {
        const flow_end *s = &t->flows[k], *r = &t->flows[k + 1];
        if (s->key != r->key || !s->is_sender || r->is_sender)
            continue;
        const event *es = &t->ev[s->slice], *er = &t->ev[r->slice];
        id++;
        fprintf(f, ",\n{\"name\":\"transfer\",\"cat\":\"flow\",\"ph\":\"s\",\"id\":%lld,"
                   "\"pid\":%d,\"tid\":%d,\"ts\":",
                id, es->endpoint + 1, es->track);
        put_us(f, inside_ns(es, 1));
        fprintf(f, "}");
        fprintf(f, ",\n{\"name\":\"transfer\",\"cat\":\"flow\",\"ph\":\"f\",\"bp\":\"e\","
                   "\"id\":%lld,\"pid\":%d,\"tid\":%d,\"ts\":",
                id, er->endpoint + 1, er->track);
        put_us(f, inside_ns(er, 0));
        fprintf(f, "}");
        k++;
    }
}

static void put_rate(FILE *f, int ep, long long ts_ns, double sent_Bps, double received_Bps)
{
    fprintf(f, ",\n{\"name\":\"transfer rate\",\"cat\":\"counter\",\"ph\":\"C\",\"pid\":%d,\"ts\":", ep + 1);
    put_us(f, ts_ns);
    fprintf(f, ",\"args\":{\"sent_Bps\":%.17g,\"received_Bps\":%.17g}}", sent_Bps,
            received_Bps);
}

/* Counter tracks per endpoint: bytes per second sent and received, each transfer slice's
 * bytes over its duration (a step's mean, not a per-link measurement), 0 between slices.
 * An endpoint's transfer slices come from one actor, so they are recorded in time order. */
static int write_rates(const des_timeline *t, FILE *f, int n_ep)
{
    long long *last_end = malloc((size_t)n_ep * sizeof *last_end);
    if (!last_end)
        return -1;
    for (int ep = 0; ep < n_ep; ep++)
        last_end[ep] = -1;
    for (size_t k = 0; k < t->n; k++) {
        const event *e = &t->ev[k];
        long long dur_ns = e->end_ns - e->start_ns;
        if (e->track != DES_TRACK_TRANSFER || dur_ns <= 0)
            continue;
        if (last_end[e->endpoint] >= 0 && last_end[e->endpoint] < e->start_ns)
            put_rate(f, e->endpoint, last_end[e->endpoint], 0, 0);
        double dur_s = (double)dur_ns * 1e-9;
        put_rate(f, e->endpoint, e->start_ns, fmax(e->args.bytes_sent, 0) / dur_s,
                 fmax(e->args.bytes_received, 0) / dur_s);
        last_end[e->endpoint] = e->end_ns;
    }
    for (int ep = 0; ep < n_ep; ep++)
        if (last_end[ep] >= 0)
            put_rate(f, ep, last_end[ep], 0, 0);
    free(last_end);
    return 0;
}

static void put_straggler(FILE *f, const des_straggler *s)
{
    fprintf(f, "{\"iteration\":%d,\"rank\":%d,\"factor\":%.17g,\"compute_end_s\":%.17g,"
               "\"max_wait_s\":",
            s->iteration, s->rank, s->factor, s->compute_end_s);
    if (s->max_wait_s >= 0)
        fprintf(f, "%.17g}", s->max_wait_s);
    else
        fputs("null}", f); /* not simulated: every GPU at the largest factor */
}

/* Variable compute: an instant event where the straggler's compute ends (global scope, so
 * Perfetto draws it across the tracks), then, after traceEvents, the list of every simulated
 * iteration's straggler (readers ignore top-level keys they do not know). */
static void write_stragglers(const des_timeline *t, FILE *f)
{
    const des_straggler *s = &t->shown;
    fprintf(f, ",\n{\"name\":\"straggler: GPU %d\",\"cat\":\"straggler\",\"ph\":\"i\","
               "\"s\":\"g\",\"pid\":%d,\"tid\":%d,\"ts\":",
            s->rank, s->rank + 1, DES_TRACK_STRAGGLER);
    put_us(f, to_ns(s->compute_end_s));
    fprintf(f, ",\"args\":{\"kind\":\"straggler\",\"iteration\":%d,\"rank\":%d,"
               "\"factor\":%.17g,\"max_wait_s\":%.17g}}",
            s->iteration, s->rank, s->factor, s->max_wait_s);
    fprintf(f, "\n],\"stragglers\":[");
    for (int k = 0; k < t->n_all; k++) {
        fputs(k ? ",\n" : "\n", f);
        put_straggler(f, &t->all[k]);
    }
    fprintf(f, "\n]}\n");
}

int des_timeline_write(const des_timeline *t, const char *path, char *msg, size_t msg_len)
{
    if (t->failed) {
        snprintf(msg, msg_len, "%s: out of memory while recording the timeline", path);
        return -1;
    }
    /* Whole or not at all, with the mode of any other output (traces/atomic_file.h). */
    atomic_file out;
    if (atomic_file_open(&out, path, msg, msg_len))
        return -1;
    FILE *f = out.stream;
    static const char *track_names[] = {"", "compute", "compression", "collective",
                                        "transfers", "compression (per tensor)",
                                        "straggler wait"};
    int last_track = t->stragglers ? DES_TRACK_STRAGGLER : DES_TRACK_COMPRESS_TENSORS;
    int n_ep = t->gpus + t->nodes + t->shards;
    char *used = calloc((size_t)n_ep, 1);
    for (size_t k = 0; used && k < t->n; k++)
        used[t->ev[k].endpoint] = 1;
    fprintf(f, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
    int first = 1;
    char name[64];
    for (int ep = 0; ep < n_ep; ep++) {
        if (used && !used[ep])
            continue;
        endpoint_name(t, ep, name, sizeof name);
        fprintf(f, "%s{\"name\":\"process_name\",\"cat\":\"__metadata\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"%s\"}}",
                first ? "" : ",\n", ep + 1, name);
        fprintf(f, ",\n{\"name\":\"process_sort_index\",\"cat\":\"__metadata\",\"ph\":\"M\",\"pid\":%d,"
                   "\"args\":{\"sort_index\":%d}}",
                ep + 1, ep + 1);
        first = 0;
        for (int tr = 1; tr <= last_track; tr++)
            fprintf(f, ",\n{\"name\":\"thread_name\",\"cat\":\"__metadata\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s\"}}",
                    ep + 1, tr, track_names[tr]);
    }
    for (size_t k = 0; k < t->n; k++) {
        const event *e = &t->ev[k];
        fprintf(f, "%s{\"name\":", first ? "" : ",\n");
        put_str(f, e->name);
        fprintf(f, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":",
                track_names[e->track], e->endpoint + 1, e->track);
        put_us(f, e->start_ns);
        fputs(",\"dur\":", f);
        put_us(f, e->end_ns - e->start_ns);
        fputc(',', f);
        put_args(f, &e->args);
        fputc('}', f);
        first = 0;
    }
    write_flows(t, f);
    int bad = write_rates(t, f, n_ep);
    if (!bad && t->links) /* after every endpoint's pid */
        bad = des_link_rates_write(t->links, f, n_ep + 1, put_us);
    if (t->stragglers)
        write_stragglers(t, f);
    else
        fprintf(f, "\n]}\n");
    free(used);
    if (bad || ferror(f)) {
        atomic_file_abort(&out);
        snprintf(msg, msg_len, "%s: cannot write the timeline: %s", path, strerror(errno));
        return -1;
    }
    return atomic_file_commit(&out, msg, msg_len);
}

void des_timeline_free(des_timeline *t)
{
    if (!t)
        return;
    free(t->ev);
    free(t->flows);
    free(t->all);
    des_link_rates_free(t->links);
    free(t);
}
