/*
 * sim/collectives/schedule_cost.c: a schedule's time in closed form (collectives.h).
 *
 * For each step of a phase: every active flow gets the fair share of its most loaded link
 * (capacity over the number of active flows crossing it), so a flow of b bytes lasts
 * latency + b / share. A step lasts as long as its slowest active flow; phases and steps
 * add up. When all flows of a phase are active in every step (rings, halving-doubling,
 * parameter server), the loads are counted once and flows that cost the same (latency,
 * bandwidth, share, sums) are costed once: a ring of N GPUs has two or three such
 * classes, O(flows + steps x classes). Pipelined trees, whose flows start and stop at
 * different steps, are costed step by step, O(steps x flows).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collectives.h"

typedef gcsim_flow_class flow_class;

static int class_order(const void *a, const void *b)
{
    const flow_class *x = a, *y = b;
#define CMP(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
    CMP(first);
    CMP(last);
    CMP(k0);
    CMP(share);
    CMP(latency_s);
    CMP(Bps);
#undef CMP
    return 0;
}

static double windowed_phase_time_s(const gcsim_phase *ph, const gcsim_topology *t,
                                    const gcsim_bucket_bytes *b, double reduce_codec_s,
                                    int *load);

static bool windowed(const gcsim_phase *ph)
{
    for (int f = 0; f < ph->n_flows; f++)
        if (ph->flows[f].first_step != 0 || ph->flows[f].last_step != ph->steps - 1)
            return true;
    return false;
}

/* The classes of a phase whose flows are all active in every step; returns their count. */
static int phase_classes(const gcsim_phase *ph, const gcsim_topology *t, int *load,
                         flow_class *cls)
{
    int links[GCSIM_ROUTE_MAX_LINKS];
    double lat;
    memset(load, 0, sizeof(int) * (size_t)t->n_links);
    for (int f = 0; f < ph->n_flows; f++) {
        int n = gcsim_topology_route(t, ph->flows[f].src, ph->flows[f].dst, links, &lat);
        for (int k = 0; k < n; k++)
            load[links[k]]++;
    }
    for (int f = 0; f < ph->n_flows; f++) {
        const gcsim_flow *fl = &ph->flows[f];
        int n = gcsim_topology_route(t, fl->src, fl->dst, links, &lat);
        double bw = INFINITY;
        for (int k = 0; k < n; k++)
            bw = fmin(bw, t->capacity_Bps[links[k]] / load[links[k]]);
        cls[f] = (flow_class){lat, bw, fl->share, ph->fixed_k ? 1 : fl->k0, fl->first_step,
                              fl->last_step};
    }
    qsort(cls, (size_t)ph->n_flows, sizeof *cls, class_order);
    int nc = 0;
    for (int f = 0; f < ph->n_flows; f++)
        if (nc == 0 || class_order(&cls[nc - 1], &cls[f]) != 0)
            cls[nc++] = cls[f];
    return nc;
}

static double classes_time_s(const gcsim_phase *ph, const flow_class *cls, int nc,
                             const gcsim_bucket_bytes *b, double reduce_codec_s)
{
    double total = 0;
    for (int s = 0; s < ph->steps; s++) {
        double step = 0;
        for (int c = 0; c < nc; c++) {
            if (s < cls[c].first || s > cls[c].last)
                continue;
            double k = ph->fixed_k ? 1 : cls[c].k0 + ph->dk * (s - cls[c].first);
            double bytes = cls[c].share * gcsim_hop_bytes(b, k);
            step = fmax(step, cls[c].latency_s + bytes / cls[c].Bps);
        }
        total += step + reduce_codec_s;
    }
    return total;
}

static double phase_time_s(const gcsim_phase *ph, const gcsim_topology *t,
                           const gcsim_bucket_bytes *b, int *load, flow_class *cls)
{
    double max_share = 0;
    for (int f = 0; f < ph->n_flows; f++)
        max_share = fmax(max_share, ph->flows[f].share);
    double reduce_codec_s = gcsim_hop_codec_s(ph, b, max_share);
    if (ph->n_classes > 0)
        return classes_time_s(ph, ph->classes, ph->n_classes, b, reduce_codec_s);
    if (windowed(ph)) {
        memset(load, 0, sizeof(int) * (size_t)t->n_links);
        return windowed_phase_time_s(ph, t, b, reduce_codec_s, load);
    }
    int nc = phase_classes(ph, t, load, cls);
    return classes_time_s(ph, cls, nc, b, reduce_codec_s);
}

/* Flows active in different steps: loads and costs step by step. */
static double windowed_phase_time_s(const gcsim_phase *ph, const gcsim_topology *t,
                                    const gcsim_bucket_bytes *b, double reduce_codec_s,
                                    int *load)
{
    int n = ph->n_flows;
    int *route = malloc(sizeof(int) * (size_t)n * (GCSIM_ROUTE_MAX_LINKS + 1));
    double *lat = malloc(sizeof(double) * (size_t)n);
    if (!route || !lat) {
        free(route);
        free(lat);
        return NAN;
    }
    for (int f = 0; f < n; f++) {
        int *r = route + (size_t)f * (GCSIM_ROUTE_MAX_LINKS + 1);
        r[0] = gcsim_topology_route(t, ph->flows[f].src, ph->flows[f].dst, r + 1, &lat[f]);
    }
    double total = 0;
    for (int s = 0; s < ph->steps; s++) {
        for (int f = 0; f < n; f++) {
            const gcsim_flow *fl = &ph->flows[f];
            if (s < fl->first_step || s > fl->last_step)
                continue;
            int *r = route + (size_t)f * (GCSIM_ROUTE_MAX_LINKS + 1);
            for (int k = 1; k <= r[0]; k++)
                load[r[k]]++;
        }
        double step = 0;
        for (int f = 0; f < n; f++) {
            const gcsim_flow *fl = &ph->flows[f];
            if (s < fl->first_step || s > fl->last_step)
                continue;
            int *r = route + (size_t)f * (GCSIM_ROUTE_MAX_LINKS + 1);
            double bw = INFINITY;
            for (int k = 1; k <= r[0]; k++)
                bw = fmin(bw, t->capacity_Bps[r[k]] / load[r[k]]);
            step = fmax(step, lat[f] + gcsim_flow_bytes(ph, fl, s, b) / bw);
        }
        for (int f = 0; f < n; f++) {
            const gcsim_flow *fl = &ph->flows[f];
            if (s < fl->first_step || s > fl->last_step)
                continue;
            int *r = route + (size_t)f * (GCSIM_ROUTE_MAX_LINKS + 1);
            for (int k = 1; k <= r[0]; k++)
                load[r[k]] = 0;
        }
        total += step + reduce_codec_s;
    }
    free(route);
    free(lat);
    return total;
}

/* Receivers that cannot add encoded payloads decode, sum and re-encode their share. The
 * TernGrad paper's pattern (fixed_k) prices the aggregate as one payload and no work to
 * form it, and gcsim keeps its model as published. */
double gcsim_hop_codec_s(const gcsim_phase *ph, const gcsim_bucket_bytes *b, double share)
{
    if (!ph->reduce || ph->fixed_k || !b->compressed ||
        b->aggregation != PAYLOAD_PER_WORKER_SCALE)
        return 0;
    return share * (b->encode_s + b->decode_s);
}

double gcsim_bucket_encode_s(const gcsim_bucket_bytes *b)
{
    return b->compressed ? b->encode_s : 0;
}

double gcsim_bucket_decode_s(const gcsim_bucket_bytes *b, const gcsim_schedule *s)
{
    return b->compressed ? s->decodes * b->decode_s : 0;
}

double gcsim_schedule_time_s(const gcsim_schedule *s, const gcsim_topology *t,
                             const gcsim_bucket_bytes *b)
{
    int max_flows = 1;
    for (int p = 0; p < s->n_phases; p++)
        if (s->phases[p].n_flows > max_flows)
            max_flows = s->phases[p].n_flows;
    int *load = malloc(sizeof(int) * (size_t)t->n_links);
    flow_class *cls = malloc(sizeof *cls * (size_t)max_flows);
    if (!load || !cls) {
        free(load);
        free(cls);
        return NAN;
    }
    double total = 0;
    for (int p = 0; p < s->n_phases; p++)
        total += phase_time_s(&s->phases[p], t, b, load, cls);
    free(load);
    free(cls);
    return total;
}

int gcsim_schedule_prepare(gcsim_schedule *s, const gcsim_topology *t)
{
    int *load = malloc(sizeof(int) * (size_t)t->n_links);
    if (!load)
        return -1;
    int rc = 0;
    for (int p = 0; p < s->n_phases && rc == 0; p++) {
        gcsim_phase *ph = &s->phases[p];
        if (ph->n_classes > 0 || ph->n_flows == 0 || windowed(ph))
            continue;
        flow_class *cls = malloc(sizeof *cls * (size_t)ph->n_flows);
        if (!cls) {
            rc = -1;
            break;
        }
        int nc = phase_classes(ph, t, load, cls);
        flow_class *fit = realloc(cls, sizeof *cls * (size_t)nc);
        ph->classes = fit ? fit : cls;
        ph->n_classes = nc;
    }
    free(load);
    return rc;
}
