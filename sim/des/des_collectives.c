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

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <xbt/asserts.h>

#include "des_collectives.h"
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

static bool active(const gcsim_flow *f, int step)
{
    return step >= f->first_step && step <= f->last_step;
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
    if (!pl->model || !layer_s || st->tensors == 0)
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
        const gcsim_layer *layer = &pl->model->layers[l];
        des_event_args args = des_event_args_of(encode ? "encode-tensor" : "decode-tensor");
        args.bucket = b;
        args.modelled_key = encode ? "encode_s" : "decode_s";
        args.modelled_s = st->tensor_factor * layer_s[l];
        args.layer = layer->name;
        args.elements = (double)gcsim_layer_params(layer);
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
    double t0 = codec_run(a, st->codec_s), t1 = simgrid_get_clock();
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
                             double t0, double sent, double received)
{
    des_timeline *t = a->sim->timeline;
    if (!t)
        return;
    const gcsim_phase *ph = &s->phases[p];
    int o0 = s->out_index[p][a->ep], o1 = s->out_index[p][a->ep + 1];
    int i0 = s->in_index[p][a->ep], i1 = s->in_index[p][a->ep + 1];
    int n_out = 0, n_in = 0, peer = -1;
    for (int x = o0; x < o1; x++)
        if (step < 0 || active(&ph->flows[s->out_flows[p][x]], step)) {
            n_out++;
            peer = ph->flows[s->out_flows[p][x]].dst;
        }
    for (int x = i0; x < i1; x++)
        if (step < 0 || active(&ph->flows[s->in_flows[p][x]], step))
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
    snprintf(name, sizeof name, "bucket %d %s phase %d %s", call->bucket, call->name, p,
             step < 0 ? "all steps" : "step");
    long slice = des_timeline_add(t, a->ep, DES_TRACK_TRANSFER, name, t0, simgrid_get_clock(),
                                  &args);
    for (int x = o0; x < o1; x++) {
        int fi = s->out_flows[p][x];
        if (step < 0 || active(&ph->flows[fi], step))
            des_timeline_flow(t, slice, des_flow_key(c, p, step, fi), 1);
    }
    for (int x = i0; x < i1; x++) {
        int fi = s->in_flows[p][x];
        if (step < 0 || active(&ph->flows[fi], step))
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
    if (sim->plan->full_simulation || reencode || s->phases[p].steps < 2)
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

static double route_latency_s(const des_plan *pl, int src, int dst)
{
    int links[GCSIM_ROUTE_MAX_LINKS];
    double lat = 0;
    gcsim_topology_route(&pl->topology, src, dst, links, &lat);
    return lat;
}

/* A coalesced phase (see coalesced): one message per flow carrying all `steps` steps'
 * bytes. Run step by step, a flow takes its route latency plus its bytes at its fair
 * share in every step; run coalesced, it takes the latency once and all the bytes at the
 * same share, so the endpoint finishes when the last of its flows, each completed and then
 * charged steps - 1 more latencies, would have. */
static void des_coalesced(des_actor *a, const gcsim_schedule *s, int p, int c, sg_comm_t *comms)
{
    const des_plan *pl = a->sim->plan;
    const gcsim_phase *ph = &s->phases[p];
    const gcsim_bucket_bytes *bb = &pl->iteration.calls[c].bytes;
    int o0 = s->out_index[p][a->ep], o1 = s->out_index[p][a->ep + 1];
    int i0 = s->in_index[p][a->ep], i1 = s->in_index[p][a->ep + 1];
    static char sink_unused;
    void *sink = &sink_unused;
    des_peer_boxes spill;
    double t0 = simgrid_get_clock(), sent = 0, received = 0;
    /* On the heap: a shard's CPU receives from every GPU, more than a small stack holds. */
    double *extra = malloc(sizeof(double) * (size_t)(o1 - o0 + i1 - i0 + 1));
    if (!extra)
        xbt_die("des: out of memory");
    size_t n = 0;
    for (int x = o0; x < o1; x++) {
        const gcsim_flow *f = &ph->flows[s->out_flows[p][x]];
        double bytes = ph->steps * gcsim_flow_bytes(ph, f, 0, bb);
        sent += bytes;
        a->sim->transfers++;
        extra[n] = (ph->steps - 1) * route_latency_s(pl, f->src, f->dst);
        comms[n++] = sg_mailbox_put_async(boxes(a, f->dst, &spill)->out, a,
                                          bytes > 0 ? (long)ceil(bytes) : 0);
    }
    for (int x = i0; x < i1; x++) {
        const gcsim_flow *f = &ph->flows[s->in_flows[p][x]];
        extra[n] = (ph->steps - 1) * route_latency_s(pl, f->src, f->dst);
        received += ph->steps * gcsim_flow_bytes(ph, f, 0, bb);
        comms[n++] = sg_mailbox_get_async(boxes(a, f->src, &spill)->in, &sink);
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
    free(extra);
    double now = simgrid_get_clock();
    if (end > now)
        sg_actor_sleep_for(end - now);
    record_transfers(a, c, s, p, -1, t0, sent, received);
}

static void run_phase(des_actor *a, int c, const gcsim_schedule *s, int p, sg_comm_t *comms)
{
    const des_plan *pl = a->sim->plan;
    const gcsim_phase *ph = &s->phases[p];
    const gcsim_bucket_bytes *bb = &pl->iteration.calls[c].bytes;
    int o0 = s->out_index[p][a->ep], o1 = s->out_index[p][a->ep + 1];
    int i0 = s->in_index[p][a->ep], i1 = s->in_index[p][a->ep + 1];
    if (o0 == o1 && i0 == i1)
        return;
    bool reencode = gcsim_hop_codec_s(ph, bb, 1.0) > 0;
    if (coalesced(a->sim, c, s, p, reencode)) {
        des_coalesced(a, s, p, c, comms);
        return;
    }
    static char sink_unused;
    void *sink = &sink_unused;
    des_peer_boxes spill;
    for (int step = 0; step < ph->steps; step++) {
        size_t n = 0;
        double in_share = 0, t0 = simgrid_get_clock(), sent = 0, received = 0;
        for (int x = o0; x < o1; x++) {
            const gcsim_flow *f = &ph->flows[s->out_flows[p][x]];
            if (!active(f, step))
                continue;
            double bytes = gcsim_flow_bytes(ph, f, step, bb);
            sent += bytes;
            a->sim->transfers++;
            comms[n++] = sg_mailbox_put_async(boxes(a, f->dst, &spill)->out, a,
                                              bytes > 0 ? (long)ceil(bytes) : 0);
        }
        for (int x = i0; x < i1; x++) {
            const gcsim_flow *f = &ph->flows[s->in_flows[p][x]];
            if (!active(f, step))
                continue;
            in_share = fmax(in_share, f->share);
            received += gcsim_flow_bytes(ph, f, step, bb);
            comms[n++] = sg_mailbox_get_async(boxes(a, f->src, &spill)->in, &sink);
        }
        if (n)
            sg_comm_wait_all(comms, n);
        record_transfers(a, c, s, p, step, t0, sent, received);
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
    for (int p = 0; comms && p < s->n_phases; p++) {
        run_phase(a, c, s, p, comms);
        if (a->ep == 0)
            des_progress(c, p + 1, s->n_phases, pl->iteration.n_calls);
    }
    free(comms);
}
