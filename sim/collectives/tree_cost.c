/*
 * sim/collectives/tree_cost.c: pipelined trees prepared for a chunk count from a template
 * (tree_cost.h).
 *
 * Every number is computed as schedule.c's merge_pairs and schedule_cost.c's
 * sweep_windowed compute it, in the same order: a merged flow's share is the sum of its
 * pair's active flows' shares in flow order; a link's load the sum of the active merged
 * flows crossing it in flow order (at most one per pair in a step, and pairs are in flow
 * order); a flow's bandwidth the minimum over its route of capacity x (share / load).
 *
 * What the template adds is kinds, found once per topology, so that a chunk count costs
 * each kind once however many GPUs there are:
 *   - a pair kind: GPU pairs whose flows have the same offsets and sums in the same order
 *     (they merge into the same stretches for every chunk count);
 *   - a link kind: links of the same capacity crossed by pairs of the same kinds in the
 *     same order (the same load, to the bit, in every step);
 *   - a flow kind: pairs of one kind with the same route latency and links of the same
 *     kinds along their route (the same class in every step).
 * The trees repeat over nodes and rails, so the kinds grow with the depth of the trees,
 * not with the GPU count. In a step, the classes are the distinct (latency, bandwidth,
 * share, sums) of the active flow kinds, without windows, which in a tree phase (no growth
 * per step: dk = 0) change nothing: a step costs the largest of its classes, and the codec
 * the largest share, so an interval lists them in no particular order.
 *
 * Chunk counts above the deepest offset share one structure and are prepared from the
 * template's steady form (tree_steady.c); smaller ones by walking their intervals here.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slot_table.h"
#include "tree_internal.h"

void gcsim_tree_template_free(gcsim_tree_template *tt)
{
    if (!tt)
        return;
    free(tt->kind_first);
    free(tt->kind_count);
    free(tt->flows);
    free(tt->link_cap);
    free(tt->link_first);
    free(tt->link_seq);
    free(tt->sig_lat);
    free(tt->sig_kind);
    free(tt->sig_nl);
    free(tt->sig_links);
    free(tt->kind_link_first);
    free(tt->kind_link);
    free(tt->kind_sig_first);
    free(tt->kind_sig);
    free(tt->link_sig_first);
    free(tt->link_sig);
    tree_steady_free(tt->steady);
    free(tt);
}

double gcsim_tree_template_bytes(const gcsim_tree_template *tt)
{
    return sizeof *tt + (2 * sizeof(int)) * (double)tt->n_kinds +
           sizeof(tree_flow) * (double)tt->n_kind_flows +
           (sizeof(double) + sizeof(int)) * (double)(tt->n_links + 1) +
           sizeof(int) * (double)tt->link_first[tt->n_links] +
           (sizeof(double) + (2 + GCSIM_ROUTE_MAX_LINKS) * sizeof(int)) * (double)tt->n_sigs +
           sizeof(int) * ((double)tt->n_kinds + 1 + tt->kind_link_first[tt->n_kinds] +
                          tt->n_kinds + 1 + tt->kind_sig_first[tt->n_kinds] + tt->n_links + 1 +
                          tt->link_sig_first[tt->n_links]) +
           tree_steady_bytes(tt->steady);
}

/* ---- interning sequences of ints ---- */

static uint64_t seq_hash(const int *v, int n)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < n; i++) {
        h ^= (uint64_t)(uint32_t)v[i];
        h *= 1099511628211ull;
        h ^= h >> 29;
    }
    return h;
}

void tree_intern_free(tree_intern *t)
{
    free(t->data);
    free(t->off);
    free(t->len);
    free(t->slot);
}

static size_t intern_hash(const void *entries, int k)
{
    const tree_intern *t = entries;
    return seq_hash(t->data + t->off[k], t->len[k]);
}

static int intern_rehash(tree_intern *t, size_t cap)
{
    int *slot = gcsim_slot_table(cap, t->n, intern_hash, t);
    if (!slot)
        return -1;
    free(t->slot);
    t->slot = slot;
    t->mask = cap - 1;
    return 0;
}

int tree_intern_id(tree_intern *t, const int *v, int n)
{
    if (!t->slot && intern_rehash(t, 256))
        return -1;
    size_t i = seq_hash(v, n) & t->mask;
    for (; t->slot[i] >= 0; i = (i + 1) & t->mask) {
        int k = t->slot[i];
        if (t->len[k] == n &&
            (n == 0 || memcmp(t->data + t->off[k], v, sizeof(int) * (size_t)n) == 0))
            return k;
    }
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        int *off = realloc(t->off, sizeof(int) * (size_t)cap);
        if (off)
            t->off = off;
        int *len = realloc(t->len, sizeof(int) * (size_t)cap);
        if (len)
            t->len = len;
        if (!off || !len)
            return -1;
        t->cap = cap;
    }
    if (t->n_data + (size_t)n > t->cap_data) {
        size_t cap = 2 * (t->n_data + (size_t)n) + 256;
        int *data = realloc(t->data, sizeof(int) * cap);
        if (!data)
            return -1;
        t->data = data;
        t->cap_data = cap;
    }
    if (n > 0) /* an empty sequence may come before any data */
        memcpy(t->data + t->n_data, v, sizeof(int) * (size_t)n);
    int k = t->n++;
    t->off[k] = (int)t->n_data;
    t->len[k] = n;
    t->n_data += (size_t)n;
    t->slot[i] = k;
    if (2 * (size_t)t->n > t->mask + 1 && intern_rehash(t, 2 * (t->mask + 1)))
        return -1;
    return k;
}

void tree_put_double(int *v, double x)
{
    uint64_t u;
    x += 0.0;
    memcpy(&u, &x, sizeof u);
    v[0] = (int)(uint32_t)(u >> 32);
    v[1] = (int)(uint32_t)u;
}

double tree_get_double(const int *v)
{
    uint64_t u = (uint64_t)(uint32_t)v[0] << 32 | (uint32_t)v[1];
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* ---- the template ---- */

typedef struct {
    int src, dst, first, count, kind, n_links;
    int links[GCSIM_ROUTE_MAX_LINKS];
    double latency_s;
} tree_pair;

/* Pairs (with routes and kinds) of the raw flows; the template's flows and kinds filled.
 * Returns the pairs (*n_pairs), or NULL when out of memory. */
static tree_pair *pairs_of(gcsim_tree_template *tt, const gcsim_topology *t,
                           const gcsim_flow *raw, int n_raw, int *n_pairs)
{
    tree_pair *pairs = malloc(sizeof *pairs * (size_t)(n_raw > 0 ? n_raw : 1));
    int *key = malloc(sizeof(int) * (3 * (size_t)n_raw + 1));
    tree_intern kinds = {0};
    int np = 0;
    if (!pairs || !key)
        goto fail;
    for (int f = 0; f < n_raw; f++) {
        if (raw[f].first_step > tt->omax)
            tt->omax = raw[f].first_step;
        if (f == 0 || raw[f].src != raw[f - 1].src || raw[f].dst != raw[f - 1].dst) {
            tree_pair *p = &pairs[np++];
            p->src = raw[f].src;
            p->dst = raw[f].dst;
            p->first = f;
            p->count = 0;
            p->n_links = gcsim_topology_route(t, p->src, p->dst, p->links, &p->latency_s);
        }
        pairs[np - 1].count++;
    }
    for (int p = 0; p < np; p++) {
        int n = 0;
        for (int f = pairs[p].first; f < pairs[p].first + pairs[p].count; f++) {
            key[n++] = raw[f].first_step;
            tree_put_double(key + n, raw[f].k0);
            n += 2;
        }
        if ((pairs[p].kind = tree_intern_id(&kinds, key, n)) < 0)
            goto fail;
    }
    tt->n_kinds = kinds.n;
    tt->kind_first = malloc(sizeof(int) * (size_t)(kinds.n + 1));
    tt->kind_count = malloc(sizeof(int) * (size_t)(kinds.n + 1));
    tt->flows = malloc(sizeof(tree_flow) * (kinds.n_data / 3 + 1));
    if (!tt->kind_first || !tt->kind_count || !tt->flows)
        goto fail;
    for (int k = 0; k < kinds.n; k++) {
        tt->kind_first[k] = tt->n_kind_flows;
        tt->kind_count[k] = kinds.len[k] / 3;
        for (int x = 0; x < kinds.len[k]; x += 3) {
            const int *v = kinds.data + kinds.off[k] + x;
            tt->flows[tt->n_kind_flows++] = (tree_flow){v[0], tree_get_double(v + 1)};
        }
    }
    tree_intern_free(&kinds);
    free(key);
    *n_pairs = np;
    return pairs;
fail:
    tree_intern_free(&kinds);
    free(key);
    free(pairs);
    return NULL;
}

/* Link kinds (of the links some pair crosses) and flow kinds; -1 when out of memory. */
static int kinds_of(gcsim_tree_template *tt, const gcsim_topology *t, const tree_pair *pairs,
                    int np)
{
    int nl = t->n_links, rc = -1;
    int *index = calloc((size_t)nl + 1, sizeof(int)), *fill = NULL, *cross = NULL;
    int *kind_of_link = malloc(sizeof(int) * ((size_t)nl + 1)), *key = NULL;
    tree_intern links = {0}, sigs = {0};
    if (!index || !kind_of_link)
        goto done;
    for (int p = 0; p < np; p++)
        for (int k = 0; k < pairs[p].n_links; k++)
            index[pairs[p].links[k] + 1]++;
    int longest = 0;
    for (int l = 0; l < nl; l++) {
        if (index[l + 1] > longest)
            longest = index[l + 1];
        index[l + 1] += index[l];
    }
    fill = malloc(sizeof(int) * ((size_t)nl + 1));
    cross = malloc(sizeof(int) * ((size_t)index[nl] + 1));
    key = malloc(sizeof(int) * ((size_t)longest + 2 * GCSIM_ROUTE_MAX_LINKS + 4));
    if (!fill || !cross || !key)
        goto done;
    memcpy(fill, index, sizeof(int) * (size_t)nl);
    for (int p = 0; p < np; p++)
        for (int k = 0; k < pairs[p].n_links; k++)
            cross[fill[pairs[p].links[k]]++] = pairs[p].kind;
    for (int l = 0; l < nl; l++) {
        kind_of_link[l] = -1;
        if (index[l + 1] == index[l])
            continue;
        tree_put_double(key, gcsim_topology_capacity_Bps(t, l));
        int n = index[l + 1] - index[l];
        memcpy(key + 2, cross + index[l], sizeof(int) * (size_t)n);
        if ((kind_of_link[l] = tree_intern_id(&links, key, n + 2)) < 0)
            goto done;
    }
    for (int p = 0; p < np; p++) {
        tree_put_double(key, pairs[p].latency_s);
        key[2] = pairs[p].kind;
        for (int k = 0; k < pairs[p].n_links; k++)
            key[3 + k] = kind_of_link[pairs[p].links[k]];
        if (tree_intern_id(&sigs, key, 3 + pairs[p].n_links) < 0)
            goto done;
    }
    tt->n_links = links.n;
    tt->link_cap = malloc(sizeof(double) * (size_t)(links.n + 1));
    tt->link_first = malloc(sizeof(int) * (size_t)(links.n + 1));
    tt->link_seq = malloc(sizeof(int) * (links.n_data + 1));
    tt->n_sigs = sigs.n;
    tt->sig_lat = malloc(sizeof(double) * (size_t)(sigs.n + 1));
    tt->sig_kind = malloc(sizeof(int) * (size_t)(sigs.n + 1));
    tt->sig_nl = malloc(sizeof(int) * (size_t)(sigs.n + 1));
    tt->sig_links = malloc(sizeof(int) * GCSIM_ROUTE_MAX_LINKS * (size_t)(sigs.n + 1));
    if (!tt->link_cap || !tt->link_first || !tt->link_seq || !tt->sig_lat || !tt->sig_kind ||
        !tt->sig_nl || !tt->sig_links)
        goto done;
    int w = 0;
    for (int k = 0; k < links.n; k++) {
        const int *v = links.data + links.off[k];
        tt->link_cap[k] = tree_get_double(v);
        tt->link_first[k] = w;
        for (int x = 2; x < links.len[k]; x++)
            tt->link_seq[w++] = v[x];
    }
    tt->link_first[links.n] = w;
    for (int k = 0; k < sigs.n; k++) {
        const int *v = sigs.data + sigs.off[k];
        tt->sig_lat[k] = tree_get_double(v);
        tt->sig_kind[k] = v[2];
        tt->sig_nl[k] = sigs.len[k] - 3;
        for (int x = 3; x < sigs.len[k]; x++)
            tt->sig_links[k * GCSIM_ROUTE_MAX_LINKS + x - 3] = v[x];
    }
    rc = 0;
done:
    tree_intern_free(&links);
    tree_intern_free(&sigs);
    free(index);
    free(fill);
    free(cross);
    free(kind_of_link);
    free(key);
    return rc;
}

/* A CSR list's two arrays: first[0 .. n_owners] zeroed, room for n_items items. */
static int csr_alloc(int **first, int **items, int n_owners, int n_items)
{
    *first = calloc((size_t)n_owners + 1, sizeof(int));
    *items = malloc(sizeof(int) * ((size_t)n_items + 1));
    return *first && *items ? 0 : -1;
}

/* The template's dependents lists (kind_link, kind_sig, link_sig); -1 when out of memory. */
static int dependents_of(gcsim_tree_template *tt)
{
    int nk = tt->n_kinds, nl = tt->n_links, ns = tt->n_sigs, n_seq = tt->link_first[nl];
    int n_route = 0;
    for (int g = 0; g < ns; g++)
        n_route += tt->sig_nl[g];
    int *fill = malloc(sizeof(int) * ((size_t)(nk > nl ? nk : nl) + 1));
    if (!fill || csr_alloc(&tt->kind_link_first, &tt->kind_link, nk, n_seq) ||
        csr_alloc(&tt->kind_sig_first, &tt->kind_sig, nk, ns) ||
        csr_alloc(&tt->link_sig_first, &tt->link_sig, nl, n_route)) {
        free(fill);
        return -1;
    }
    for (int l = 0; l < nl; l++)
        for (int j = tt->link_first[l]; j < tt->link_first[l + 1]; j++)
            tt->kind_link_first[tt->link_seq[j] + 1]++;
    for (int g = 0; g < ns; g++) {
        tt->kind_sig_first[tt->sig_kind[g] + 1]++;
        for (int q = 0; q < tt->sig_nl[g]; q++)
            tt->link_sig_first[tt->sig_links[g * GCSIM_ROUTE_MAX_LINKS + q] + 1]++;
    }
    for (int k = 0; k < nk; k++) {
        tt->kind_link_first[k + 1] += tt->kind_link_first[k];
        tt->kind_sig_first[k + 1] += tt->kind_sig_first[k];
    }
    for (int l = 0; l < nl; l++)
        tt->link_sig_first[l + 1] += tt->link_sig_first[l];
    memcpy(fill, tt->kind_link_first, sizeof(int) * (size_t)nk);
    for (int l = 0; l < nl; l++)
        for (int j = tt->link_first[l]; j < tt->link_first[l + 1]; j++)
            tt->kind_link[fill[tt->link_seq[j]]++] = l;
    memcpy(fill, tt->kind_sig_first, sizeof(int) * (size_t)nk);
    for (int g = 0; g < ns; g++)
        tt->kind_sig[fill[tt->sig_kind[g]]++] = g;
    memcpy(fill, tt->link_sig_first, sizeof(int) * (size_t)nl);
    for (int g = 0; g < ns; g++)
        for (int q = 0; q < tt->sig_nl[g]; q++) {
            int l = tt->sig_links[g * GCSIM_ROUTE_MAX_LINKS + q];
            tt->link_sig[fill[l]++] = g;
        }
    free(fill);
    return 0;
}

gcsim_tree_template *gcsim_tree_template_new(const gcsim_topology *t, gcsim_collective c)
{
    gcsim_tree_template *tt = calloc(1, sizeof *tt);
    gcsim_flow *raw = NULL;
    tree_pair *pairs = NULL;
    int n_raw = 0, np = 0;
    if (!tt)
        return NULL;
    tt->collective = c;
    tt->gpus = t->gpus;
    tt->per_rail = c == COLLECTIVE_DOUBLE_TREE ? 2 : 1;
    tt->rails = t->nodes > 1 ? t->nics_per_node : 1;
    if (gcsim_tree_raw_flows(t, tt->per_rail, &raw, &n_raw) ||
        !(pairs = pairs_of(tt, t, raw, n_raw, &np)) || kinds_of(tt, t, pairs, np) ||
        dependents_of(tt)) {
        free(raw);
        free(pairs);
        gcsim_tree_template_free(tt);
        return NULL;
    }
    tt->n_raw = n_raw;
    free(raw);
    free(pairs);
    return tt;
}

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
static int walk_prepare(const gcsim_tree_template *tt, int chunks, gcsim_schedule *s)
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

int gcsim_tree_template_prepare(gcsim_tree_template *tt, int chunks, gcsim_schedule *s)
{
    if (chunks < 1)
        chunks = 1;
    if (chunks > tt->omax && !tt->steady_failed) {
        if (!tt->steady && !(tt->steady = tree_steady_build(tt, chunks)))
            tt->steady_failed = true; /* out of memory: the walk still works */
        if (tt->steady)
            return tree_steady_prepare(tt->steady, tt, chunks, s);
    }
    return walk_prepare(tt, chunks, s);
}
