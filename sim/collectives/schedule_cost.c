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
#include <stdint.h>
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

/* Every flow's route, walked once for a phase whose intervals each need them all. */
typedef struct {
    int *count;      /* links of flow f */
    int *links;      /* flow f's at links[f * GCSIM_ROUTE_MAX_LINKS ...] */
    double *latency_s;
} route_cache;

static int routes_of(const gcsim_phase *ph, const gcsim_topology *t, route_cache *rc)
{
    size_t n = (size_t)(ph->n_flows > 0 ? ph->n_flows : 1);
    rc->count = malloc(sizeof(int) * n);
    rc->links = malloc(sizeof(int) * n * GCSIM_ROUTE_MAX_LINKS);
    rc->latency_s = malloc(sizeof(double) * n);
    if (!rc->count || !rc->links || !rc->latency_s)
        return -1;
    for (int f = 0; f < ph->n_flows; f++)
        rc->count[f] = gcsim_topology_route(t, ph->flows[f].src, ph->flows[f].dst,
                                            rc->links + (size_t)f * GCSIM_ROUTE_MAX_LINKS,
                                            &rc->latency_s[f]);
    return 0;
}

static void routes_free(route_cache *rc)
{
    free(rc->count);
    free(rc->links);
    free(rc->latency_s);
}

/* The route of flow f: from the cache when there is one (*links points into it), else
 * walked into buf. */
static int route(const gcsim_phase *ph, const gcsim_topology *t, const route_cache *rc, int f,
                 int *buf, const int **links, double *lat)
{
    if (!rc) {
        *links = buf;
        return gcsim_topology_route(t, ph->flows[f].src, ph->flows[f].dst, buf, lat);
    }
    *links = rc->links + (size_t)f * GCSIM_ROUTE_MAX_LINKS;
    *lat = rc->latency_s[f];
    return rc->count[f];
}

/* Open addressing over the classes found so far, once a phase has more than
 * SCAN_CLASSES_MAX of them (pipelined trees: hundreds per interval), where sorting every
 * active flow's class was a sixth of a sweep. The classes' order never matters: a step
 * lasts as long as the slowest, a maximum. */
typedef struct {
    int *slot;   /* index into the classes, -1 when free */
    size_t mask;
} class_set;

static uint64_t bits_of(double x)
{
    uint64_t u;
    x += 0.0; /* -0 and +0 are the same class */
    memcpy(&u, &x, sizeof u);
    return u;
}

static size_t class_hash(const flow_class *c)
{
    uint64_t h = 1469598103934665603ull;
    const uint64_t v[6] = {bits_of(c->latency_s), bits_of(c->Bps), bits_of(c->share),
                           bits_of(c->k0), (uint64_t)(uint32_t)c->first,
                           (uint64_t)(uint32_t)c->last};
    for (int i = 0; i < 6; i++) {
        h ^= v[i];
        h *= 1099511628211ull;
        h ^= h >> 31;
    }
    return (size_t)h;
}

/* Whether c is new (then it is added at index nc). */
static bool class_set_add(class_set *set, const flow_class *cls, int nc, const flow_class *c)
{
    size_t i = class_hash(c) & set->mask;
    while (set->slot[i] >= 0) {
        if (same_class(&cls[set->slot[i]], c))
            return false;
        i = (i + 1) & set->mask;
    }
    set->slot[i] = nc;
    return true;
}

/* A set for up to n classes holding cls[0 .. nc); -1 when out of memory. */
static int class_set_init(class_set *set, int n, const flow_class *cls, int nc)
{
    size_t cap = 64;
    while (cap < 2 * (size_t)n)
        cap *= 2;
    set->slot = malloc(sizeof(int) * cap);
    if (!set->slot)
        return -1;
    memset(set->slot, 0xff, sizeof(int) * cap);
    set->mask = cap - 1;
    for (int i = 0; i < nc; i++)
        class_set_add(set, cls, i, &cls[i]);
    return 0;
}

/* The classes of the flows active in every step from from_step to to_step (no flow starts
 * or stops inside that range); returns their count. rc: the phase's routes, or NULL. */
static int interval_classes(const gcsim_phase *ph, const gcsim_topology *t,
                            const route_cache *rc, int from_step, int to_step, double *load,
                            flow_class *cls)
{
    int buf[GCSIM_ROUTE_MAX_LINKS];
    const int *links;
    double lat;
    memset(load, 0, sizeof(double) * (size_t)t->n_links);
    for (int f = 0; f < ph->n_flows; f++) {
        if (!active_in(&ph->flows[f], from_step, to_step))
            continue;
        int n = route(ph, t, rc, f, buf, &links, &lat);
        for (int k = 0; k < n; k++)
            load[links[k]] += ph->flows[f].share;
    }
    int nc = 0;
    bool overflow = false, hashed = false;
    class_set set = {0};
    for (int f = 0; f < ph->n_flows; f++) {
        const gcsim_flow *fl = &ph->flows[f];
        if (!active_in(fl, from_step, to_step))
            continue;
        int n = route(ph, t, rc, f, buf, &links, &lat);
        double bw = INFINITY;
        for (int k = 0; k < n; k++) {
            double part = t->capacity_Bps[links[k]] * (fl->share / load[links[k]]);
            bw = fmin(bw, part);
        }
        flow_class c = {lat, bw, fl->share, ph->fixed_k ? 1 : fl->k0, fl->first_step,
                        fl->last_step};
        if (hashed) {
            if (class_set_add(&set, cls, nc, &c))
                cls[nc++] = c;
            continue;
        }
        bool known = false;
        for (int i = nc - 1; !overflow && i >= 0 && !known; i--)
            known = same_class(&cls[i], &c);
        if (known)
            continue;
        cls[nc++] = c;
        if (!overflow && nc > SCAN_CLASSES_MAX) {
            overflow = true;
            hashed = class_set_init(&set, ph->n_flows, cls, nc) == 0;
        }
    }
    free(set.slot);
    if (!overflow || hashed)
        return nc;
    /* No memory for the set: sort and drop repeats. */
    qsort(cls, (size_t)nc, sizeof *cls, class_order);
    int distinct = 0;
    for (int i = 0; i < nc; i++)
        if (distinct == 0 || class_order(&cls[distinct - 1], &cls[i]) != 0)
            cls[distinct++] = cls[i];
    return distinct;
}

/* Steps from_step..to_step of a phase, whose active flows fall into these classes. A
 * reducing step's receivers decode, sum and re-encode what they received (per-worker-scale
 * payloads): the largest share a flow of these steps brings, as each DES endpoint charges
 * the largest it received. */
static double classes_time_s(const gcsim_phase *ph, const flow_class *cls, int nc,
                             int from_step, int to_step, const gcsim_bucket_bytes *b)
{
    double max_share = 0;
    for (int c = 0; c < nc; c++)
        max_share = fmax(max_share, cls[c].share);
    double reduce_codec_s = gcsim_hop_codec_s(ph, b, max_share);
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

/* The boundaries between the intervals of steps with the same active flows: 0, the
 * phase's end, and every flow's first step and the step after its last, sorted and without
 * repeats, inside [0, steps]. Returns their count, or -1 when out of memory. */
static int interval_bounds(const gcsim_phase *ph, int **out)
{
    /* Marks over the steps: O(flows + steps), where sorting every flow's two ends was a
     * tenth of a sweep of pipelined trees. */
    int steps = ph->steps > 0 ? ph->steps : 0;
    char *mark = calloc((size_t)steps + 1, 1);
    if (!mark)
        return -1;
    mark[0] = mark[steps] = 1;
    for (int f = 0; f < ph->n_flows; f++) {
        int a = ph->flows[f].first_step, b = ph->flows[f].last_step + 1;
        if (a >= 0 && a <= steps)
            mark[a] = 1;
        if (b >= 0 && b <= steps)
            mark[b] = 1;
    }
    int nb = 0;
    for (int k = 0; k <= steps; k++)
        nb += mark[k];
    int *bound = malloc(sizeof(int) * (size_t)nb);
    if (!bound) {
        free(mark);
        return -1;
    }
    for (int k = 0, w = 0; k <= steps; k++)
        if (mark[k])
            bound[w++] = k;
    free(mark);
    *out = bound;
    return nb;
}

/* Flows that start and stop at different steps (pipelined trees, rings over groups of
 * unequal size): the active set changes only where some flow starts or stops, so the
 * steps between two such boundaries share their loads and classes. O(intervals x flows
 * + steps x classes), each step costed exactly as if alone. */
static double windowed_phase_time_s(const gcsim_phase *ph, const gcsim_topology *t,
                                    const gcsim_bucket_bytes *b, double *load,
                                    flow_class *cls)
{
    route_cache rc;
    int *bound, nb = interval_bounds(ph, &bound);
    if (nb < 0)
        return NAN;
    if (routes_of(ph, t, &rc)) {
        routes_free(&rc);
        free(bound);
        return NAN;
    }
    double total = 0;
    for (int i = 0; i + 1 < nb; i++) {
        int from = bound[i], to = bound[i + 1] - 1;
        int nc = interval_classes(ph, t, &rc, from, to, load, cls);
        total += classes_time_s(ph, cls, nc, from, to, b);
    }
    routes_free(&rc);
    free(bound);
    return total;
}

static double phase_time_s(const gcsim_phase *ph, const gcsim_topology *t,
                           const gcsim_bucket_bytes *b, double *load, flow_class *cls)
{
    int last = ph->steps - 1;
    if (ph->n_intervals > 0) {
        double total = 0;
        for (int k = 0; k < ph->n_intervals; k++)
            total += classes_time_s(ph, ph->classes + ph->interval_class[k],
                                    ph->interval_class[k + 1] - ph->interval_class[k],
                                    ph->interval_from[k], ph->interval_to[k], b);
        return total;
    }
    if (ph->n_classes > 0)
        return classes_time_s(ph, ph->classes, ph->n_classes, 0, last, b);
    if (windowed(ph))
        return windowed_phase_time_s(ph, t, b, load, cls);
    int nc = interval_classes(ph, t, NULL, 0, last, load, cls);
    return classes_time_s(ph, cls, nc, 0, last, b);
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

/* A prepared schedule's time without its flows or topology: every phase with flows has its
 * classes (gcsim_schedule_prepare), and a phase without any costs its steps' codec alone,
 * exactly as phase_time_s does when interval_classes finds no class. */
double gcsim_schedule_prepared_time_s(const gcsim_schedule *s, const gcsim_bucket_bytes *b)
{
    double total = 0;
    for (int p = 0; p < s->n_phases; p++) {
        const gcsim_phase *ph = &s->phases[p];
        if (ph->n_intervals > 0) {
            double phase = 0;
            for (int k = 0; k < ph->n_intervals; k++)
                phase += classes_time_s(ph, ph->classes + ph->interval_class[k],
                                        ph->interval_class[k + 1] - ph->interval_class[k],
                                        ph->interval_from[k], ph->interval_to[k], b);
            total += phase;
        } else {
            total += classes_time_s(ph, ph->classes, ph->n_classes, 0, ph->steps - 1, b);
        }
    }
    return total;
}

/* A pipelined phase's intervals and their classes, kept in the phase. */
static int prepare_windowed(gcsim_phase *ph, const gcsim_topology *t, double *load)
{
    route_cache routes;
    int *bound, nb = interval_bounds(ph, &bound);
    if (nb < 0)
        return -1;
    if (routes_of(ph, t, &routes)) {
        routes_free(&routes);
        free(bound);
        return -1;
    }
    int ni = nb - 1, total = 0, cap = ph->n_flows;
    int *from = malloc(sizeof(int) * (size_t)(ni > 0 ? ni : 1));
    int *to = malloc(sizeof(int) * (size_t)(ni > 0 ? ni : 1));
    int *start = malloc(sizeof(int) * (size_t)(ni + 1));
    flow_class *all = malloc(sizeof *all * (size_t)(cap > 0 ? cap : 1));
    flow_class *cls = malloc(sizeof *cls * (size_t)(ph->n_flows > 0 ? ph->n_flows : 1));
    int rc = from && to && start && all && cls ? 0 : -1;
    for (int i = 0; i < ni && rc == 0; i++) {
        from[i] = bound[i];
        to[i] = bound[i + 1] - 1;
        start[i] = total;
        int nc = interval_classes(ph, t, &routes, from[i], to[i], load, cls);
        if (total + nc > cap) {
            cap = 2 * (total + nc);
            flow_class *grown = realloc(all, sizeof *all * (size_t)cap);
            if (!grown) {
                rc = -1;
                break;
            }
            all = grown;
        }
        memcpy(all + total, cls, sizeof *cls * (size_t)nc);
        total += nc;
    }
    free(bound);
    free(cls);
    routes_free(&routes);
    if (rc) {
        free(from);
        free(to);
        free(start);
        free(all);
        return -1;
    }
    start[ni] = total;
    flow_class *fit = realloc(all, sizeof *all * (size_t)(total > 0 ? total : 1));
    ph->classes = fit ? fit : all;
    ph->n_classes = total;
    ph->interval_from = from;
    ph->interval_to = to;
    ph->interval_class = start;
    ph->n_intervals = ni;
    return 0;
}

int gcsim_schedule_prepare(gcsim_schedule *s, const gcsim_topology *t)
{
    double *load = malloc(sizeof(double) * (size_t)t->n_links);
    if (!load)
        return -1;
    int rc = 0;
    for (int p = 0; p < s->n_phases && rc == 0; p++) {
        gcsim_phase *ph = &s->phases[p];
        if (ph->n_classes > 0 || ph->n_intervals > 0 || ph->n_flows == 0)
            continue;
        if (windowed(ph)) {
            rc = prepare_windowed(ph, t, load);
            continue;
        }
        flow_class *cls = malloc(sizeof *cls * (size_t)ph->n_flows);
        if (!cls) {
            rc = -1;
            break;
        }
        int nc = interval_classes(ph, t, NULL, 0, ph->steps - 1, load, cls);
        flow_class *fit = realloc(cls, sizeof *cls * (size_t)nc);
        ph->classes = fit ? fit : cls;
        ph->n_classes = nc;
    }
    free(load);
    return rc;
}
