/*
 * sim/collectives/tree_classes.c: the pipelined trees' template from one node per role
 * (tree_internal.h, tree_classes_fill), instead of listing every GPU's pairs and routes.
 *
 * The per-sender build (tree_cost.c) lists each GPU's pairs with their routes (6.3 million
 * at 2^20 GPUs on a100-hdr: 7 CPU-s and 2 GiB), then interns, in this order:
 *   1. pair kinds, GPU by GPU (ids by first appearance);
 *   2. link kinds, link by link in index order: (type, scaled, the pair kinds crossing it
 *      in pair order);
 *   3. flow kinds, pair by pair: (in node, 0, pair kind, the link kinds of its route).
 * A node's role (tree_shape_role: its and its neighbours' places in the trees, and their
 * order) fixes the pairs it sends and those its neighbours send it, kind by kind and in
 * order. So:
 *   1. the first node of each role (its "first") gives every pair kind, in the same order,
 *      since a later node of a role seen before adds none;
 *   2. a node's own links (every link but the leaf switches': GPU ports, PCIe, NIC and the
 *      rest, numbered node by node in each block of topology.c) are crossed only by the
 *      pairs it sends and receives, so their kinds follow from its role, and a kind's first
 *      link is a first's (a later node's link of that kind comes after the first's
 *      matching one in the same block); the leaf links, shared by the nodes under a leaf,
 *      are keyed from one pass over the pairs that cross leaves (a small part: a tree edge
 *      crosses when its nodes sit under different leaves). Interned in link order, the
 *      firsts' and the leaf links give the per-sender ids;
 *   3. a pair's flow kind is its kind and its route's link kinds: those of its own nodes'
 *      links, fixed by the roles of the sender's node and its neighbours (kept per such
 *      neighbourhood), and those of the leaf links it crosses. Pairs that cross no leaf
 *      are interned once per neighbourhood, those that do once each, in pair order.
 * A node's own links are asked for as a first and again for each fresh neighbourhood it
 * belongs to (its own and up to six neighbours'): they are found once per node and kept
 * (own_links; at most OWN_LINKS_KEPT_MAX crossings, then found again as before).
 * Where a node's link turns out of a kind no first gave (a topology whose links a role
 * does not fix), tree_classes_fill says so and the per-sender build is used instead.
 * tests/collectives/test_tree_classes.c compares the two templates array by array.
 */
#include <stdlib.h>
#include <string.h>

#include "tree_internal.h"
#include "tree_sort.h"

/* A role's pair, as its first node sends it: sender and receiver local index, receiver's
 * node as a neighbour slot (-1: the sender's own node), kind. */
typedef struct {
    int src_local, slot, dst_local, kind;
} role_pair;

/* a pair instantiated: GPUs, kind */
typedef struct {
    int src, dst, kind;
} tpair;

/* a link crossed by a node's pairs: link, pair order, pair kind, inside a node */
typedef struct {
    int link, order, kind, in_node;
} crossing;

/* a link kind's key to intern, in link order: link, key at keys[at .. at + len) */
typedef struct {
    int link, at, len;
} link_key;

typedef struct {
    const gcsim_topology *t;
    gcsim_tree_template *tt;
    tree_shape_form *sf;
    int i, nodes, leaf_lo, leaf_hi;
    int *role, *nb;             /* per node; nb: TREE_ROLE_SLOTS per node */
    int n_roles, *rp_first;     /* role r's pairs: rp[rp_first[r] .. rp_first[r + 1]) */
    role_pair *rp;
    int n_rp, cap_rp;
    tpair *touch;               /* one node's pairs, sent and received */
    crossing *cross;
    int cap_touch, cap_cross;
    /* own_links' answers kept per node (own_at[x] < 0: not kept): a node's own links are
     * asked for once as a first, then once per fresh neighbourhood it belongs to (its own
     * and up to six neighbours'), the same answer each time */
    int *own_at, *own_n;
    crossing *own;
    int n_own, cap_own;
} classes;

/* At most this many crossings kept for own_links (16 MiB): past it, nodes' own links are
 * found again when asked, as before the cache. */
enum { OWN_LINKS_KEPT_MAX = 1 << 20 };

static int grow(void **v, int *cap, int need, size_t size)
{
    if (need <= *cap)
        return 0;
    int cap2 = 2 * need + 64;
    void *g = realloc(*v, size * (size_t)cap2);
    if (!g)
        return -1;
    *v = g;
    *cap = cap2;
    return 0;
}

static bool is_leaf_link(const classes *cl, int l)
{
    return cl->leaf_lo >= 0 && l >= cl->leaf_lo && l <= cl->leaf_hi;
}

static int node_of_slot(const classes *cl, int node, int slot)
{
    return slot < 0 ? node : cl->nb[node * TREE_ROLE_SLOTS + slot];
}

static tpair pair_of(const classes *cl, int node, const role_pair *p)
{
    return (tpair){node * cl->i + p->src_local,
                   node_of_slot(cl, node, p->slot) * cl->i + p->dst_local, p->kind};
}

/* ---- the kinds' arrays (tree_internal.h; the per-sender build uses them too) ---- */

/* The pair kinds (sequences of first step, sums) into the template's flows; -1 when out of
 * memory. */
int tree_template_keep_kinds(gcsim_tree_template *tt, const tree_intern *kinds)
{
    tt->n_kinds = kinds->n;
    tt->kind_first = malloc(sizeof(int) * (size_t)(kinds->n + 1));
    tt->kind_count = malloc(sizeof(int) * (size_t)(kinds->n + 1));
    tt->flows = malloc(sizeof(tree_flow) * (kinds->n_data / 3 + 1));
    if (!tt->kind_first || !tt->kind_count || !tt->flows)
        return -1;
    for (int k = 0; k < kinds->n; k++) {
        tt->kind_first[k] = tt->n_kind_flows;
        tt->kind_count[k] = kinds->len[k] / 3;
        for (int x = 0; x < kinds->len[k]; x += 3) {
            const int *v = kinds->data + kinds->off[k] + x;
            tt->flows[tt->n_kind_flows++] = (tree_flow){v[0], tree_get_double(v + 1)};
        }
    }
    return 0;
}

int tree_template_keep_links(gcsim_tree_template *tt, const gcsim_topology *t,
                             const tree_intern *links, const int *rep_link,
                             const tree_intern *sigs, const int *rep_src, const int *rep_dst)
{
    tt->n_links = links->n;
    tt->link_cap = malloc(sizeof(double) * (size_t)(links->n + 1));
    tt->link_first = malloc(sizeof(int) * (size_t)(links->n + 1));
    tt->link_seq = malloc(sizeof(int) * (links->n_data + 1));
    tt->n_sigs = sigs->n;
    tt->sig_lat = malloc(sizeof(double) * (size_t)(sigs->n + 1));
    tt->link_rep = malloc(sizeof(int) * (size_t)(links->n + 1));
    tt->link_scaled = malloc(sizeof(bool) * (size_t)(links->n + 1));
    tt->sig_src = malloc(sizeof(int) * (size_t)(sigs->n + 1));
    tt->sig_dst = malloc(sizeof(int) * (size_t)(sigs->n + 1));
    tt->sig_kind = malloc(sizeof(int) * (size_t)(sigs->n + 1));
    tt->sig_nl = malloc(sizeof(int) * (size_t)(sigs->n + 1));
    tt->sig_links = malloc(sizeof(int) * GCSIM_ROUTE_MAX_LINKS * (size_t)(sigs->n + 1));
    if (!tt->link_cap || !tt->link_first || !tt->link_seq || !tt->sig_lat || !tt->sig_kind ||
        !tt->sig_nl || !tt->sig_links || !tt->link_rep || !tt->link_scaled || !tt->sig_src ||
        !tt->sig_dst)
        return -1;
    int w = 0;
    for (int k = 0; k < links->n; k++) {
        const int *v = links->data + links->off[k];
        tt->link_rep[k] = rep_link[k];
        tt->link_scaled[k] = v[1] != 0;
        tt->link_first[k] = w;
        for (int x = 2; x < links->len[k]; x++)
            tt->link_seq[w++] = v[x];
    }
    tt->link_first[links->n] = w;
    for (int k = 0; k < sigs->n; k++) {
        const int *v = sigs->data + sigs->off[k];
        tt->sig_src[k] = rep_src[k];
        tt->sig_dst[k] = rep_dst[k];
        tt->sig_kind[k] = v[2];
        tt->sig_nl[k] = sigs->len[k] - 3;
        for (int x = 3; x < sigs->len[k]; x++)
            tt->sig_links[k * GCSIM_ROUTE_MAX_LINKS + x - 3] = v[x];
    }
    (void)t;
    return 0;
}

/* 1: each node's role; the first of each role's pairs and their kinds (as pairs_of_shape
 * interns them); omax and n_raw. Returns -1 when out of memory, 1 when a receiver is no
 * neighbour. */
static int roles_and_kinds(classes *cl)
{
    gcsim_tree_template *tt = cl->tt;
    const gcsim_topology *t = cl->t;
    int most = tree_sender_max(cl->sf), key_role[TREE_ROLE_MAX], rc = -1;
    tree_intern roles = {0}, kinds = {0};
    tree_sender_flow *out = malloc(sizeof *out * (size_t)most);
    int *key = malloc(sizeof(int) * (3 * (size_t)most + 1));
    int *raw = NULL, cap_raw = 0, cap_first = 0;
    if (!out || !key)
        goto done;
    for (int n = 0; n < cl->nodes; n++) {
        int *nb = cl->nb + n * TREE_ROLE_SLOTS;
        for (int s = 0; s < TREE_ROLE_SLOTS; s++)
            nb[s] = -1;
        int len = tree_shape_role(cl->sf, n, key_role, nb);
        int r = tree_intern_id(&roles, key_role, len);
        if (r < 0)
            goto done;
        cl->role[n] = r;
        if (r < cl->n_roles)
            continue;
        /* the role's first node: its GPUs' pairs, as pairs_of_shape finds them */
        cl->n_roles++;
        if (grow((void **)&cl->rp_first, &cap_first, r + 2, sizeof(int)) ||
            grow((void **)&raw, &cap_raw, r + 1, sizeof(int)))
            goto done;
        cl->rp_first[r] = cl->n_rp;
        raw[r] = 0;
        int cnt = (n + 1) * cl->i <= t->gpus ? cl->i : t->gpus - n * cl->i;
        for (int local = 0; local < cnt; local++) {
            int g = n * cl->i + local, m = tree_sender_flows(cl->sf, g, out);
            raw[r] += m;
            for (int a = 0, b; a < m; a = b) {
                int k = 0;
                for (b = a; b < m && out[b].dst == out[a].dst; b++) {
                    if (out[b].first > tt->omax)
                        tt->omax = out[b].first;
                    key[k++] = out[b].first;
                    tree_put_double(key + k, out[b].k0);
                    k += 2;
                }
                int kind = tree_intern_id(&kinds, key, k), dnode = out[a].dst / cl->i, slot = -1;
                if (kind < 0)
                    goto done;
                if (dnode != n) {
                    for (slot = 0; slot < TREE_ROLE_SLOTS && nb[slot] != dnode; slot++)
                        ;
                    if (slot == TREE_ROLE_SLOTS) {
                        rc = 1;
                        goto done;
                    }
                }
                if (grow((void **)&cl->rp, &cl->cap_rp, cl->n_rp + 1, sizeof *cl->rp))
                    goto done;
                cl->rp[cl->n_rp++] = (role_pair){local, slot, out[a].dst % cl->i, kind};
            }
        }
        cl->rp_first[r + 1] = cl->n_rp;
    }
    long long n_raw = 0;
    for (int n = 0; n < cl->nodes; n++)
        n_raw += raw[cl->role[n]];
    tt->n_raw = (int)n_raw;
    rc = tree_template_keep_kinds(tt, &kinds);
done:
    tree_intern_free(&roles);
    tree_intern_free(&kinds);
    free(out);
    free(key);
    free(raw);
    return rc;
}

/* The orders the template sorts by, for tree_sort.h (stable, as qsort was: the same
 * arrays, ties included). */
static inline bool pair_before(const tpair *x, const tpair *y)
{
    return x->src != y->src ? x->src < y->src : x->dst < y->dst;
}
TREE_STABLE_SORT(sort_pairs, tpair, pair_before)

static inline bool crossing_before(const crossing *x, const crossing *y)
{
    return x->link != y->link ? x->link < y->link : x->order < y->order;
}
TREE_STABLE_SORT(sort_crossings, crossing, crossing_before)

/* Node x's own links (those of its pairs' routes inside the node, and between nodes up to
 * and from its NIC), with the pair kinds crossing each in pair order: cl->cross[0 ..
 * return), sorted by link then pair order; -1 when out of memory, -2 when a route between
 * nodes has no NIC link or a link between the NICs that is no leaf link (a topology this
 * file does not know). */
static int own_links_found(classes *cl, int x)
{
    const gcsim_topology *t = cl->t;
    int r = cl->role[x], n = 0, nc = 0, route[GCSIM_ROUTE_MAX_LINKS];
    int most = cl->rp_first[r + 1] - cl->rp_first[r];
    const int *nb = cl->nb + x * TREE_ROLE_SLOTS;
    for (int s = 0; s < TREE_ROLE_SLOTS; s++) {
        int m = nb[s], seen = 0;
        for (int u = 0; u < s; u++)
            seen |= nb[u] == m;
        if (m >= 0 && !seen)
            most += cl->rp_first[cl->role[m] + 1] - cl->rp_first[cl->role[m]];
    }
    if (grow((void **)&cl->touch, &cl->cap_touch, most, sizeof *cl->touch))
        return -1;
    for (int p = cl->rp_first[r]; p < cl->rp_first[r + 1]; p++)
        cl->touch[n++] = pair_of(cl, x, &cl->rp[p]);
    for (int s = 0; s < TREE_ROLE_SLOTS; s++) {
        int m = nb[s], seen = 0;
        for (int u = 0; u < s; u++)
            seen |= nb[u] == m;
        if (m < 0 || seen)
            continue;
        int rm = cl->role[m];
        for (int p = cl->rp_first[rm]; p < cl->rp_first[rm + 1]; p++)
            if (node_of_slot(cl, m, cl->rp[p].slot) == x)
                cl->touch[n++] = pair_of(cl, m, &cl->rp[p]);
    }
    if (sort_pairs(cl->touch, (size_t)n) != 0)
        return -1;
    for (int p = 0; p < n; p++) {
        double latency_s;
        int nl = gcsim_topology_route(t, cl->touch[p].src, cl->touch[p].dst, route, &latency_s);
        if (grow((void **)&cl->cross, &cl->cap_cross, nc + nl, sizeof *cl->cross))
            return -1;
        int src = cl->touch[p].src / cl->i, dst = cl->touch[p].dst / cl->i;
        int in_node = src == dst, first = nl, last = -1;
        /* between nodes: the sender's links up to its NIC, the receiver's from its NIC on,
         * the fabric's (leaf links, shared) between the two */
        for (int k = 0; !in_node && k < nl; k++)
            if (gcsim_topology_is_nic_link(t, route[k])) {
                first = k < first ? k : first;
                last = k;
            }
        if (!in_node && last < 0)
            return -2;
        for (int k = 0; k < nl; k++) {
            int owner = in_node || k <= first ? src : k >= last ? dst : -1;
            if (owner == x)
                cl->cross[nc++] = (crossing){route[k], p, cl->touch[p].kind, in_node};
            else if (owner < 0 && !is_leaf_link(cl, route[k]))
                return -2; /* a shared link that is no leaf link */
        }
    }
    if (sort_crossings(cl->cross, (size_t)nc) != 0)
        return -1;
    return nc;
}

/* own_links_found, from what was kept for node x when it was asked before. */
static int own_links(classes *cl, int x)
{
    if (cl->own_at && cl->own_at[x] >= 0) {
        int nc = cl->own_n[x];
        if (grow((void **)&cl->cross, &cl->cap_cross, nc, sizeof *cl->cross))
            return -1;
        memcpy(cl->cross, cl->own + cl->own_at[x], sizeof *cl->cross * (size_t)nc);
        return nc;
    }
    int nc = own_links_found(cl, x);
    if (nc <= 0 || !cl->own_at || cl->n_own + nc > OWN_LINKS_KEPT_MAX ||
        grow((void **)&cl->own, &cl->cap_own, cl->n_own + nc, sizeof *cl->own))
        return nc; /* not kept (out of room or memory): found again next time */
    memcpy(cl->own + cl->n_own, cl->cross, sizeof *cl->cross * (size_t)nc);
    cl->own_at[x] = cl->n_own;
    cl->own_n[x] = nc;
    cl->n_own += nc;
    return nc;
}

/* A link's key from its crossings c[0 .. n) at key[0 ..): type, scaled, pair kinds. */
static int link_key_of(const classes *cl, const crossing *c, int n, int *key)
{
    key[0] = gcsim_topology_link_type(cl->t, c[0].link);
    key[1] = 0;
    for (int j = 0; j < n; j++) {
        if (cl->tt->collective == COLLECTIVE_NVLS_TREE && c[j].in_node)
            key[1] = 1;
        key[2 + j] = c[j].kind;
    }
    return 2 + n;
}

static inline bool link_key_before(const link_key *x, const link_key *y)
{
    return x->link < y->link;
}
TREE_STABLE_SORT(sort_link_keys, link_key, link_key_before)

/* Whether pair p crosses leaves (its route then holds leaf links). */
static bool crosses_leaves(const classes *cl, const tpair *p)
{
    return cl->leaf_lo >= 0 &&
           gcsim_topology_leaf_of(cl->t, p->src) != gcsim_topology_leaf_of(cl->t, p->dst);
}

/* 2: the link kinds (the firsts' own links and the leaf links, in link order) into
 * *links, their first links at *rep_link, each leaf link's kind at leaf_kind. Returns -1
 * when out of memory, 1 for a topology this file does not know. */
static int link_kinds(classes *cl, tree_intern *links, int **rep_link, int *leaf_kind)
{
    int rc = -1, n_keys = 0, cap_keys = 0, n_data = 0, cap_data = 0, route[GCSIM_ROUTE_MAX_LINKS];
    link_key *keys = NULL;
    int *data = NULL, *leaf_n = NULL, *leaf_at = NULL, *leaf_seq = NULL;
    int n_leaf_links = cl->leaf_lo >= 0 ? cl->leaf_hi - cl->leaf_lo + 1 : 0;
    /* the firsts' own links */
    for (int n = 0, r_next = 0; n < cl->nodes; n++) {
        if (cl->role[n] != r_next)
            continue;
        r_next++;
        int nc = own_links(cl, n);
        if (nc < 0) {
            rc = nc == -2 ? 1 : -1;
            goto done;
        }
        for (int a = 0, b; a < nc; a = b) {
            for (b = a; b < nc && cl->cross[b].link == cl->cross[a].link; b++)
                ;
            if (grow((void **)&keys, &cap_keys, n_keys + 1, sizeof *keys) ||
                grow((void **)&data, &cap_data, n_data + 2 + (b - a), sizeof *data))
                goto done;
            int len = link_key_of(cl, cl->cross + a, b - a, data + n_data);
            keys[n_keys++] = (link_key){cl->cross[a].link, n_data, len};
            n_data += len;
        }
    }
    /* the leaf links: the pairs crossing each, in pair order (counted, then placed) */
    leaf_n = calloc((size_t)n_leaf_links + 1, sizeof(int));
    leaf_at = malloc(sizeof(int) * ((size_t)n_leaf_links + 1));
    if (!leaf_n || !leaf_at)
        goto done;
    for (int pass = 0; pass < 2 && n_leaf_links > 0; pass++) {
        if (pass == 1) {
            size_t at = 0;
            for (int l = 0; l < n_leaf_links; l++) {
                leaf_at[l] = (int)at;
                at += (size_t)leaf_n[l];
                leaf_n[l] = 0;
            }
            if (!(leaf_seq = malloc(sizeof(int) * (at + 1))))
                goto done;
        }
        for (int n = 0; n < cl->nodes; n++) {
            int r = cl->role[n];
            for (int p = cl->rp_first[r]; p < cl->rp_first[r + 1]; p++) {
                if (cl->rp[p].slot < 0)
                    continue;
                tpair q = pair_of(cl, n, &cl->rp[p]);
                if (!crosses_leaves(cl, &q))
                    continue;
                double latency_s;
                int nl = gcsim_topology_route(cl->t, q.src, q.dst, route, &latency_s);
                for (int k = 0; k < nl; k++) {
                    if (!is_leaf_link(cl, route[k]))
                        continue;
                    int l = route[k] - cl->leaf_lo;
                    if (pass == 1)
                        leaf_seq[leaf_at[l] + leaf_n[l]] = q.kind;
                    leaf_n[l]++;
                }
            }
        }
    }
    for (int l = 0; l < n_leaf_links; l++) {
        leaf_kind[l] = -1;
        if (leaf_n[l] == 0)
            continue;
        if (grow((void **)&keys, &cap_keys, n_keys + 1, sizeof *keys) ||
            grow((void **)&data, &cap_data, n_data + 2 + leaf_n[l], sizeof *data))
            goto done;
        int *k = data + n_data;
        k[0] = gcsim_topology_link_type(cl->t, cl->leaf_lo + l);
        k[1] = 0; /* only pairs between nodes cross a leaf link */
        memcpy(k + 2, leaf_seq + leaf_at[l], sizeof(int) * (size_t)leaf_n[l]);
        keys[n_keys++] = (link_key){cl->leaf_lo + l, n_data, 2 + leaf_n[l]};
        n_data += 2 + leaf_n[l];
    }
    if (sort_link_keys(keys, (size_t)n_keys) != 0)
        goto done;
    if (!(*rep_link = malloc(sizeof(int) * ((size_t)n_keys + 1))))
        goto done;
    for (int x = 0, n_rep = 0; x < n_keys; x++) {
        int id = tree_intern_id(links, data + keys[x].at, keys[x].len);
        if (id < 0)
            goto done;
        if (id == n_rep) /* ids are given in order: a new one is the next */
            (*rep_link)[n_rep++] = keys[x].link;
        if (is_leaf_link(cl, keys[x].link))
            leaf_kind[keys[x].link - cl->leaf_lo] = id;
    }
    rc = 0;
done:
    free(keys);
    free(data);
    free(leaf_n);
    free(leaf_at);
    free(leaf_seq);
    return rc;
}

/* a (link, kind) pair of hood_map's */
typedef struct {
    int link, kind;
} link_kind;

static inline bool link_kind_before(const link_kind *x, const link_kind *y)
{
    return x->link < y->link;
}
TREE_STABLE_SORT(sort_link_kinds, link_kind, link_kind_before)

/* The kinds of the own links of node x and of its neighbours, as (link, kind) pairs sorted
 * by link at *map (*n of them). Returns -1 when out of memory, 1 when a link's key is of no
 * kind the firsts gave. */
static int hood_map(classes *cl, int x, const tree_intern *links, int **map, int *n,
                    int *cap, int **key, int *cap_key)
{
    int nodes[1 + TREE_ROLE_SLOTS], nn = 0;
    nodes[nn++] = x;
    for (int s = 0; s < TREE_ROLE_SLOTS; s++) {
        int m = cl->nb[x * TREE_ROLE_SLOTS + s], seen = 0;
        for (int u = 0; u < nn; u++)
            seen |= nodes[u] == m;
        if (m >= 0 && !seen)
            nodes[nn++] = m;
    }
    *n = 0;
    for (int u = 0; u < nn; u++) {
        int nc = own_links(cl, nodes[u]);
        if (nc < 0)
            return nc == -2 ? 1 : -1;
        for (int a = 0, b; a < nc; a = b) {
            for (b = a; b < nc && cl->cross[b].link == cl->cross[a].link; b++)
                ;
            if (grow((void **)key, cap_key, 2 + (b - a), sizeof(int)) ||
                grow((void **)map, cap, 2 * (*n + 1), sizeof(int)))
                return -1;
            int len = link_key_of(cl, cl->cross + a, b - a, *key);
            int id = tree_intern_find(links, *key, len);
            if (id < 0)
                return 1; /* a kind no first gave */
            (*map)[2 * *n] = cl->cross[a].link;
            (*map)[2 * *n + 1] = id;
            (*n)++;
        }
    }
    /* the map's ints as (link, kind) pairs: an array of structs of two ints */
    return sort_link_kinds((link_kind *)(void *)*map, (size_t)*n) != 0 ? -1 : 0;
}

/* 3: the flow kinds, pair by pair, into *sigs; a kind's first pair at *rep_src, *rep_dst.
 * Per neighbourhood (a node's role and its neighbours' roles, interned: "hoods"), for each
 * of the role's pairs, the kinds of its route's own links (hk[hp_at[..] ..)) and its flow
 * kind when it crosses no leaf (hp_sig, -1 until known). Returns -1 when out of memory, 1
 * for a topology this file does not know. */
static int flow_kinds(classes *cl, const tree_intern *links, const int *leaf_kind, tree_intern *sigs,
                      int **rep_src, int **rep_dst)
{
    int rc = -1, key_role[1 + TREE_ROLE_SLOTS], route[GCSIM_ROUTE_MAX_LINKS];
    int key[3 + GCSIM_ROUTE_MAX_LINKS], cap_rep = 0, cap_rep2 = 0, n_rep = 0;
    int *map = NULL, n_map = 0, cap_map = 0, *lkey = NULL, cap_lkey = 0;
    int *hood_base = NULL, cap_hood = 0, n_hoods = 0;
    int *hp_at = NULL, cap_hp_at = 0, n_hp = 0, *hp_sig = NULL, cap_hp_sig = 0;
    int *hk = NULL, cap_hk = 0, n_hk = 0;
    tree_intern hoods = {0};
    for (int x = 0; x < cl->nodes; x++) {
        int r = cl->role[x], np = cl->rp_first[r + 1] - cl->rp_first[r];
        key_role[0] = r;
        for (int s = 0; s < TREE_ROLE_SLOTS; s++) {
            int m = cl->nb[x * TREE_ROLE_SLOTS + s];
            key_role[1 + s] = m >= 0 ? cl->role[m] : -1;
        }
        int h = tree_intern_id(&hoods, key_role, 1 + TREE_ROLE_SLOTS);
        if (h < 0)
            goto done;
        bool fresh = h == n_hoods;
        if (fresh) {
            /* its pairs' own-link kinds along their routes, from the node's and its
             * neighbours' own links */
            int got = hood_map(cl, x, links, &map, &n_map, &cap_map, &lkey, &cap_lkey);
            if (got != 0) {
                rc = got;
                goto done;
            }
            if (grow((void **)&hood_base, &cap_hood, n_hoods + 1, sizeof(int)) ||
                grow((void **)&hp_at, &cap_hp_at, n_hp + np + 1, sizeof(int)) ||
                grow((void **)&hp_sig, &cap_hp_sig, n_hp + np + 1, sizeof(int)))
                goto done;
            hood_base[n_hoods++] = n_hp;
            for (int j = 0; j < np; j++) {
                tpair q = pair_of(cl, x, &cl->rp[cl->rp_first[r] + j]);
                double latency_s;
                int nl = gcsim_topology_route(cl->t, q.src, q.dst, route, &latency_s);
                hp_at[n_hp + j] = n_hk;
                hp_sig[n_hp + j] = -1;
                if (grow((void **)&hk, &cap_hk, n_hk + nl, sizeof(int)))
                    goto done;
                for (int k = 0; k < nl; k++) {
                    if (is_leaf_link(cl, route[k]))
                        continue;
                    int lo = 0, hi = n_map - 1, found = -1;
                    while (lo <= hi) {
                        int mid = (lo + hi) / 2;
                        if (map[2 * mid] == route[k]) {
                            found = map[2 * mid + 1];
                            break;
                        }
                        if (map[2 * mid] < route[k])
                            lo = mid + 1;
                        else
                            hi = mid - 1;
                    }
                    if (found < 0) {
                        rc = 1;
                        goto done;
                    }
                    hk[n_hk++] = found;
                }
            }
            hp_at[n_hp + np] = n_hk;
            n_hp += np + 1;
        }
        int base = hood_base[h];
        for (int j = 0; j < np; j++) {
            const role_pair *rp = &cl->rp[cl->rp_first[r] + j];
            if (!fresh && rp->slot < 0)
                continue; /* inside the node: its flow kind seen with the hood's first */
            tpair q = pair_of(cl, x, rp);
            bool across = rp->slot >= 0 && crosses_leaves(cl, &q);
            if (!across && hp_sig[base + j] >= 0)
                continue;
            const int *own = hk + hp_at[base + j];
            int n_own = hp_at[base + j + 1] - hp_at[base + j], n = 3, u = 0;
            key[0] = rp->slot < 0;
            key[1] = 0;
            key[2] = q.kind;
            if (across) {
                double latency_s;
                int nl = gcsim_topology_route(cl->t, q.src, q.dst, route, &latency_s);
                for (int k = 0; k < nl; k++) {
                    if (is_leaf_link(cl, route[k])) {
                        key[n] = leaf_kind[route[k] - cl->leaf_lo];
                        if (key[n++] < 0) {
                            rc = 1;
                            goto done;
                        }
                    } else if (u < n_own) {
                        key[n++] = own[u++];
                    } else {
                        rc = 1;
                        goto done;
                    }
                }
                if (u != n_own) {
                    rc = 1;
                    goto done;
                }
            } else {
                memcpy(key + 3, own, sizeof(int) * (size_t)n_own);
                n += n_own;
            }
            int g = tree_intern_id(sigs, key, n);
            if (g < 0)
                goto done;
            if (!across)
                hp_sig[base + j] = g;
            if (g == n_rep) {
                if (grow((void **)rep_src, &cap_rep, n_rep + 1, sizeof(int)) ||
                    grow((void **)rep_dst, &cap_rep2, n_rep + 1, sizeof(int)))
                    goto done;
                (*rep_src)[n_rep] = q.src;
                (*rep_dst)[n_rep++] = q.dst;
            }
        }
    }
    rc = 0;
done:
    tree_intern_free(&hoods);
    free(map);
    free(lkey);
    free(hood_base);
    free(hp_at);
    free(hp_sig);
    free(hk);
    return rc;
}

int tree_classes_fill(gcsim_tree_template *tt, const gcsim_topology *t)
{
    classes cl = {.t = t, .tt = tt, .i = t->gpus_per_node, .nodes = t->nodes,
                  .leaf_lo = -1, .leaf_hi = -1};
    tree_intern links = {0}, sigs = {0};
    int *rep_link = NULL, *leaf_kind = NULL, *rep_src = NULL, *rep_dst = NULL, rc = -1;
    if (t->leaves > 0) {
        cl.leaf_lo = gcsim_topology_leaf_link(t, 0, 0);
        cl.leaf_hi = gcsim_topology_leaf_link(t, t->leaves - 1, 1);
    }
    cl.sf = tree_shape_new(t, tt->per_rail);
    cl.role = malloc(sizeof(int) * (size_t)cl.nodes);
    cl.nb = malloc(sizeof(int) * TREE_ROLE_SLOTS * (size_t)cl.nodes);
    leaf_kind = malloc(sizeof(int) * (2 * (size_t)t->leaves + 1));
    if (!cl.sf || !cl.role || !cl.nb || !leaf_kind)
        goto done;
    cl.own_at = malloc(sizeof(int) * (size_t)cl.nodes);
    cl.own_n = malloc(sizeof(int) * (size_t)cl.nodes);
    if (!cl.own_at || !cl.own_n) { /* the cache is optional: found again each time */
        free(cl.own_at);
        free(cl.own_n);
        cl.own_at = cl.own_n = NULL;
    }
    for (int x = 0; cl.own_at && x < cl.nodes; x++)
        cl.own_at[x] = -1;
    if ((rc = roles_and_kinds(&cl)) != 0)
        goto done;
    rc = -1;
    if ((rc = link_kinds(&cl, &links, &rep_link, leaf_kind)) != 0)
        goto done;
    if ((rc = flow_kinds(&cl, &links, leaf_kind, &sigs, &rep_src, &rep_dst)) != 0)
        goto done;
    rc = tree_template_keep_links(tt, t, &links, rep_link, &sigs, rep_src, rep_dst);
done:
    tree_shape_free(cl.sf);
    free(cl.role);
    free(cl.nb);
    free(cl.rp_first);
    free(cl.rp);
    free(cl.touch);
    free(cl.cross);
    free(cl.own_at);
    free(cl.own_n);
    free(cl.own);
    tree_intern_free(&links);
    tree_intern_free(&sigs);
    free(rep_link);
    free(leaf_kind);
    free(rep_src);
    free(rep_dst);
    return rc;
}
