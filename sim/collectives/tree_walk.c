/*
 * sim/collectives/tree_walk.c: one chunk count of a pipelined tree prepared by walking its
 * intervals (merged flows, their classes as kept values, the intervals' loads), and the
 * prepared phase both forms fill (tree_schedule_fill); tree_internal.h. The numbers are
 * computed as tree_cost.c's header says.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slot_table.h"
#include "tree_internal.h"

/* ---- one chunk count ---- */

/* Sums of shares kept ready per pair (longer runs add them one by one). */
enum { GCSIM_TREE_MAX_RUN = 32 };

void tree_merge_pair(const tree_flow *f, int m, int chunks, double share, int *bound,
                     tree_stretch *out, int *n)
{
    int nb = 0, start = *n;
    if (m == 1) { /* one window: 0 + share, fmax(0, k0), as the loop below gives */
        out[(*n)++] =
            (tree_stretch){f[0].o, f[0].o + chunks - 1, 1, 0.0 + share, fmax(0.0, f[0].k0)};
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
        tree_stretch *prev = *n > start ? &out[*n - 1] : NULL;
        if (prev && prev->to == from - 1 && prev->share == sum && prev->k0 == k0)
            prev->to = to;
        else if (sum > 0)
            out[(*n)++] = (tree_stretch){from, to, cnt, sum, k0};
    }
}

/* A class value's hash (-0 taken as +0, as `same` compares): the four words multiplied by
 * odd constants independently (no chain of dependent rounds), then mixed so that the low
 * bits a table uses depend on all of them. */
static size_t class_hash(const gcsim_flow_class *c)
{
    const double v[4] = {c->latency_s + 0.0, c->Bps + 0.0, c->share + 0.0, c->k0 + 0.0};
    uint64_t u[4];
    memcpy(u, v, sizeof u);
    uint64_t h = u[0] * 0x9e3779b97f4a7c15ull ^ u[1] * 0xc2b2ae3d27d4eb4full ^
                 u[2] * 0x165667b19e3779f9ull ^ u[3] * 0xd6e8feb86659fd93ull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return (size_t)h;
}

bool tree_same_value(const gcsim_flow_class *x, const gcsim_flow_class *y)
{
    return x->latency_s == y->latency_s && x->Bps == y->Bps && x->share == y->share &&
           x->k0 == y->k0;
}

void tree_values_free(tree_values *v)
{
    free(v->vals);
    free(v->stamp);
    free(v->slot);
}

static size_t values_hash(const void *entries, int k)
{
    return class_hash(&((const tree_values *)entries)->vals[k]);
}

static int values_rehash(tree_values *v, size_t cap)
{
    int *slot = gcsim_slot_table(cap, v->n, values_hash, v);
    if (!slot)
        return -1;
    free(v->slot);
    v->slot = slot;
    v->mask = cap - 1;
    return 0;
}

int tree_values_id(tree_values *v, const gcsim_flow_class *c)
{
    if (!v->slot && values_rehash(v, 256))
        return -1;
    size_t h = class_hash(c) & v->mask;
    for (; v->slot[h] >= 0; h = (h + 1) & v->mask)
        if (tree_same_value(&v->vals[v->slot[h]], c))
            return v->slot[h];
    if (v->n == v->cap) {
        int cap = v->cap ? 2 * v->cap : 128;
        gcsim_flow_class *vals = realloc(v->vals, sizeof *vals * (size_t)cap);
        if (vals)
            v->vals = vals;
        int *stamp = realloc(v->stamp, sizeof(int) * (size_t)cap);
        if (stamp)
            v->stamp = stamp;
        if (!vals || !stamp)
            return -1;
        v->cap = cap;
    }
    int id = v->n++;
    v->vals[id] = *c;
    v->stamp[id] = -1;
    v->slot[h] = id;
    if (2 * (size_t)v->n > v->mask + 1 && values_rehash(v, 2 * (v->mask + 1)))
        return -1;
    return id;
}

/* Appends to list[n ...] each of items[first .. end) not listed yet in interval i (its
 * stamp is i once listed); returns the new length. */
static int list_once(const int *items, int first, int end, int i, int *stamp, int *list, int n)
{
    for (int j = first; j < end; j++) {
        int x = items[j];
        if (stamp[x] != i) {
            stamp[x] = i;
            list[n++] = x;
        }
    }
    return n;
}

void tree_walk_free(tree_walk *w)
{
    free(w->st);
    free(w->st_index);
    free(w->cur);
    free(w->bound);
    free(w->state);
    free(w->lstamp);
    free(w->dl);
    free(w->gstamp);
    free(w->dg);
}

int tree_walk_init(tree_walk *w, const gcsim_tree_template *tt, int chunks)
{
    int nk = tt->n_kinds, nlk = tt->n_links, ns = tt->n_sigs, steps = tt->omax + chunks;
    size_t nkf = (size_t)(tt->n_kind_flows > 0 ? tt->n_kind_flows : 1);
    memset(w, 0, sizeof *w);
    w->tt = tt;
    w->chunks = chunks;
    w->steps = steps;
    w->share = 1.0 / ((double)tt->rails * tt->per_rail * chunks);
    w->st = malloc(sizeof *w->st * 2 * nkf);
    w->st_index = malloc(sizeof(int) * ((size_t)nk + 1));
    w->cur = malloc(sizeof(int) * ((size_t)nk + 1));
    w->bound = malloc(sizeof(int) * (2 * nkf + (size_t)steps + 2));
    w->state = malloc(sizeof(int) * ((size_t)nk + 1));
    w->lstamp = malloc(sizeof(int) * ((size_t)nlk + 1));
    w->dl = malloc(sizeof(int) * ((size_t)nlk + 1));
    w->gstamp = malloc(sizeof(int) * ((size_t)ns + 1));
    w->dg = malloc(sizeof(int) * ((size_t)ns + 1));
    char *mark = calloc((size_t)steps + 1, 1);
    if (!w->st || !w->st_index || !w->cur || !w->bound || !w->state || !w->lstamp || !w->dl ||
        !w->gstamp || !w->dg || !mark) {
        free(mark);
        return -1;
    }
    /* every pair kind's merged flows (merge_pairs), and whether the phase is windowed */
    const tree_stretch *st = w->st;
    for (int k = 0; k < nk; k++) {
        w->st_index[k] = w->n_st;
        tree_merge_pair(tt->flows + tt->kind_first[k], tt->kind_count[k], chunks, w->share,
                        w->bound, w->st, &w->n_st);
        w->cur[k] = w->st_index[k];
        w->state[k] = -2;
    }
    w->st_index[nk] = w->n_st;
    for (int k = 0; k < w->n_st && !w->windowed; k++)
        w->windowed = st[k].from != 0 || st[k].to != steps - 1;
    if (!w->windowed) {
        free(mark);
        return 0;
    }
    /* the intervals' bounds (interval_bounds): 0, the end, every merged flow's ends */
    mark[0] = mark[steps] = 1;
    for (int k = 0; k < w->n_st; k++) {
        if (st[k].from >= 0 && st[k].from <= steps)
            mark[st[k].from] = 1;
        if (st[k].to + 1 >= 0 && st[k].to + 1 <= steps)
            mark[st[k].to + 1] = 1;
    }
    int nb = 0;
    for (int k = 0; k <= steps; k++)
        if (mark[k])
            w->bound[nb++] = k;
    free(mark);
    w->n_intervals = nb - 1;
    for (int l = 0; l < nlk; l++)
        w->lstamp[l] = -1;
    for (int g = 0; g < ns; g++)
        w->gstamp[g] = -1;
    return 0;
}

void tree_walk_interval(tree_walk *w, int i)
{
    const gcsim_tree_template *tt = w->tt;
    int s0 = w->bound[i];
    w->n_dl = w->n_dg = 0;
    for (int k = 0; k < tt->n_kinds; k++) {
        while (w->cur[k] < w->st_index[k + 1] && w->st[w->cur[k]].to < s0)
            w->cur[k]++;
        int now = w->cur[k] < w->st_index[k + 1] && w->st[w->cur[k]].from <= s0 ? w->cur[k] : -1;
        if (now == w->state[k])
            continue;
        w->state[k] = now;
        w->n_dl = list_once(tt->kind_link, tt->kind_link_first[k], tt->kind_link_first[k + 1], i,
                            w->lstamp, w->dl, w->n_dl);
        w->n_dg = list_once(tt->kind_sig, tt->kind_sig_first[k], tt->kind_sig_first[k + 1], i,
                            w->gstamp, w->dg, w->n_dg);
    }
}

void tree_walk_load_changed(tree_walk *w, int l, int i)
{
    const gcsim_tree_template *tt = w->tt;
    w->n_dg = list_once(tt->link_sig, tt->link_sig_first[l], tt->link_sig_first[l + 1], i,
                        w->gstamp, w->dg, w->n_dg);
}

/* The values the active flow kinds hold: how many hold each, and the list of those held
 * (an interval's distinct classes, in no particular order: a step costs their maximum). */
typedef struct {
    int *count, *at, *live;
    int n_live, cap;
} held_values;

static void held_free(held_values *h)
{
    free(h->count);
    free(h->at);
    free(h->live);
}

static void held_drop(held_values *h, int v)
{
    if (v < 0 || --h->count[v] > 0)
        return;
    int last = h->live[--h->n_live];
    h->live[h->at[v]] = last;
    h->at[last] = h->at[v];
}

/* -1 when out of memory */
static int held_add(held_values *h, int v)
{
    if (v >= h->cap) {
        int cap = 2 * v + 64;
        int *count = realloc(h->count, sizeof(int) * (size_t)cap);
        if (count)
            h->count = count;
        int *at = realloc(h->at, sizeof(int) * (size_t)cap);
        if (at)
            h->at = at;
        int *live = realloc(h->live, sizeof(int) * (size_t)cap);
        if (live)
            h->live = live;
        if (!count || !at || !live)
            return -1;
        memset(h->count + h->cap, 0, sizeof(int) * (size_t)(cap - h->cap));
        h->cap = cap;
    }
    if (h->count[v]++ == 0) {
        h->at[v] = h->n_live;
        h->live[h->n_live++] = v;
    }
    return 0;
}

/* The chunk count's intervals walked one after another (any chunk count). Each flow
 * kind's class is a value kept in one table (tree_values), so an interval's distinct
 * classes are the values some active flow kind holds (held_values). */
int tree_walk_prepare(const gcsim_tree_template *tt, int chunks, gcsim_schedule *s)
{
    int nlk = tt->n_links, ns = tt->n_sigs;
    tree_walk w;
    double *load = malloc(sizeof(double) * ((size_t)nlk + 1));
    int *sig_val = malloc(sizeof(int) * ((size_t)ns + 1));
    tree_values vt = {0};
    held_values held = {0};
    int rc = -1, ni = 0, total = 0, cap = 0, *from = NULL, *to = NULL, *start = NULL;
    gcsim_flow_class *all = NULL;
    if (tree_walk_init(&w, tt, chunks) != 0 || !load || !sig_val)
        goto done;
    if (!w.windowed || w.n_st == 0) {
        rc = 1;
        goto done;
    }
    ni = w.n_intervals;
    from = malloc(sizeof(int) * (size_t)(ni > 0 ? ni : 1));
    to = malloc(sizeof(int) * (size_t)(ni > 0 ? ni : 1));
    start = malloc(sizeof(int) * (size_t)(ni + 1));
    if (!from || !to || !start)
        goto done;
    for (int g = 0; g < ns; g++)
        sig_val[g] = -1;
    /* no load yet: NaN equals no sum, so a link kind's first interval always sets its load
     * (read uninitialised before, where a link kind first changed after interval 0) */
    for (int l = 0; l <= nlk; l++)
        load[l] = NAN;
    for (int i = 0; i < ni; i++) {
        tree_walk_interval(&w, i);
        /* each changed link kind's load: its pairs' shares added in flow order */
        for (int x = 0; x < w.n_dl; x++) {
            int l = w.dl[x];
            double sum = 0;
            for (int j = tt->link_first[l]; j < tt->link_first[l + 1]; j++) {
                int q = w.state[tt->link_seq[j]];
                if (q >= 0)
                    sum += w.st[q].share;
            }
            if (sum == load[l])
                continue; /* the same load: its flow kinds' classes stay */
            load[l] = sum;
            tree_walk_load_changed(&w, l, i);
        }
        for (int x = 0; x < w.n_dg; x++) {
            int g = w.dg[x], q = w.state[tt->sig_kind[g]];
            if (q < 0) {
                held_drop(&held, sig_val[g]);
                sig_val[g] = -1;
                continue;
            }
            const tree_stretch *f = &w.st[q];
            double bw = INFINITY;
            for (int r = 0; r < tt->sig_nl[g]; r++) {
                int l = tt->sig_links[g * GCSIM_ROUTE_MAX_LINKS + r];
                bw = tree_fmin_as_libm(bw, tt->link_cap[l] * (f->share / load[l]));
            }
            gcsim_flow_class c = {tt->sig_lat[g], bw, f->share, f->k0, 0, 0};
            if (sig_val[g] >= 0 && tree_same_value(&vt.vals[sig_val[g]], &c))
                continue; /* the value it had: its id stays */
            int v = tree_values_id(&vt, &c);
            if (v < 0 || held_add(&held, v) != 0)
                goto done;
            held_drop(&held, sig_val[g]);
            sig_val[g] = v;
        }
        from[i] = w.bound[i];
        to[i] = w.bound[i + 1] - 1;
        start[i] = total;
        if (total + ns > cap) {
            cap = 2 * (total + ns) + 16;
            gcsim_flow_class *grown = realloc(all, sizeof *all * (size_t)cap);
            if (!grown)
                goto done;
            all = grown;
        }
        for (int x = 0; x < held.n_live; x++) {
            gcsim_flow_class c = vt.vals[held.live[x]];
            c.first = from[i];
            c.last = to[i];
            all[total++] = c;
        }
    }
    start[ni] = total;
    if (tree_schedule_fill(s, tt, chunks, w.n_st, &all, total, ni, &from, &to, &start) != 0)
        goto done;
    rc = 0;
done:
    free(all);
    free(from);
    free(to);
    free(start);
    free(load);
    free(sig_val);
    tree_walk_free(&w);
    tree_values_free(&vt);
    held_free(&held);
    return rc;
}

int tree_schedule_fill(gcsim_schedule *s, const gcsim_tree_template *tt, int chunks, int n_st,
                       gcsim_flow_class **classes, int n_classes, int n_intervals, int **from,
                       int **to, int **start)
{
    gcsim_phase *ph = calloc(1, sizeof *ph);
    if (!ph)
        return -1;
    memset(s, 0, sizeof *s);
    s->collective = tt->collective;
    s->chunks = chunks;
    s->endpoints = tt->gpus;
    s->decodes = 1;
    s->n_phases = 1;
    s->phases = ph;
    strncpy(ph->name, "tree", sizeof ph->name - 1);
    ph->steps = tt->omax + chunks;
    ph->dk = 0;
    ph->reduce = true;
    ph->n_flows = n_st;
    size_t kept = (size_t)(n_classes > 0 ? n_classes : 1);
    gcsim_flow_class *fit = realloc(*classes, sizeof **classes * kept);
    ph->classes = fit ? fit : *classes;
    ph->n_classes = n_classes;
    ph->n_intervals = n_intervals;
    ph->interval_from = *from;
    ph->interval_to = *to;
    ph->interval_class = *start;
    *classes = NULL;
    *from = *to = *start = NULL;
    return 0;
}
