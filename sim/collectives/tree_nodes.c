/*
 * sim/collectives/tree_nodes.c: NCCL's double binary tree across nodes (tree_nodes.h).
 * Written from the rules of NVIDIA/nccl src/graph/trees.cc (commit 5067397), not copied:
 * a position's lowest set bit b gives its level; its parent is the position with bit b
 * cleared and bit 2b set (or, past the last position, with bit b cleared only), its
 * children pos - b/2 and the first of pos + b/2, pos + b/4, ... below the node count.
 */
#include "tree_nodes.h"

int gcsim_dtree_position(int nodes, int k, int node)
{
    if (k == 0 || nodes < 2)
        return node;
    return nodes % 2 ? (node - 1 + nodes) % nodes : nodes - 1 - node;
}

int gcsim_dtree_node(int nodes, int k, int pos)
{
    if (k == 0 || nodes < 2)
        return pos;
    return nodes % 2 ? (pos + 1) % nodes : nodes - 1 - pos;
}

void gcsim_btree(int nodes, int pos, int *up, int *d0, int *d1)
{
    int bit = 1;
    while (bit < nodes && !(bit & pos))
        bit <<= 1;
    if (pos == 0) {
        *up = -1;
        *d0 = -1;
        *d1 = nodes > 1 ? bit >> 1 : -1;
        return;
    }
    int u = (pos ^ bit) | (bit << 1);
    *up = u < nodes ? u : pos ^ bit;
    int low = bit >> 1;
    *d0 = low ? pos - low : -1;
    int c = low ? pos + low : -1;
    while (c >= nodes) {
        low >>= 1;
        c = low ? pos + low : -1;
    }
    *d1 = c;
}

void gcsim_btree_bottom_up(int nodes, int *order)
{
    int m = 0;
    /* level by level from the leaves (odd positions): a child's lowest set bit is below
     * its parent's */
    for (int bit = 1; bit < nodes; bit <<= 1)
        for (int p = bit; p < nodes; p += 2 * bit)
            order[m++] = p;
    if (nodes > 0)
        order[m] = 0;
}
