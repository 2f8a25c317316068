/*
 * sim/collectives/schedule_cost.c: a schedule's time in closed form (collectives.h).
 *
 * For each step of a phase: every active flow gets its part of its most loaded link, in
 * proportion to its share of the bucket among the active flows crossing it (capacity x
 * share / the shares' sum; with equal shares, the fair share capacity / flows), so a flow
 * of b bytes lasts latency + b / part: a link carrying unequal flows is busy for as long as
 * their bytes take together, as under max-min sharing, where a small flow's leftover goes
 * to the large one. A step lasts as long as its slowest active flow; phases and steps
 * add up. When all flows of a phase are active in every step (rings, halving-doubling,
 * parameter server), the loads are counted once and flows that cost the same (latency,
 * bandwidth, share, sums) are costed once: a ring of N GPUs has two or three such
 * classes, O(flows + steps x classes). Where flows start and stop at different steps
 * (pipelined trees, rings over groups of unequal size), the active set is constant between
 * two consecutive starts or stops, so each such interval is costed the same way:
 * O(intervals x flows + steps x classes), each step exactly as if costed alone.
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

static bool windowed(const gcsim_phase *ph)
{
    for (int f = 0; f < ph->n_flows; f++)
        if (ph->flows[f].first_step != 0 || ph->flows[f].last_step != ph->steps - 1)
            return true;
    return false;
}

/* Classes kept by a linear scan before falling back to sorting: rings and
 * halving-doubling have two or three, so the scan beats an O(F log F) sort of all flows. */
enum { SCAN_CLASSES_MAX = 32 };

static bool same_class(const flow_class *x, const flow_class *y)
{
    return x->first == y->first && x->last == y->last && x->k0 == y->k0 &&
           x->share == y->share && x->latency_s == y->latency_s && x->Bps == y->Bps;
}

static bool active_in(const gcsim_flow *f, int from_step, int to_step)
{
    return f->first_step <= from_step && f->last_step >= to_step;
}

/* The classes of the flows active in every step from from_step to to_step (no flow starts
 * or stops inside that range); returns their count. */
static int interval_classes(const gcsim_phase *ph, const gcsim_topology *t, int from_step,
                            int to_step, double *load, flow_class *cls)
{
    int links[GCSIM_ROUTE_MAX_LINKS];
    double lat;
    memset(load, 0, sizeof(double) * (size_t)t->n_links);
    for (int f = 0; f < ph->n_flows; f++) {
        if (!active_in(&ph->flows[f], from_step, to_step))
            continue;
        int n = gcsim_topology_route(t, ph->flows[f].src, ph->flows[f].dst, links, &lat);
        for (int k = 0; k < n; k++)
            load[links[k]] += ph->flows[f].share;
    }
    int nc = 0;
    bool overflow = false;
    for (int f = 0; f < ph->n_flows; f++) {
        const gcsim_flow *fl = &ph->flows[f];
        if (!active_in(fl, from_step, to_step))
            continue;
        int n = gcsim_topology_route(t, fl->src, fl->dst, links, &lat);
        double bw = INFINITY;
        for (int k = 0; k < n; k++)
            bw = fmin(bw, t->capacity_Bps[links[k]] * (fl->share / load[links[k]]));
        flow_class c = {lat, bw, fl->share, ph->fixed_k ? 1 : fl->k0, fl->first_step,
                        fl->last_step};
        bool known = false;
        for (int i = nc - 1; !overflow && i >= 0 && !known; i--)
            known = same_class(&cls[i], &c);
        if (known)
            continue;
        cls[nc++] = c;
        overflow = overflow || nc > SCAN_CLASSES_MAX;
    }
    if (!overflow)
        return nc;
    qsort(cls, (size_t)nc, sizeof *cls, class_order);
    int distinct = 0;
    for (int i = 0; i < nc; i++)
        if (distinct == 0 || class_order(&cls[distinct - 1], &cls[i]) != 0)
            cls[distinct++] = cls[i];
    return distinct;
}

/* Steps from_step..to_step of a phase, whose active flows fall into these classes. */
static double classes_time_s(const gcsim_phase *ph, const flow_class *cls, int nc,
                             int from_step, int to_step, const gcsim_bucket_bytes *b,
                             double reduce_codec_s)
{
    double total = 0;
    for (int s = from_step; s <= to_step; s++) {
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

static int int_order(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Flows that start and stop at different steps (pipelined trees, rings over groups of
 * unequal size): the active set changes only where some flow starts or stops, so the
 * steps between two such boundaries share their loads and classes. O(intervals x flows
 * + steps x classes), each step costed exactly as if alone. */
static double windowed_phase_time_s(const gcsim_phase *ph, const gcsim_topology *t,
                                    const gcsim_bucket_bytes *b, double reduce_codec_s,
                                    double *load, flow_class *cls)
{
    int n = ph->n_flows, nb = 0;
    int *bound = malloc(sizeof(int) * (2 * (size_t)n + 2));
    if (!bound)
        return NAN;
    bound[nb++] = 0;
    bound[nb++] = ph->steps;
    for (int f = 0; f < n; f++) {
        bound[nb++] = ph->flows[f].first_step;
        bound[nb++] = ph->flows[f].last_step + 1;
    }
    qsort(bound, (size_t)nb, sizeof *bound, int_order);
    double total = 0;
    for (int i = 0; i + 1 < nb; i++) {
        int from = bound[i], to = bound[i + 1] - 1;
        if (from > to || from < 0 || from >= ph->steps)
            continue;
        if (to >= ph->steps)
            to = ph->steps - 1;
        int nc = interval_classes(ph, t, from, to, load, cls);
        total += classes_time_s(ph, cls, nc, from, to, b, reduce_codec_s);
    }
    free(bound);
    return total;
}

static double phase_time_s(const gcsim_phase *ph, const gcsim_topology *t,
                           const gcsim_bucket_bytes *b, double *load, flow_class *cls)
{
    double max_share = 0;
    for (int f = 0; f < ph->n_flows; f++)
        max_share = fmax(max_share, ph->flows[f].share);
    double reduce_codec_s = gcsim_hop_codec_s(ph, b, max_share);
    int last = ph->steps - 1;
    if (ph->n_classes > 0)
        return classes_time_s(ph, ph->classes, ph->n_classes, 0, last, b, reduce_codec_s);
    if (windowed(ph))
        return windowed_phase_time_s(ph, t, b, reduce_codec_s, load, cls);
    int nc = interval_classes(ph, t, 0, last, load, cls);
    return classes_time_s(ph, cls, nc, 0, last, b, reduce_codec_s);
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
    double *load = malloc(sizeof(double) * (size_t)t->n_links);
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
    double *load = malloc(sizeof(double) * (size_t)t->n_links);
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
        int nc = interval_classes(ph, t, 0, ph->steps - 1, load, cls);
        flow_class *fit = realloc(cls, sizeof *cls * (size_t)nc);
        ph->classes = fit ? fit : cls;
        ph->n_classes = nc;
    }
    free(load);
    return rc;
}
