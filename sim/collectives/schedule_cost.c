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
#include "hop_rule.h"
#include "slot_table.h"

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
        double bw = gcsim_flow_rate_Bps(t, links, n, load, fl->share);
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

/* What costing a phase's steps needs of its bucket, the same for all its intervals and
 * classes: derived once per phase and call instead of once per interval (issue 47: it was
 * a quarter of classes_time_s's own instructions on the trees' many short intervals). */
static bool hop_codec_charged(const gcsim_phase *ph, const gcsim_bucket_bytes *b);

typedef struct {
    gcsim_bucket_bytes tmp;  /* the uncompressed phase's bucket (gcsim_phase_bucket) */
    gcsim_hop_rule rule;     /* gcsim_hop_bytes of the phase's bucket, inline */
    bool fixed;              /* the bytes do not depend on the sums: fixed_k, or a flat rule
                                (uncompressed, dense summable or per-worker-scale payloads,
                                or nothing to compress) */
    bool flat_steps;         /* fixed, or dk = 0: a class costs the same in every step */
    double hop1;             /* the bytes when fixed: the rule applied once */
    bool codec;              /* gcsim_hop_codec_s charges this phase's reducing steps */
    double codec_s;          /* encode_s + decode_s of its bucket, when it does */
    bool pipelined;          /* a pipelined ring's phase without hop codec: its steps take
                                no latency, the phase its route_latency_s once (gcsim_phase) */
} phase_price;

static void phase_price_of(const gcsim_phase *ph, const gcsim_bucket_bytes *b, phase_price *pp)
{
    b = gcsim_phase_bucket(ph, b, &pp->tmp);
    gcsim_hop_rule_of(b, &pp->rule);
    pp->fixed = ph->fixed_k || pp->rule.growth == HOP_FLAT;
    pp->flat_steps = gcsim_hop_steps_alike(ph, &pp->rule);
    pp->hop1 = pp->fixed ? gcsim_hop_rule_bytes(&pp->rule, 1) : 0;
    /* gcsim_hop_codec_s's condition and sum, taken apart: share x (encode_s + decode_s) */
    pp->codec = hop_codec_charged(ph, b);
    pp->codec_s = b->encode_s + b->decode_s;
    pp->pipelined = ph->pipelined && !pp->codec;
}

/* A class's latency in each step: none in a pipelined ring's (the phase pays its route's
 * once, phase_latency_s). */
static inline double step_latency_s(const phase_price *pp, const flow_class *c)
{
    return pp->pipelined ? 0 : c->latency_s;
}

/* What a phase pays once: a pipelined ring's route latency. */
static inline double phase_latency_s(const gcsim_phase *ph, const phase_price *pp)
{
    return pp->pipelined ? ph->route_latency_s : 0;
}

/* total + x + ... (n times) one by one: gcsim_add_repeated, whose loop for a few additions
 * is taken here without the call (a pipeline's intervals are mostly one or two steps). */
static inline double add_repeated(double total, double x, long long n)
{
    if (n > 8)
        return gcsim_add_repeated(total, x, n);
    for (; n > 0; n--)
        total += x;
    return total;
}

/* Steps from_step..to_step of a phase, whose active flows fall into these classes. A
 * reducing step's receivers decode, sum and re-encode what they received (per-worker-scale
 * payloads): the largest share a flow of these steps brings, as each DES endpoint charges
 * the largest it received. exact: every class's window is [from_step, to_step]
 * (gcsim_phase.intervals_exact). Inline: the prepared phases' loop over intervals calls it
 * some 50 times a case, the call a tenth of its instructions (issue 47). */
static inline double classes_time_s(const gcsim_phase *ph, const phase_price *pp,
                                    const flow_class *cls, int nc, int from_step, int to_step,
                                    bool exact)
{
    double max_share = 0;
    bool every_step = true; /* every class active in every one of these steps */
    /* The bytes applied once when they do not depend on the sums, else again only when a
     * class's sum differs from the last one's (the same function of the same k: the same
     * bytes; the classes of a tree share few sums). */
    double hop = pp->hop1, last_k = NAN;
    /* When every step costs the same (a class's sums do not grow, or the bytes do not
     * depend on them, and every class is active in every step): the maximum that the loop
     * below takes in each step (its k at from_step, which is its k at every step here),
     * taken in the same pass as the classes' largest share; then the same additions one by
     * one (add_repeated: the loop's result in O(log) steps). */
    double step = 0;
    /* one loop per case, so that none tests per class what is the phase's (the same
     * operations in the same order in each) */
#define CLASS_SPAN(c)                                                                       \
    do {                                                                                    \
        max_share = gcsim_fmax_as_libm(max_share, cls[c].share);                            \
        every_step &= (cls[c].first <= from_step) & (cls[c].last >= to_step);               \
    } while (0)
#define CLASS_HOP(c)                                                                        \
    do {                                                                                    \
        double k = cls[c].k0 + ph->dk * (from_step - cls[c].first);                         \
        if (!(k == last_k))                                                                 \
            hop = gcsim_hop_rule_bytes(&pp->rule, k);                                       \
        last_k = k;                                                                         \
    } while (0)
#define CLASS_STEP(c)                                                                       \
    step = gcsim_fmax_as_libm(step, gcsim_flow_step_s(step_latency_s(pp, &cls[c]),          \
                                                      cls[c].share * hop,                   \
                                                      cls[c].Bps))
    if (pp->flat_steps && pp->fixed && exact && !pp->codec) {
        /* the trees' intervals of a payload without hop codec: neither the classes'
         * windows nor their largest share is needed */
        for (int c = 0; c < nc; c++)
            CLASS_STEP(c);
    } else if (pp->flat_steps && pp->fixed) {
        for (int c = 0; c < nc; c++) {
            CLASS_SPAN(c);
            CLASS_STEP(c);
        }
    } else if (pp->flat_steps && exact && !pp->codec) {
        for (int c = 0; c < nc; c++) {
            CLASS_HOP(c);
            CLASS_STEP(c);
        }
    } else if (pp->flat_steps) {
        for (int c = 0; c < nc; c++) {
            CLASS_SPAN(c);
            CLASS_HOP(c);
            CLASS_STEP(c);
        }
    } else {
        for (int c = 0; c < nc; c++)
            CLASS_SPAN(c);
    }
#undef CLASS_SPAN
#undef CLASS_HOP
#undef CLASS_STEP
    double reduce_codec_s = pp->codec ? max_share * pp->codec_s : 0;
    double total = 0;
    if (pp->flat_steps && every_step)
        return add_repeated(total, step + reduce_codec_s, (long long)to_step - from_step + 1);
    hop = pp->hop1;
    last_k = NAN;
    for (int s = from_step; s <= to_step; s++) {
        step = 0;
        for (int c = 0; c < nc; c++) {
            if (s < cls[c].first || s > cls[c].last)
                continue;
            if (!pp->fixed) {
                double k = cls[c].k0 + ph->dk * (s - cls[c].first);
                if (!(k == last_k))
                    hop = gcsim_hop_rule_bytes(&pp->rule, k);
                last_k = k;
            }
            double bytes = cls[c].share * hop;
            step = gcsim_fmax_as_libm(
                step, gcsim_flow_step_s(step_latency_s(pp, &cls[c]), bytes, cls[c].Bps));
        }
        total += step + reduce_codec_s;
    }
    return total;
}

/* One interval's classes of a prepared phase. */
static double interval_time_s(const gcsim_phase *ph, const phase_price *pp, int k)
{
    return classes_time_s(ph, pp, ph->classes + ph->interval_class[k],
                          ph->interval_class[k + 1] - ph->interval_class[k],
                          ph->interval_from[k], ph->interval_to[k], ph->intervals_exact);
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
    phase_price pp;
    phase_price_of(ph, b, &pp);
    double total = 0;
    for (int i = 0; i + 1 < nb; i++) {
        int from = bound[i], to = bound[i + 1] - 1;
        int nc = interval_classes(ph, t, &rc, from, to, load, cls);
        total += classes_time_s(ph, &pp, cls, nc, from, to, false);
    }
    routes_free(&rc);
    free(bound);
    return total + phase_latency_s(ph, &pp);
}

static double phase_time_s(const gcsim_phase *ph, const gcsim_topology *t,
                           const gcsim_bucket_bytes *b, double *load, flow_class *cls)
{
    int last = ph->steps - 1;
    if (ph->n_intervals == 0 && ph->n_classes == 0 && windowed(ph))
        return windowed_phase_time_s(ph, t, b, load, cls);
    phase_price pp;
    phase_price_of(ph, b, &pp);
    if (ph->n_intervals > 0) {
        double total = 0;
        for (int k = 0; k < ph->n_intervals; k++)
            total += interval_time_s(ph, &pp, k);
        return total + phase_latency_s(ph, &pp);
    }
    if (ph->n_classes > 0)
        return classes_time_s(ph, &pp, ph->classes, ph->n_classes, 0, last, false) +
               phase_latency_s(ph, &pp);
    int nc = interval_classes(ph, t, NULL, 0, last, load, cls);
    return classes_time_s(ph, &pp, cls, nc, 0, last, false) + phase_latency_s(ph, &pp);
}

/* Receivers that cannot add encoded payloads decode, sum and re-encode their share. The
 * TernGrad paper's pattern (fixed_k) prices the aggregate as one payload and no work to
 * form it, and gcsim keeps its model as published. */
static bool hop_codec_charged(const gcsim_phase *ph, const gcsim_bucket_bytes *b)
{
    return ph->reduce && !ph->fixed_k && !ph->uncompressed && b->compressed &&
           b->aggregation == PAYLOAD_PER_WORKER_SCALE;
}

double gcsim_hop_codec_s(const gcsim_phase *ph, const gcsim_bucket_bytes *b, double share)
{
    if (!hop_codec_charged(ph, b))
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

int gcsim_collective_decodes(gcsim_collective c, int gpus)
{
    return c == COLLECTIVE_ALLGATHER && gpus > 1 ? gpus - 1 : 1;
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
        phase_price pp;
        phase_price_of(ph, b, &pp);
        if (ph->n_intervals > 0) {
            double phase = 0;
            for (int k = 0; k < ph->n_intervals; k++)
                phase += interval_time_s(ph, &pp, k);
            total += phase + phase_latency_s(ph, &pp);
        } else {
            total += classes_time_s(ph, &pp, ph->classes, ph->n_classes, 0, ph->steps - 1,
                                    false) +
                     phase_latency_s(ph, &pp);
        }
    }
    return total;
}

/* ---- pipelined phases, interval after interval ----
 * Between two intervals only the flows that start or stop change the loads, and only on
 * their links; only the flows crossing those links change class. So the loads, each
 * flow's class and the multiset of classes of the active flows are carried from interval
 * to interval: O(flows + changes x flows per link) instead of O(intervals x flows). Every
 * number is computed as interval_classes computes it (a link's load summed over its active
 * flows in flow order, a flow's part the same minimum over its route), so the classes are
 * the same, bit for bit. */
typedef struct {
    flow_class c;
    int count;       /* active flows in this class */
    int live;        /* its place in the live list, -1 when count is 0 */
} class_entry;

typedef struct {
    class_entry *e;
    int n, cap;
    int *slot;       /* open addressing into e, -1 when free */
    size_t mask;
    int *live, n_live;
} class_bag;

static size_t bag_hash(const void *entries, int k)
{
    return class_hash(&((const class_bag *)entries)->e[k].c);
}

static int bag_rehash(class_bag *b, size_t cap)
{
    int *slot = gcsim_slot_table(cap, b->n, bag_hash, b);
    if (!slot)
        return -1;
    free(b->slot);
    b->slot = slot;
    b->mask = cap - 1;
    return 0;
}

/* The entry of class c, added with count 0 when new; -1 when out of memory. */
static int bag_entry(class_bag *b, const flow_class *c)
{
    size_t i = class_hash(c) & b->mask;
    while (b->slot[i] >= 0) {
        if (same_class(&b->e[b->slot[i]].c, c))
            return b->slot[i];
        i = (i + 1) & b->mask;
    }
    if (b->n == b->cap) {
        int cap = 2 * b->cap;
        class_entry *e = realloc(b->e, sizeof *e * (size_t)cap);
        int *live = realloc(b->live, sizeof(int) * (size_t)cap);
        if (e)
            b->e = e;
        if (live)
            b->live = live;
        if (!e || !live)
            return -1;
        b->cap = cap;
    }
    int k = b->n++;
    b->e[k] = (class_entry){*c, 0, -1};
    b->slot[i] = k;
    if (2 * (size_t)b->n > b->mask + 1 && bag_rehash(b, 2 * (b->mask + 1)))
        return -1;
    return k;
}

static void bag_add(class_bag *b, int k, int delta)
{
    class_entry *e = &b->e[k];
    if (e->count == 0 && delta > 0) {
        e->live = b->n_live;
        b->live[b->n_live++] = k;
    }
    e->count += delta;
    if (e->count == 0) {
        int last = b->live[--b->n_live];
        b->live[e->live] = last;
        b->e[last].live = e->live;
        e->live = -1;
    }
}

/* A flow's class from the current loads, as interval_classes computes it. */
static flow_class flow_class_of(const gcsim_phase *ph, const gcsim_topology *t,
                                const route_cache *rc, const double *load, int f)
{
    const gcsim_flow *fl = &ph->flows[f];
    const int *links = rc->links + (size_t)f * GCSIM_ROUTE_MAX_LINKS;
    double bw = gcsim_flow_rate_Bps(t, links, rc->count[f], load, fl->share);
    return (flow_class){rc->latency_s[f], bw, fl->share, ph->fixed_k ? 1 : fl->k0,
                        fl->first_step, fl->last_step};
}

/* Fills the phase's intervals (from, to, start of their classes) and classes as
 * prepare_windowed does; -1 when out of memory. */
static int sweep_windowed(gcsim_phase *ph, const gcsim_topology *t, const route_cache *rc,
                          const int *bound, int nb, double *load, int *from, int *to,
                          int *start, flow_class **all_out, int *total_out)
{
    int nf = ph->n_flows, nl = t->n_links, steps = ph->steps, ni = nb - 1, rc_ = -1;
    int *link_index = calloc((size_t)nl + 1, sizeof(int));
    int *ev_index = calloc((size_t)steps + 2, sizeof(int));
    int *cls_of = malloc(sizeof(int) * (size_t)(nf > 0 ? nf : 1));
    char *active = calloc((size_t)(nf > 0 ? nf : 1), 1);
    char *dirty_link = calloc((size_t)(nl > 0 ? nl : 1), 1);
    char *dirty_flow = calloc((size_t)(nf > 0 ? nf : 1), 1);
    int *link_flows = NULL, *events = NULL, *dl = NULL, *df = NULL;
    class_bag bag = {0};
    flow_class *all = NULL;
    int total = 0, cap = 0;
    if (!link_index || !ev_index || !cls_of || !active || !dirty_link || !dirty_flow)
        goto done;
    /* flows per link, in flow order */
    size_t n_pairs = 0;
    for (int f = 0; f < nf; f++)
        for (int k = 0; k < rc->count[f]; k++) {
            link_index[rc->links[(size_t)f * GCSIM_ROUTE_MAX_LINKS + k] + 1]++;
            n_pairs++;
        }
    for (int l = 0; l < nl; l++)
        link_index[l + 1] += link_index[l];
    link_flows = malloc(sizeof(int) * (n_pairs ? n_pairs : 1));
    /* flows that start or stop at each step (an event at step s: first == s or last + 1 == s) */
    for (int f = 0; f < nf; f++) {
        int a = ph->flows[f].first_step, z = ph->flows[f].last_step + 1;
        if (a >= 0 && a <= steps)
            ev_index[a + 1]++;
        if (z >= 0 && z <= steps && z != a)
            ev_index[z + 1]++;
    }
    for (int k = 0; k <= steps; k++)
        ev_index[k + 1] += ev_index[k];
    events = malloc(sizeof(int) * (size_t)(ev_index[steps + 1] > 0 ? ev_index[steps + 1] : 1));
    dl = malloc(sizeof(int) * (n_pairs ? n_pairs : 1));
    df = malloc(sizeof(int) * (size_t)(nf > 0 ? nf : 1));
    bag.cap = 64;
    bag.e = malloc(sizeof *bag.e * (size_t)bag.cap);
    bag.live = malloc(sizeof(int) * (size_t)bag.cap);
    if (!link_flows || !events || !dl || !df || !bag.e || !bag.live || bag_rehash(&bag, 128))
        goto done;
    {
        int *fill = calloc((size_t)nl + 1, sizeof(int));
        int *efill = calloc((size_t)steps + 2, sizeof(int));
        if (!fill || !efill) {
            free(fill);
            free(efill);
            goto done;
        }
        for (int f = 0; f < nf; f++) {
            for (int k = 0; k < rc->count[f]; k++) {
                int l = rc->links[(size_t)f * GCSIM_ROUTE_MAX_LINKS + k];
                link_flows[link_index[l] + fill[l]++] = f;
            }
            int a = ph->flows[f].first_step, z = ph->flows[f].last_step + 1;
            if (a >= 0 && a <= steps)
                events[ev_index[a] + efill[a]++] = f;
            if (z >= 0 && z <= steps && z != a)
                events[ev_index[z] + efill[z]++] = f;
        }
        free(fill);
        free(efill);
    }
    memset(load, 0, sizeof(double) * (size_t)nl);
    for (int f = 0; f < nf; f++)
        cls_of[f] = -1;
    for (int i = 0; i < ni; i++) {
        int s0 = bound[i], n_dl = 0, n_df = 0;
        /* the flows that start or stop here, and their links */
        /* (the first interval looks at every flow, wherever its window lies) */
        int e_from = i == 0 ? 0 : ev_index[s0], e_to = i == 0 ? nf : ev_index[s0 + 1];
        for (int e = e_from; e < e_to; e++) {
            int f = i == 0 ? e : events[e];
            bool now = active_in(&ph->flows[f], s0, s0);
            if (now == (bool)active[f])
                continue;
            active[f] = now;
            if (!dirty_flow[f]) {
                dirty_flow[f] = 1;
                df[n_df++] = f;
            }
            for (int k = 0; k < rc->count[f]; k++) {
                int l = rc->links[(size_t)f * GCSIM_ROUTE_MAX_LINKS + k];
                if (!dirty_link[l]) {
                    dirty_link[l] = 1;
                    dl[n_dl++] = l;
                }
            }
        }
        /* their links' loads, summed in flow order; the flows crossing them */
        for (int d = 0; d < n_dl; d++) {
            int l = dl[d];
            double x = 0;
            for (int j = link_index[l]; j < link_index[l + 1]; j++) {
                int f = link_flows[j];
                if (active[f])
                    x += ph->flows[f].share;
                if (active[f] && !dirty_flow[f]) {
                    dirty_flow[f] = 1;
                    df[n_df++] = f;
                }
            }
            load[l] = x;
            dirty_link[l] = 0;
        }
        /* their classes */
        for (int d = 0; d < n_df; d++) {
            int f = df[d];
            dirty_flow[f] = 0;
            if (cls_of[f] >= 0)
                bag_add(&bag, cls_of[f], -1);
            cls_of[f] = -1;
            if (!active[f])
                continue;
            flow_class c = flow_class_of(ph, t, rc, load, f);
            int k = bag_entry(&bag, &c);
            if (k < 0)
                goto done;
            bag_add(&bag, k, +1);
            cls_of[f] = k;
        }
        from[i] = bound[i];
        to[i] = bound[i + 1] - 1;
        start[i] = total;
        if (total + bag.n_live > cap) {
            cap = 2 * (total + bag.n_live) + 16;
            flow_class *grown = realloc(all, sizeof *all * (size_t)cap);
            if (!grown)
                goto done;
            all = grown;
        }
        for (int k = 0; k < bag.n_live; k++)
            all[total++] = bag.e[bag.live[k]].c;
    }
    start[ni] = total;
    rc_ = 0;
done:
    free(link_index);
    free(ev_index);
    free(cls_of);
    free(active);
    free(dirty_link);
    free(dirty_flow);
    free(link_flows);
    free(events);
    free(dl);
    free(df);
    free(bag.e);
    free(bag.slot);
    free(bag.live);
    if (rc_ != 0) {
        free(all);
        return -1;
    }
    *all_out = all;
    *total_out = total;
    return 0;
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
    int ni = nb - 1, total = 0;
    int *from = malloc(sizeof(int) * (size_t)(ni > 0 ? ni : 1));
    int *to = malloc(sizeof(int) * (size_t)(ni > 0 ? ni : 1));
    int *start = malloc(sizeof(int) * (size_t)(ni + 1));
    flow_class *all = NULL;
    int rc = from && to && start ? 0 : -1;
    if (rc == 0)
        rc = sweep_windowed(ph, t, &routes, bound, nb, load, from, to, start, &all, &total);
    free(bound);
    routes_free(&routes);
    if (rc) {
        free(from);
        free(to);
        free(start);
        return -1;
    }
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
