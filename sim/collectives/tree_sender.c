/*
 * sim/collectives/tree_sender.c: the pipelined trees' flows sender by sender, from the
 * trees' shape in closed form (tree_internal.h), without building the trees GPU by GPU.
 *
 * schedule.c's tree_flows builds each of the rails x trees trees over all N GPUs (parent,
 * then depth, height and size by two passes) and lists its 2(N - 1) flows; the template
 * then sorted those 32 N flows (a100-hdr) by sender to find each GPU pair's: 1.3 GB and
 * most of the CPU of a predict at 2^20 GPUs. The trees are regular: rail r's tree is a
 * chain through each node's GPUs ending at the node's head, and a binary heap over the
 * nodes (mirrored: the reversed node order and chain direction). So, per tree kind k
 * (0 plain, 1 mirrored) and heap position q of a node:
 *   - depth of the node's head: floor(log2(q + 1)); of the GPU at chain position p: that + p;
 *   - height and size of the GPU at chain position p > 0: cnt - 1 - p and cnt - p (cnt the
 *     node's GPUs); of the head: H[q] = max(cnt - 1, 1 + H of its child nodes) and
 *     S[q] = cnt + S of its child nodes, one pass over the nodes (O(nodes), not O(GPUs));
 *   - a GPU at height h sends up in step h holding size workers; a parent at depth d sends
 *     down in step H[0] + d holding all N (tree_flows' windows with one chunk).
 * A sender's flows are then listed and put in flow order (receiver, first step, sums), as
 * the sort of the raw flows gave them: the same pairs with the same flows in the same
 * order, so the template is the same to the bit (tests/collectives/test_tree_sender.c
 * compares the two templates array by array, and their costs with the built schedule's).
 */
#include <stdlib.h>

#include "tree_internal.h"

struct tree_shape_form {
    int n, i, j, rails, per_rail;
    int *height[2], *size[2]; /* per tree kind, by heap position */
    /* tree_sender_flows' scratch (so a template is built by one thread at a time) */
    int *dst, *at;
    tree_sender_flow *tmp;
};

void tree_shape_free(tree_shape_form *sf)
{
    if (!sf)
        return;
    for (int k = 0; k < 2; k++) {
        free(sf->height[k]);
        free(sf->size[k]);
    }
    free(sf->dst);
    free(sf->at);
    free(sf->tmp);
    free(sf);
}

static int node_gpus(const tree_shape_form *sf, int node)
{
    return (node + 1) * sf->i <= sf->n ? sf->i : sf->n - node * sf->i;
}

static int node_at(const tree_shape_form *sf, int k, int q) { return k ? sf->j - 1 - q : q; }

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

static int heap_depth(int q) { return 31 - __builtin_clz((unsigned)q + 1); }

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
    int most = 4 * sf->rails * per_rail;
    sf->dst = malloc(sizeof(int) * (size_t)most);
    sf->at = malloc(sizeof(int) * ((size_t)most + 1));
    sf->tmp = malloc(sizeof *sf->tmp * (size_t)most);
    if (!sf->dst || !sf->at || !sf->tmp) {
        tree_shape_free(sf);
        return NULL;
    }
    for (int k = 0; k < per_rail; k++) {
        sf->height[k] = malloc(sizeof(int) * (size_t)sf->j);
        sf->size[k] = malloc(sizeof(int) * (size_t)sf->j);
        if (!sf->height[k] || !sf->size[k]) {
            tree_shape_free(sf);
            return NULL;
        }
        for (int q = sf->j - 1; q >= 0; q--) {
            int cnt = node_gpus(sf, node_at(sf, k, q));
            int h = cnt - 1, s = cnt;
            for (int c = 2 * q + 1; c <= 2 * q + 2 && c < sf->j; c++) {
                if (sf->height[k][c] + 1 > h)
                    h = sf->height[k][c] + 1;
                s += sf->size[k][c];
            }
            sf->height[k][q] = h;
            sf->size[k][q] = s;
        }
    }
    return sf;
}

int tree_sender_max(const tree_shape_form *sf) { return 4 * sf->rails * sf->per_rail; }

static void add(tree_sender_flow *out, int *m, int dst, int first, double k0)
{
    out[(*m)++] = (tree_sender_flow){dst, first, k0};
}

/* flow_order of schedule.c for one sender's one-chunk flows: receiver, first step, sums */
static bool after(const tree_sender_flow *x, const tree_sender_flow *y)
{
    if (x->dst != y->dst)
        return x->dst > y->dst;
    if (x->first != y->first)
        return x->first > y->first;
    return x->k0 > y->k0;
}

int tree_sender_flows(const tree_shape_form *sf, int g, tree_sender_flow *out)
{
    int i = sf->i, j = sf->j, node = g / i, local = g % i, cnt = node_gpus(sf, node), m = 0;
    /* tree kind outer: a receiver's flows then come nearly in order (the plain trees' up
     * flows before the mirrored trees' down flows to the same chain neighbour) */
    for (int k = 0; k < sf->per_rail; k++)
        for (int r = 0; r < sf->rails; r++) {
            int head = rail_head(sf, r, k, cnt), q = node_at(sf, k, node);
            int pos = chain_pos(head, local, cnt, k);
            int depth = heap_depth(q) + pos;
            if (pos > 0) /* up the chain */
                add(out, &m, node * i + chain_local(head, pos - 1, cnt, k), cnt - 1 - pos,
                    cnt - pos);
            else if (q > 0) { /* the head, up to its parent node's head */
                int pnode = node_at(sf, k, (q - 1) / 2);
                add(out, &m, pnode * i + rail_head(sf, r, k, node_gpus(sf, pnode)),
                    sf->height[k][q], sf->size[k][q]);
            }
            int down = sf->height[k][0] + depth;
            if (pos + 1 < cnt)
                add(out, &m, node * i + chain_local(head, pos + 1, cnt, k), down, sf->n);
            if (pos == 0)
                for (int c = 2 * q + 1; c <= 2 * q + 2 && c < j; c++) {
                    int cnode = node_at(sf, k, c);
                    add(out, &m, cnode * i + rail_head(sf, r, k, node_gpus(sf, cnode)), down,
                        sf->n);
                }
        }
    /* Flow order. A sender has a few dozen flows to a handful of receivers (its chain
     * neighbours, and for a head its parent's and children's heads), and each receiver's
     * come nearly sorted (rail after rail): grouped by receiver first (the receivers in
     * order), then each group sorted by insertion, instead of one insertion sort of all. */
    int nd = 0, *dst = sf->dst, *at = sf->at;
    for (int f = 0; f < m; f++) {
        int d = 0;
        while (d < nd && dst[d] != out[f].dst)
            d++;
        if (d == nd) {
            int x = nd++;
            for (; x > 0 && dst[x - 1] > out[f].dst; x--)
                dst[x] = dst[x - 1];
            dst[x] = out[f].dst;
        }
    }
    for (int d = 0; d <= nd; d++)
        at[d] = 0;
    for (int f = 0; f < m; f++) {
        int d = 0;
        while (dst[d] != out[f].dst)
            d++;
        at[d + 1]++;
    }
    for (int d = 0; d < nd; d++)
        at[d + 1] += at[d];
    for (int f = 0; f < m; f++) { /* stable: a group keeps the order flows came in */
        int d = 0;
        while (dst[d] != out[f].dst)
            d++;
        sf->tmp[at[d]++] = out[f];
    }
    for (int f = 0; f < m; f++)
        out[f] = sf->tmp[f];
    for (int a = 1; a < m; a++) {
        tree_sender_flow x = out[a];
        int b = a;
        for (; b > 0 && after(&out[b - 1], &x); b--)
            out[b] = out[b - 1];
        out[b] = x;
    }
    return m;
}
