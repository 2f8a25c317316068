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

#include "des_collectives.h"
#include "des_timeline.h"

static sg_mailbox_t mbox(int dst, int src)
{
    char name[48];
    snprintf(name, sizeof name, "%d<%d", dst, src);
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

void des_codec(des_actor *a, double seconds, const char *name)
{
    if (seconds <= 0)
        return;
    double t0 = simgrid_get_clock();
    sg_actor_execute(seconds * sg_host_get_speed(sg_host_self()));
    a->codec_s += seconds;
    des_timeline_add(a->sim->timeline, a->ep, DES_TRACK_COMPRESS, name, t0, simgrid_get_clock());
}

static bool active(const gcsim_flow *f, int step)
{
    return step >= f->first_step && step <= f->last_step;
}

static void run_phase(des_actor *a, int b, const gcsim_schedule *s, int p, sg_comm_t *comms)
{
    const des_plan *pl = a->sim->plan;
    const gcsim_phase *ph = &s->phases[p];
    const gcsim_bucket_bytes *bb = &pl->iteration.buckets[b].bytes;
    int o0 = s->out_index[p][a->ep], o1 = s->out_index[p][a->ep + 1];
    int i0 = s->in_index[p][a->ep], i1 = s->in_index[p][a->ep + 1];
    if (o0 == o1 && i0 == i1)
        return;
    bool reencode = gcsim_hop_codec_s(ph, bb, 1.0) > 0;
    static char sink_unused;
    void *sink = &sink_unused;
    des_peer_boxes spill;
    for (int step = 0; step < ph->steps; step++) {
        size_t n = 0;
        double in_share = 0;
        for (int x = o0; x < o1; x++) {
            const gcsim_flow *f = &ph->flows[s->out_flows[p][x]];
            if (!active(f, step))
                continue;
            double bytes = gcsim_flow_bytes(ph, f, step, bb);
            a->sim->transfers++;
            comms[n++] = sg_mailbox_put_async(boxes(a, f->dst, &spill)->out, a,
                                              bytes > 0 ? (long)ceil(bytes) : 0);
        }
        for (int x = i0; x < i1; x++) {
            const gcsim_flow *f = &ph->flows[s->in_flows[p][x]];
            if (!active(f, step))
                continue;
            in_share = fmax(in_share, f->share);
            comms[n++] = sg_mailbox_get_async(boxes(a, f->src, &spill)->in, &sink);
        }
        if (n)
            sg_comm_wait_all(comms, n);
        if (reencode && in_share > 0)
            des_codec(a, gcsim_hop_codec_s(ph, bb, in_share), "decode-sum-encode");
    }
}

void des_exchange(des_actor *a, int b)
{
    const des_plan *pl = a->sim->plan;
    const gcsim_schedule *s = &pl->schedules[pl->bucket_schedule[b]];
    int most = 1;
    for (int p = 0; p < s->n_phases; p++) {
        int k = s->out_index[p][a->ep + 1] - s->out_index[p][a->ep] +
                s->in_index[p][a->ep + 1] - s->in_index[p][a->ep];
        if (k > most)
            most = k;
    }
    sg_comm_t *comms = malloc(sizeof *comms * (size_t)most);
    for (int p = 0; comms && p < s->n_phases; p++)
        run_phase(a, b, s, p, comms);
    free(comms);
    const gcsim_bucket_bytes *bb = &pl->iteration.buckets[b].bytes;
    if (a->ep < pl->gpus && gcsim_bucket_decode_s(bb, s) > 0) {
        char name[48];
        snprintf(name, sizeof name, "decode bucket %d", b);
        des_codec(a, gcsim_bucket_decode_s(bb, s), name);
    }
}
