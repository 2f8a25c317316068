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
 * template's steady form (tree_steady.c); smaller ones by walking their intervals
 * (tree_walk.c). Both use the interned sequences of tree_intern.c. This file builds the
 * template and picks the form, so that no two of these files call each other. The kinds
 * come from one node per role (tree_classes.c: at 2^20 GPUs 0.4 CPU-s and 54 MiB for the
 * whole predict, where listing every GPU's pairs took 4 CPU-s and 420 MiB); listing every
 * sender's pairs from the trees' shape (tree_sender.c) is the fallback for a topology a
 * role does not fix and test_tree_classes' reference, and building them from the sorted
 * raw flows of every tree (gcsim_tree_raw_flows) test_tree_sender's
 * (gcsim_tree_template_new_from_flows).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol.h"
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
    free(tt->link_rep);
    free(tt->link_scaled);
    free(tt->sig_src);
    free(tt->sig_dst);
    free(tt->sig_kind);
    free(tt->sig_nl);
    free(tt->sig_links);
    free(tt->kind_link_first);
    free(tt->kind_link);
    free(tt->kind_sig_first);
    free(tt->kind_sig);
    free(tt->link_sig_first);
    free(tt->link_sig);
    free(tt->kind_dep_first);
    free(tt->kind_dep);
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
                          tt->link_sig_first[tt->n_links] + tt->n_kinds + 1 +
                          tt->kind_dep_first[tt->n_kinds]) +
           tree_steady_bytes(tt->steady);
}

/* ---- the template ---- */

/* A GPU pair of the reference path (pairs_of): its run of raw flows and kind. */
typedef struct {
    int src, dst, first, count, kind;
} tree_pair;

/* The pairs in flow order as kinds_of needs them: kind, route latency and links (at
 * links[at .. at + n_links)). 6.3 million pairs at 2^20 GPUs on a100-hdr: 24 bytes and
 * their few links each, where a pair with room for the longest route took 80. */
typedef struct {
    int src, dst; /* a flow kind's first pair is where its latency is found again */
    int kind, n_links, at;
    bool in_node; /* both GPUs on one node */
} pair_route;

typedef struct {
    pair_route *v;
    int n, cap;
    int *links;
    size_t n_links, cap_links;
} pair_list;

static void pair_list_free(pair_list *pl)
{
    free(pl->v);
    free(pl->links);
}

/* Appends the pair src -> dst of kind `kind` with its route; -1 when out of memory. */
static int pair_add(pair_list *pl, const gcsim_topology *t, int src, int dst, int kind)
{
    if (pl->n == pl->cap) {
        int cap = pl->cap ? 2 * pl->cap : 1024;
        pair_route *grown = realloc(pl->v, sizeof *grown * (size_t)cap);
        if (!grown)
            return -1;
        pl->v = grown;
        pl->cap = cap;
    }
    if (pl->n_links + GCSIM_ROUTE_MAX_LINKS > pl->cap_links) {
        size_t cap = 2 * pl->cap_links + 4 * GCSIM_ROUTE_MAX_LINKS;
        int *grown = realloc(pl->links, sizeof(int) * cap);
        if (!grown)
            return -1;
        pl->links = grown;
        pl->cap_links = cap;
    }
    pair_route *p = &pl->v[pl->n++];
    p->src = src;
    p->dst = dst;
    p->kind = kind;
    p->in_node = src / t->gpus_per_node == dst / t->gpus_per_node;
    p->at = (int)pl->n_links;
    double latency_s;
    p->n_links = gcsim_topology_route(t, src, dst, pl->links + pl->n_links, &latency_s);
    pl->n_links += (size_t)p->n_links;
    return 0;
}

/* Pairs (with routes and kinds) of the raw flows; the template's flows and kinds filled.
 * Returns the pairs (*n_pairs), or NULL when out of memory. */
static int pairs_of(gcsim_tree_template *tt, const gcsim_topology *t, const gcsim_flow *raw,
                    int n_raw, pair_list *pl)
{
    /* One pair per run of flows between the same two GPUs: counted first, since a pair
     * carries its route (GCSIM_ROUTE_MAX_LINKS links) and the raw flows outnumber the
     * pairs many times at 2^20 GPUs (cli.huge_counts runs there in 4 GiB). */
    int n_runs = 0;
    for (int f = 0; f < n_raw; f++)
        if (f == 0 || raw[f].src != raw[f - 1].src || raw[f].dst != raw[f - 1].dst)
            n_runs++;
    tree_pair *pairs = malloc(sizeof *pairs * (size_t)(n_runs > 0 ? n_runs : 1));
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
    if (tree_template_keep_kinds(tt, &kinds) != 0)
        goto fail;
    for (int p = 0; p < np; p++)
        if (pair_add(pl, t, pairs[p].src, pairs[p].dst, pairs[p].kind) != 0)
            goto fail;
    tree_intern_free(&kinds);
    free(key);
    free(pairs);
    return 0;
fail:
    tree_intern_free(&kinds);
    free(key);
    free(pairs);
    return -1;
}

/* A one-entry cache in front of tree_intern_id: the id of the last key seen in a slot, for
 * keys that repeat one after another (the same GPU of consecutive nodes, the same link of
 * consecutive nodes, pairs of one kind): one compare instead of a hash. The id is the one
 * tree_intern_id gives (ids are by content), so nothing depends on hits. */
enum { RECENT_KEY_MAX = 64 };
typedef struct {
    int len, id;
    int key[RECENT_KEY_MAX];
} recent_key;

/* a[0 .. n) == b[0 .. n): inlined, the keys are a few ints (memcmp's call cost more) */
static bool same_ints(const int *a, const int *b, int n)
{
    for (int x = 0; x < n; x++)
        if (a[x] != b[x])
            return false;
    return true;
}

static int intern_recent(tree_intern *t, recent_key *r, const int *v, int n)
{
    if (r->len == n && same_ints(r->key, v, n))
        return r->id;
    int id = tree_intern_id(t, v, n);
    if (id >= 0 && n <= RECENT_KEY_MAX) {
        r->len = n;
        r->id = id;
        memcpy(r->key, v, sizeof(int) * (size_t)n);
    }
    return id;
}

/* pairs_of without the raw flows: each sender's flows from the trees' shape
 * (tree_sender.c), already in flow order, so the pairs, their flows and the kinds come in
 * the order the sorted raw flows gave them. */
static int pairs_of_shape(gcsim_tree_template *tt, const gcsim_topology *t, pair_list *pl)
{
    tree_shape_form *sf = tree_shape_new(t, tt->per_rail);
    tree_sender_flow *out = sf ? malloc(sizeof *out * (size_t)tree_sender_max(sf)) : NULL;
    int *key = sf ? malloc(sizeof(int) * (3 * (size_t)tree_sender_max(sf) + 1)) : NULL;
    tree_intern kinds = {0};
    int rc = -1;
    /* The kinds of the last node's pairs, by local index of the sender and pair: most nodes'
     * pairs have the same keys as the node before's, found by one compare, not a hash. */
    int most = sf ? tree_sender_max(sf) : 0, i = t->gpus_per_node, width = 3 * most + 1;
    size_t slots = (size_t)i * (size_t)(most > 0 ? most : 1);
    int *last_len = malloc(sizeof(int) * slots), *last_kind = malloc(sizeof(int) * slots);
    int *last_key = malloc(sizeof(int) * slots * (size_t)width);
    if (!out || !key || !last_len || !last_kind || !last_key)
        goto done;
    for (size_t x = 0; x < slots; x++)
        last_len[x] = -1;
    for (int g = 0; g < t->gpus; g++) {
        int m = tree_sender_flows(sf, g, out), slot = g % i * most;
        tt->n_raw += m;
        for (int a = 0, b; a < m; a = b, slot++) {
            int n = 0;
            for (b = a; b < m && out[b].dst == out[a].dst; b++) {
                if (out[b].first > tt->omax)
                    tt->omax = out[b].first;
                key[n++] = out[b].first;
                tree_put_double(key + n, out[b].k0);
                n += 2;
            }
            int *seen = last_key + (size_t)slot * (size_t)width, kind;
            if (last_len[slot] == n && same_ints(seen, key, n)) {
                kind = last_kind[slot]; /* what tree_intern_id returns for this key */
            } else {
                if ((kind = tree_intern_id(&kinds, key, n)) < 0)
                    goto done;
                last_len[slot] = n;
                last_kind[slot] = kind;
                memcpy(seen, key, sizeof(int) * (size_t)n);
            }
            if (pair_add(pl, t, g, out[a].dst, kind) != 0)
                goto done;
        }
    }
    if (tree_template_keep_kinds(tt, &kinds) != 0)
        goto done;
    rc = 0;
done:
    tree_intern_free(&kinds);
    tree_shape_free(sf);
    free(out);
    free(key);
    free(last_len);
    free(last_kind);
    free(last_key);
    return rc;
}

int tree_template_value(gcsim_tree_template *tt, const gcsim_topology *t)
{
    tt->port_scale = tt->collective == COLLECTIVE_NVLS_TREE
                         ? gcsim_nvls_tree_port_scale(t->platform)
                         : 1.0;
    for (int k = 0; k < tt->n_links; k++) {
        double cap = gcsim_topology_capacity_Bps(t, tt->link_rep[k]);
        tt->link_cap[k] = tt->link_scaled[k] ? cap * tt->port_scale : cap;
    }
    int route[GCSIM_ROUTE_MAX_LINKS];
    for (int g = 0; g < tt->n_sigs; g++)
        gcsim_topology_route(t, tt->sig_src[g], tt->sig_dst[g], route, &tt->sig_lat[g]);
    /* the steady form holds the last platform's numbers: built again on demand */
    tree_steady_free(tt->steady);
    tt->steady = NULL;
    tt->steady_failed = false;
    return 0;
}

/* Link kinds (of the links some pair crosses) and flow kinds; -1 when out of memory. */
static int kinds_of(gcsim_tree_template *tt, const gcsim_topology *t, const pair_list *pl)
{
    const pair_route *pairs = pl->v;
    int np = pl->n;
    int nl = t->n_links, rc = -1;
    int *index = calloc((size_t)nl + 1, sizeof(int)), *fill = NULL, *cross = NULL;
    int *kind_of_link = malloc(sizeof(int) * ((size_t)nl + 1)), *key = NULL;
    int *rep_link = NULL, *rep_pair = NULL, n_rep_links = 0, n_rep_pairs = 0;
    int *rep_src = NULL, *rep_dst = NULL;
    /* NVLS-tree: the links flows inside a node cross, at tt->port_scale x their capacity
     * (marked whatever the scale: the kinds do not depend on the platform's numbers) */
    bool nvls = tt->collective == COLLECTIVE_NVLS_TREE;
    bool *scaled = nvls ? calloc((size_t)nl + 1, sizeof(bool)) : NULL;
    tree_intern links = {0}, sigs = {0};
    /* per pair kind: the last link first crossed by it, the last flow kind of it */
    recent_key *recent = malloc(sizeof *recent * 2 * ((size_t)tt->n_kinds + 1));
    if (!index || !kind_of_link || !recent || (nvls && !scaled))
        goto done;
    for (int p = 0; scaled && p < np; p++)
        for (int k = 0; pairs[p].in_node && k < pairs[p].n_links; k++)
            scaled[pl->links[pairs[p].at + k]] = true;
    for (int k = 0; k < 2 * (tt->n_kinds + 1); k++)
        recent[k].len = -1;
    for (int p = 0; p < np; p++)
        for (int k = 0; k < pairs[p].n_links; k++)
            index[pl->links[pairs[p].at + k] + 1]++;
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
            cross[fill[pl->links[pairs[p].at + k]]++] = pairs[p].kind;
    for (int l = 0; l < nl; l++) {
        kind_of_link[l] = -1;
        if (index[l + 1] == index[l])
            continue;
        /* the link's capacity formula, not its number: links of one type have one capacity
         * on every platform of this shape (tree_template_value sets it) */
        key[0] = gcsim_topology_link_type(t, l);
        key[1] = scaled && scaled[l];
        int n = index[l + 1] - index[l];
        memcpy(key + 2, cross + index[l], sizeof(int) * (size_t)n);
        recent_key *r = &recent[cross[index[l]]];
        if ((kind_of_link[l] = intern_recent(&links, r, key, n + 2)) < 0)
            goto done;
    }
    /* a link kind's first link, a flow kind's first pair: where their numbers are found */
    rep_link = malloc(sizeof(int) * ((size_t)nl + 1));
    rep_pair = malloc(sizeof(int) * ((size_t)np + 1));
    rep_src = malloc(sizeof(int) * ((size_t)np + 1));
    rep_dst = malloc(sizeof(int) * ((size_t)np + 1));
    if (!rep_link || !rep_pair || !rep_src || !rep_dst)
        goto done;
    for (int l = 0; l < nl; l++)
        if (kind_of_link[l] >= 0 && kind_of_link[l] >= n_rep_links)
            rep_link[n_rep_links++] = l; /* ids are given in order: a new one is the next */
    for (int p = 0; p < np; p++) {
        /* a route's latency is intra_node.latency inside a node, else the NIC's and the
         * switches' (two more levels where it crosses leaves: leaf links among its kinds) */
        key[0] = pairs[p].in_node;
        key[1] = 0;
        key[2] = pairs[p].kind;
        for (int k = 0; k < pairs[p].n_links; k++)
            key[3 + k] = kind_of_link[pl->links[pairs[p].at + k]];
        recent_key *r = &recent[tt->n_kinds + 1 + pairs[p].kind];
        int g = intern_recent(&sigs, r, key, 3 + pairs[p].n_links);
        if (g < 0)
            goto done;
        if (g == n_rep_pairs)
            rep_pair[n_rep_pairs++] = p;
    }
    for (int k = 0; k < sigs.n; k++) { /* a flow kind's first pair, where its latency is */
        rep_src[k] = pairs[rep_pair[k]].src;
        rep_dst[k] = pairs[rep_pair[k]].dst;
    }
    if (tree_template_keep_links(tt, t, &links, rep_link, &sigs, rep_src, rep_dst) == 0)
        rc = tree_template_value(tt, t);
done:
    free(rep_link);
    free(rep_pair);
    free(rep_src);
    free(rep_dst);
    free(recent);
    tree_intern_free(&links);
    tree_intern_free(&sigs);
    free(index);
    free(fill);
    free(cross);
    free(kind_of_link);
    free(key);
    free(scaled);
    return rc;
}

/* A CSR list's two arrays: first[0 .. n_owners] zeroed, room for n_items items. */
static int csr_alloc(int **first, int **items, int n_owners, int n_items)
{
    *first = calloc((size_t)n_owners + 1, sizeof(int));
    *items = malloc(sizeof(int) * ((size_t)n_items + 1));
    return *first && *items ? 0 : -1;
}

/* kind_dep (tree_internal.h) from kind_sig, kind_link and link_sig: per pair kind its flow
 * kinds, then those crossing its link kinds, each once; -1 when out of memory. */
static int kind_deps_of(gcsim_tree_template *tt)
{
    int nk = tt->n_kinds, ns = tt->n_sigs;
    int *seen = malloc(sizeof(int) * ((size_t)ns + 1));
    tt->kind_dep_first = malloc(sizeof(int) * ((size_t)nk + 1));
    if (!seen || !tt->kind_dep_first) {
        free(seen);
        return -1;
    }
    for (int g = 0; g < ns; g++)
        seen[g] = -1;
    /* two passes: count, then fill (the same order both times) */
    for (int pass = 0; pass < 2; pass++) {
        int n = 0;
        for (int k = 0; k < nk; k++) {
            if (pass == 0)
                tt->kind_dep_first[k] = n;
            else
                n = tt->kind_dep_first[k];
            int mark = pass * nk + k; /* a fresh mark per kind and pass */
#define DEP(g)                                                                              \
    do {                                                                                    \
        int g_ = (g);                                                                       \
        if (seen[g_] != mark) {                                                             \
            seen[g_] = mark;                                                                \
            if (pass == 1)                                                                  \
                tt->kind_dep[n] = g_;                                                       \
            n++;                                                                            \
        }                                                                                   \
    } while (0)
            for (int j = tt->kind_sig_first[k]; j < tt->kind_sig_first[k + 1]; j++)
                DEP(tt->kind_sig[j]);
            for (int a = tt->kind_link_first[k]; a < tt->kind_link_first[k + 1]; a++) {
                int l = tt->kind_link[a];
                for (int j = tt->link_sig_first[l]; j < tt->link_sig_first[l + 1]; j++)
                    DEP(tt->link_sig[j]);
            }
#undef DEP
        }
        if (pass == 0) {
            tt->kind_dep_first[nk] = n;
            tt->kind_dep = malloc(sizeof(int) * ((size_t)n + 1));
            if (!tt->kind_dep) {
                free(seen);
                return -1;
            }
        }
    }
    free(seen);
    return 0;
}

/* The template's dependents lists (kind_link, kind_sig, link_sig, kind_dep); -1 when out
 * of memory. */
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
    return kind_deps_of(tt);
}

/* How a template is built: by classes of nodes (tree_classes.c), sender by sender from the
 * trees' shape, or from their raw flows (the last two list every GPU's pairs). */
typedef enum { BUILD_CLASSES, BUILD_SENDERS, BUILD_FLOWS } build_path;

static gcsim_tree_template *template_new(const gcsim_topology *t, gcsim_collective c,
                                         build_path how)
{
    gcsim_tree_template *tt = calloc(1, sizeof *tt);
    gcsim_flow *raw = NULL;
    pair_list pl = {0};
    int n_raw = 0;
    if (!tt)
        return NULL;
    tt->collective = c;
    tt->gpus = t->gpus;
    tt->per_rail = c == COLLECTIVE_DOUBLE_TREE || c == COLLECTIVE_NVLS_TREE ? 2 : 1;
    tt->port_scale = c == COLLECTIVE_NVLS_TREE ? gcsim_nvls_tree_port_scale(t->platform) : 1.0;
    tt->rails = t->nodes > 1 ? t->nics_per_node : 1;
    if (how == BUILD_CLASSES) {
        int rc = tree_classes_fill(tt, t);
        if (rc == 0 && tree_template_value(tt, t) == 0 && dependents_of(tt) == 0)
            return tt;
        gcsim_tree_template_free(tt);
        return NULL;
    }
    if (how == BUILD_FLOWS) {
        if (gcsim_tree_raw_flows(t, tt->per_rail, &raw, &n_raw) ||
            pairs_of(tt, t, raw, n_raw, &pl))
            goto fail;
        tt->n_raw = n_raw;
        free(raw);
        raw = NULL;
    } else if (pairs_of_shape(tt, t, &pl)) {
        goto fail;
    }
    if (kinds_of(tt, t, &pl) || dependents_of(tt))
        goto fail;
    pair_list_free(&pl);
    return tt;
fail:
    free(raw);
    pair_list_free(&pl);
    gcsim_tree_template_free(tt);
    return NULL;
}

gcsim_tree_template *gcsim_tree_template_new(const gcsim_topology *t, gcsim_collective c)
{
    gcsim_tree_template *tt = template_new(t, c, BUILD_CLASSES);
    /* NULL: out of memory, or a role did not fix its nodes' links (a topology
     * tree_classes.c does not know): the per-sender build is always right */
    return tt ? tt : template_new(t, c, BUILD_SENDERS);
}

gcsim_tree_template *gcsim_tree_template_new_by_classes(const gcsim_topology *t,
                                                        gcsim_collective c)
{
    return template_new(t, c, BUILD_CLASSES);
}

gcsim_tree_template *gcsim_tree_template_new_per_sender(const gcsim_topology *t,
                                                        gcsim_collective c)
{
    return template_new(t, c, BUILD_SENDERS);
}

gcsim_tree_template *gcsim_tree_template_new_from_flows(const gcsim_topology *t,
                                                        gcsim_collective c)
{
    return template_new(t, c, BUILD_FLOWS);
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
    return tree_walk_prepare(tt, chunks, s);
}
