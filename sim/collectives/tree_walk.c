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
        out[(*n)++] = (tree_stretch){f[0].o, f[0].o + chunks - 1, 1, 0.0 + share,
                                     tree_fmax_as_libm(0.0, f[0].k0)};
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
            k0 = tree_fmax_as_libm(k0, f[x].k0);
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

/* tree_values_id's body, inlined into the walk's loop (a call per changed class was a fifth
 * of a walk with its hash) */
static inline int values_id(tree_values *v, const gcsim_flow_class *c);

int tree_values_id(tree_values *v, const gcsim_flow_class *c)
{
    return values_id(v, c);
}

static inline int values_id(tree_values *v, const gcsim_flow_class *c)
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
    if (w->kept)
        return; /* the thread's scratch */
    free(w->st);
    free(w->st_index);
    free(w->cur);
    free(w->bound);
    free(w->state);
    free(w->lstamp);
    free(w->dl);
    free(w->gstamp);
    free(w->dg);
    free(w->ev_block);
}

/* ---- scratch kept per thread for tree_walk_prepare ----
 * A sweep prepares tens of thousands of chunk counts, each of which allocated and freed
 * about twenty arrays (malloc and free were a fifth of a walk's time): the walk's arrays,
 * the loads, the class values and the held set now live in one scratch per thread that
 * only grows (released by tree_walk_scratch_release). Nothing in them carries over from
 * one chunk count to the next but their capacity: every array is set before it is read. */
enum {
    SC_ST, SC_ST_INDEX, SC_CUR, SC_BOUND, SC_STATE, SC_LSTAMP, SC_DL, SC_GSTAMP, SC_DG,
    SC_MARK, SC_LOAD, SC_SIG_VAL, SC_EV, SC_N
};

typedef struct {
    void *p[SC_N];
    size_t cap[SC_N];
    tree_values vt; /* vals and stamp grow; slot reset per use */
    int *h_count, *h_at, *h_live, h_cap; /* held_values' arrays (h_count all 0 between uses) */
    int last_total; /* the last walk's classes: the next one's first guess */
} walk_scratch;

static _Thread_local walk_scratch scratch;

/* scratch array `which` with room for `bytes`, its contents undefined; NULL when out of
 * memory (the old array kept). */
static void *scratch_get(int which, size_t bytes)
{
    if (bytes == 0)
        bytes = 1;
    if (scratch.cap[which] < bytes) {
        size_t cap = bytes + bytes / 2;
        void *p = malloc(cap);
        if (!p)
            return NULL;
        free(scratch.p[which]);
        scratch.p[which] = p;
        scratch.cap[which] = cap;
    }
    return scratch.p[which];
}

void tree_walk_scratch_release(void)
{
    for (int k = 0; k < SC_N; k++)
        free(scratch.p[k]);
    tree_values_free(&scratch.vt);
    free(scratch.h_count);
    free(scratch.h_at);
    free(scratch.h_live);
    memset(&scratch, 0, sizeof scratch);
}

/* Per interval, the pair kinds whose merged flow may change there (a stretch of theirs
 * starts at the interval's first step or ends at the step before), ascending:
 * ev_kind[ev_first[i] .. ev_first[i + 1]). A kind's flow in an interval is the stretch
 * holding its first step, so from one interval to the next it changes only at such a
 * bound: tree_walk_interval visits these kinds instead of every kind, in the same order
 * (interval 0 visits every kind). -1 when out of memory. */
static int kind_events(tree_walk *w, bool kept)
{
    int nk = w->tt->n_kinds, ni = w->n_intervals, steps = w->steps;
    /* one block: ev_first (ni + 2), ev_kind (2 n_st + 1), then scratch: iv (steps + 1),
     * fill (ni + 1), last (ni + 1) */
    size_t n_ints = (size_t)ni + 2 + 2 * (size_t)w->n_st + 1 + (size_t)steps + 1 +
                    2 * ((size_t)ni + 1);
    int *block = kept ? scratch_get(SC_EV, sizeof(int) * n_ints) : malloc(sizeof(int) * n_ints);
    if (!block)
        return -1;
    if (!kept)
        w->ev_block = block;
    int *first = block, *kind = first + ni + 2, *iv = kind + 2 * w->n_st + 1,
        *fill = iv + steps + 1, *last = fill + ni + 1;
    w->ev_first = first;
    w->ev_kind = kind;
    for (int j = 0; j <= ni; j++)
        iv[w->bound[j]] = j;
    for (int j = 0; j <= ni + 1; j++)
        first[j] = 0;
    for (int j = 0; j <= ni; j++)
        last[j] = -1;
    for (int pass = 0; pass < 2; pass++) {
        for (int k = 0; k < nk; k++)
            for (int q = w->st_index[k]; q < w->st_index[k + 1]; q++) {
                int at[2] = {w->st[q].from, w->st[q].to + 1};
                for (int e = 0; e < 2; e++) {
                    if (at[e] <= 0 || at[e] >= steps)
                        continue; /* interval 0 visits every kind; none starts at `steps` */
                    int j = iv[at[e]];
                    if (last[j] == k)
                        continue;
                    last[j] = k;
                    if (pass == 0)
                        first[j + 1]++;
                    else
                        kind[fill[j]++] = k;
                }
            }
        if (pass == 0) {
            for (int j = 0; j <= ni; j++)
                first[j + 1] += first[j];
            for (int j = 0; j <= ni; j++) {
                fill[j] = first[j];
                last[j] = -1;
            }
        }
    }
    return 0;
}

static int walk_init(tree_walk *w, const gcsim_tree_template *tt, int chunks, bool kept,
                     bool by_deps)
{
    int nk = tt->n_kinds, nlk = tt->n_links, ns = tt->n_sigs, steps = tt->omax + chunks;
    size_t nkf = (size_t)(tt->n_kind_flows > 0 ? tt->n_kind_flows : 1);
    memset(w, 0, sizeof *w);
    w->tt = tt;
    w->chunks = chunks;
    w->steps = steps;
    w->kept = kept;
    w->by_deps = by_deps;
    w->share = 1.0 / ((double)tt->rails * tt->per_rail * chunks);
    size_t b_st = sizeof *w->st * 2 * nkf, b_k = sizeof(int) * ((size_t)nk + 1),
           b_bound = sizeof(int) * (2 * nkf + (size_t)steps + 2),
           b_l = sizeof(int) * ((size_t)nlk + 1), b_s = sizeof(int) * ((size_t)ns + 1);
    char *mark;
    if (kept) {
        w->st = scratch_get(SC_ST, b_st);
        w->st_index = scratch_get(SC_ST_INDEX, b_k);
        w->cur = scratch_get(SC_CUR, b_k);
        w->bound = scratch_get(SC_BOUND, b_bound);
        w->state = scratch_get(SC_STATE, b_k);
        w->lstamp = scratch_get(SC_LSTAMP, b_l);
        w->dl = scratch_get(SC_DL, b_l);
        w->gstamp = scratch_get(SC_GSTAMP, b_s);
        w->dg = scratch_get(SC_DG, b_s);
        mark = scratch_get(SC_MARK, (size_t)steps + 1);
        if (mark)
            memset(mark, 0, (size_t)steps + 1);
        if (!w->st || !w->st_index || !w->cur || !w->bound || !w->state || !w->lstamp ||
            !w->dl || !w->gstamp || !w->dg || !mark)
            return -1;
    } else {
        w->st = malloc(b_st);
        w->st_index = malloc(b_k);
        w->cur = malloc(b_k);
        w->bound = malloc(b_bound);
        w->state = malloc(b_k);
        w->lstamp = malloc(b_l);
        w->dl = malloc(b_l);
        w->gstamp = malloc(b_s);
        w->dg = malloc(b_s);
        mark = calloc((size_t)steps + 1, 1);
        if (!w->st || !w->st_index || !w->cur || !w->bound || !w->state || !w->lstamp ||
            !w->dl || !w->gstamp || !w->dg || !mark) {
            free(mark);
            return -1;
        }
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
        if (!kept)
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
    if (!kept)
        free(mark);
    w->n_intervals = nb - 1;
    for (int l = 0; l < nlk; l++)
        w->lstamp[l] = -1;
    for (int g = 0; g < ns; g++)
        w->gstamp[g] = -1;
    return kind_events(w, kept);
}

int tree_walk_init(tree_walk *w, const gcsim_tree_template *tt, int chunks)
{
    return walk_init(w, tt, chunks, false, false);
}

void tree_walk_interval(tree_walk *w, int i)
{
    const gcsim_tree_template *tt = w->tt;
    int s0 = w->bound[i];
    w->n_dl = w->n_dg = 0;
    int e0 = i == 0 ? 0 : w->ev_first[i], e1 = i == 0 ? tt->n_kinds : w->ev_first[i + 1];
    const tree_stretch *st = w->st;
    const int *st_index = w->st_index, *ev_kind = w->ev_kind;
    int *cur = w->cur, *state = w->state;
    for (int e = e0; e < e1; e++) {
        int k = i == 0 ? e : ev_kind[e], c = cur[k], end = st_index[k + 1];
        while (c < end && st[c].to < s0)
            c++;
        cur[k] = c;
        int now = c < end && st[c].from <= s0 ? c : -1;
        if (now == state[k])
            continue;
        state[k] = now;
        w->n_dl = list_once(tt->kind_link, tt->kind_link_first[k], tt->kind_link_first[k + 1], i,
                            w->lstamp, w->dl, w->n_dl);
        if (w->by_deps)
            w->n_dg = list_once(tt->kind_dep, tt->kind_dep_first[k], tt->kind_dep_first[k + 1],
                                i, w->gstamp, w->dg, w->n_dg);
        else
            w->n_dg = list_once(tt->kind_sig, tt->kind_sig_first[k], tt->kind_sig_first[k + 1],
                                i, w->gstamp, w->dg, w->n_dg);
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
    return tree_walk_prepare_with(tt, chunks, s, true);
}

int tree_walk_prepare_with(const gcsim_tree_template *tt, int chunks, gcsim_schedule *s,
                           bool by_deps)
{
    int nlk = tt->n_links, ns = tt->n_sigs;
    tree_walk w;
    double *load = scratch_get(SC_LOAD, sizeof(double) * ((size_t)nlk + 1));
    int *sig_val = scratch_get(SC_SIG_VAL, sizeof(int) * ((size_t)ns + 1));
    /* the class values and the held set from the scratch, emptied (their ids start at 0 as
     * in a fresh table: the same ids in the same order) */
    tree_values *vt = &scratch.vt;
    vt->n = 0;
    if (vt->slot && vt->mask + 1 > 4096) { /* a large walk's table: not cleared each time */
        free(vt->slot);
        vt->slot = NULL;
    }
    if (vt->slot)
        memset(vt->slot, 0xff, sizeof(int) * (vt->mask + 1));
    held_values held = {scratch.h_count, NULL, NULL, 0, scratch.h_cap};
    held.at = scratch.h_at;
    held.live = scratch.h_live;
    /* The schedule's own arrays, written in place: the intervals' of their size, the
     * classes' grown as needed from the last walk's count (then cut to fit by
     * tree_schedule_fill); copying them from the scratch was 1% of a sweep's walks. */
    int rc = -1, ni = 0, total = 0, cap = 0, *from = NULL, *to = NULL, *start = NULL;
    gcsim_flow_class *all = NULL;
    if (walk_init(&w, tt, chunks, true, by_deps) != 0 || !load || !sig_val)
        goto done;
    if (!w.windowed || w.n_st == 0) {
        rc = 1;
        goto done;
    }
    ni = w.n_intervals;
    from = malloc(sizeof(int) * (size_t)(ni > 0 ? ni : 1));
    to = malloc(sizeof(int) * (size_t)(ni > 0 ? ni : 1));
    start = malloc(sizeof(int) * (size_t)(ni + 1));
    cap = scratch.last_total + scratch.last_total / 4 + ns + 16;
    all = malloc(sizeof *all * (size_t)cap);
    if (!from || !to || !start || !all)
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
            if (!w.by_deps) /* by_deps: its flow kinds are in dg already */
                tree_walk_load_changed(&w, l, i);
        }
        int last_v = -1;
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
            if (sig_val[g] >= 0 && tree_same_value(&vt->vals[sig_val[g]], &c))
                continue; /* the value it had: its id stays */
            /* the value the flow kind before it took, often the same (one bottleneck
             * link's part), else the table's */
            int v = last_v >= 0 && tree_same_value(&vt->vals[last_v], &c) ? last_v
                                                                           : values_id(vt, &c);
            last_v = v;
            if (v < 0 || held_add(&held, v) != 0)
                goto done;
            held_drop(&held, sig_val[g]);
            sig_val[g] = v;
        }
        from[i] = w.bound[i];
        to[i] = w.bound[i + 1] - 1;
        start[i] = total;
        if (total + ns > cap) {
            int want = 2 * (total + ns) + 16;
            gcsim_flow_class *grown = realloc(all, sizeof *all * (size_t)want);
            if (!grown)
                goto done;
            all = grown;
            cap = want;
        }
        for (int x = 0; x < held.n_live; x++) {
            gcsim_flow_class c = vt->vals[held.live[x]];
            c.first = from[i];
            c.last = to[i];
            all[total++] = c;
        }
    }
    start[ni] = total;
    scratch.last_total = total;
    if (tree_schedule_fill(s, tt, chunks, w.n_st, &all, total, ni, &from, &to, &start) != 0)
        goto done;
    rc = 0;
done:
    free(all); /* NULL once handed over */
    free(from);
    free(to);
    free(start);
    /* the held set back to empty (every count 0) for the next chunk count */
    for (int x = 0; x < held.n_live; x++)
        held.count[held.live[x]] = 0;
    scratch.h_count = held.count;
    scratch.h_at = held.at;
    scratch.h_live = held.live;
    scratch.h_cap = held.cap;
    tree_walk_free(&w);
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
    ph->intervals_exact = true; /* both forms give each class its interval's window */
    *classes = NULL;
    *from = *to = *start = NULL;
    return 0;
}
