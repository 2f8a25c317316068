/* sim/analytic/timeline.c: the iteration's three actors and the GPU they share
 * (timeline.h), advanced event by event. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "timeline.h"

typedef enum { IDLE, WAITING, GPU_WORK, FIXED, DONE } actor_state;

typedef struct {
    actor_state state;
    double left_s;    /* GPU_WORK: nominal seconds still to do */
    double until_s;   /* FIXED: when it ends */
    double from_s;    /* FIXED: when the call itself starts (after its release wait): from
                         then on it takes its share of the GPU (interference) */
    bool blocking;    /* FIXED: a call backward waits for */
    int bucket, step; /* comm and step actors: where in the programs */
    double call_codec_s; /* FIXED: the call's reducing steps' codec, run after it (hop_s) */
    bool in_call;     /* GPU_WORK: that codec, still inside the call */
    double codec_from_s; /* in_call: when it started (the call's comm_s counts it) */
} actor;

typedef struct {
    const gcsim_iteration *it;
    const double *call_s;
    const double *hop_s;         /* NULL, or each call's codec part (timeline.h) */
    double t;
    double compute_end_s;        /* INFINITY until backward is done */
    int blocks_done;             /* compute: blocks of it->blocks done */
    double *bucket_ready_s;      /* when each bucket's blocks were done (its calls' release
                                    counts from there) */
    int buckets_marked;          /* buckets whose ready time is recorded */
    actor compute, comm, step;
    gcsim_timeline *out;
} sim;

static int comm_steps(const gcsim_bucket *b) { return b->n_steps - b->n_deferred; }

/* Whether bucket b may start its exchange: the blocks it waits for are done. */
static bool bucket_ready(const sim *m, int b)
{
    return m->blocks_done > m->it->buckets[b].ready_block;
}

/* Whether bucket b's program (up to its deferred steps) is done. */
static bool bucket_exchanged(const sim *m, int b)
{
    return m->comm.bucket > b;
}

/* Records when the buckets whose blocks are now all done became ready. */
static void mark_ready(sim *m)
{
    const gcsim_iteration *it = m->it;
    while (m->buckets_marked < it->n_buckets &&
           it->buckets[m->buckets_marked].ready_block < m->blocks_done)
        m->bucket_ready_s[m->buckets_marked++] = m->t;
}

static void start_step(sim *m, actor *a, const gcsim_step *st)
{
    if (st->kind == GCSIM_STEP_CODEC && st->on_host) {
        /* the host's CPU: a fixed time beside the GPU's work, taking no share of it
         * (from_s never comes: no interference) and holding no compute */
        a->state = FIXED;
        a->from_s = INFINITY;
        a->until_s = m->t + st->codec_s;
        a->blocking = false;
        if (st->cls == GCSIM_CODEC_ENCODE)
            m->out->encode_s += st->codec_s;
        else
            m->out->decode_s += st->codec_s;
    } else if (st->kind == GCSIM_STEP_CODEC) {
        a->state = GPU_WORK;
        a->left_s = st->codec_s;
        if (st->cls == GCSIM_CODEC_ENCODE)
            m->out->encode_s += st->codec_s;
        else
            m->out->decode_s += st->codec_s;
    } else {
        double d = m->call_s[st->call];
        double hop = m->hop_s ? m->hop_s[st->call] : 0;
        double start_s = m->t;
        const gcsim_call *c = &m->it->calls[st->call];
        /* not before its release: a wait, not communication time */
        if (c->release_s > 0 && c->bucket >= 0 && c->bucket < m->it->n_buckets)
            start_s = fmax(start_s, m->bucket_ready_s[c->bucket] + c->release_s);
        a->state = FIXED;
        a->from_s = start_s;
        a->until_s = start_s + (d - hop);
        a->blocking = m->it->calls[st->call].blocking;
        a->call_codec_s = hop;
        m->out->comm_s += d - hop;
        m->out->decode_s += hop; /* the DES counts a reducing hop's codec as decoding */
    }
}

/* Compute: starts its next block once its gate (if any) is exchanged, or ends. */
static void compute_next(sim *m)
{
    const gcsim_iteration *it = m->it;
    while (m->blocks_done < it->n_blocks) {
        const gcsim_block *bl = &it->blocks[m->blocks_done];
        if (bl->gate >= 0 && !bucket_exchanged(m, bl->gate)) {
            m->compute.state = WAITING;
            return;
        }
        if (bl->seconds > 0) {
            m->compute.state = GPU_WORK;
            m->compute.left_s = bl->seconds;
            return;
        }
        m->blocks_done++;
        mark_ready(m);
    }
    m->compute.state = DONE;
    m->compute_end_s = m->t;
}

/* Comm: the next step of its bucket, the next bucket once ready, or the end. */
static void comm_next(sim *m)
{
    actor *a = &m->comm;
    const gcsim_iteration *it = m->it;
    while (a->bucket < it->n_buckets) {
        const gcsim_bucket *b = &it->buckets[a->bucket];
        if (a->step < 0) { /* between buckets */
            if (!bucket_ready(m, a->bucket)) {
                a->state = WAITING;
                return;
            }
            a->step = 0;
        }
        if (a->step < comm_steps(b)) {
            start_step(m, a, &it->steps[b->first_step + a->step]);
            a->step++;
            return;
        }
        a->bucket++;
        a->step = -1;
    }
    a->state = DONE;
}

/* Step: the deferred steps of each bucket whose exchange is over, after backward. */
static void step_next(sim *m)
{
    actor *a = &m->step;
    const gcsim_iteration *it = m->it;
    while (a->bucket < it->n_buckets) {
        const gcsim_bucket *b = &it->buckets[a->bucket];
        if (a->step < 0) {
            bool exchanged = m->comm.bucket > a->bucket;
            if (b->n_deferred > 0 && (!exchanged || m->compute.state != DONE)) {
                a->state = WAITING;
                return;
            }
            a->step = 0;
        }
        if (a->step < b->n_deferred) {
            start_step(m, a, &it->steps[b->first_step + comm_steps(b) + a->step]);
            a->step++;
            return;
        }
        a->bucket++;
        a->step = -1;
    }
    a->state = DONE;
}

static void finish(sim *m, actor *a)
{
    if (a->state == FIXED && a->call_codec_s > 0) {
        /* the call's transfers are done; its reducing steps' codec runs on the GPU, still
         * inside the call */
        a->state = GPU_WORK;
        a->left_s = a->call_codec_s;
        a->call_codec_s = 0;
        a->in_call = true;
        a->codec_from_s = m->t;
        return;
    }
    if (a->in_call) {
        m->out->comm_s += m->t - a->codec_from_s;
        a->in_call = false;
    }
    a->state = IDLE;
    if (a == &m->compute) {
        m->blocks_done++;
        mark_ready(m);
        compute_next(m);
    }
}

/* Moves the actors on as far as they can at time t: compute may wait on the comm actor
 * (a gated block), the comm actor on compute (a bucket not yet produced), the step actor
 * on both; a pass that unblocks one may unblock another. */
static void settle(sim *m)
{
    for (;;) {
        actor_state was[3] = {m->compute.state, m->comm.state, m->step.state};
        int blocks = m->blocks_done, bucket = m->comm.bucket;
        if (m->compute.state == WAITING)
            compute_next(m);
        if (m->comm.state == IDLE || m->comm.state == WAITING)
            comm_next(m);
        if (m->step.state == IDLE || m->step.state == WAITING)
            step_next(m);
        if (was[0] == m->compute.state && was[1] == m->comm.state &&
            was[2] == m->step.state && blocks == m->blocks_done && bucket == m->comm.bucket)
            return;
    }
}

int gcsim_timeline_run(const gcsim_iteration *it, const double *call_s, const double *hop_s,
                       gcsim_timeline *out, gcsim_error *err)
{
    memset(out, 0, sizeof *out);
    for (int b = 0; b < it->n_buckets; b++) {
        const gcsim_bucket *bk = &it->buckets[b];
        for (int k = comm_steps(bk); k < bk->n_steps; k++)
            if (it->steps[bk->first_step + k].kind != GCSIM_STEP_CODEC)
                return gcsim_fail(err, "bucket %d: a deferred step must be codec work", b);
    }
    sim m = {.it = it, .call_s = call_s, .hop_s = hop_s, .compute_end_s = INFINITY, .out = out};
    /* A case's buckets usually fit on the stack: no allocation per case (issue 47). */
    enum { BUCKETS_ON_STACK = 64 };
    double on_stack[BUCKETS_ON_STACK] = {0};
    bool heap = it->n_buckets > BUCKETS_ON_STACK;
    m.bucket_ready_s = heap ? calloc((size_t)it->n_buckets, sizeof *m.bucket_ready_s) : on_stack;
    if (!m.bucket_ready_s)
        return gcsim_fail(err, "out of memory for %d buckets", it->n_buckets);
    mark_ready(&m); /* buckets ready at the start (ready_block -1) */
    m.comm = (actor){.state = IDLE, .bucket = 0, .step = -1};
    m.step = (actor){.state = IDLE, .bucket = 0, .step = -1};
    compute_next(&m);
    settle(&m);
    actor *actors[3] = {&m.compute, &m.comm, &m.step};
    for (;;) {
        /* A blocking call holds backward: compute makes no progress during it (its codec
         * part included). */
        bool in_call = m.comm.state == FIXED || m.comm.in_call;
        bool held = in_call && m.comm.blocking;
        int sharing = 0;
        for (int i = 0; i < 3; i++)
            sharing += actors[i]->state == GPU_WORK && !(held && i == 0);
        /* A call in flight takes its share of the GPU from the work beside it
         * (step.h, comm_interference): the k pieces of work share 1 - x, x = min(s,
         * 1/(k+1)) as max-min fairness gives an execution bounded at s (the DES's). Before
         * the call starts (its release wait) nothing is taken: that moment is an event. */
        double x = 0, rate = 0, begins_s = INFINITY;
        if (in_call && it->comm_interference > 0 && sharing > 0) {
            if (m.comm.from_s > m.t)
                begins_s = m.comm.from_s;
            else
                x = fmin(it->comm_interference, 1.0 / (sharing + 1));
        }
        if (x > 0)
            rate = (1.0 - x) / sharing;
        /* Each actor's end time is computed once and compared as stored, so the actor that
         * sets `next` always ends there: every pass finishes a piece of work, even when a
         * remainder is too small to move the clock. */
        double end_s[3];
        double next = INFINITY;
        for (int i = 0; i < 3; i++) {
            const actor *a = actors[i];
            end_s[i] = INFINITY;
            if (a->state == GPU_WORK && !(held && i == 0))
                end_s[i] = x > 0 ? m.t + a->left_s / rate : m.t + a->left_s * sharing;
            else if (a->state == FIXED)
                end_s[i] = a->until_s;
            /* fmin without libm's call (1.6% of a sweep's cases, issue 47): the same
             * value, NaN included (never taken), and no end is -0 */
            next = end_s[i] < next ? end_s[i] : next;
        }
        /* the call's share starts: no work ends there, the rates change */
        next = begins_s < next ? begins_s : next;
        if (isinf(next))
            break;
        bool ends[3];
        for (int i = 0; i < 3; i++) {
            actor *a = actors[i];
            bool runs = a->state == GPU_WORK && !(held && i == 0);
            ends[i] = end_s[i] == next;
            if (runs && !ends[i]) {
                double left_s = x > 0 ? a->left_s - (next - m.t) * rate
                                      : a->left_s - (next - m.t) / sharing;
                a->left_s = left_s > 0.0 ? left_s : 0.0; /* fmax(0, left_s), NaN to 0 too */
            }
        }
        m.t = next;
        for (int i = 0; i < 3; i++)
            if (ends[i])
                finish(&m, actors[i]);
        settle(&m);
    }
    if (heap)
        free(m.bucket_ready_s);
    if (m.compute.state != DONE || m.comm.state != DONE || m.step.state != DONE)
        return gcsim_fail(err, "the iteration's programs did not run to their end");
    out->iteration_s = m.t;
    out->compute_end_s = m.compute_end_s;
    return 0;
}
