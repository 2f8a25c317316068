/*
 * sim/collectives/tree_sender.c: the pipelined trees' flows sender by sender, from the
 * trees' shape in closed form (tree_internal.h), without building the trees GPU by GPU.
 *
 * schedule.c's tree_flows builds each of the rails x trees trees over all N GPUs (parent,
 * then depth, height and size by two passes) and lists its 2(N - 1) flows; the template
 * then sorted those 32 N flows (a100-hdr) by sender to find each GPU pair's: 1.3 GB and
 * most of the CPU of a predict at 2^20 GPUs. The trees are regular: rail r's tree is a
 * chain through each node's GPUs ending at the node's head, and NCCL's binary tree over
 * the nodes' positions (tree_nodes.h: the second tree mirrored or shifted, with the chain
 * direction reversed). So, per tree kind k (0 plain, 1 second) and position q of a node:
 *   - depth of the node's head: D[q], its depth in the node tree; of the GPU at chain
 *     position p: that + p;
 *   - height and size of the GPU at chain position p > 0: cnt - 1 - p and cnt - p (cnt the
 *     node's GPUs); of the head: H[q] = max(cnt - 1, 1 + H of its child nodes) and
 *     S[q] = cnt + S of its child nodes, one pass over the nodes (O(nodes), not O(GPUs));
 *   - a GPU at height h sends up in step h holding size workers; a parent at depth d sends
 *     down in step H[root] + d holding all N (tree_flows' windows with one chunk).
 * A sender's flows are then listed and put in flow order (receiver, first step, sums), as
 * the sort of the raw flows gave them: the same pairs with the same flows in the same
 * order, so the template is the same to the bit (tests/collectives/test_tree_sender.c
 * compares the two templates array by array, and their costs with the built schedule's).
 */
#include <stdlib.h>

#include "tree_internal.h"
#include "tree_nodes.h"

struct tree_shape_form {
    int n, i, j, rails, per_rail;
    /* per tree kind, by position in the node tree: the head's height, subtree size and
     * depth, the parent position (-1: root) and the two child positions (-1: none) */
    int *height[2], *size[2], *depth[2], *up[2], *down[2];
    /* tree_sender_flows' scratch (one sender at a time): each receiver's flows, kept in
     * order as they are added, in group[d] (room for `most` each), and the groups' order */
    int most, n_groups, *group_dst, *group_n, *rank;
    tree_sender_flow *group;
};

void tree_shape_free(tree_shape_form *sf)
{
    if (!sf)
        return;
    for (int k = 0; k < 2; k++) {
        free(sf->height[k]);
        free(sf->size[k]);
        free(sf->depth[k]);
        free(sf->up[k]);
        free(sf->down[k]);
    }
    free(sf->group_dst);
    free(sf->group_n);
    free(sf->rank);
    free(sf->group);
    free(sf);
}

static int node_gpus(const tree_shape_form *sf, int node)
{
    return (node + 1) * sf->i <= sf->n ? sf->i : sf->n - node * sf->i;
}

static int node_at(const tree_shape_form *sf, int k, int q) { return gcsim_dtree_node(sf->j, k, q); }

/* schedule.c's rail_head: the head (local index) of rail r's chain in a node of cnt GPUs */
static int rail_head(const tree_shape_form *sf, int rail, int k, int cnt)
{
    int i = sf->i, h = k ? (rail + 1) * i / sf->rails - 1 : rail * i / sf->rails;
    return h < cnt ? h : cnt - 1;
}

/* schedule.c's chain_local for 0 <= head, pos < cnt (a conditional subtraction for its
 * modulo: a predict at 2^20 GPUs calls this 50 million times) */
static int chain_local(int head, int pos, int cnt, int k)
{
    int x = k ? head - pos : head + pos;
    return x < 0 ? x + cnt : x >= cnt ? x - cnt : x;
}

/* the position of the GPU at local index `local` in a chain ending at `head` */
static int chain_pos(int head, int local, int cnt, int k)
{
    int x = k ? head - local : local - head;
    return x < 0 ? x + cnt : x;
}

tree_shape_form *tree_shape_new(const gcsim_topology *t, int per_rail)
{
    tree_shape_form *sf = calloc(1, sizeof *sf);
    if (!sf)
        return NULL;
    sf->n = t->gpus;
    sf->i = t->gpus_per_node;
    sf->j = t->nodes;
    sf->rails = t->nodes > 1 ? t->nics_per_node : 1;
    sf->per_rail = per_rail;
    int most = sf->most = 4 * sf->rails * per_rail;
    sf->group_dst = malloc(sizeof(int) * (size_t)most);
    sf->group_n = malloc(sizeof(int) * (size_t)most);
    sf->rank = malloc(sizeof(int) * (size_t)most);
    sf->group = malloc(sizeof *sf->group * (size_t)most * (size_t)most);
    if (!sf->group_dst || !sf->group_n || !sf->rank || !sf->group) {
        tree_shape_free(sf);
        return NULL;
    }
    int *order = malloc(sizeof(int) * (size_t)sf->j);
    if (!order) {
        tree_shape_free(sf);
        return NULL;
    }
    gcsim_btree_bottom_up(sf->j, order);
    for (int k = 0; k < per_rail; k++) {
        sf->height[k] = malloc(sizeof(int) * (size_t)sf->j);
        sf->size[k] = malloc(sizeof(int) * (size_t)sf->j);
        sf->depth[k] = malloc(sizeof(int) * (size_t)sf->j);
        sf->up[k] = malloc(sizeof(int) * (size_t)sf->j);
        sf->down[k] = malloc(sizeof(int) * 2 * (size_t)sf->j);
        if (!sf->height[k] || !sf->size[k] || !sf->depth[k] || !sf->up[k] || !sf->down[k]) {
            free(order);
            tree_shape_free(sf);
            return NULL;
        }
        for (int x = 0; x < sf->j; x++) { /* children before parents */
            int q = order[x], cnt = node_gpus(sf, node_at(sf, k, q));
            int *d = sf->down[k] + 2 * q;
            gcsim_btree(sf->j, q, &sf->up[k][q], &d[0], &d[1]);
            int h = cnt - 1, s = cnt;
            for (int c = 0; c < 2; c++)
                if (d[c] >= 0) {
                    if (sf->height[k][d[c]] + 1 > h)
                        h = sf->height[k][d[c]] + 1;
                    s += sf->size[k][d[c]];
                }
            sf->height[k][q] = h;
            sf->size[k][q] = s;
        }
        for (int x = sf->j - 1; x >= 0; x--) { /* parents before children */
            int q = order[x];
            sf->depth[k][q] = sf->up[k][q] < 0 ? 0 : sf->depth[k][sf->up[k][q]] + 1;
        }
    }
    free(order);
    return sf;
}

int tree_sender_max(const tree_shape_form *sf) { return 4 * sf->rails * sf->per_rail; }


/* flow_order of schedule.c for one sender's one-chunk flows: receiver, first step, sums */
static bool after(const tree_sender_flow *x, const tree_sender_flow *y)
{
    if (x->dst != y->dst)
        return x->dst > y->dst;
    if (x->first != y->first)
        return x->first > y->first;
    return x->k0 > y->k0;
}

/* Adds a flow to its receiver's group, in flow order (by insertion: a receiver's flows come
 * nearly in order, rail after rail). */
static void add(tree_shape_form *sf, int dst, int first, double k0)
{
    int d = 0;
    while (d < sf->n_groups && sf->group_dst[d] != dst)
        d++;
    if (d == sf->n_groups) {
        sf->n_groups++;
        sf->group_dst[d] = dst;
        sf->group_n[d] = 0;
    }
    tree_sender_flow x = {dst, first, k0}, *v = sf->group + (size_t)d * (size_t)sf->most;
    int b = sf->group_n[d]++;
    for (; b > 0 && after(&v[b - 1], &x); b--)
        v[b] = v[b - 1];
    v[b] = x;
}

int tree_sender_flows(tree_shape_form *sf, int g, tree_sender_flow *out)
{
    int i = sf->i, node = g / i, local = g % i, cnt = node_gpus(sf, node), m = 0;
    sf->n_groups = 0;
    /* tree kind outer: a receiver's flows then come nearly in order (the plain trees' up
     * flows before the mirrored trees' down flows to the same chain neighbour) */
    for (int k = 0; k < sf->per_rail; k++)
        for (int r = 0; r < sf->rails; r++) {
            int head = rail_head(sf, r, k, cnt), q = gcsim_dtree_position(sf->j, k, node);
            int pos = chain_pos(head, local, cnt, k);
            int depth = sf->depth[k][q] + pos;
            if (pos > 0) /* up the chain */
                add(sf, node * i + chain_local(head, pos - 1, cnt, k), cnt - 1 - pos, cnt - pos);
            else if (sf->up[k][q] >= 0) { /* the head, up to its parent node's head */
                int pnode = node_at(sf, k, sf->up[k][q]);
                add(sf, pnode * i + rail_head(sf, r, k, node_gpus(sf, pnode)),
                    sf->height[k][q], sf->size[k][q]);
            }
            int down = sf->height[k][0] + depth;
            if (pos + 1 < cnt)
                add(sf, node * i + chain_local(head, pos + 1, cnt, k), down, sf->n);
            if (pos == 0)
                for (int x = 0; x < 2; x++) {
                    int c = sf->down[k][2 * q + x];
                    if (c < 0)
                        continue;
                    int cnode = node_at(sf, k, c);
                    add(sf, cnode * i + rail_head(sf, r, k, node_gpus(sf, cnode)), down, sf->n);
                }
        }
    /* Flow order: the groups by receiver (a handful: the chain neighbours, and for a head
     * its parent's and children's heads), each already in order. */
    int nd = sf->n_groups, *rank = sf->rank;
    for (int d = 0; d < nd; d++) {
        int x = d;
        for (; x > 0 && sf->group_dst[rank[x - 1]] > sf->group_dst[d]; x--)
            rank[x] = rank[x - 1];
        rank[x] = d;
    }
    for (int x = 0; x < nd; x++) {
        const tree_sender_flow *v = sf->group + (size_t)rank[x] * (size_t)sf->most;
        for (int f = 0; f < sf->group_n[rank[x]]; f++)
            out[m++] = v[f];
    }
    return m;
}

/* -1, 0, 1 as a < b, a == b, a > b; 2 when either is -1 (no such node) */
static int order_of(int a, int b)
{
    if (a < 0 || b < 0)
        return a < 0 && b < 0 ? 3 : 2;
    return a < b ? -1 : a > b;
}

int tree_shape_role(const tree_shape_form *sf, int node, int *key, int *nb)
{
    int n = 0, s = 0;
    key[n++] = node_gpus(sf, node);
    for (int k = 0; k < sf->per_rail; k++) {
        int q = gcsim_dtree_position(sf->j, k, node);
        key[n++] = sf->depth[k][q];
        key[n++] = sf->height[k][q];
        key[n++] = sf->size[k][q];
        int up = sf->up[k][q], pnode = up >= 0 ? node_at(sf, k, up) : -1;
        nb[s++] = pnode;
        key[n++] = pnode >= 0 ? node_gpus(sf, pnode) : -1;
        for (int x = 0; x < 2; x++) {
            int c = sf->down[k][2 * q + x], cnode = c >= 0 ? node_at(sf, k, c) : -1;
            nb[s++] = cnode;
            key[n++] = c >= 0 ? sf->height[k][c] : -1;
            key[n++] = c >= 0 ? sf->size[k][c] : -1;
            key[n++] = cnode >= 0 ? node_gpus(sf, cnode) : -1;
        }
    }
    /* the order of the receivers (flow order compares GPU indices: node first) and which
     * neighbours are the same node (their flows merge into one pair) */
    for (int a = 0; a < s; a++) {
        key[n++] = order_of(nb[a], node);
        for (int b = a + 1; b < s; b++)
            key[n++] = order_of(nb[a], nb[b]);
    }
    return n;
}
