/*
 * sim/step/program_stack.c: a bucket's program as a training stack runs its
 * compressor (program.h, sim/stack/stack.h, docs/stacks.md).
 *
 * The stack gives the op sequences and their measured costs; this file knows the shape of
 * each exchange:
 *   allreduce          encode; all-reduce; decode
 *   allgather          encode; [blocking all-gather of the sizes]; all-gather; decode of
 *                      every payload
 * (a stack with a background cycle, Horovod: the group's collective released at its cycle,
 * group_release_s)
 *   powersgd-hook      encode (P = M Q); all-reduce of the uncompressed tensors; unpack;
 *                      all-reduce of every P; between (orthogonalize P, Q = M^T P);
 *                      all-reduce of every Q; decode (M = P Q^T, host sync)
 *   powersgd-blocking  per matrix: encode; blocking all-reduce of P; between; blocking
 *                      all-reduce of Q; decode; then the vectors' all-reduce
 * A stack with deferred decodes (Horovod) runs the decode ops in the optimizer step.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "nccl_call.h"
#include "program.h"
#include "protocol.h"
#include "tuner_memo.h"
#include "tuner_model.h"
#include "schedule_memo.h"
#include "stack.h"

/* What a bucket holds, as the op laws need it. */
typedef struct {
    const gcsim_model *model;
    int first, last;          /* layers, forward indices */
    double elements;          /* fp32 elements of the bucket */
    int rank;                 /* PowerSGD's rank (0: not PowerSGD) */
    int op_rank;              /* the measured rank whose ops apply (gcsim_stack_op.rank) */
    int min_compression_rate; /* PowerSGD hook: compress a matrix only when it shrinks more */
    double batch_share;       /* batched decode: GPU work of each payload past the first, as a
                                 share of one decode's (batched_extra_s) */
    gcsim_stack_setting setting; /* the compressor's density, bits, rank (the laws') */
} unit;

/* Whether a low-rank compressor factors this matrix (PyTorch's _should_compress:
 * (rows + cols) r rate < rows cols; rate 0: every matrix, as GRACE does). */
static bool factored(const unit *u, double rows, double cols)
{
    double r = fmin((double)u->rank, fmin(rows, cols));
    return u->rank > 0 && (rows + cols) * r * u->min_compression_rate < rows * cols;
}

/* A batched decode of an all-gather's payloads (stack "gathered_decode": "batched",
 * docs/stacks.md): the payloads stacked and decoded in one pass pay one call's host time
 * and launches, and the GPU work of every payload: per-payload op = one call (host and
 * GPU, the larger) + (payloads - 1) x its GPU part x u->batch_share (1 for payloads
 * unpacked over every element, the quantizers'; the payload's share of the dense bytes for
 * sparse ones, whose batched decode is one index_add of all pairs). Derived from the
 * measured looped and batched decodes (bench/gpu/results/h200-gathered-decode.json). */
static double batched_extra_s(const gcsim_stack *st, const gcsim_stack_law *law, double n,
                              double fraction, double scale, const gcsim_gpu_params *gpu,
                              const unit *u, double payloads)
{
    if (!(payloads > 1))
        return 0;
    return (payloads - 1) * u->batch_share *
           gcsim_stack_law_gpu_s(st, law, n, &u->setting, fraction, scale, gpu);
}

/* Seconds of one op over the bucket, once (payloads: how many times per_payload ops run). */
static double op_s(const gcsim_stack *st, const gcsim_stack_op *op, const unit *u,
                   const gcsim_gpu_params *gpu, double payloads, bool gpu_only)
{
    const gcsim_stack_law *law = &st->laws[op->law];
    if (op->rank > 0 && op->rank != u->op_rank)
        return 0;
    bool batched = op->per_payload && st->batched_decode;
    double times = op->per_payload && !batched ? payloads : 1.0, total = 0;
    double scale = op->gpu_scale * (op->rank > 0 ? (double)u->rank / u->op_rank : 1.0);
#define LAW(n)                                                                              \
    ((gpu_only ? gcsim_stack_law_gpu_s : gcsim_stack_law_s)(st, law, (n), &u->setting,      \
                                                           op->fraction, scale, gpu) +     \
     (batched ? batched_extra_s(st, law, (n), op->fraction, scale, gpu, u, payloads) : 0.0))
    if (op->per == STACK_PER_UNIT)
        return times * LAW(u->elements);
    for (int l = u->first; l <= u->last; l++) {
        gcsim_layer_tensors t;
        gcsim_layer_tensors_of(&u->model->layers[l], &t);
        bool f = t.matrices > 0 && factored(u, t.rows, t.cols);
        switch (op->per) {
        case STACK_PER_TENSOR:
            total += t.matrices * LAW(t.matrix_elems) + t.biases * LAW(t.bias_elems) +
                     t.norms * LAW(t.norm_elems);
            break;
        case STACK_PER_MATRIX:
            if (f)
                total += t.matrices * LAW(t.matrix_elems);
            break;
        case STACK_PER_VECTOR:
            total += (f ? 0 : t.matrices * LAW(t.matrix_elems)) + t.biases * LAW(t.bias_elems) +
                     t.norms * LAW(t.norm_elems);
            break;
        case STACK_PER_WEIGHT:
            total += t.matrices * LAW(t.matrix_elems);
            break;
        case STACK_PER_1D:
            total += t.biases * LAW(t.bias_elems) + t.norms * LAW(t.norm_elems);
            break;
        case STACK_PER_UNIT: break;
        }
    }
#undef LAW
    return times * total;
}

static double ops_s(const gcsim_stack *st, const gcsim_stack_ops *ops, const unit *u,
                    const gcsim_gpu_params *gpu, double payloads)
{
    double total = 0;
    for (int k = 0; k < ops->n; k++)
        total += op_s(st, &ops->ops[k], u, gpu, payloads, false);
    return total;
}

/* ops_s with every law's host part left out: what the GPU's stream runs of them. */
static double ops_gpu_s(const gcsim_stack *st, const gcsim_stack_ops *ops, const unit *u,
                        const gcsim_gpu_params *gpu)
{
    double total = 0;
    for (int k = 0; k < ops->n; k++)
        total += op_s(st, &ops->ops[k], u, gpu, 1, true);
    return total;
}

/* ops_s, through the scenario's memo when it has one (gcsim_case_memo: the caller keeps the
 * platform, stack, model and compressor fixed while it lives, so the list, the bucket and
 * the payload count decide the price). */
static double priced_ops_s(const gcsim_scenario *s, const gcsim_stack *st,
                           const gcsim_stack_ops *ops, const unit *u,
                           const gcsim_gpu_params *gpu, double payloads)
{
    if (!s->case_memo)
        return ops_s(st, ops, u, gpu, payloads);
    /* batch_share follows from the bucket (first, last) and the spec, fixed while the memo
     * lives */
    gcsim_op_price_key key = {ops,        u->first, u->last, u->rank, u->op_rank,
                             u->min_compression_rate, u->elements, payloads};
    double seconds;
    if (!gcsim_case_memo_price(s->case_memo, &key, &seconds)) {
        seconds = ops_s(st, ops, u, gpu, payloads);
        gcsim_case_memo_keep_price(s->case_memo, &key, seconds);
    }
    return seconds;
}

/* The measured rank whose ops run a rank-r compressor: the largest one not above r, else
 * the smallest (every rank an op of the entry names). */
static int measured_rank(const gcsim_stack_entry *e, int r)
{
    const gcsim_stack_ops *lists[4] = {&e->encode, &e->unpack, &e->between, &e->decode};
    int below = 0, least = 0;
    for (int i = 0; i < 4; i++)
        for (int k = 0; k < lists[i]->n; k++) {
            int q = lists[i]->ops[k].rank;
            if (q > 0 && q <= r && q > below)
                below = q;
            if (q > 0 && (least == 0 || q < least))
                least = q;
        }
    return below ? below : least;
}

/* PowerSGD's traffic for the bucket: the uncompressed tensors, every P and every Q, in
 * fp32 bytes. */
static void powersgd_bytes(const unit *u, double *plain, double *p, double *q)
{
    *plain = *p = *q = 0;
    for (int l = u->first; l <= u->last; l++) {
        gcsim_layer_tensors t;
        gcsim_layer_tensors_of(&u->model->layers[l], &t);
        if (t.matrices > 0 && factored(u, t.rows, t.cols)) {
            double r = fmin((double)u->rank, fmin(t.rows, t.cols));
            *p += 4.0 * t.matrices * t.rows * r;
            *q += 4.0 * t.matrices * t.cols * r;
        } else {
            *plain += 4.0 * t.matrices * t.matrix_elems;
        }
        *plain += 4.0 * (t.biases * t.bias_elems + t.norms * t.norm_elems);
    }
}

/* An integer key of a normalized compressor spec ("powersgd:rank=4,..."), or dflt. */
static int spec_int(const char *spec, const char *key, int dflt)
{
    /* key "=" without snprintf: formatting it was 4% of a sweep's cases (issue 47) */
    char pat[32];
    size_t n = strlen(key);
    if (n > sizeof pat - 2)
        n = sizeof pat - 2;
    memcpy(pat, key, n);
    pat[n] = '=';
    pat[n + 1] = '\0';
    const char *at = strstr(spec, pat);
    if (!at || (at > spec && at[-1] != ':' && at[-1] != ','))
        return dflt;
    return atoi(at + strlen(pat));
}

static bool is_allreduce(gcsim_collective c)
{
    return !gcsim_collective_is_paper_pattern(c) && c != COLLECTIVE_PARAMETER_SERVER &&
           c != COLLECTIVE_ALLGATHER;
}

/* ---- the tuner ---- */

/* The tuner costs its candidates through the process's schedule memo (schedule_memo.h):
 * the same numbers as a schedule built and prepared for the call (bit for bit,
 * analytic.schedule_memo), but ring from its closed form without a listed flow, and the
 * trees from one template per GPU count that the analytic engine then costs the pick
 * with, where each call's chunk count once built a full schedule of its own (up to 16
 * held at once: 14.6 GB at 2^20 GPUs, issue 45). */
struct program_tuner {
    const gcsim_platform *platform;
    int gpus;
};

program_tuner *program_tuner_new(const gcsim_scenario *s, gcsim_error *err)
{
    err->message[0] = '\0';
    if (!s->tune_allreduce || s->placement.gpus < 2)
        return NULL;
    program_tuner *t = calloc(1, sizeof *t);
    if (!t) {
        gcsim_fail(err, "out of memory");
        return NULL;
    }
    t->platform = s->platform;
    t->gpus = s->placement.gpus;
    return t;
}

void program_tuner_free(program_tuner *t)
{
    free(t);
}

/* *out = the all-reduce algorithm for a stack's dense all-reduce of `bytes`, and *algo the
 * NCCL algorithm it runs as (gcsim_nccl_algo, -1: none): the tuner's pick, else the
 * scenario's when it is one, else the platform's, else ring; with the tuner, *protocol
 * (gcsim_protocol) and *fixed_s (nccl_call.h), else -1 and 0. -1 with err when the tuner
 * cannot cost a candidate: a candidate that cannot be costed fails the call, and with it
 * the run (exit 2, with the size guard's message); it is never left out of the choice,
 * which made the answer depend on the machine (issue 45). */
static int allreduce_of(const gcsim_scenario *s, program_tuner *t, double bytes,
                        gcsim_collective *out, int *algo, int *protocol, double *fixed_s,
                        gcsim_error *err)
{
    *protocol = -1;
    *fixed_s = 0;
    if (t) {
        /* the algorithm and protocol NCCL's closed-form model picks for this size, GPU
         * count and platform, and the fixed cost the model puts on the schedule
         * (nccl_call.h) */
        gcsim_nccl_tuned_call tc;
        if (gcsim_nccl_call_tune(s->platform, s->placement.gpus, bytes, &tc, err))
            return -1;
        *out = tc.collective;
        *algo = tc.algo;
        *protocol = tc.protocol;
        *fixed_s = tc.fixed_s;
        return 0;
    }
    if (is_allreduce(s->collective)) {
        *out = s->collective;
        *algo = gcsim_nccl_call_algo(*out);
        return 0;
    }
    gcsim_collective p = gcsim_platform_default_collective(s->platform);
    *out = is_allreduce(p) ? p : COLLECTIVE_RING;
    *algo = gcsim_nccl_call_algo(*out);
    return 0;
}

static gcsim_bucket_bytes dense(double bytes)
{
    return (gcsim_bucket_bytes){.dense_bytes = bytes, .payload_bytes = bytes,
                                .aggregation = PAYLOAD_DENSE_SUMMABLE};
}

typedef struct {
    gcsim_iteration *it;
    const gcsim_scenario *s;
    const gcsim_stack *st;
    const gcsim_stack_entry *e;
    const gcsim_gpu_params *gpu;
    int b;
    double call_s;            /* a call's fixed cost (the library's) */
    double wait_s;            /* half a background cycle: a request waits that long on
                                 average for the thread that issues it */
    double release_s;         /* a fused group's collective: not before the group is ready
                                 + this (group_release_s) */
    bool waited;              /* the group's requests have been picked up */
    program_tuner *tuner;
    gcsim_error *err;
    bool tuner_failed;        /* err says why the tuner could not choose (allreduce_of) */
} ctx;

/* A call's collective and the NCCL algorithm it runs as (gcsim_nccl_algo), or -1 where the
 * call does not go through NCCL (nccl_call.h: then NCCL's latency is not charged). */
typedef struct {
    gcsim_collective coll;
    int algo;
    int protocol;   /* gcsim_protocol the tuner picked, -1: none (NCCL's Simple charge) */
    double fixed_s; /* with a protocol: its fixed cost (nccl_call.h) */
} pick;

/* The all-reduce for `bytes` (allreduce_of); when it cannot be chosen, ring, with
 * c->tuner_failed set, which the call it is for refuses. */
static pick ar(ctx *c, double bytes)
{
    pick p;
    if (c->tuner && !c->tuner_failed) {
        /* the tuner's pick, asked once per process for each platform, shape and size
         * (tuner_memo.h): a pure function of those */
        gcsim_tuner_memo_key key = {.kind = GCSIM_TUNER_MEMO_STACK,
                                    .gpus = c->s->placement.gpus,
                                    .nodes = c->s->placement.machines, .op = -1,
                                    .collective = -1, .protocol = -1, .bytes = bytes};
        if (gcsim_tuner_memo_get(c->s->platform, &key, &p, sizeof p))
            return p;
        if (allreduce_of(c->s, c->tuner, bytes, &p.coll, &p.algo, &p.protocol, &p.fixed_s, c->err) == 0) {
            gcsim_tuner_memo_put(c->s->platform, &key, &p, sizeof p);
            return p;
        }
    } else if (!c->tuner_failed &&
               allreduce_of(c->s, c->tuner, bytes, &p.coll, &p.algo, &p.protocol, &p.fixed_s, c->err) == 0) {
        return p;
    }
    c->tuner_failed = true;
    return (pick){COLLECTIVE_RING, GCSIM_NCCL_RING, -1, 0};
}

/* A call by collective coll through the stack's NCCL (a gcsim pattern: none). */
static pick nccl(gcsim_collective coll)
{
    return (pick){coll, gcsim_nccl_call_algo(coll), -1, 0};
}

/* The stack's all-gather: through its NCCL, or staged through host memory and run by
 * OpenMPI where the stack says so ("allgather": "mpi-host-staged"; no NCCL call, so no
 * NCCL latency: sim/collectives/mpi_host_allgather.c). */
static pick gather(const gcsim_stack *st)
{
    if (st->allgather == COLLECTIVE_MPI_HOST_ALLGATHER)
        return (pick){COLLECTIVE_MPI_HOST_ALLGATHER, -1, -1, 0};
    return nccl(COLLECTIVE_ALLGATHER);
}

/* The GPU time of a staged all-gather's two copies (the payload to host memory, the N
 * gathered payloads back): Horovod's DoAllgatherCudaOnCPU (horovod@6b77884
 * horovod/torch/mpi_ops_v2.cc:136-168) issues the first on the hook thread's current stream
 * (tensor.to(CPU), :142-143) and the second in the background thread's callback
 * (output.copy_, :161-162), both on the default stream backward's kernels run on, so each
 * holds back the kernels queued after it. The call's schedule charges the copies on the
 * exchange's path (sim/collectives/mpi_host_allgather.c); this charges the stream: a
 * deferred step (after backward), the same total on a GPU busy with backward. At the
 * platform's GPU-to-host rate (a pinned copy's: a lower bound) plus one intra-node latency
 * each. */
static double staged_stream_s(const gcsim_scenario *s, double payload_bytes, int n)
{
    const gcsim_platform *p = s->platform;
    return 2 * p->intra.latency_s + (1.0 + n) * payload_bytes / p->intra.gpu_to_host_Bps;
}

static int codec(ctx *c, const char *name, gcsim_codec_class cls, double s)
{
    return program_codec(c->it, name, cls, s);
}

static int call(ctx *c, const char *name, pick p, gcsim_bucket_bytes bytes, bool blocking)
{
    /* A blocking call is a request of its own and waits for the next cycle; a fused
     * group's calls are issued together in one cycle, so only its first one waits. */
    if (c->tuner_failed)
        return -1;
    /* A blocking call is made in the hook and waits on the spot (backward with it); the
     * group's first call waits for its cycle as a release, overlapping earlier calls. */
    double overhead_s = c->call_s + (blocking ? c->wait_s : 0.0);
    bool first = !blocking && !c->waited;
    /* NCCL's per-call base and network per-hop latency, paid once per call in both
     * engines as `gcsim collective` pays it (nccl_call.h) */
    if (p.protocol >= 0)
        overhead_s += p.fixed_s; /* the tuner's protocol (nccl_call.h) */
    else if (p.algo >= 0)
        overhead_s += gcsim_nccl_call_overhead_s(c->s->platform, c->s->placement.gpus, p.coll,
                                                 p.algo);
    if (!blocking)
        c->waited = true;
    if (program_call(c->it, c->b, name, p.coll, &bytes, overhead_s))
        return -1;
    program_last_call(c->it)->blocking = blocking;
    if (p.protocol >= 0)
        program_last_call(c->it)->protocol = gcsim_protocol_name((gcsim_protocol)p.protocol);
    if (first)
        program_last_call(c->it)->release_s = c->release_s;
    return 0;
}

/* When Horovod issues a fused group's collective, after the group is ready (issue 43):
 * its background thread wakes once per cycle (RunLoopOnce sleeps until the last cycle's
 * start + HOROVOD_CYCLE_TIME), so a group waits for the next wake-up, half a cycle on
 * average; there the response cache's readiness agreement runs on the controller (one
 * bitwise-AND all-reduce of the cached tensors' bit vector across ranks, MPI or Gloo on
 * the CPUs: CacheCoordinator::sync), priced as its latency, ceil(log2 N) hops of the
 * network's (a recursive-doubling all-reduce of a few bytes; derived, not measured); then
 * the fused collective is enqueued on the GPU stream and the thread goes on (NCCL ops
 * complete on a finalizer thread). Both are waits for a moment, not work on the stream: a
 * group whose stream is still busy with earlier groups does not wait at all. */
static double group_release_s(const gcsim_scenario *s, const gcsim_stack *st)
{
    if (!(st->cycle_s > 0))
        return 0;
    double agree_s = 0;
    int n = s->placement.gpus;
    if (st->negotiation_bytes > 0 && n > 1) {
        double hop_s = s->placement.machines > 1 ? s->platform->nic.latency_s
                                                 : s->platform->intra.latency_s;
        agree_s = ceil(log2((double)n)) * hop_s;
    }
    return 0.5 * st->cycle_s + agree_s;
}

static int program_powersgd(ctx *c, const unit *u, bool blocking)
{
    double plain, p, q;
    powersgd_bytes(u, &plain, &p, &q);
#define AR(bytes) ar(c, (bytes))
    const gcsim_stack_entry *e = c->e;
    if (!blocking) {
        /* PyTorch's hook: three all-reduces, each issued when the one before is done. */
        return codec(c, "encode P", GCSIM_CODEC_ENCODE,
                     priced_ops_s(c->s, c->st, &e->encode, u, c->gpu, 1)) ||
               call(c, "allreduce uncompressed", AR(plain), dense(plain), false) ||
               codec(c, "unpack", GCSIM_CODEC_DECODE,
                     priced_ops_s(c->s, c->st, &e->unpack, u, c->gpu, 1)) ||
               call(c, "allreduce P", AR(p), dense(p), false) ||
               codec(c, "orthogonalize, Q", GCSIM_CODEC_ENCODE,
                     priced_ops_s(c->s, c->st, &e->between, u, c->gpu, 1)) ||
               call(c, "allreduce Q", AR(q), dense(q), false) ||
               codec(c, "decompress", GCSIM_CODEC_DECODE,
                     priced_ops_s(c->s, c->st, &e->decode, u, c->gpu, 1) + c->st->sync_s);
    }
    /* GRACE: inside the hook, each factored matrix's P and Q all-reduced one after the
     * other while backward waits; the other tensors through the fused all-reduce. */
    for (int l = u->first; l <= u->last; l++) {
        gcsim_layer_tensors t;
        gcsim_layer_tensors_of(&u->model->layers[l], &t);
        if (!(t.matrices > 0 && factored(u, t.rows, t.cols)))
            continue;
        unit one = *u;
        one.first = one.last = l;
        double r = fmin((double)u->rank, fmin(t.rows, t.cols));
        for (int m = 0; m < t.matrices; m++) {
            /* ops per matrix: share the layer's matrix ops out over its matrices */
            double k = 1.0 / t.matrices;
            if (codec(c, "encode P", GCSIM_CODEC_ENCODE,
                      k * priced_ops_s(c->s, c->st, &e->encode, &one, c->gpu, 1)) ||
                call(c, "allreduce P", AR(4.0 * t.rows * r), dense(4.0 * t.rows * r), true) ||
                codec(c, "orthogonalize, Q", GCSIM_CODEC_ENCODE,
                      k * priced_ops_s(c->s, c->st, &e->between, &one, c->gpu, 1)) ||
                call(c, "allreduce Q", AR(4.0 * t.cols * r), dense(4.0 * t.cols * r), true) ||
                codec(c, "decompress", GCSIM_CODEC_DECODE,
                      k * priced_ops_s(c->s, c->st, &e->decode, &one, c->gpu, 1)))
                return -1;
        }
    }
    return call(c, "allreduce", AR(plain), dense(plain), false);
#undef AR
}

int program_stack(gcsim_iteration *it, const gcsim_scenario *s, int b, program_tuner *tuner,
                  program_entry_memo *memo, gcsim_error *err)
{
    const gcsim_stack *st = s->stack;
    gcsim_bucket *bk = &it->buckets[b];
    bk->first_step = it->n_steps;
    const gcsim_stack_entry *e;
    if (memo->found) {
        e = memo->entry;
    } else {
        if (gcsim_stack_entry_for(st, s->payload->spec, &e, err))
            return -1;
        memo->found = true;
        memo->entry = e;
    }
    const gcsim_gpu_params *gpu = &memo->gpu;
    bool ef = strncmp(s->payload->spec, "ef+", 3) == 0;
    if (!memo->have_gpu) {
        if (gcsim_stack_gpu(s->platform, &memo->gpu, err)) {
            if (gcsim_stack_entry_has_ops(st, e) || ef)
                return -1;
            gpu = NULL; /* nothing to price */
        } else {
            memo->have_gpu = true;
        }
    }
    int n = s->placement.gpus;
    if (n == 1) /* nothing is exchanged: no hook runs, no call is issued */
        return program_fused(it, s, b) ? gcsim_fail(err, "out of memory for bucket programs") : 0;
    ctx c = {.it = it, .s = s, .st = st, .e = e, .gpu = gpu, .b = b, .call_s = st->call_s,
             .wait_s = 0.5 * st->cycle_s, .release_s = group_release_s(s, st), .tuner = tuner,
             .err = err};
    /* A group cut by the threshold alone is enqueued when the background thread's wait
     * for its last tensor ends (gcsim_stack_fuses_ahead): its cycle and agreement passed
     * while the thread waited, so nothing is added to its readiness. */
    if (gcsim_stack_fuses_ahead(st, e, bk->bytes.compressed,
                                s->collective == COLLECTIVE_ALLGATHER))
        c.release_s = 0;
    if (!memo->have_setting) {
        memo->setting = gcsim_stack_setting_of(s->payload->spec);
        memo->have_setting = true;
    }
    unit u = {.model = s->model, .first = bk->first_layer, .last = bk->last_layer,
              .elements = bk->bytes.dense_bytes / 4.0, .batch_share = 1.0,
              .setting = memo->setting};
    gcsim_stack_payload kind;
    gcsim_error kind_err;
    if (st->batched_decode && bk->bytes.dense_bytes > 0 &&
        gcsim_stack_payload_of(s->payload->spec, &kind, &kind_err) == 0 &&
        kind == STACK_PAYLOAD_SPARSE)
        u.batch_share = fmin(1.0, bk->bytes.payload_bytes / bk->bytes.dense_bytes);
    bool compressed = bk->bytes.compressed;
    bool powersgd = e->exchange == STACK_EXCHANGE_POWERSGD_HOOK ||
                    e->exchange == STACK_EXCHANGE_POWERSGD_BLOCKING;
    int rc;
    int steps_before_decode = -1;
    if (compressed && powersgd) {
        if (!is_allreduce(s->collective))
            return gcsim_fail(err, "stack %s runs PowerSGD with all-reduces of its factors: "
                                   "--exchange %s does not apply",
                              st->name, s->collective == COLLECTIVE_ALLGATHER ? "allgather" : "ps");
        u.rank = spec_int(s->payload->spec, "rank", 1);
        u.op_rank = measured_rank(e, u.rank);
        u.min_compression_rate = e->exchange == STACK_EXCHANGE_POWERSGD_HOOK ? 2 : 0;
        rc = program_powersgd(&c, &u, e->exchange == STACK_EXCHANGE_POWERSGD_BLOCKING);
    } else {
        /* one payload of the scenario's collective, encoded and decoded by the entry's ops
         * (uncompressed: the stack's "none" entry, whatever was asked) */
        gcsim_bucket_bytes bytes = bk->bytes;
        int decodes = gcsim_collective_decodes(s->collective, n);
        double payloads = s->collective == COLLECTIVE_ALLGATHER && e->decode_own ? n : decodes;
        double enc = priced_ops_s(s, st, &e->encode, &u, gpu, 1);
        if (compressed && s->shared_support)
            bytes.aggregation = PAYLOAD_DENSE_SUMMABLE;
        /* codec time for the reducing hops of an all-reduce of per-worker-scale payloads */
        bytes.encode_s = enc;
        bytes.decode_s = priced_ops_s(s, st, &e->decode, &u, gpu, 1);
        if (compressed && ef)
            enc += priced_ops_s(s, st, &st->error_feedback, &u, gpu, 1);
        /* the hook's host time behind the queued backward (without overlap the exchange
         * starts after backward: nothing is queued) */
        if (st->hook_host_queued && s->overlap) {
            double enc_gpu = ops_gpu_s(st, &e->encode, &u, gpu) +
                             (compressed && ef ? ops_gpu_s(st, &st->error_feedback, &u, gpu) : 0);
            enc = gcsim_stack_hook_encode_s(st, e, enc, enc_gpu, bk->backward_s);
        }
        /* a summable payload's all-reduce by the tuner's algorithm */
        pick main = s->collective == COLLECTIVE_ALLGATHER ? gather(st) : nccl(s->collective);
        if (is_allreduce(main.coll) && bytes.aggregation == PAYLOAD_DENSE_SUMMABLE)
            main = ar(&c, bytes.payload_bytes);
        rc = codec(&c, "encode", GCSIM_CODEC_ENCODE, enc);
        if (!rc && compressed && e->size_exchange && s->collective == COLLECTIVE_ALLGATHER)
            rc = call(&c, "allgather sizes", gather(st), dense(8.0), true);
        if (!rc)
            rc = call(&c, gcsim_collective_name(main.coll), main, bytes, false);
        steps_before_decode = it->n_steps;
        /* Horovod's all-gather through host memory: its copies hold the GPU's stream too
         * (deferred with the decodes; a stack that does not defer them would charge the
         * stream on the exchange's path a second time, so it is not charged there) */
        if (!rc && main.coll == COLLECTIVE_MPI_HOST_ALLGATHER && n > 1 && st->deferred_decode)
            rc = codec(&c, "copies on the stream", GCSIM_CODEC_DECODE,
                       staged_stream_s(s, bytes.payload_bytes, n));
        if (!rc)
            rc = codec(&c, "decode", GCSIM_CODEC_DECODE,
                       priced_ops_s(s, st, &e->decode, &u, gpu, payloads));
    }
    if (rc)
        return c.tuner_failed ? -1 : gcsim_fail(err, "out of memory for bucket programs");
    bk->n_steps = it->n_steps - bk->first_step;
    bk->n_deferred = st->deferred_decode && steps_before_decode >= 0
                         ? it->n_steps - steps_before_decode
                         : 0;
    return 0;
}
