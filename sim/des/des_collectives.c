/*
 * sim/des/des_collectives.c: a bucket's schedule (sim/collectives/schedule.c) executed by
 * the endpoints' actors.
 *
 * In every step of a phase an endpoint posts the sends and receives of its flows that are
 * active in that step, then waits for all of them; a reducing phase then charges the
 * decode-sum-encode of payloads that cannot be added as encoded. Every endpoint walks the
 * same phases and steps, so a send and its receive are posted in the same step; mailboxes
 * are keyed by (receiver, sender), so messages between one pair match in program order.
 * Message sizes are gcsim_flow_bytes: the same bytes the analytic engine costs.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <simgrid/mailbox.h>
#include <simgrid/semaphore.h>
#include <xbt/asserts.h>
#include <xbt/dynar.h>

#include "des_collectives.h"
#include "des_fabric.h"
#include "des_maxmin.h"
#include "des_shard.h"
#include "des_timeline.h"

/* Writes the decimal digits of v >= 0 at p; returns the end. */
static char *put_decimal(char *p, int v)
{
    char digits[12];
    int n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) > 0);
    while (n > 0)
        *p++ = digits[--n];
    return p;
}

/* The mailbox "<dst><<src>". Formatted by hand: snprintf runs on the actor's small stack
 * and, in glibc 2.36, takes a deep path that touched fresh stack pages in every actor
 * (each a page fault) and was 7% of a 256-GPU all-reduce's CPU time. */
static sg_mailbox_t mbox(int dst, int src)
{
    char name[32];
    char *end = put_decimal(name, dst);
    *end++ = '<';
    end = put_decimal(end, src);
    *end = '\0';
    return sg_mailbox_by_name(name);
}

static des_peer_boxes *boxes(des_actor *a, int peer, des_peer_boxes *spill)
{
    unsigned h = ((uint32_t)peer * 2654435761u) % DES_MAILBOX_CACHE;
    for (int probe = 0; probe < DES_MAILBOX_CACHE; probe++) {
        des_peer_boxes *b = &a->boxes[(h + (unsigned)probe) % DES_MAILBOX_CACHE];
        if (b->peer == peer)
            return b;
        if (b->peer < 0) {
            /* Resolving is a simcall: fill the entry only once complete. */
            sg_mailbox_t in = mbox(a->ep, peer), out = mbox(peer, a->ep);
            b->in = in;
            b->out = out;
            b->peer = peer;
            return b;
        }
    }
    spill->in = mbox(a->ep, peer);
    spill->out = mbox(peer, a->ep);
    spill->peer = peer;
    return spill;
}

/* Whether flow f sends in task steps [step, to] (step -1: a coalesced phase, every flow). */
static bool in_task(const gcsim_flow *f, int step, int to)
{
    return step < 0 || (f->first_step <= to && f->last_step >= step);
}

/* Steps of [step, to] in which f is active (step -1: all of the phase's). */
static int task_steps(const gcsim_phase *ph, const gcsim_flow *f, int step, int to)
{
    if (step < 0)
        return ph->steps;
    int a = f->first_step > step ? f->first_step : step;
    int z = f->last_step < to ? f->last_step : to;
    return z >= a ? z - a + 1 : 0;
}

/* The bytes f sends in task [step, to]: its bytes in each of its steps there (a coalesced
 * phase's and a block's flows carry the same bytes in every step: des_phase_coalesces,
 * des_phase_blocks). */
static double task_bytes(const gcsim_phase *ph, const gcsim_flow *f, int step, int to,
                         const gcsim_bucket_bytes *bb)
{
    if (step >= 0 && to == step)
        return gcsim_flow_bytes(ph, f, step, bb);
    int first = step < 0 ? 0 : (f->first_step > step ? f->first_step : step);
    double bytes = gcsim_flow_bytes(ph, f, first, bb);
    /* a pipelined ring's coalesced phase whose bytes grow with the sums: step by step */
    if (step < 0 && ph->pipelined && bytes != gcsim_flow_bytes(ph, f, ph->steps - 1, bb)) {
        double sum = 0;
        for (int k = 0; k < ph->steps; k++)
            sum += gcsim_flow_bytes(ph, f, k, bb);
        return sum;
    }
    return task_steps(ph, f, step, to) * bytes;
}

/* The bytes one message carries for the run of flows out[x..y] (flows of one pair merged
 * into one message) in steps step..to; false when none of them sends in those steps. */
static bool run_bytes(const gcsim_phase *ph, const int *out, int x, int y, int step, int to,
                      const gcsim_bucket_bytes *bb, double *bytes)
{
    bool sends = false;
    *bytes = 0;
    for (int z = x; z <= y; z++)
        if (in_task(&ph->flows[out[z]], step, to)) {
            sends = true;
            *bytes += task_bytes(ph, &ph->flows[out[z]], step, to, bb);
        }
    return sends;
}

/* Whether a task's messages carry more than one step (coalesced phase or block). */
static bool task_coalesced(const des_lane_task *t)
{
    return t->step < 0 || t->to > t->step;
}

/* Runs `seconds` of nominal codec work on the actor's host (it shares the GPU with
 * backward compute, so it may take longer); returns the simulated start. */
static double codec_run(des_actor *a, double seconds)
{
    double t0 = simgrid_get_clock();
    sg_actor_execute(seconds * sg_host_get_speed(sg_host_self()));
    a->codec_s += seconds;
    return t0;
}

void des_codec(des_actor *a, double seconds, const char *name, const char *kind, int call,
               int phase, int step)
{
    if (seconds <= 0)
        return;
    double t0 = codec_run(a, seconds);
    if (!a->sim->timeline)
        return;
    const gcsim_call *c = &a->sim->plan->iteration.calls[call];
    des_event_args args = des_event_args_of(kind);
    args.bucket = c->bucket;
    args.phase = phase;
    args.step = step;
    args.bytes = c->bytes.payload_bytes;
    des_timeline_add(a->sim->timeline, a->ep, DES_TRACK_COMPRESS, name, t0, simgrid_get_clock(),
                     &args);
}

/* One slice per tensor of bucket b on the per-tensor track, tiling [t0, t1]: a codec step
 * is one SimGrid execution (one per tensor would multiply the simulation's cost), and its
 * simulated interval is shared out in proportion to each tensor's modelled seconds. The
 * boundaries are cumulative fractions of the interval and the last is t1 itself, so after
 * rounding to nanoseconds the slices cover the step's slice exactly, without gaps. */
static void codec_tensors(des_actor *a, int b, const gcsim_step *st, double t0, double t1)
{
    const des_plan *pl = a->sim->plan;
    const gcsim_iteration *it = &pl->iteration;
    bool encode = st->tensors == 1;
    const double *layer_s = encode ? it->layer_encode_s : it->layer_decode_s;
    if (!it->layers || !it->layer_elements || !layer_s || st->tensors == 0)
        return;
    const gcsim_bucket *bk = &it->buckets[b];
    /* backward order, last layer first: the order they were encoded and summed in */
    double total_s = 0;
    for (int l = bk->last_layer; l >= bk->first_layer; l--)
        total_s += layer_s[l];
    if (!(total_s > 0))
        return;
    char name[160];
    double done_s = 0, start = t0;
    for (int l = bk->last_layer; l >= bk->first_layer; l--) {
        done_s += layer_s[l];
        double end = l == bk->first_layer ? t1 : t0 + (t1 - t0) * (done_s / total_s);
        end = fmax(start, fmin(end, t1));
        const gcsim_layer *layer = &it->layers[l];
        des_event_args args = des_event_args_of(encode ? "encode-tensor" : "decode-tensor");
        args.bucket = b;
        args.modelled_key = encode ? "encode_s" : "decode_s";
        args.modelled_s = st->tensor_factor * layer_s[l];
        args.layer = layer->name;
        args.elements = it->layer_elements[l];
        args.bytes = it->layer_payload_bytes[l];
        args.apportioned = "by modelled work";
        snprintf(name, sizeof name, "%s %s", st->name, layer->name);
        des_timeline_add(a->sim->timeline, a->ep, DES_TRACK_COMPRESS_TENSORS, name, start, end,
                         &args);
        start = end;
    }
}

void des_codec_step(des_actor *a, int b, const gcsim_step *st)
{
    if (st->codec_s <= 0)
        return;
    double t0 = simgrid_get_clock();
    if (st->on_host) { /* the host's CPU threads: time, no share of the GPU (step.h) */
        sg_actor_sleep_for(st->codec_s);
        a->codec_s += st->codec_s;
    } else {
        codec_run(a, st->codec_s);
    }
    double t1 = simgrid_get_clock();
    if (!a->sim->timeline)
        return;
    char name[64];
    snprintf(name, sizeof name, "%s bucket %d", st->name, b);
    bool encode = st->cls == GCSIM_CODEC_ENCODE;
    des_event_args args = des_event_args_of(st->name);
    args.bucket = b;
    args.bytes = a->sim->plan->iteration.buckets[b].bytes.payload_bytes;
    args.modelled_key = encode ? "encode_s" : "decode_s";
    args.modelled_s = st->codec_s;
    des_timeline_add(a->sim->timeline, a->ep, DES_TRACK_COMPRESS, name, t0, t1, &args);
    codec_tensors(a, b, st, t0, t1);
}

/* The transfer slice of one endpoint's step (step -1: a coalesced phase) and a flow end
 * for each of its flows, matched by key to the other endpoint's slice. */
static void record_transfers(des_actor *a, int c, const gcsim_schedule *s, int p, int step,
                             int to, double t0, double sent, double received)
{
    des_timeline *t = a->sim->timeline;
    if (!t)
        return;
    const gcsim_phase *ph = &s->phases[p];
    int o0 = s->out_index[p][a->ep], o1 = s->out_index[p][a->ep + 1];
    int i0 = s->in_index[p][a->ep], i1 = s->in_index[p][a->ep + 1];
    int n_out = 0, n_in = 0, peer = -1;
    for (int x = o0; x < o1; x++)
        if (in_task(&ph->flows[s->out_flows[p][x]], step, to)) {
            n_out++;
            peer = ph->flows[s->out_flows[p][x]].dst;
        }
    for (int x = i0; x < i1; x++)
        if (in_task(&ph->flows[s->in_flows[p][x]], step, to))
            n_in++;
    if (n_out + n_in == 0)
        return;
    const gcsim_call *call = &a->sim->plan->iteration.calls[c];
    des_event_args args = des_event_args_of("transfer");
    args.bucket = call->bucket;
    args.phase = p;
    args.step = step;
    args.peers = n_out;
    args.peer = n_out == 1 ? peer : -1;
    args.bytes_sent = sent;
    args.bytes_received = received;
    char name[96];
    if (step >= 0 && to > step)
        snprintf(name, sizeof name, "bucket %d %s phase %d steps %d-%d", call->bucket, call->name,
                 p, step, to);
    else
        snprintf(name, sizeof name, "bucket %d %s phase %d %s", call->bucket, call->name, p,
                 step < 0 ? "all steps" : "step");
    long slice = des_timeline_add(t, a->ep, DES_TRACK_TRANSFER, name, t0, simgrid_get_clock(),
                                  &args);
    for (int x = o0; x < o1; x++) {
        int fi = s->out_flows[p][x];
        if (in_task(&ph->flows[fi], step, to))
            des_timeline_flow(t, slice, des_flow_key(c, p, step, fi), 1);
    }
    for (int x = i0; x < i1; x++) {
        int fi = s->in_flows[p][x];
        if (in_task(&ph->flows[fi], step, to))
            des_timeline_flow(t, slice, des_flow_key(c, p, step, fi), 0);
    }
}

/* Whether call c's phase p runs coalesced: more than one step, every flow active in every
 * step with the same bytes in each (bytes grow monotonically with the sums, so equal at
 * the first and last step means equal throughout), and no decode-sum-encode between steps.
 * Then the steps of a flow are contention-identical: the same flows cross the same links
 * in every step, so each endpoint moves all its steps' bytes in one message per flow and
 * adds the latencies of the other steps (see des_coalesced). Decided once per call and
 * phase, for all endpoints alike (a send and its receive must agree). */
static bool coalesced(des_sim *sim, int c, const gcsim_schedule *s, int p, bool reencode)
{
    /* (a pipelined ring's phase coalesces in the full simulation too: des_phase_coalesces) */
    if ((sim->plan->full_simulation && !s->phases[p].pipelined) || reencode ||
        s->phases[p].steps < 2)
        return false;
    if (!sim->coalesce) {
        int most = 1;
        for (int k = 0; k < sim->plan->n_schedules; k++)
            if (sim->plan->schedules[k].n_phases > most)
                most = sim->plan->schedules[k].n_phases;
        sim->coalesce_phases = most;
        sim->coalesce = calloc((size_t)sim->plan->iteration.n_calls * (size_t)most, 1);
        if (!sim->coalesce)
            return false;
    }
    signed char *d = &sim->coalesce[(size_t)c * (size_t)sim->coalesce_phases + (size_t)p];
    if (*d == 0)
        *d = des_phase_coalesces(sim->plan, c, s, p) ? 1 : -1;
    return *d == 1;
}

/* Whether phase p is a pipeline: its flows start or stop at different steps (the trees'
 * chunks, sim/collectives/schedule.c tree_flows). */
static bool pipelined(const gcsim_phase *ph)
{
    for (int x = 0; x < ph->n_flows; x++)
        if (ph->flows[x].first_step != 0 || ph->flows[x].last_step != ph->steps - 1)
            return true;
    return false;
}

/* Allocates sim->step_barriers (row length barrier_phases, the most phases of a schedule)
 * on first use: the solved blocks' and parameter-server phases' state uses the same rows. */
static void barrier_table(des_sim *sim)
{
    const des_plan *pl = sim->plan;
    if (!sim->step_barriers) {
        int most = 1;
        for (int k = 0; k < pl->n_schedules; k++)
            if (pl->schedules[k].n_phases > most)
                most = pl->schedules[k].n_phases;
        sim->step_barriers = calloc((size_t)pl->iteration.n_calls * (size_t)most,
                                    sizeof *sim->step_barriers);
        if (!sim->step_barriers)
            xbt_die("des: out of memory");
        sim->barrier_phases = most;
    }
}

/* The endpoints with flows in phase p of s: the parties of its barriers. */
static unsigned phase_endpoints(const des_plan *pl, const gcsim_schedule *s, int p)
{
    unsigned n = 0;
    int ends = s->endpoints < pl->endpoints ? s->endpoints : pl->endpoints;
    for (int e = 0; e < ends; e++)
        if (s->out_index[p][e] < s->out_index[p][e + 1] ||
            s->in_index[p][e] < s->in_index[p][e + 1])
            n++;
    return n;
}

/* The barrier that ends every step of call c's pipelined phase p, or NULL where the steps
 * run unsynchronized (a phase that is not a pipeline). It is part of the model, not a
 * shortcut: GCSIM_DES_FULL (every step its own messages) keeps it.
 *
 * Why: an endpoint of a pipelined tree that waited only for its own flows started its next
 * step as soon as they were done, so the endpoints drifted apart, each at its own offset
 * from its children's and parent's progress, and the flows of a step started and ended at
 * as many distinct instants as there were endpoints. SimGrid's full max-min update
 * re-solves every flow in progress at each such instant: flows x instants, quadratic in
 * the GPUs (a ResNet-50 iteration on 1,024 A100s under the default double tree: 20 CPU-s,
 * 70% in the solver, against 0.17 s with hierarchical; issue 47). With every step ended
 * together, as the analytic engine costs the schedule (each step the slowest of its
 * active flows, sim/collectives/tree_cost.c), a step's flows start at one instant and end
 * at as many instants as they have distinct rates, and the cost is linear in the flows.
 * Contention is unchanged: the flows of a step still share their links, and background
 * load, ECMP, oversubscription and jitter act on them as before. The participants are the
 * endpoints with flows in the phase; every one walks all its steps (run_phase). */
static sg_bar_t step_barrier(des_sim *sim, int c, const gcsim_schedule *s, int p)
{
    const des_plan *pl = sim->plan;
    if (s->phases[p].steps < 2)
        return NULL;
    barrier_table(sim);
    /* decided once per call and phase for all endpoints: this address marks "none" */
    static char unsynchronized;
    sg_bar_t *b = &sim->step_barriers[(size_t)c * (size_t)sim->barrier_phases + (size_t)p];
    if (!*b && !pipelined(&s->phases[p]))
        *b = (sg_bar_t)&unsynchronized;
    if (!*b)
        *b = sg_barrier_init(phase_endpoints(pl, s, p));
    return *b == (sg_bar_t)&unsynchronized ? NULL : *b;
}

/* The barrier by which every endpoint with flows in call c's coalesced phase p leaves it,
 * where the iteration has blocking calls (des_sim.blocking_calls).
 *
 * Why: a coalesced phase is one message per flow with the bytes of all its steps, so an
 * endpoint's own messages end at its own links' pace, where in the phase as run every
 * step's data goes on only once it has arrived, and no endpoint has the phase's result
 * before the slowest hop has carried it: a ring's endpoints end within a step of each
 * other. Without the barrier the endpoints of a node whose ring neighbours share its
 * NVLink or PCIe left a call milliseconds before those beside the NIC, and on a slow
 * network a GPU that left early waited in its next blocking call, its compute held, for
 * peers that were still in the last one (docs/des.md, "Where and why the engines
 * differ"). The analytic engine ends the phase at its slowest step's end on every GPU.
 * Without blocking calls an endpoint that leaves early only starts its next call early,
 * whose messages wait for their peers anyway: the iteration is the same, and the runs
 * that solve rings per flow (des_shard.c, whose iterations have no blocking call) stay
 * equal to this replay (tests/des/test_des_shard.c). */
static sg_bar_t phase_end_barrier(des_sim *sim, int c, const gcsim_schedule *s, int p)
{
    const des_plan *pl = sim->plan;
    barrier_table(sim);
    if (!sim->end_barriers) {
        sim->end_barriers = calloc((size_t)pl->iteration.n_calls * (size_t)sim->barrier_phases,
                                   sizeof *sim->end_barriers);
        if (!sim->end_barriers)
            xbt_die("des: out of memory");
    }
    sg_bar_t *b = &sim->end_barriers[(size_t)c * (size_t)sim->barrier_phases + (size_t)p];
    if (!*b)
        *b = sg_barrier_init(phase_endpoints(pl, s, p));
    return *b;
}

/* Where received payloads land: messages carry only their size. */
static void *sink;

/* Posts the communications of task t that belong to lane `lane` of n_lanes: one per flow of
 * the endpoint active in the step whose peer p has p % n_lanes == lane. In a coalesced
 * phase (t->step < 0: see coalesced) a flow's message carries all `steps` steps' bytes and
 * extra[k] gets the route latencies of the other steps; in a block of a pipelined phase
 * (steps t->step .. t->to, des_blocks.c) one message per run of the pair's flows active
 * there carries their bytes of the block's steps, with the latencies of the block's other
 * steps. With comms NULL, only counts them. Returns how many. */
static size_t post_lane(des_actor *a, int lane, int n_lanes, const des_lane_task *t,
                        sg_comm_t *comms, double *extra)
{
    const des_plan *pl = a->sim->plan;
    const gcsim_schedule *s = t->schedule;
    int p = t->phase, step = t->step, to = t->to;
    const gcsim_phase *ph = &s->phases[p];
    const gcsim_bucket_bytes *bb = &pl->iteration.calls[t->call].bytes;
    int o0 = s->out_index[p][a->ep], o1 = s->out_index[p][a->ep + 1];
    int i0 = s->in_index[p][a->ep], i1 = s->in_index[p][a->ep + 1];
    bool all = task_coalesced(t);
    bool runs = step >= 0 && to > step; /* a block: one message per run (des_same_run) */
    int span = step < 0 ? ph->steps : to - step + 1; /* steps whose latencies it takes */
    const int *out = s->out_flows[p], *in = s->in_flows[p];
    des_peer_boxes spill;
    size_t n = 0;
    for (int x = o0, y; x < o1; x = y + 1) {
        y = runs ? des_run_end(ph, out, x, o1) : x;
        const gcsim_flow *f = &ph->flows[out[x]];
        if (f->dst % n_lanes != lane)
            continue;
        double bytes;
        if (!run_bytes(ph, out, x, y, step, to, bb, &bytes))
            continue;
        if (!comms) {
            n++;
            continue;
        }
        a->sim->transfers++;
        if (all)
            extra[n] = des_phase_other_latency_s(pl, t->call, ph, span, f->src, f->dst);
        else
            extra[n] = 0;
        comms[n++] = sg_mailbox_put_async(boxes(a, f->dst, &spill)->out, a,
                                          bytes > 0 ? (long)ceil(bytes) : 0);
        if (a->sim->timeline) /* the shared links' counters (des_link_rates.h) */
            des_timeline_message(a->sim->timeline, comms[n - 1], bytes > 0 ? ceil(bytes) : 0);
    }
    for (int x = i0, y; x < i1; x = y + 1) {
        y = runs ? des_run_end(ph, in, x, i1) : x;
        const gcsim_flow *f = &ph->flows[in[x]];
        if (f->src % n_lanes != lane)
            continue;
        bool receives = false;
        for (int z = x; z <= y && !receives; z++)
            receives = in_task(&ph->flows[in[z]], step, to);
        if (!receives)
            continue;
        if (!comms) {
            n++;
            continue;
        }
        if (all)
            extra[n] = des_phase_other_latency_s(pl, t->call, ph, span, f->src, f->dst);
        else if (pl->platform->jitter.mean_s > 0) /* this message's network jitter */
            extra[n] = des_fabric_jitter_s(pl->platform->jitter.seed, pl->platform->jitter.mean_s,
                                           pl->iteration_index, a->ep, a->lane, a->received++);
        comms[n++] = sg_mailbox_get_async(boxes(a, f->src, &spill)->in, &sink);
    }
    return n;
}

/* Waits for n posted communications. Step by step: until all are done. Coalesced: run
 * step by step, a flow takes its route latency plus its bytes at its fair share in every
 * step; coalesced, it takes the latency once and all the bytes at the same share, so the
 * lane is done when the last of its flows, each completed and then charged steps - 1 more
 * latencies (extra), would have been. Returns that time (the clock itself step by step). */
static double wait_lane(sg_comm_t *comms, double *extra, size_t n, bool coalesced, bool jitter)
{
    if (!coalesced && !jitter) {
        if (n)
            sg_comm_wait_all(comms, n);
        return simgrid_get_clock();
    }
    double end = simgrid_get_clock();
    while (n > 0) {
        ssize_t k = sg_comm_wait_any(comms, n);
        if (k < 0)
            break;
        double t = simgrid_get_clock() + extra[k];
        if (t > end)
            end = t;
        /* The finished comm is released: keep the others packed. */
        comms[k] = comms[n - 1];
        extra[k] = extra[n - 1];
        n--;
    }
    return end;
}

/* A lane helper: for each task its owner hands it, its lane's communications, then the
 * owner's done semaphore. It never returns: once its endpoint is done it waits for a task
 * that never comes, like a finished actor (des_sim.c's actor_end). */
void des_lane_main(int argc, char **argv)
{
    (void)argc, (void)argv;
    des_actor *h = sg_actor_self_get_data();
    des_actor *o = h->owner;
    for (;;) {
        sg_sem_acquire(h->go);
        size_t n = post_lane(h, h->lane, o->n_lanes, &o->task, NULL, NULL);
        if (n > h->comms_cap) {
            free(h->comms);
            free(h->extra);
            h->comms = malloc(sizeof *h->comms * n);
            h->extra = malloc(sizeof *h->extra * n);
            if (!h->comms || !h->extra)
                xbt_die("des: out of memory");
            h->comms_cap = n;
        }
        n = post_lane(h, h->lane, o->n_lanes, &o->task, h->comms, h->extra);
        h->end_s = wait_lane(h->comms, h->extra, n, task_coalesced(&o->task),
                             h->sim->plan->platform->jitter.mean_s > 0);
        sg_sem_release(o->done);
    }
}

/* Runs task t on all of the endpoint's lanes: hands it to the helpers, posts and waits for
 * lane 0's communications, then waits for the helpers. Every lane posts at the same
 * simulated time (a semaphore costs none), so the flows start when they did on one actor.
 * Returns when the last lane is done (see wait_lane). */
static double run_lanes(des_actor *a, const des_lane_task *t, sg_comm_t *comms, double *extra)
{
    int n_lanes = a->n_lanes > 1 ? a->n_lanes : 1;
    if (n_lanes > 1) {
        a->task = *t;
        for (int l = 1; l < n_lanes; l++)
            sg_sem_release(a->lanes[l - 1].go);
    }
    size_t n = post_lane(a, 0, n_lanes, t, comms, extra);
    double end = wait_lane(comms, extra, n, task_coalesced(t),
                           a->sim->plan->platform->jitter.mean_s > 0);
    for (int l = 1; l < n_lanes; l++) {
        sg_sem_acquire(a->done);
        if (a->lanes[l - 1].end_s > end)
            end = a->lanes[l - 1].end_s;
    }
    return end;
}

/* The bytes endpoint a sends and receives in task steps [step, to] (step -1: all of a
 * coalesced phase's), and the largest share of the payloads it receives in a single step. */
static void step_bytes(const des_actor *a, int c, const gcsim_schedule *s, int p, int step,
                       int to, double *sent, double *received, double *in_share)
{
    const gcsim_phase *ph = &s->phases[p];
    const gcsim_bucket_bytes *bb = &a->sim->plan->iteration.calls[c].bytes;
    int o0 = s->out_index[p][a->ep], o1 = s->out_index[p][a->ep + 1];
    int i0 = s->in_index[p][a->ep], i1 = s->in_index[p][a->ep + 1];
    *sent = *received = *in_share = 0;
    for (int x = o0; x < o1; x++) {
        const gcsim_flow *f = &ph->flows[s->out_flows[p][x]];
        if (in_task(f, step, to))
            *sent += task_bytes(ph, f, step, to, bb);
    }
    for (int x = i0; x < i1; x++) {
        const gcsim_flow *f = &ph->flows[s->in_flows[p][x]];
        if (!in_task(f, step, to))
            continue;
        if (step >= 0 && to == step)
            *in_share = fmax(*in_share, f->share);
        *received += task_bytes(ph, f, step, to, bb);
    }
}

/* Call c's phase p in blocks (des_phase_blocks), decided once for all endpoints: their
 * number, bounds in *bounds; 0 when it runs step by step. Called only for phases with a
 * step barrier (step_barrier has set barrier_phases). */
static int phase_blocks(des_sim *sim, int c, const gcsim_schedule *s, int p, const int **bounds)
{
    *bounds = NULL;
    if (!sim->blocks) {
        size_t cells = (size_t)sim->plan->iteration.n_calls * (size_t)sim->barrier_phases;
        sim->blocks = calloc(cells, sizeof *sim->blocks);
        sim->n_blocks = calloc(cells, sizeof *sim->n_blocks);
        sim->blocks_known = calloc(cells, sizeof *sim->blocks_known);
        if (!sim->blocks || !sim->n_blocks || !sim->blocks_known)
            xbt_die("des: out of memory");
    }
    size_t k = (size_t)c * (size_t)sim->barrier_phases + (size_t)p;
    if (!sim->blocks_known[k]) {
        int n = des_phase_blocks(sim->plan, c, s, p, &sim->blocks[k]);
        if (n < 0)
            xbt_die("des: out of memory");
        sim->n_blocks[k] = n;
        sim->blocks_known[k] = true;
    }
    *bounds = sim->blocks[k];
    return sim->n_blocks[k];
}

/*
 * Blocks solved outside SimGrid (issue 47). A block of a pipelined phase other than its
 * first starts on every endpoint at one instant, the release of the previous block's
 * barrier, and ends on its own barrier: its flows are in progress together and, when every
 * endpoint of the simulation takes part in the phase (so no other actor has a flow in
 * progress) and no step actor runs beside the comm actors, nothing else crosses their
 * links while they are. What SimGrid then computes for the block is a function of its
 * flows alone: the latest of every flow's end plus the block's other latencies
 * (wait_lane), the instant the barrier releases. des_maxmin.c computes it with SimGrid's
 * rules, from the routes, latencies and capacities of the links SimGrid itself holds (so
 * oversubscription, background load and ECMP's links are what the replay sees); one actor
 * sleeps until then, the others wait on the barrier. Not with a timeline (its per-message
 * records), another network model than alpha-beta (factors, cross-traffic), deferred
 * steps, GCSIM_DES_REPLAY=1, or a FATPIPE link that could bind (none on gcsim's
 * platforms: their FATPIPE helpers hold 1e18 B/s). Network jitter and decode-sum-encode
 * leave a phase without blocks (des_phase_blocks). The first block of a phase is replayed:
 * its endpoints arrive when their previous work ends, which need not be together.
 */
typedef struct {
    int src, dst;      /* -1: empty */
    int first, n;      /* links in des_solo.route_links */
    double latency_s;  /* SimGrid's route latency */
    double gcsim_lat_s; /* gcsim's (des_plan_route_latency_s): a block's other steps' */
} solo_route;

typedef struct des_solo des_solo;
struct des_solo {
    int *block;              /* per call and phase: the last block solved (-1: none) */
    double *end_s;           /* its end (NAN: replayed) */
    signed char *allowed;    /* per call and phase: 0 undecided, 1 yes, -1 no */
    /* The pairs' routes, in the order first met, and an open-addressing table on (src,
     * dst) of their indices (-1: empty); per call and phase, the route of the run that
     * starts at each of its out-flow positions (-1: not looked up yet), so that a phase's
     * later blocks look up none (each look-up a cache miss at 16,384 GPUs). */
    solo_route *routes;
    size_t route_n, routes_cap;
    int *slots;
    size_t slot_cap;
    int **run_route;
    int *route_links;
    size_t route_links_n, route_links_cap;
    double *capacity_Bps;    /* per link met so far (its index + 1 is the link's data) */
    bool *bounded;           /* per link: a FATPIPE link that could bind */
    int n_links, links_cap;
    des_mm_flow *flows;      /* a block's flows (scratch) */
    size_t flows_cap;
    int *flow_links;
    size_t flow_links_cap;
    xbt_dynar_t dynar;
};

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(p, c * size);
    if (!q)
        xbt_die("des: out of memory");
    *cap = c;
    return q;
}

static des_solo *solo_state(des_sim *sim)
{
    if (sim->solo)
        return sim->solo;
    des_solo *so = calloc(1, sizeof *so);
    size_t cells = (size_t)sim->plan->iteration.n_calls * (size_t)sim->barrier_phases;
    if (!so || !(so->block = malloc(cells * sizeof *so->block)) ||
        !(so->end_s = malloc(cells * sizeof *so->end_s)) ||
        !(so->allowed = calloc(cells, 1)) || !(so->run_route = calloc(cells, sizeof(int *))))
        xbt_die("des: out of memory");
    for (size_t k = 0; k < cells; k++)
        so->block[k] = -1;
    so->dynar = xbt_dynar_new(sizeof(sg_link_t), NULL);
    sim->solo = so;
    return so;
}

/* The index of link l among those met (its data holds index + 1). */
static int solo_link(des_solo *so, sg_link_t l)
{
    intptr_t d = (intptr_t)sg_link_get_data(l);
    if (d > 0)
        return (int)(d - 1);
    if (so->n_links == so->links_cap) {
        so->links_cap = so->links_cap ? 2 * so->links_cap : 1024;
        so->capacity_Bps = realloc(so->capacity_Bps, (size_t)so->links_cap * sizeof(double));
        so->bounded = realloc(so->bounded, (size_t)so->links_cap * sizeof(bool));
        if (!so->capacity_Bps || !so->bounded)
            xbt_die("des: out of memory");
    }
    int k = so->n_links++;
    so->capacity_Bps[k] = sg_link_get_bandwidth(l);
    /* a FATPIPE link caps each flow at its capacity instead of sharing it: only the
     * helpers of 1e18 B/s, which no flow reaches, are left out of the solve */
    so->bounded[k] = !sg_link_is_shared(l) && so->capacity_Bps[k] < 1e15;
    sg_link_set_data(l, (void *)(intptr_t)(k + 1));
    return k;
}

/* The route from endpoint src to dst, memoized. */
static int solo_route_of(des_sim *sim, des_solo *so, int src, int dst)
{
    if (2 * (so->route_n + 1) > so->slot_cap) {
        size_t cap = so->slot_cap ? 2 * so->slot_cap : 4096;
        int *t = malloc(cap * sizeof *t);
        if (!t)
            xbt_die("des: out of memory");
        for (size_t k = 0; k < cap; k++)
            t[k] = -1;
        for (size_t i = 0; i < so->route_n; i++) {
            size_t h = des_pair_hash(so->routes[i].src, so->routes[i].dst, cap);
            while (t[h] >= 0)
                h = (h + 1) % cap;
            t[h] = (int)i;
        }
        free(so->slots);
        so->slots = t;
        so->slot_cap = cap;
    }
    size_t h = des_pair_hash(src, dst, so->slot_cap);
    while (so->slots[h] >= 0) {
        const solo_route *r = &so->routes[so->slots[h]];
        if (r->src == src && r->dst == dst)
            return so->slots[h];
        h = (h + 1) % so->slot_cap;
    }
    so->routes = grow(so->routes, &so->routes_cap, so->route_n + 1, sizeof *so->routes);
    int index = (int)so->route_n++;
    so->slots[h] = index;
    solo_route *r = &so->routes[index];
    xbt_dynar_reset(so->dynar);
    sg_host_get_route(sim->hosts[src], sim->hosts[dst], so->dynar);
    unsigned n = xbt_dynar_length(so->dynar);
    so->route_links = grow(so->route_links, &so->route_links_cap, so->route_links_n + n,
                           sizeof(int));
    r->first = (int)so->route_links_n;
    r->n = (int)n;
    for (unsigned k = 0; k < n; k++)
        so->route_links[so->route_links_n++] =
            solo_link(so, xbt_dynar_get_as(so->dynar, k, sg_link_t));
    r->latency_s = sg_host_get_route_latency(sim->hosts[src], sim->hosts[dst]);
    r->gcsim_lat_s = des_plan_route_latency_s(sim->plan, src, dst);
    r->src = src;
    r->dst = dst;
    return index;
}

/* Whether call c's pipelined phase p may have its blocks solved (decided once). */
static bool solo_allowed(des_sim *sim, des_solo *so, size_t cell, const gcsim_schedule *s,
                         int p)
{
    if (so->allowed[cell] == 0) {
        bool ok = !sim->timeline && des_phase_solves(sim->plan, s, p);
        so->allowed[cell] = ok ? 1 : -1;
    }
    return so->allowed[cell] == 1;
}

/* The end of block [step, to] of call c's phase p, solved from now, counting the messages
 * the replay would send; NAN where it must be replayed (a FATPIPE link that could bind). */
static double solo_solve(des_sim *sim, des_solo *so, size_t cell, int c,
                         const gcsim_schedule *s, int p, int step, int to)
{
    const des_plan *pl = sim->plan;
    int n_out = s->out_index[p][pl->endpoints];
    if (!so->run_route[cell]) {
        so->run_route[cell] = malloc(sizeof(int) * ((size_t)n_out + 1));
        if (!so->run_route[cell])
            xbt_die("des: out of memory");
        for (int x = 0; x < n_out; x++)
            so->run_route[cell][x] = -1;
    }
    int *run_route = so->run_route[cell];
    const gcsim_phase *ph = &s->phases[p];
    const gcsim_bucket_bytes *bb = &pl->iteration.calls[c].bytes;
    const int *out = s->out_flows[p];
    bool runs = to > step;
    int span = to - step + 1;
    size_t n_flows = 0, n_links = 0;
    long long messages = 0;
    for (int e = 0; e < pl->endpoints; e++) {
        int o0 = s->out_index[p][e], o1 = s->out_index[p][e + 1];
        for (int x = o0, y; x < o1; x = y + 1) {
            y = runs ? des_run_end(ph, out, x, o1) : x;
            double bytes;
            if (!run_bytes(ph, out, x, y, step, to, bb, &bytes))
                continue;
            const gcsim_flow *f = &ph->flows[out[x]];
            if (run_route[x] < 0)
                run_route[x] = solo_route_of(sim, so, f->src, f->dst);
            const solo_route *r = &so->routes[run_route[x]];
            so->flows = grow(so->flows, &so->flows_cap, n_flows + 1, sizeof *so->flows);
            so->flow_links = grow(so->flow_links, &so->flow_links_cap, n_links + (size_t)r->n,
                                  sizeof(int));
            des_mm_flow *m = &so->flows[n_flows++];
            m->bytes = (double)(bytes > 0 ? (long)ceil(bytes) : 0);
            m->latency_s = r->latency_s;
            m->extra_s = runs ? (span - 1) * r->gcsim_lat_s : 0;
            m->first_link = (int)n_links;
            m->n_links = 0;
            for (int k = 0; k < r->n; k++) {
                int l = so->route_links[r->first + k];
                if (so->bounded[l])
                    return NAN;
                so->flow_links[n_links++] = l;
                m->n_links++;
            }
            messages++;
        }
    }
    des_mm_problem prob = {.n_links = so->n_links, .capacity_Bps = so->capacity_Bps,
                           .n_flows = (int)n_flows, .flows = so->flows,
                           .links = so->flow_links};
    double end;
    if (des_mm_solve(&prob, simgrid_get_clock(), &end, NULL, NULL) != 0)
        xbt_die("des: out of memory");
    sim->transfers += messages;
    sim->solved_transfers += messages;
    return end;
}

/* Block k ([step, to]) of call c's phase p solved outside SimGrid where it may be: returns
 * true once the actor has waited on the block's barrier; false: replay it. */
static bool solo_block(des_actor *a, int c, const gcsim_schedule *s, int p, int k, int step,
                       int to, sg_bar_t barrier)
{
    des_sim *sim = a->sim;
    if (k == 0 || !barrier)
        return false;
    des_solo *so = solo_state(sim);
    size_t cell = (size_t)c * (size_t)sim->barrier_phases + (size_t)p;
    if (!solo_allowed(sim, so, cell, s, p))
        return false;
    bool mine = false;
    if (so->block[cell] != k) { /* the first endpoint at block k solves it for all */
        so->block[cell] = k;
        so->end_s[cell] = solo_solve(sim, so, cell, c, s, p, step, to);
        mine = true;
    }
    double end = so->end_s[cell];
    if (isnan(end))
        return false;
    double now = simgrid_get_clock();
    if (mine && end > now)
        sg_actor_sleep_for(end - now);
    sg_barrier_wait(barrier);
    return true;
}

/*
 * The parameter server's push and pull solved outside SimGrid (des_ps.c has when and why):
 * every endpoint waits on the phase's entry barrier, so its flows all start at the last
 * arrival; the first endpoint released solves all of them as one max-min system
 * (solo_solve: the shards' NICs and PCIe links shared as SimGrid shares them) and sleeps
 * until the last flow's end, the others wait on the exit barrier. A phase that must be
 * replayed after all (a FATPIPE link that could bind) is replayed by every endpoint.
 */
struct des_ps {
    sg_bar_t *entry, *exit;  /* per call and phase (row length barrier_phases) */
    double *end_s;           /* the solved end */
    signed char *state;      /* 0 not solved yet, 1 solved, -1 replayed */
};

static struct des_ps *ps_state(des_sim *sim)
{
    if (sim->ps)
        return sim->ps;
    barrier_table(sim);
    size_t cells = (size_t)sim->plan->iteration.n_calls * (size_t)sim->barrier_phases;
    struct des_ps *ps = calloc(1, sizeof *ps);
    if (!ps || !(ps->entry = calloc(cells, sizeof *ps->entry)) ||
        !(ps->exit = calloc(cells, sizeof *ps->exit)) ||
        !(ps->end_s = calloc(cells, sizeof *ps->end_s)) || !(ps->state = calloc(cells, 1)))
        xbt_die("des: out of memory");
    sim->ps = ps;
    return ps;
}

void des_ps_free(des_sim *sim)
{
    struct des_ps *ps = sim->ps;
    if (!ps)
        return;
    size_t cells = (size_t)sim->plan->iteration.n_calls * (size_t)sim->barrier_phases;
    for (size_t k = 0; k < cells; k++) {
        if (ps->entry[k])
            sg_barrier_destroy(ps->entry[k]);
        if (ps->exit[k])
            sg_barrier_destroy(ps->exit[k]);
    }
    free(ps->entry);
    free(ps->exit);
    free(ps->end_s);
    free(ps->state);
    free(ps);
    sim->ps = NULL;
}

/* Runs call c's parameter-server phase p solved; false: replay it (run_phase). */
static bool ps_phase(des_actor *a, int c, const gcsim_schedule *s, int p)
{
    des_sim *sim = a->sim;
    if (!des_ps_phase_solves(sim->plan, s, p))
        return false;
    struct des_ps *ps = ps_state(sim);
    size_t cell = (size_t)c * (size_t)sim->barrier_phases + (size_t)p;
    if (!ps->entry[cell]) { /* every endpoint has flows in the phase (des_phase_solves) */
        ps->entry[cell] = sg_barrier_init((unsigned)sim->plan->endpoints);
        ps->exit[cell] = sg_barrier_init((unsigned)sim->plan->endpoints);
    }
    sg_barrier_wait(ps->entry[cell]);
    bool mine = false;
    if (ps->state[cell] == 0) { /* the first endpoint released solves it for all */
        double end = solo_solve(sim, solo_state(sim), cell, c, s, p, 0, 0);
        ps->end_s[cell] = end;
        ps->state[cell] = isnan(end) ? -1 : 1;
        mine = true;
    }
    if (ps->state[cell] < 0)
        return false;
    double now = simgrid_get_clock();
    if (mine && ps->end_s[cell] > now)
        sg_actor_sleep_for(ps->end_s[cell] - now);
    sg_barrier_wait(ps->exit[cell]);
    return true;
}

static void run_phase(des_actor *a, int c, const gcsim_schedule *s, int p, sg_comm_t *comms,
                      double *extra)
{
    const des_plan *pl = a->sim->plan;
    const gcsim_phase *ph = &s->phases[p];
    const gcsim_bucket_bytes *bb = &pl->iteration.calls[c].bytes;
    int o0 = s->out_index[p][a->ep], o1 = s->out_index[p][a->ep + 1];
    int i0 = s->in_index[p][a->ep], i1 = s->in_index[p][a->ep + 1];
    if (o0 == o1 && i0 == i1)
        return;
    if (des_shard_phase(a, c, s, p)) /* FSDP's rings, per flow where none share a link */
        return;
    bool reencode = gcsim_hop_codec_s(ph, bb, 1.0) > 0;
    des_lane_task t = {.call = c, .phase = p, .step = -1, .to = -1, .schedule = s};
    double sent = 0, received = 0, in_share = 0;
    if (ps_phase(a, c, s, p)) {
        if (reencode) { /* a shard decodes, sums and re-encodes what it received */
            step_bytes(a, c, s, p, 0, 0, &sent, &received, &in_share);
            if (in_share > 0)
                des_codec(a, gcsim_hop_codec_s(ph, bb, in_share), "decode-sum-encode",
                          "decode-sum-encode", c, p, 0);
        }
        return;
    }
    if (coalesced(a->sim, c, s, p, reencode)) {
        double t0 = simgrid_get_clock();
        double end = run_lanes(a, &t, comms, extra);
        double now = simgrid_get_clock();
        if (end > now)
            sg_actor_sleep_for(end - now);
        if (a->sim->timeline)
            step_bytes(a, c, s, p, -1, -1, &sent, &received, &in_share);
        record_transfers(a, c, s, p, -1, -1, t0, sent, received);
        if (a->sim->blocking_calls)
            sg_barrier_wait(phase_end_barrier(a->sim, c, s, p));
        return;
    }
    sg_bar_t barrier = step_barrier(a->sim, c, s, p);
    /* blocks (des_blocks.c) exist only for pipelined phases, which have the barrier */
    const int *bounds = NULL;
    int n_blocks = barrier ? phase_blocks(a->sim, c, s, p, &bounds) : 0;
    int n_tasks = n_blocks > 0 ? n_blocks : ph->steps;
    for (int k = 0; k < n_tasks; k++) {
        int step = n_blocks > 0 ? bounds[k] : k, to = n_blocks > 0 ? bounds[k + 1] - 1 : k;
        if (n_blocks > 0 && solo_block(a, c, s, p, k, step, to, barrier))
            continue;
        double t0 = simgrid_get_clock();
        t.step = step;
        t.to = to;
        double end = run_lanes(a, &t, comms, extra);
        double now = simgrid_get_clock();
        if (end > now) /* network jitter, or a block's other latencies */
            sg_actor_sleep_for(end - now);
        if (barrier)
            sg_barrier_wait(barrier);
        if (a->sim->timeline || reencode)
            step_bytes(a, c, s, p, step, to, &sent, &received, &in_share);
        record_transfers(a, c, s, p, step, to, t0, sent, received);
        if (reencode && in_share > 0)
            des_codec(a, gcsim_hop_codec_s(ph, bb, in_share), "decode-sum-encode",
                      "decode-sum-encode", c, p, step);
    }
}

void des_exchange(des_actor *a, int c)
{
    const des_plan *pl = a->sim->plan;
    const gcsim_schedule *s = &pl->schedules[pl->call_schedule[c]];
    if (a->ep >= s->endpoints) /* a node CPU, in a schedule without them */
        return;
    int most = 1;
    for (int p = 0; p < s->n_phases; p++) {
        int k = s->out_index[p][a->ep + 1] - s->out_index[p][a->ep] +
                s->in_index[p][a->ep + 1] - s->in_index[p][a->ep];
        if (k > most)
            most = k;
    }
    sg_comm_t *comms = malloc(sizeof *comms * (size_t)most);
    double *extra = malloc(sizeof *extra * (size_t)most);
    if (!comms || !extra)
        xbt_die("des: out of memory");
    for (int p = 0; p < s->n_phases; p++) {
        run_phase(a, c, s, p, comms, extra);
        if (a->ep == 0)
            des_progress(c, p + 1, s->n_phases, pl->iteration.n_calls);
    }
    free(comms);
    free(extra);
}
