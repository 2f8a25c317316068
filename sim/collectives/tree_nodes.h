/*
 * sim/collectives/tree_nodes.h: the trees across nodes of gcsim's tree and double-tree
 * all-reduces, shaped as NCCL shapes them (src/graph/trees.cc, ncclGetBtree and
 * ncclGetDtree, NVIDIA/nccl commit 5067397; connect.cc connectTrees runs both trees of a
 * channel over the same node tree, so every rail has the same pair of trees).
 *
 * A tree kind k (0: the first tree, 1: the second) numbers the nodes by a position: tree 0
 * by node index; tree 1 mirrored (position nodes - 1 - node) when the node count is even
 * and shifted by one (position node - 1 mod nodes) when it is odd, as ncclGetDtree does.
 * Over positions, the tree is NCCL's in-order binary tree: position 0 is the root with one
 * child, a position's parent and children follow from its lowest set bit. Unlike a heap
 * (the root with two children), each node is interior in at most one of the two trees and
 * a leaf in the other, and the interior nodes carry two children plus a parent: on 4 nodes
 * NCCL's interior nodes send and receive 2 x the channel's data per NIC (tree 0: 0-2-{1,3};
 * tree 1: 3-1-{2,0}), where a heap pair gave every node 1.5 x.
 */
#ifndef GCSIM_TREE_NODES_H
#define GCSIM_TREE_NODES_H

/* The position of node `node` in tree kind k over `nodes` nodes, and its inverse. */
int gcsim_dtree_position(int nodes, int k, int node);
int gcsim_dtree_node(int nodes, int k, int pos);

/* NCCL's binary tree over `nodes` positions: *up the parent of pos (-1: the root, pos 0),
 * *d0 and *d1 its children (-1: none; the root's one child is *d1). */
void gcsim_btree(int nodes, int pos, int *up, int *d0, int *d1);

/* The positions of a tree over `nodes` nodes with every child before its parent (the root,
 * 0, last), at order[0 .. nodes). */
void gcsim_btree_bottom_up(int nodes, int *order);

#endif
