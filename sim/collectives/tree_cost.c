/*
 * sim/collectives/tree_cost.c: pipelined trees prepared for a chunk count from a template
 * (tree_cost.h).
 *
 * Every number is computed as schedule.c's merge_pairs and schedule_cost.c's
 * sweep_windowed compute it, in the same order: a merged flow's share is the sum of its
 * pair's active flows' shares in flow order; a link's load the sum of the active merged
 * flows crossing it in flow order (at most one per pair in a step, and pairs are in flow
 * order); a flow's bandwidth the minimum over its route of capacity x (share / load). Only
 * the bookkeeping differs: pairs are walked instead of flows (a pair's merged flows never
 * overlap), and an interval keeps the distinct (latency, bandwidth, share, sums) of its
 * active flows without their windows, which in a tree phase (no growth per step: dk = 0)
 * change nothing: a step costs the largest of its classes, and the codec the largest share.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "tree_cost.h"

typedef struct {
    int src, dst;
    int first, count;    /* its flows: flows[first .. first + count), by offset then sums */
    int n_links;
    int links[GCSIM_ROUTE_MAX_LINKS];
    double latency_s;
} tree_pair;

typedef struct {
    int o;               /* window [o, o + C - 1] */
    double k0;
} tree_flow;

struct gcsim_tree_template {
    const gcsim_topology *t;
    gcsim_collective collective;
    int rails, per_rail, omax;
    int n_pairs, n_flows;
    tree_pair *pairs;
    tree_flow *flows;
    int *link_index, *link_pairs; /* pairs crossing link l: link_pairs[link_index[l] ..
                                     link_index[l + 1]), in pair order */
};

void gcsim_tree_template_free(gcsim_tree_template *tt)
{
    if (!tt)
        return;
    free(tt->pairs);
    free(tt->flows);
    free(tt->link_index);
    free(tt->link_pairs);
    free(tt);
}

double gcsim_tree_template_bytes(const gcsim_tree_template *tt)
{
    return sizeof *tt + sizeof(tree_pair) * (double)tt->n_pairs +
           sizeof(tree_flow) * (double)tt->n_flows +
           sizeof(int) * ((double)tt->t->n_links + 1 + tt->link_index[tt->t->n_links]);
}

gcsim_tree_template *gcsim_tree_template_new(const gcsim_topology *t, gcsim_collective c)
{
    gcsim_tree_template *tt = calloc(1, sizeof *tt);
    gcsim_flow *raw = NULL;
    int n_raw = 0;
    if (!tt)
        return NULL;
    tt->t = t;
    tt->collective = c;
    tt->per_rail = c == COLLECTIVE_DOUBLE_TREE ? 2 : 1;
    tt->rails = t->nodes > 1 ? t->nics_per_node : 1;
    if (gcsim_tree_raw_flows(t, tt->per_rail, &raw, &n_raw))
        goto fail;
    tt->n_flows = n_raw;
    tt->flows = malloc(sizeof *tt->flows * (size_t)(n_raw > 0 ? n_raw : 1));
    tt->pairs = malloc(sizeof *tt->pairs * (size_t)(n_raw > 0 ? n_raw : 1));
    tt->link_index = calloc((size_t)t->n_links + 1, sizeof(int));
    if (!tt->flows || !tt->pairs || !tt->link_index)
        goto fail;
    for (int f = 0; f < n_raw; f++) {
        tt->flows[f] = (tree_flow){raw[f].first_step, raw[f].k0};
        if (raw[f].first_step > tt->omax)
            tt->omax = raw[f].first_step;
        if (f == 0 || raw[f].src != raw[f - 1].src || raw[f].dst != raw[f - 1].dst) {
            tree_pair *p = &tt->pairs[tt->n_pairs++];
            p->src = raw[f].src;
            p->dst = raw[f].dst;
            p->first = f;
            p->count = 0;
            p->n_links = gcsim_topology_route(t, p->src, p->dst, p->links, &p->latency_s);
            for (int k = 0; k < p->n_links; k++)
                tt->link_index[p->links[k] + 1]++;
        }
        tt->pairs[tt->n_pairs - 1].count++;
    }
    for (int l = 0; l < t->n_links; l++)
        tt->link_index[l + 1] += tt->link_index[l];
    tt->link_pairs = malloc(sizeof(int) * (size_t)(tt->link_index[t->n_links] + 1));
    int *fill = malloc(sizeof(int) * (size_t)(t->n_links + 1));
    if (!tt->link_pairs || !fill) {
        free(fill);
        goto fail;
    }
    memcpy(fill, tt->link_index, sizeof(int) * (size_t)t->n_links);
    for (int p = 0; p < tt->n_pairs; p++)
        for (int k = 0; k < tt->pairs[p].n_links; k++)
            tt->link_pairs[fill[tt->pairs[p].links[k]]++] = p;
    free(fill);
    free(raw);
    return tt;
fail:
    free(raw);
    gcsim_tree_template_free(tt);
    return NULL;
}

/* ---- one chunk count ---- */

/* Sums of shares kept ready per pair (longer runs add them one by one). */
enum { GCSIM_TREE_MAX_RUN = 32 };

typedef struct {
    int from, to;
    double share, k0;
} stretch;

/* merge_pairs (schedule.c) on pair p's flows in windows of `chunks` steps, each flow
 * carrying `share`: its stretches appended at out[*n ...]. bound: room for 2 x its flows. */
static void merge_pair(const gcsim_tree_template *tt, const tree_pair *p, int chunks,
                       double share, int *bound, stretch *out, int *n)
{
    const tree_flow *f = tt->flows + p->first;
    int m = p->count, nb = 0, start = *n;
    if (m == 1) { /* one window: 0 + share, fmax(0, k0), as the loop below gives */
        out[(*n)++] = (stretch){f[0].o, f[0].o + chunks - 1, 0.0 + share, fmax(0.0, f[0].k0)};
        return;
    }
    /* the flows' starts and ends, sorted: both lists are sorted already (flows are by
     * offset), so a merge gives what sorting all 2m of them gives */
    for (int a = 0, b = 0; a < m || b < m;) {
        if (b >= m || (a < m && f[a].o <= f[b].o + chunks))
            bound[nb++] = f[a++].o;
        else
            bound[nb++] = f[b++].o + chunks;
    }
    /* The flows active over [from, to] (o <= from, o + chunks - 1 >= to) are those with o
     * in [to - chunks + 1, from]: a run of the sorted flows, [lo, hi). Their shares are
     * added one by one from 0 as merge_pairs adds them, so run[c] is the sum of c. */
    double run[2 * GCSIM_TREE_MAX_RUN + 1];
    run[0] = 0;
    int lo = 0, hi = 0, have = 0;
    for (int k = 0; k + 1 < nb; k++) {
        int from = bound[k], to = bound[k + 1] - 1;
        if (from > to)
            continue;
        while (hi < m && f[hi].o <= from)
            hi++;
        while (lo < hi && f[lo].o + chunks - 1 < to)
            lo++;
        double sum, k0 = 0;
        int cnt = hi - lo;
        if (cnt <= 2 * GCSIM_TREE_MAX_RUN) {
            for (; have < cnt; have++)
                run[have + 1] = run[have] + share;
            sum = run[cnt];
        } else {
            sum = 0;
            for (int c = 0; c < cnt; c++)
                sum += share;
        }
        for (int x = lo; x < hi; x++)
            k0 = fmax(k0, f[x].k0);
        stretch *prev = *n > start ? &out[*n - 1] : NULL;
        if (prev && prev->to == from - 1 && prev->share == sum && prev->k0 == k0)
            prev->to = to;
        else if (sum > 0)
            out[(*n)++] = (stretch){from, to, sum, k0};
    }
}

/* Distinct classes with the count of active pairs in each (schedule_cost.c's bag, keyed
 * without windows). */
typedef struct {
    gcsim_flow_class c;
    int count, live;
} bag_entry;

typedef struct {
    bag_entry *e;
    int n, cap;
    int *slot;
    size_t mask;
    int *live, n_live;
} bag;

static uint64_t bits_of(double x)
{
    uint64_t u;
    x += 0.0; /* -0 and +0 are the same class */
    memcpy(&u, &x, sizeof u);
    return u;
}

static size_t class_hash(const gcsim_flow_class *c)
{
    uint64_t h = 1469598103934665603ull;
    const uint64_t v[4] = {bits_of(c->latency_s), bits_of(c->Bps), bits_of(c->share),
                           bits_of(c->k0)};
    for (int i = 0; i < 4; i++) {
        h ^= v[i];
        h *= 1099511628211ull;
        h ^= h >> 31;
    }
    return (size_t)h;
}

static bool same(const gcsim_flow_class *x, const gcsim_flow_class *y)
{
    return x->latency_s == y->latency_s && x->Bps == y->Bps && x->share == y->share &&
           x->k0 == y->k0;
}

static int bag_rehash(bag *b, size_t cap)
{
    int *slot = malloc(sizeof(int) * cap);
    if (!slot)
        return -1;
    memset(slot, 0xff, sizeof(int) * cap);
    for (int k = 0; k < b->n; k++) {
        size_t i = class_hash(&b->e[k].c) & (cap - 1);
        while (slot[i] >= 0)
            i = (i + 1) & (cap - 1);
        slot[i] = k;
    }
    free(b->slot);
    b->slot = slot;
    b->mask = cap - 1;
    return 0;
}

static int bag_entry_of(bag *b, const gcsim_flow_class *c)
{
    size_t i = class_hash(c) & b->mask;
    while (b->slot[i] >= 0) {
        if (same(&b->e[b->slot[i]].c, c))
            return b->slot[i];
        i = (i + 1) & b->mask;
    }
    if (b->n == b->cap) {
        int cap = 2 * b->cap;
        bag_entry *e = realloc(b->e, sizeof *e * (size_t)cap);
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
    b->e[k] = (bag_entry){*c, 0, -1};
    b->slot[i] = k;
    if (2 * (size_t)b->n > b->mask + 1 && bag_rehash(b, 2 * (b->mask + 1)))
        return -1;
    return k;
}

static void bag_add(bag *b, int k, int delta)
{
    bag_entry *e = &b->e[k];
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

/* Scratch of one preparation. */
typedef struct {
    stretch *st;
    int *st_index;       /* pair p's stretches: st[st_index[p] .. st_index[p + 1]) */
    int *cur;            /* pair p's current stretch, or its end */
    int *cls_of;         /* pair p's class in the bag, -1 when inactive */
    char *active, *dirty_pair, *dirty_link;
    int *dp, *dl;        /* dirty pairs and links */
    int *ev_index, *events; /* pairs whose state changes at step s */
    double *load;
    char *mark;
    int *bound;
    bag b;
} scratch;

static void scratch_free(scratch *x)
{
    free(x->st);
    free(x->st_index);
    free(x->cur);
    free(x->cls_of);
    free(x->active);
    free(x->dirty_pair);
    free(x->dirty_link);
    free(x->dp);
    free(x->dl);
    free(x->ev_index);
    free(x->events);
    free(x->load);
    free(x->mark);
    free(x->bound);
    free(x->b.e);
    free(x->b.slot);
    free(x->b.live);
}

/* The class of active pair p from the current loads, as flow_class_of computes it. */
static gcsim_flow_class pair_class(const gcsim_tree_template *tt, const scratch *x, int p)
{
    const tree_pair *pr = &tt->pairs[p];
    const stretch *s = &x->st[x->cur[p]];
    double bw = INFINITY;
    for (int k = 0; k < pr->n_links; k++)
        bw = fmin(bw, tt->t->capacity_Bps[pr->links[k]] * (s->share / x->load[pr->links[k]]));
    return (gcsim_flow_class){pr->latency_s, bw, s->share, s->k0, 0, 0};
}

int gcsim_tree_template_prepare(const gcsim_tree_template *tt, int chunks, gcsim_schedule *s)
{
    int np = tt->n_pairs, nl = tt->t->n_links;
    if (chunks < 1)
        chunks = 1;
    int steps = tt->omax + chunks;
    double share = 1.0 / ((double)tt->rails * tt->per_rail * chunks);
    scratch x = {0};
    size_t nf = (size_t)(tt->n_flows > 0 ? tt->n_flows : 1), npp = (size_t)(np > 0 ? np : 1);
    x.st = malloc(sizeof *x.st * 2 * nf);
    x.st_index = malloc(sizeof(int) * (npp + 1));
    x.cur = malloc(sizeof(int) * npp);
    x.cls_of = malloc(sizeof(int) * npp);
    x.active = calloc(npp, 1);
    x.dirty_pair = calloc(npp, 1);
    x.dirty_link = calloc((size_t)nl + 1, 1);
    x.dp = malloc(sizeof(int) * npp);
    x.dl = malloc(sizeof(int) * ((size_t)nl + 1));
    x.ev_index = calloc((size_t)steps + 2, sizeof(int));
    x.load = calloc((size_t)nl + 1, sizeof(double));
    x.mark = calloc((size_t)steps + 1, 1);
    x.bound = malloc(sizeof(int) * 2 * nf);
    x.b.cap = 64;
    x.b.e = malloc(sizeof *x.b.e * (size_t)x.b.cap);
    x.b.live = malloc(sizeof(int) * (size_t)x.b.cap);
    int rc = -1, ni = 0, total = 0, cap = 0, *from = NULL, *to = NULL, *start = NULL;
    gcsim_flow_class *all = NULL;
    if (!x.st || !x.st_index || !x.cur || !x.cls_of || !x.active || !x.dirty_pair ||
        !x.dirty_link || !x.dp || !x.dl || !x.ev_index || !x.load || !x.mark || !x.bound ||
        !x.b.e || !x.b.live || bag_rehash(&x.b, 128))
        goto done;
    /* the merged flows (merge_pairs), and whether the phase is windowed at all */
    int n_st = 0;
    bool windowed = false;
    for (int p = 0; p < np; p++) {
        x.st_index[p] = n_st;
        merge_pair(tt, &tt->pairs[p], chunks, share, x.bound, x.st, &n_st);
        x.cur[p] = x.st_index[p];
        x.cls_of[p] = -1;
    }
    x.st_index[np] = n_st;
    for (int k = 0; k < n_st && !windowed; k++)
        windowed = x.st[k].from != 0 || x.st[k].to != steps - 1;
    if (!windowed || n_st == 0) {
        rc = 1;
        goto done;
    }
    /* the intervals' bounds (interval_bounds), and the pairs starting or stopping there */
    x.mark[0] = x.mark[steps] = 1;
    for (int p = 0; p < np; p++)
        for (int k = x.st_index[p]; k < x.st_index[p + 1]; k++) {
            int a = x.st[k].from, z = x.st[k].to + 1;
            if (a >= 0 && a <= steps) {
                x.mark[a] = 1;
                x.ev_index[a + 1]++;
            }
            if (z >= 0 && z <= steps && z != a) {
                x.mark[z] = 1;
                x.ev_index[z + 1]++;
            }
        }
    for (int k = 0; k <= steps; k++)
        x.ev_index[k + 1] += x.ev_index[k];
    x.events = malloc(sizeof(int) * (size_t)(x.ev_index[steps + 1] + 1));
    int *efill = malloc(sizeof(int) * ((size_t)steps + 1));
    if (!x.events || !efill) {
        free(efill);
        goto done;
    }
    memcpy(efill, x.ev_index, sizeof(int) * ((size_t)steps + 1));
    for (int p = 0; p < np; p++)
        for (int k = x.st_index[p]; k < x.st_index[p + 1]; k++) {
            int a = x.st[k].from, z = x.st[k].to + 1;
            if (a >= 0 && a <= steps)
                x.events[efill[a]++] = p;
            if (z >= 0 && z <= steps && z != a)
                x.events[efill[z]++] = p;
        }
    free(efill);
    int nb = 0;
    for (int k = 0; k <= steps; k++)
        if (x.mark[k])
            x.bound[nb++] = k;
    ni = nb - 1;
    from = malloc(sizeof(int) * (size_t)(ni > 0 ? ni : 1));
    to = malloc(sizeof(int) * (size_t)(ni > 0 ? ni : 1));
    start = malloc(sizeof(int) * (size_t)(ni + 1));
    if (!from || !to || !start)
        goto done;
    for (int i = 0; i < ni; i++) {
        int s0 = x.bound[i], n_dp = 0, n_dl = 0;
        int e_from = i == 0 ? 0 : x.ev_index[s0], e_to = i == 0 ? np : x.ev_index[s0 + 1];
        for (int e = e_from; e < e_to; e++) {
            int p = i == 0 ? e : x.events[e];
            int k = x.cur[p], end = x.st_index[p + 1];
            while (k < end && x.st[k].to < s0)
                k++;
            bool now = k < end && x.st[k].from <= s0;
            if (k == x.cur[p] && now == (bool)x.active[p])
                continue;
            x.cur[p] = k;
            x.active[p] = now;
            if (!x.dirty_pair[p]) {
                x.dirty_pair[p] = 1;
                x.dp[n_dp++] = p;
            }
            const tree_pair *pr = &tt->pairs[p];
            for (int q = 0; q < pr->n_links; q++)
                if (!x.dirty_link[pr->links[q]]) {
                    x.dirty_link[pr->links[q]] = 1;
                    x.dl[n_dl++] = pr->links[q];
                }
        }
        /* the dirty links' loads, summed in flow order; the pairs crossing them */
        for (int d = 0; d < n_dl; d++) {
            int l = x.dl[d];
            double sum = 0;
            for (int j = tt->link_index[l]; j < tt->link_index[l + 1]; j++) {
                int p = tt->link_pairs[j];
                if (x.active[p])
                    sum += x.st[x.cur[p]].share;
            }
            x.dirty_link[l] = 0;
            /* the same load to the bit: the classes of the pairs crossing it stand (a pair
             * whose own flow changed is dirty already) */
            if (sum == x.load[l])
                continue;
            x.load[l] = sum;
            for (int j = tt->link_index[l]; j < tt->link_index[l + 1]; j++) {
                int p = tt->link_pairs[j];
                if (x.active[p] && !x.dirty_pair[p]) {
                    x.dirty_pair[p] = 1;
                    x.dp[n_dp++] = p;
                }
            }
        }
        for (int d = 0; d < n_dp; d++) {
            int p = x.dp[d];
            x.dirty_pair[p] = 0;
            gcsim_flow_class c;
            if (x.active[p]) {
                c = pair_class(tt, &x, p);
                if (x.cls_of[p] >= 0 && same(&x.b.e[x.cls_of[p]].c, &c))
                    continue; /* its class stands */
            }
            if (x.cls_of[p] >= 0)
                bag_add(&x.b, x.cls_of[p], -1);
            x.cls_of[p] = -1;
            if (!x.active[p])
                continue;
            int k = bag_entry_of(&x.b, &c);
            if (k < 0)
                goto done;
            bag_add(&x.b, k, +1);
            x.cls_of[p] = k;
        }
        from[i] = x.bound[i];
        to[i] = x.bound[i + 1] - 1;
        start[i] = total;
        if (total + x.b.n_live > cap) {
            cap = 2 * (total + x.b.n_live) + 16;
            gcsim_flow_class *grown = realloc(all, sizeof *all * (size_t)cap);
            if (!grown)
                goto done;
            all = grown;
        }
        for (int k = 0; k < x.b.n_live; k++) {
            gcsim_flow_class c = x.b.e[x.b.live[k]].c;
            c.first = from[i];
            c.last = to[i];
            all[total++] = c;
        }
    }
    start[ni] = total;
    gcsim_phase *ph = calloc(1, sizeof *ph);
    if (!ph)
        goto done;
    memset(s, 0, sizeof *s);
    s->collective = tt->collective;
    s->chunks = chunks;
    s->endpoints = tt->t->gpus;
    s->decodes = 1;
    s->n_phases = 1;
    s->phases = ph;
    strncpy(ph->name, "tree", sizeof ph->name - 1);
    ph->steps = steps;
    ph->dk = 0;
    ph->reduce = true;
    ph->n_flows = n_st;
    gcsim_flow_class *fit = realloc(all, sizeof *all * (size_t)(total > 0 ? total : 1));
    ph->classes = fit ? fit : all;
    all = NULL;
    ph->n_classes = total;
    ph->n_intervals = ni;
    ph->interval_from = from;
    ph->interval_to = to;
    ph->interval_class = start;
    from = to = start = NULL;
    rc = 0;
done:
    free(all);
    free(from);
    free(to);
    free(start);
    scratch_free(&x);
    return rc;
}
