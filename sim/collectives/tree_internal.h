/*
 * sim/collectives/tree_internal.h: what the pipelined trees' two preparations share, the
 * interval walk (tree_walk.c) and the steady form (tree_steady.c), with the template
 * (tree_cost.c) and its interned sequences (tree_intern.c). Not a public header:
 * tree_cost.h is what the rest of gcsim uses.
 */
#ifndef GCSIM_TREE_INTERNAL_H
#define GCSIM_TREE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "tree_cost.h"

typedef struct {
    int o;               /* window [o, o + C - 1] */
    double k0;
} tree_flow;

typedef struct tree_steady tree_steady;

struct gcsim_tree_template {
    gcsim_collective collective;
    int gpus, rails, per_rail, omax, n_raw;
    /* NVLS-tree (tree_nvls.c): the capacity of the links that flows inside a node cross is
     * this x the link's (what the schedule's flows do by moving their share / this); 1 for
     * the tree and the double tree */
    double port_scale;
    /* pair kinds: flows[kind_first[k] .. + kind_count[k]) */
    int n_kinds;
    int *kind_first, *kind_count;
    tree_flow *flows;
    int n_kind_flows;
    /* link kinds: capacity, and the pair kinds crossing it, in order:
     * link_seq[link_first[l] .. link_first[l + 1]) */
    int n_links;
    double *link_cap;     /* the platform's numbers (tree_template_value) */
    int *link_rep;        /* a link of the kind, whose capacity link_cap is */
    bool *link_scaled;    /* NVLS-tree: at port_scale x its capacity */
    int *link_first, *link_seq;
    /* flow kinds: latency, pair kind, link kinds along the route */
    int n_sigs;
    double *sig_lat;      /* the platform's numbers (tree_template_value) */
    int *sig_src, *sig_dst; /* a pair of the kind, whose route's latency sig_lat is */
    int *sig_kind, *sig_nl, *sig_links; /* sig_links[s * GCSIM_ROUTE_MAX_LINKS ...] */
    /* what a change of a pair kind's flow touches (CSR lists, for preparing an interval
     * from the one before it): the link kinds it crosses, the flow kinds of its pairs, and
     * per link kind the flow kinds crossing it */
    int *kind_link_first, *kind_link, *kind_sig_first, *kind_sig, *link_sig_first, *link_sig;
    /* per pair kind, every flow kind a change of its flow can re-cost, each once: its own
     * (kind_sig) and those crossing a link kind it crosses (link_sig of its kind_link), in
     * that order. The walk lists these instead of kind_sig and then link_sig per changed
     * load: the links' lists overlap (a flow kind crosses 3-4 of the link kinds that change
     * together): per interval (double tree, a100-hdr and cloud-v100-25gbe, 2-256 GPUs,
     * every C <= omax: 346,861 intervals) kind_sig and link_sig gave 22.1 + 86.6 entries for
     * 36.1 flow kinds, kind_dep 57.4 for 36.2 (the extra 0.1: flow kinds whose links' loads
     * did not change, re-costed to the value they hold; issue 47). */
    int *kind_dep_first, *kind_dep;
    /* every chunk count above omax, from one walk (tree_steady.c); built on first use */
    tree_steady *steady;
    bool steady_failed;
};

/* A pair kind's merged flow: steps [from, to], cnt of its flows active together, each
 * carrying the same share, so `share` is that share added cnt times from 0. */
typedef struct {
    int from, to, cnt;
    double share, k0;
} tree_stretch;

/* merge_pairs (schedule.c) on a pair kind's m flows f in windows of `chunks` steps, each
 * flow carrying `share`: its stretches appended at out[*n ...]. bound: room for 2m. */
void tree_merge_pair(const tree_flow *f, int m, int chunks, double share, int *bound,
                     tree_stretch *out, int *n);

/* fmin as x86-64 libm computes it (minsd, the second operand when equal; the other
 * operand when one is NaN), inlined: the same bits as the call it replaces. */
static inline double tree_fmin_as_libm(double x, double y)
{
    if (y != y)
        return x;
    return x < y ? x : y;
}

/* fmax as x86-64 libm computes it (maxsd, the second operand when equal; the other
 * operand when one is NaN), inlined: the same bits as the call it replaces (a merged flow's
 * sums, 5% of a walk as a call). */
static inline double tree_fmax_as_libm(double x, double y)
{
    if (y != y)
        return x;
    return x > y ? x : y;
}

/* ---- the trees' flows sender by sender (tree_sender.c) ----
 * The trees' shape in closed form (per tree kind and node: the head's height and subtree
 * size), from which each GPU's flows with one chunk are listed in flow order: what
 * gcsim_tree_raw_flows gives for that sender, without building the trees GPU by GPU. */
typedef struct tree_shape_form tree_shape_form;
typedef struct {
    int dst, first; /* receiver; first (and, with one chunk, only) step */
    double k0;      /* workers summed */
} tree_sender_flow;

/* The shape of t's trees (per_rail 1: tree, 2: double tree); NULL when out of memory. */
tree_shape_form *tree_shape_new(const gcsim_topology *t, int per_rail);
void tree_shape_free(tree_shape_form *sf);
/* The most flows one GPU sends: room for tree_sender_flows' out. */
int tree_sender_max(const tree_shape_form *sf);
/* GPU g's flows, in flow order (receiver, first step, sums), at out[0 ..); their number
 * (sf holds the scratch: one sender at a time). */
int tree_sender_flows(tree_shape_form *sf, int g, tree_sender_flow *out);

/* Node `node`'s role in the trees: what its GPUs' flows, and the flows its neighbours send
 * it, depend on (its GPUs, per tree kind its head's depth, height and subtree size, its
 * parent's GPUs, its children's height, size and GPUs, and the order of those nodes and
 * itself), at key[0 ..) (room for TREE_ROLE_MAX; returns the length); its neighbours at
 * nb[0 .. TREE_ROLE_SLOTS) (per tree kind: parent, two children; -1: none). Nodes of one
 * role send and receive pairs of the same kinds in the same order (tree_classes.c). */
enum { TREE_ROLE_SLOTS = 6, TREE_ROLE_MAX = 1 + 2 * 11 + 21 };
int tree_shape_role(const tree_shape_form *sf, int node, int *key, int *nb);

/* The template built from gcsim_tree_raw_flows (the flows of every tree listed and sorted),
 * as gcsim_tree_template_new built it before tree_sender.c: kept as the reference that
 * tests/collectives/test_tree_sender.c compares the template with, array by array. */
gcsim_tree_template *gcsim_tree_template_new_from_flows(const gcsim_topology *t,
                                                        gcsim_collective c);

/* ---- one chunk count's intervals, walked one after another ----
 * Only what a starting or stopping merged flow changes is computed again: the loads of the
 * link kinds its pair kind crosses, and the classes of the flow kinds of that pair kind or
 * crossing those links. */
typedef struct {
    const gcsim_tree_template *tt;
    int chunks, steps, n_st, n_intervals;
    double share;
    bool windowed;           /* false: every merged flow spans every step, nothing to walk */
    tree_stretch *st;        /* pair kind k's merged flows: st[st_index[k] .. st_index[k + 1]) */
    int *st_index, *cur;
    int *bound;              /* the intervals' bounds: bound[0 .. n_intervals] */
    int *state;              /* pair kind k's merged flow in the current interval, -1: none */
    int *lstamp, *dl, n_dl;  /* the link kinds whose pair kinds changed */
    int *gstamp, *dg, n_dg;  /* the flow kinds whose class may have changed */
    int *ev_first, *ev_kind; /* per interval, the pair kinds that may change there */
    int *ev_block;           /* their allocation (NULL when kept) */
    bool by_deps;            /* dg from the changed pair kinds' kind_dep lists (the walk's
                                prepare), rather than kind_sig and, per changed load,
                                tree_walk_load_changed (the steady form's build) */
    bool kept;               /* the arrays are the thread's scratch (tree_walk_prepare's) */
} tree_walk;

/* The merged flows and intervals of `chunks` (w->windowed false: no intervals); -1 when out
 * of memory (then free it all the same). w->by_deps is false. */
int tree_walk_init(tree_walk *w, const gcsim_tree_template *tt, int chunks);
/* Moves to interval i (0, 1, ...): state, and dl and dg from the pair kinds that changed
 * (with w->by_deps, dg already holds every flow kind crossing a link kind of dl). */
void tree_walk_interval(tree_walk *w, int i);
/* Link kind l's load changed in interval i: the flow kinds crossing it join dg. */
void tree_walk_load_changed(tree_walk *w, int l, int i);
void tree_walk_free(tree_walk *w);

/* ---- interned sequences of ints (ids by content) ---- */

typedef struct {
    int *data;
    size_t n_data, cap_data;
    int *off, *len;
    int n, cap;
    int *slot;
    size_t mask;
} tree_intern;

/* The id of sequence v[0 .. n): the first one equal to it, or a new one; -1 when out of
 * memory. */
int tree_intern_id(tree_intern *t, const int *v, int n);
/* The id of sequence v[0 .. n) when it is kept, else -1 (nothing added). */
int tree_intern_find(const tree_intern *t, const int *v, int n);
void tree_intern_free(tree_intern *t);
/* A double as two ints (-0 as +0), and back. */
void tree_put_double(int *v, double x);
double tree_get_double(const int *v);

/* The per-sender template (every GPU's pairs and routes listed: tree_cost.c), the
 * reference that tests/collectives/test_tree_classes.c compares the class-built one with. */
gcsim_tree_template *gcsim_tree_template_new_per_sender(const gcsim_topology *t,
                                                        gcsim_collective c);

/* The class-built template alone (gcsim_tree_template_new falls back to the per-sender one
 * when it is NULL): what the test compares, so that a fallback cannot pass for it. */
gcsim_tree_template *gcsim_tree_template_new_by_classes(const gcsim_topology *t,
                                                        gcsim_collective c);

/* ---- the template by classes of nodes (tree_classes.c) ----
 * Fills tt's pair kinds, link kinds and flow kinds (tt->collective, per_rail and rails
 * set) from one node per role and one pass over the nodes for what they share (leaf
 * links): the same arrays as the per-sender build. Returns 0, -1 when out of memory, 1
 * when a node's links turned out of a kind its role's first node did not give (then build
 * per sender). */
int tree_classes_fill(gcsim_tree_template *tt, const gcsim_topology *t);
/* The kinds' arrays from their interned keys (pair kinds: first step, sums; link kinds:
 * type, scaled, pair kinds crossing; flow kinds: in node, 0, pair kind, link kinds), a link
 * kind's first link and a flow kind's first pair (tree_classes.c, used by both builds; the
 * platform's numbers are then set by tree_template_value). -1 when out of memory. */
int tree_template_keep_kinds(gcsim_tree_template *tt, const tree_intern *kinds);
int tree_template_keep_links(gcsim_tree_template *tt, const gcsim_topology *t,
                             const tree_intern *links, const int *rep_link,
                             const tree_intern *sigs, const int *rep_src, const int *rep_dst);

/* ---- distinct class values (latency, bandwidth, share, sums) ---- */

typedef struct {
    gcsim_flow_class *vals;
    int *stamp, *slot;  /* stamp: the last interval a value was listed in */
    int n, cap;
    size_t mask;
} tree_values;

/* The id of value c (the first equal one, or a new one, its stamp -1); -1 when out of
 * memory. */
int tree_values_id(tree_values *v, const gcsim_flow_class *c);
bool tree_same_value(const gcsim_flow_class *x, const gcsim_flow_class *y);
void tree_values_free(tree_values *v);

/* ---- the steady form (tree_steady.c) ----
 * Above omax chunks every flow starts before any ends, so the intervals, which flows are
 * active in each and how many of a pair's flows merge, are the same for every chunk count;
 * only the share and the steps after the last start move. The steady form is one walk of
 * the intervals kept as expressions in the share (a stretch's cnt, a link's load as its
 * stretches' cnts in flow order, a class as latency, cnt, sums and its route's capacities
 * and loads), evaluated for a chunk count with the same operations in the same order. */

/* The steady form from `chunks` (> tt->omax); NULL when out of memory. */
tree_steady *tree_steady_build(const gcsim_tree_template *tt, int chunks);
/* gcsim_tree_template_prepare for chunks > tt->omax, from the steady form. */
int tree_steady_prepare(const tree_steady *sd, const gcsim_tree_template *tt, int chunks,
                        gcsim_schedule *s);
void tree_steady_free(tree_steady *sd);
double tree_steady_bytes(const tree_steady *sd);

/* A chunk count prepared by walking its intervals one after another (any chunk count;
 * tree_walk.c): the same as gcsim_tree_template_prepare. -1 when out of memory. */
int tree_walk_prepare(const gcsim_tree_template *tt, int chunks, gcsim_schedule *s);
/* The same walk with the flow kinds to re-cost listed from kind_dep (by_deps, what
 * tree_walk_prepare does) or, as before issue 47's change, from kind_sig and the link_sig
 * of each link kind whose load changed: the same intervals and, in each, the same set of
 * class values (their order may differ: a step costs their maximum). For the test that
 * compares the two (tests/collectives/test_tree_deps.c). */
int tree_walk_prepare_with(const gcsim_tree_template *tt, int chunks, gcsim_schedule *s,
                           bool by_deps);
/* Frees the calling thread's scratch that tree_walk_prepare keeps between chunk counts (it
 * grows to the largest walk prepared; the memo's clear calls it). */
void tree_walk_scratch_release(void);

/* The prepared schedule's one phase (both forms): the arrays are handed over to it and their
 * pointers set to NULL. Returns -1 (nothing handed over) when out of memory. */
int tree_schedule_fill(gcsim_schedule *s, const gcsim_tree_template *tt, int chunks, int n_st,
                       gcsim_flow_class **classes, int n_classes, int n_intervals, int **from,
                       int **to, int **start);

#endif
