/*
 * sim/des/des_maxmin.c: SimGrid's CM02 max-min sharing of flows that start together, as an
 * event loop over one phase's or block's flows (des_maxmin.h has the model and its
 * sources).
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "des_maxmin.h"

/* SimGrid 3.32's defaults: maxmin/precision and precision/timing (surf/precision). */
#define MM_PRECISION 1e-5
#define SURF_PRECISION 1e-9

/* SimGrid's double_update: subtract, and snap what falls under the precision to 0. */
static void double_update(double *v, double by, double precision)
{
    *v -= by;
    if (*v < precision)
        *v = 0.0;
}

typedef struct {
    /* per flow */
    double *remains, *latency_left, *penalty, *rate, *finish;
    bool *done, *fixed;
    /* per link */
    double *remaining, *usage;
    int *light, *light_pos;    /* links still to saturate, and their positions (-1: none) */
    int *link_first, *link_flows; /* the flows of each link (CSR) */
    int *saturated;
} mm_state;

static void light_remove(mm_state *s, int *n_light, int l)
{
    int at = s->light_pos[l];
    if (at < 0)
        return;
    int last = s->light[--*n_light];
    s->light[at] = last;
    s->light_pos[last] = at;
    s->light_pos[l] = -1;
}

/* One max-min solve: the rate of every flow past its latency (penalty > 0), by progressive
 * filling (MaxMin::maxmin_solve, no bounds: TCP-gamma 0 leaves the flows unbounded). */
static void solve(const des_mm_problem *p, mm_state *s)
{
    int n_light = 0;
    for (int l = 0; l < p->n_links; l++) {
        s->usage[l] = 0;
        s->remaining[l] = p->capacity_Bps[l];
        s->light_pos[l] = -1;
    }
    for (int i = 0; i < p->n_flows; i++) {
        s->rate[i] = 0;
        s->fixed[i] = true;
        if (s->done[i] || !(s->penalty[i] > 0))
            continue;
        s->fixed[i] = false;
        const des_mm_flow *f = &p->flows[i];
        for (int k = 0; k < f->n_links; k++)
            s->usage[p->links[f->first_link + k]] += 1.0 / s->penalty[i];
    }
    for (int l = 0; l < p->n_links; l++)
        if (s->usage[l] > 0 && s->remaining[l] > p->capacity_Bps[l] * MM_PRECISION) {
            s->light_pos[l] = n_light;
            s->light[n_light++] = l;
        }
    while (n_light > 0) {
        double min_usage = -1;
        int n_sat = 0;
        for (int x = 0; x < n_light; x++) {
            int l = s->light[x];
            double r = s->remaining[l] / s->usage[l];
            if (min_usage < 0 || r < min_usage) {
                min_usage = r;
                n_sat = 0;
                s->saturated[n_sat++] = l;
            } else if (r == min_usage) {
                s->saturated[n_sat++] = l;
            }
        }
        for (int y = 0; y < n_sat; y++) {
            int l = s->saturated[y];
            for (int z = s->link_first[l]; z < s->link_first[l + 1]; z++) {
                int i = s->link_flows[z];
                if (s->fixed[i])
                    continue;
                s->fixed[i] = true;
                double value = min_usage / s->penalty[i];
                s->rate[i] = value;
                const des_mm_flow *f = &p->flows[i];
                for (int k = 0; k < f->n_links; k++) {
                    int m = p->links[f->first_link + k];
                    double_update(&s->remaining[m], value, p->capacity_Bps[m] * MM_PRECISION);
                    double_update(&s->usage[m], 1.0 / s->penalty[i], MM_PRECISION);
                    if (!(s->usage[m] > MM_PRECISION) ||
                        !(s->remaining[m] > p->capacity_Bps[m] * MM_PRECISION))
                        light_remove(s, &n_light, m);
                }
            }
            light_remove(s, &n_light, l);
        }
    }
}

/* The event loop over all of p's flows as one system: each flow's end in finish_s (not
 * NULL), the events in *events. Returns 0, or -1 (out of memory, or a flow that cannot
 * progress). */
/* Event instants of the parts solved so far (mm_note), for the check in des_mm_solve. */
static double *ev_at;
static size_t ev_n, ev_cap;

static void mm_note(double t)
{
    if (ev_n == ev_cap) {
        size_t c = ev_cap ? 2 * ev_cap : 1024;
        double *q = realloc(ev_at, c * sizeof *q);
        if (!q)
            return; /* the check then sees fewer instants: des_mm_solve falls back */
        ev_at = q;
        ev_cap = c;
    }
    ev_at[ev_n++] = t;
}

static int solve_system(const des_mm_problem *p, double t0_s, double *finish_s, long *events)
{
    int n = p->n_flows, L = p->n_links;
    mm_state s;
    size_t nf = (size_t)(n > 0 ? n : 1), nl = (size_t)(L > 0 ? L : 1);
    s.remains = malloc(nf * sizeof(double));
    s.latency_left = malloc(nf * sizeof(double));
    s.penalty = malloc(nf * sizeof(double));
    s.rate = malloc(nf * sizeof(double));
    s.finish = malloc(nf * sizeof(double));
    s.done = malloc(nf * sizeof(bool));
    s.fixed = malloc(nf * sizeof(bool));
    s.remaining = malloc(nl * sizeof(double));
    s.usage = malloc(nl * sizeof(double));
    s.light = malloc(nl * sizeof(int));
    s.light_pos = malloc(nl * sizeof(int));
    s.saturated = malloc(nl * sizeof(int));
    s.link_first = calloc(nl + 1, sizeof(int));
    long total = 0;
    for (int i = 0; i < n; i++)
        total += p->flows[i].n_links;
    s.link_flows = malloc((size_t)(total > 0 ? total : 1) * sizeof(int));
    int rc = -1;
    if (!s.remains || !s.latency_left || !s.penalty || !s.rate || !s.finish || !s.done ||
        !s.fixed || !s.remaining || !s.usage || !s.light || !s.light_pos || !s.saturated ||
        !s.link_first || !s.link_flows)
        goto out;
    /* the flows of each link, in flow order */
    for (int i = 0; i < n; i++)
        for (int k = 0; k < p->flows[i].n_links; k++)
            s.link_first[p->links[p->flows[i].first_link + k] + 1]++;
    for (int l = 0; l < L; l++)
        s.link_first[l + 1] += s.link_first[l];
    {
        int *fill = s.light; /* scratch: next free slot per link */
        for (int l = 0; l < L; l++)
            fill[l] = s.link_first[l];
        for (int i = 0; i < n; i++)
            for (int k = 0; k < p->flows[i].n_links; k++) {
                int l = p->links[p->flows[i].first_link + k];
                s.link_flows[fill[l]++] = i;
            }
    }
    int left = 0;
    for (int i = 0; i < n; i++) {
        const des_mm_flow *f = &p->flows[i];
        s.remains[i] = f->bytes;
        s.latency_left[i] = f->latency_s;
        /* CM02: penalty 0 while the latency is paid, then the latency; 1 without any */
        s.penalty[i] = f->latency_s > 0 ? 0.0 : 1.0;
        s.done[i] = false;
        s.finish[i] = t0_s;
        left++;
    }
    double now = t0_s;
    long n_events = 0;
    while (left > 0) {
        solve(p, &s);
        n_events++;
        double delta = -1;
        for (int i = 0; i < n; i++) {
            if (s.done[i])
                continue;
            if (s.rate[i] > 0) {
                double v = s.remains[i] > 0 ? s.remains[i] / s.rate[i] : 0.0;
                if (delta < 0 || v < delta)
                    delta = v;
            }
        }
        for (int i = 0; i < n; i++)
            if (!s.done[i] && s.latency_left[i] > 0)
                delta = delta < 0 ? s.latency_left[i]
                                  : (s.latency_left[i] < delta ? s.latency_left[i] : delta);
        if (delta < 0) /* nothing can progress: a flow without links */
            goto out;
        now += delta;
        mm_note(now);
        for (int i = 0; i < n; i++) {
            if (s.done[i])
                continue;
            if (s.latency_left[i] > 0) {
                if (s.latency_left[i] > delta)
                    double_update(&s.latency_left[i], delta, SURF_PRECISION);
                else
                    s.latency_left[i] = 0.0;
                if (s.latency_left[i] <= 0.0)
                    s.penalty[i] = p->flows[i].latency_s;
            }
            double_update(&s.remains[i], s.rate[i] * delta, MM_PRECISION * SURF_PRECISION);
            if (s.remains[i] <= 0 && s.penalty[i] > 0) {
                s.done[i] = true;
                s.finish[i] = now;
                left--;
            }
        }
    }
    for (int i = 0; i < n; i++)
        finish_s[i] = s.finish[i];
    *events = n_events;
    rc = 0;
out:
    free(s.remains);
    free(s.latency_left);
    free(s.penalty);
    free(s.rate);
    free(s.finish);
    free(s.done);
    free(s.fixed);
    free(s.remaining);
    free(s.usage);
    free(s.light);
    free(s.light_pos);
    free(s.saturated);
    free(s.link_first);
    free(s.link_flows);
    return rc;
}

/*
 * Independent parts solved apart (issue 47, docs/des.md step 21). The event loop above
 * re-solves every flow at every event: its cost is events x flows, and a tree block's
 * events grow with N (more tree levels, more distinct run lengths and rates): at 16,384
 * GPUs the solver was 43% of a double-tree run, at 65,536 58%. Two exact reductions:
 *   - links that cannot bind are left out: where the flows crossing a link could not fill
 *     it even each at the smallest capacity of its other links, the link never saturates,
 *     never fixes a rate, and no flow's rate depends on it (on a100-hdr's non-blocking,
 *     rail-optimised fat tree: the leaf and spine links of most blocks);
 *   - the flows then fall into parts that share no link (each node's NVLink chains, each
 *     rail's leaves), and a part's rates never depend on another's: each part is its own
 *     event loop, paying for its own events only, and parts that are the same system (the
 *     same flows in order, bytes, latencies, links in the same pattern with the same
 *     capacities) are solved once. At 4,096 GPUs a block of 20,448 flows became 1,032
 *     parts of which 31 distinct, the largest 1,532 flows.
 * What changes: a part's clock sums its own events' deltas only, where the single loop
 * summed every part's, and a latency paid within SimGrid's 1e-9 s of another part's event
 * is no longer snapped paid at it; the progressive filling visits links in another order.
 * The snapping is not rounding where a flow's latency ends within 1e-9 s after another
 * part's event (gb200-nvl72's short NVLink latencies: 1.2e-5 apart at 1 GiB on 64 GPUs):
 * des_mm_solve checks every latency's end against the parts' event instants and solves
 * the problem as one system where one falls in that window. The rest is rounding of the
 * same model (SimGrid's own clock sums every model's events,
 * compute and sleeps included; tests/des/test_des_parts.c: 3.6e-14 at most).
 * GCSIM_DES_MM_WHOLE=1 in the environment solves every problem as one system.
 */
/* A link is left out only where the most its flows could carry is this much under its
 * capacity (far above SimGrid's 1e-5 saturation precision). */
#define LOOSE_MARGIN 1e-3

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int uf_find(int *up, int x)
{
    while (up[x] != x) {
        up[x] = up[up[x]];
        x = up[x];
    }
    return x;
}

/* A part: its flows (indices into the problem), as a problem of its own. */
typedef struct {
    int first, n;          /* in order[] */
    int link_first, n_links; /* in part_caps[] (its links' capacities, local order) */
    int ref_first;         /* in part_refs[]: its flows' local link indices */
    uint64_t hash;
    int same_as;           /* an earlier identical part, or -1 */
} mm_part;

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    return h;
}

static uint64_t bits(double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    return u;
}

/* Whether parts a and b are the same system (flows in order, bytes, latency, links). */
static bool same_part(const des_mm_problem *p, const int *order, const int *kept,
                      const double *caps, const int *refs, const mm_part *a, const mm_part *b)
{
    if (a->hash != b->hash || a->n != b->n || a->n_links != b->n_links)
        return false;
    if (memcmp(caps + a->link_first, caps + b->link_first, sizeof(double) * (size_t)a->n_links))
        return false;
    int ra = a->ref_first, rb = b->ref_first;
    for (int k = 0; k < a->n; k++) {
        const des_mm_flow *fa = &p->flows[order[a->first + k]];
        const des_mm_flow *fb = &p->flows[order[b->first + k]];
        int na = kept[order[a->first + k]], nb = kept[order[b->first + k]];
        if (fa->bytes != fb->bytes || fa->latency_s != fb->latency_s || na != nb)
            return false;
        if (memcmp(refs + ra, refs + rb, sizeof(int) * (size_t)na))
            return false;
        ra += na;
        rb += nb;
    }
    return true;
}

int des_mm_solve(const des_mm_problem *p, double t0_s, double *end_s, double *finish_s,
                 long *events)
{
    int n = p->n_flows, L = p->n_links;
    size_t nf = (size_t)(n > 0 ? n : 1), nl = (size_t)(L > 0 ? L : 1);
    double *fin = malloc(nf * sizeof(double));
    int *up = malloc(nl * sizeof(int));
    int *part_of_root = malloc(nl * sizeof(int)); /* per link root: its part, -1 none */
    int *flow_part = malloc(nf * sizeof(int));
    int *order = malloc(nf * sizeof(int));
    int *kept = malloc(nf * sizeof(int)); /* per flow: its links kept (not loose) */
    mm_part *parts = malloc(nf * sizeof(mm_part));
    long total_refs = 0;
    for (int i = 0; i < n; i++)
        total_refs += p->flows[i].n_links;
    size_t nr = (size_t)(total_refs > 0 ? total_refs : 1);
    int *refs = malloc(nr * sizeof(int));  /* local link indices, flow by flow, part order */
    double *caps = malloc(nr * sizeof(double)); /* parts' link capacities */
    int *local = malloc(nl * sizeof(int)); /* per link: its local index in its part */
    /* scratch for one part's problem */
    des_mm_flow *sub_flows = malloc(nf * sizeof(des_mm_flow));
    double *sub_fin = malloc(nf * sizeof(double));
    int rc = -1, n_parts = 0;
    long n_events = 0;
    if (!fin || !up || !part_of_root || !flow_part || !order || !kept || !parts || !refs || !caps ||
        !local || !sub_flows || !sub_fin)
        goto out;
    ev_n = 0;
    const char *whole = getenv("GCSIM_DES_MM_WHOLE");
    if (n < 2 || (whole && strcmp(whole, "1") == 0)) {
        rc = solve_system(p, t0_s, fin, &n_events);
        goto done;
    }
    for (int l = 0; l < L; l++) {
        up[l] = l;
        part_of_root[l] = -1;
        local[l] = -1;
    }
    /* links that cannot bind: with sum_l, over the flows crossing l, of the smallest
     * capacity of the flow's other links below l's capacity, l never saturates (a flow's
     * rate never exceeds the capacity of any of its links), so it never fixes a rate and
     * leaving it out changes no flow's rate (a flow's tightest link is never left out:
     * its own term is that link's capacity or more). Marked in local[] as -2. */
    {
        double *load = malloc(nl * sizeof(double));
        if (!load)
            goto out;
        for (int l = 0; l < L; l++)
            load[l] = 0;
        for (int i = 0; i < n; i++) {
            const des_mm_flow *f = &p->flows[i];
            double c1 = INFINITY, c2 = INFINITY; /* the two smallest capacities */
            int l1 = -1;
            for (int k = 0; k < f->n_links; k++) {
                int l = p->links[f->first_link + k];
                double c = p->capacity_Bps[l];
                if (c < c1) {
                    c2 = c1;
                    c1 = c;
                    l1 = l;
                } else if (c < c2) {
                    c2 = c;
                }
            }
            for (int k = 0; k < f->n_links; k++) {
                int l = p->links[f->first_link + k];
                load[l] += l == l1 ? c2 : c1;
            }
        }
        for (int l = 0; l < L; l++)
            if (load[l] > 0 && load[l] < p->capacity_Bps[l] * (1.0 - LOOSE_MARGIN))
                local[l] = -2;
        free(load);
    }
    for (int i = 0; i < n; i++) {
        const des_mm_flow *f = &p->flows[i];
        if (f->n_links < 1)
            continue;
        int a = -1;
        for (int k = 0; k < f->n_links; k++) {
            int l = p->links[f->first_link + k];
            if (local[l] == -2)
                continue;
            int b = uf_find(up, l);
            if (a < 0)
                a = b;
            else if (a != b)
                up[b] = a;
        }
    }
    /* parts numbered in the order of their first flow; a flow without links alone */
    int *count = flow_part; /* the part of each flow */
    for (int i = 0; i < n; i++) {
        const des_mm_flow *f = &p->flows[i];
        int q, first = -1;
        for (int k = 0; k < f->n_links && first < 0; k++)
            if (local[p->links[f->first_link + k]] != -2)
                first = p->links[f->first_link + k];
        if (first < 0) {
            q = n_parts++;
        } else {
            int r = uf_find(up, first);
            if (part_of_root[r] < 0)
                part_of_root[r] = n_parts++;
            q = part_of_root[r];
        }
        count[i] = q;
    }
    if (n_parts == 1) {
        rc = solve_system(p, t0_s, fin, &n_events);
        goto done;
    }
    for (int q = 0; q < n_parts; q++)
        parts[q].n = 0;
    for (int i = 0; i < n; i++)
        parts[count[i]].n++;
    for (int q = 0, at = 0; q < n_parts; q++) {
        parts[q].first = at;
        at += parts[q].n;
        parts[q].n = 0;
    }
    for (int i = 0; i < n; i++) { /* flows of each part in the problem's order */
        mm_part *pt = &parts[count[i]];
        order[pt->first + pt->n++] = i;
    }
    /* each part's links in local order (first met), its flows' local references, hash */
    int caps_n = 0, refs_n = 0;
    for (int q = 0; q < n_parts; q++) {
        mm_part *pt = &parts[q];
        pt->link_first = caps_n;
        pt->ref_first = refs_n;
        pt->n_links = 0;
        uint64_t h = (uint64_t)pt->n;
        for (int k = 0; k < pt->n; k++) {
            const des_mm_flow *f = &p->flows[order[pt->first + k]];
            h = mix(h, bits(f->bytes));
            h = mix(h, bits(f->latency_s));
            int r0 = refs_n;
            for (int j = 0; j < f->n_links; j++) {
                int l = p->links[f->first_link + j];
                if (local[l] == -2)
                    continue;
                if (local[l] < 0) {
                    local[l] = pt->n_links++;
                    caps[caps_n++] = p->capacity_Bps[l];
                    h = mix(h, bits(p->capacity_Bps[l]));
                }
                refs[refs_n++] = local[l];
                h = mix(h, (uint64_t)local[l]);
            }
            kept[order[pt->first + k]] = refs_n - r0;
            h = mix(h, (uint64_t)(refs_n - r0));
        }
        pt->hash = h;
        pt->same_as = -1;
    }
    /* identical parts: an open-addressed table of the distinct ones by hash */
    {
        size_t cap = 16;
        while (cap < 2 * (size_t)n_parts)
            cap *= 2;
        int *table = malloc(cap * sizeof(int));
        if (!table)
            goto out;
        for (size_t k = 0; k < cap; k++)
            table[k] = -1;
        for (int q = 0; q < n_parts; q++) {
            size_t h = (size_t)(parts[q].hash % cap);
            while (table[h] >= 0) {
                if (same_part(p, order, kept, caps, refs, &parts[table[h]], &parts[q])) {
                    parts[q].same_as = table[h];
                    break;
                }
                h = (h + 1) % cap;
            }
            if (parts[q].same_as < 0)
                table[h] = q;
        }
        free(table);
    }
    for (int q = 0; q < n_parts; q++) {
        const mm_part *pt = &parts[q];
        if (pt->same_as >= 0) { /* the same system: the same ends, flow by flow */
            const mm_part *o = &parts[pt->same_as];
            for (int k = 0; k < pt->n; k++)
                fin[order[pt->first + k]] = fin[order[o->first + k]];
            continue;
        }
        int r = pt->ref_first;
        for (int k = 0; k < pt->n; k++) {
            des_mm_flow f = p->flows[order[pt->first + k]];
            f.n_links = kept[order[pt->first + k]];
            f.first_link = r - pt->ref_first;
            r += f.n_links;
            sub_flows[k] = f;
        }
        des_mm_problem sub = {.n_links = pt->n_links, .capacity_Bps = caps + pt->link_first,
                              .n_flows = pt->n, .flows = sub_flows,
                              .links = refs + pt->ref_first};
        long ev = 0;
        if (solve_system(&sub, t0_s, sub_fin, &ev) != 0)
            goto out;
        n_events += ev;
        for (int k = 0; k < pt->n; k++)
            fin[order[pt->first + k]] = sub_fin[k];
    }
    /* Exact only where no flow's latency ends within SimGrid's 1e-9 s after another
     * part's event: the single loop would snap that latency paid at the event (a sleeping
     * flow starts early, and that moves the rates of its part). Where some does (gb200's
     * short NVLink latencies), the problem is solved as one system. */
    if (ev_n == ev_cap && ev_cap == 0)
        goto whole;
    qsort(ev_at, ev_n, sizeof *ev_at, cmp_double);
    for (int i = 0; i < n; i++) {
        double lat = p->flows[i].latency_s;
        if (!(lat > 0))
            continue;
        double at = t0_s + lat;
        size_t lo = 0, hi = ev_n; /* the first instant >= at - 2e-9 */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (ev_at[mid] < at - 2 * SURF_PRECISION)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < ev_n && ev_at[lo] < at - 0.5 * SURF_PRECISION * 1e-3 &&
            fabs(ev_at[lo] - at) > 1e-15 * at)
            goto whole;
    }
    rc = 0;
    goto done;
whole:
    n_events = 0;
    rc = solve_system(p, t0_s, fin, &n_events);
done:
    if (rc == 0) {
        double end = t0_s;
        for (int i = 0; i < n; i++) {
            double t = fin[i] + p->flows[i].extra_s;
            if (t > end)
                end = t;
            if (finish_s)
                finish_s[i] = fin[i];
        }
        *end_s = end;
        if (events)
            *events = n_events;
    }
out:
    free(fin);
    free(up);
    free(part_of_root);
    free(flow_part);
    free(order);
    free(kept);
    free(parts);
    free(refs);
    free(caps);
    free(local);
    free(sub_flows);
    free(sub_fin);
    return rc;
}
