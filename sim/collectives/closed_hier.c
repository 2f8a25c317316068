/*
 * sim/collectives/closed_hier.c: the hierarchical all-reduce's and the hierarchical
 * reduce-scatter's classes (closed_form.h) from the node shape, without listing a flow.
 *
 * schedule.c builds them from two kinds of rings (build_hierarchical, hier_reduce_scatter):
 *   node rings: one inside every node over its g GPUs, share 1/g, steps 0 .. g-2. Each
 *     GPU sends one flow and receives one, on links of its own node (an NVLink pair link
 *     or its switch ports), so every flow has its link alone: bandwidth = the intra-node
 *     capacity. A partly filled last node (r GPUs) has a shorter ring with share 1/r.
 *   rail rings: per local index l, a ring over GPU l of nodes 0 .. g_l-1 (g_l = j, or j-1
 *     for the indices the partial last node lacks), share 1/(i g_l), steps 0 .. g_l-2. A
 *     flow from node a to node b (b = a+1, or the wrap from g_l-1 to 0) crosses its GPU's
 *     PCIe links alone, the NIC its GPU uses (l*R/i: i/R rails share one NIC) at both
 *     nodes, and the uplinks of both leaves when it leaves its leaf.
 * Rings of different lengths stop at different steps: the phase is then windowed, and
 * its classes are kept per interval of steps (as gcsim_schedule_prepare's prepare_windowed
 * does), a ring counting only in the intervals where it is active.
 *
 * A link's load is the sum of the shares of the active flows crossing it, summed in the
 * order the flows are sorted (sender: node, then local index), as schedule_cost.c sums
 * them, so the classes match flow by flow bit for bit. Loads are computed link by link
 * from the ring definitions (O(i) each) for a few representative flows: within a ring,
 * forward flows differ only where they cross a leaf (the leaves next to the last node
 * differ, the others are alike) or enter the last node, and the wrap flow is one more
 * (candidates in rail_classes). Memory O(1), time O(i^2) whatever the nodes.
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>

#include "closed_form.h"

typedef struct {
    const gcsim_topology *t;
    int i, j, n;
    int r;          /* GPUs of the last node (1 .. i) */
    long long per_leaf; /* nodes per leaf; 0 without leaf uplinks (star, or one leaf) */
    int from_step;  /* the interval being classed starts here: rings that stop before do not count */
} hier;

/* ---- rail rings ---- */

static int rail_nodes(const hier *h, int l) { return l < h->r ? h->j : h->j - 1; }

static double rail_share(const hier *h, int l)
{
    return 1.0 / ((double)h->i * rail_nodes(h, l)); /* as rail_rings writes it */
}

static bool rail_active(const hier *h, int l)
{
    int g = rail_nodes(h, l);
    return g >= 2 && g - 2 >= h->from_step;
}

static long long leaf_of(const hier *h, int node) { return h->per_leaf ? node / h->per_leaf : 0; }

/* The sending node of rail l's flow over a link, or -1 when none of its flows crosses it. */
typedef int (*src_fn)(const hier *h, int l, long long x);

/* NIC of node x, outbound: GPU l of node x sends when x is on its ring. */
static int src_nic_up(const hier *h, int l, long long x)
{
    return rail_active(h, l) && x < rail_nodes(h, l) ? (int)x : -1;
}

/* NIC of node x, inbound: from its ring predecessor. */
static int src_nic_down(const hier *h, int l, long long x)
{
    int g = rail_nodes(h, l);
    if (!rail_active(h, l) || x >= g)
        return -1;
    return x > 0 ? (int)x - 1 : g - 1;
}

/* Leaf x's uplink, outbound: the ring's last node in leaf x, when its next node is in
 * another leaf (the next leaf, or the wrap back to node 0 from a leaf other than 0). */
static int src_leaf_up(const hier *h, int l, long long x)
{
    long long g = rail_nodes(h, l), p = h->per_leaf;
    if (!rail_active(h, l) || p == 0)
        return -1;
    if ((x + 1) * p < g)
        return (int)((x + 1) * p - 1);
    if (x * p <= g - 1 && x != 0)
        return (int)(g - 1);
    return -1;
}

/* Leaf x's uplink, inbound: into the ring's first node of leaf x from the leaf before, or
 * into node 0 by the wrap from the ring's last node when that lies in another leaf. */
static int src_leaf_down(const hier *h, int l, long long x)
{
    long long g = rail_nodes(h, l), p = h->per_leaf;
    if (!rail_active(h, l) || p == 0)
        return -1;
    if (x > 0)
        return x * p < g ? (int)(x * p - 1) : -1;
    return (g - 1) / p != 0 ? (int)(g - 1) : -1;
}

/* The load of a link crossed by rails lo .. hi-1: their flows' shares summed in flow order
 * (sending node, then local index). Sending nodes take one or two values. */
static double load_of(const hier *h, int lo, int hi, src_fn src, long long x)
{
    double load = 0;
    for (int cur = -1;;) {
        int next = INT_MAX;
        for (int l = lo; l < hi; l++) {
            int s = src(h, l, x);
            if (s > cur && s < next)
                next = s;
        }
        if (next == INT_MAX)
            return load;
        for (int l = lo; l < hi; l++)
            if (src(h, l, x) == next)
                load += rail_share(h, l);
        cur = next;
    }
}

/* The class of rail l's flow from node a to node b, as interval_classes finds it. */
static gcsim_flow_class rail_flow_class(const hier *h, int l, int a, int b, double k0)
{
    const gcsim_topology *t = h->t;
    int links[GCSIM_ROUTE_MAX_LINKS];
    double lat, load[GCSIM_ROUTE_MAX_LINKS], share = rail_share(h, l);
    int nl = gcsim_topology_route(t, a * h->i + l, b * h->i + l, links, &lat);
    int q = h->i / t->nics_per_node, lo = l / q * q, hi = lo + q; /* the rails of l's NIC */
    /* pcie up, nic up, [leaf up, leaf down,] nic down, pcie down (topology.c) */
    load[0] = load[nl - 1] = share;
    load[1] = load_of(h, lo, hi, src_nic_up, a);
    load[nl - 2] = load_of(h, lo, hi, src_nic_down, b);
    if (nl == 6) {
        load[2] = load_of(h, 0, h->i, src_leaf_up, leaf_of(h, a));
        load[3] = load_of(h, 0, h->i, src_leaf_down, leaf_of(h, b));
    }
    double bw = INFINITY;
    for (int k = 0; k < nl; k++)
        bw = fmin(bw, gcsim_topology_capacity_Bps(t, links[k]) * (share / load[k]));
    return (gcsim_flow_class){lat, bw, share, k0, 0, rail_nodes(h, l) - 2};
}

/* The classes of the rail rings active in the interval from h->from_step. Forward flows
 * a -> a+1 share their sender's NIC load (every ring holds nodes 0 .. j-2); they differ
 * by whether they enter the last node (a = j-2) and, crossing leaves (a+1 a multiple of
 * nodes_per_leaf), by the two leaves' loads, which are alike for every leaf up to two
 * before the last one's (each ring crosses them, from the same sending node). So forward
 * flows from 0, 1, j-2 and the crossings out of leaves 0, 1 and the last three are every
 * forward class; the wrap flow is the last. */
static int rail_classes(const hier *h, double k0, gcsim_class_list *out)
{
    int q = h->i / h->t->nics_per_node;
    long long last_leaf = leaf_of(h, h->j - 1);
    for (int l = 0; l < h->i; l++) {
        if (!rail_active(h, l))
            continue;
        /* the same NIC and ring length as rail l-1: the same classes */
        if (l > 0 && (l - 1) / q == l / q && rail_nodes(h, l - 1) == rail_nodes(h, l))
            continue;
        int g = rail_nodes(h, l);
        long long cand[9] = {0, 1, h->j - 2, -1, -1, -1, -1, -1, -1};
        if (h->per_leaf) {
            const long long leaves[5] = {0, 1, last_leaf - 2, last_leaf - 1, last_leaf};
            for (int k = 0; k < 5; k++)
                cand[3 + k] = leaves[k] >= 0 ? (leaves[k] + 1) * h->per_leaf - 1 : -1;
        }
        for (int k = 0; k < 9; k++)
            if (cand[k] >= 0 && cand[k] <= g - 2 &&
                gcsim_class_list_add(out, rail_flow_class(h, l, (int)cand[k], (int)cand[k] + 1,
                                                          k0)))
                return -1;
        if (gcsim_class_list_add(out, rail_flow_class(h, l, g - 1, 0, k0)))
            return -1;
    }
    return 0;
}

/* ---- node rings ---- */

/* GPUs of node m's ring. */
static int node_gpus(const hier *h, int m) { return m < h->j - 1 ? h->i : h->r; }

/* The class of node m's ring flows: each alone on its links (an NVLink pair link, or the
 * sender's switch port up and the receiver's down), so its share over the link's load is
 * 1 and its bandwidth the intra-node capacity, whichever flow of the ring. */
static gcsim_flow_class node_flow_class(const hier *h, int m, double k0)
{
    int links[GCSIM_ROUTE_MAX_LINKS], g = node_gpus(h, m);
    double lat, share = 1.0 / g, bw = INFINITY;
    int nl = gcsim_topology_route(h->t, m * h->i, m * h->i + 1, links, &lat);
    for (int k = 0; k < nl; k++)
        bw = fmin(bw, gcsim_topology_capacity_Bps(h->t, links[k]) * (share / share));
    return (gcsim_flow_class){lat, bw, share, k0, 0, g - 2};
}

/* Full nodes share one class; the partial last node has its own. */
static int node_classes(const hier *h, double k0, gcsim_class_list *out)
{
    for (int m = h->j > 1 ? h->j - 2 : 0; m < h->j; m++) {
        int g = node_gpus(h, m);
        if (g >= 2 && g - 2 >= h->from_step && gcsim_class_list_add(out, node_flow_class(h, m, k0)))
            return -1;
    }
    return 0;
}

/* ---- phases ---- */

typedef int (*classes_fn)(const hier *h, double k0, gcsim_class_list *out);

static int int_order(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* A phase of `steps` steps whose rings have the lengths (members) in lens: its classes,
 * per interval of steps where rings stop at different steps (the boundaries
 * interval_bounds finds: 0, the end, and the step after each ring's last). */
static int add_rings_phase(gcsim_schedule *s, hier *h, const char *name, int steps, double dk,
                           bool reduce, double k0, const int *lens, int n_lens, classes_fn f)
{
    int bound[4], nb = 0;
    bound[nb++] = 0;
    bound[nb++] = steps;
    for (int k = 0; k < n_lens && k < 2; k++)
        if (lens[k] >= 2 && lens[k] - 1 > 0 && lens[k] - 1 < steps)
            bound[nb++] = lens[k] - 1;
    qsort(bound, (size_t)nb, sizeof *bound, int_order);
    int w = 0;
    for (int k = 0; k < nb; k++)
        if (w == 0 || bound[w - 1] != bound[k])
            bound[w++] = bound[k];
    nb = w;
    gcsim_class_list all = {0};
    int ni = nb - 1, start[4] = {0};
    for (int k = 0; k < ni; k++) {
        gcsim_class_list one = {0};
        h->from_step = bound[k];
        start[k] = all.n;
        if (f(h, k0, &one)) {
            gcsim_class_list_free(&one);
            gcsim_class_list_free(&all);
            return -1;
        }
        /* appended as they are: a class active in two intervals is listed in both */
        for (int c = 0; c < one.n; c++) {
            if (all.n == all.cap) {
                int cap = all.cap ? 2 * all.cap : 8;
                gcsim_flow_class *v = realloc(all.v, sizeof *v * (size_t)cap);
                if (!v) {
                    gcsim_class_list_free(&one);
                    gcsim_class_list_free(&all);
                    return -1;
                }
                all.v = v;
                all.cap = cap;
            }
            all.v[all.n++] = one.v[c];
        }
        gcsim_class_list_free(&one);
    }
    start[ni] = all.n;
    h->from_step = 0;
    int before = s->n_phases;
    if (gcsim_closed_add_phase(s, name, steps, dk, reduce, &all))
        return -1;
    if (ni < 2 || s->n_phases == before)
        return 0;
    gcsim_phase *ph = &s->phases[s->n_phases - 1];
    ph->interval_from = malloc(sizeof(int) * (size_t)ni);
    ph->interval_to = malloc(sizeof(int) * (size_t)ni);
    ph->interval_class = malloc(sizeof(int) * (size_t)(ni + 1));
    if (!ph->interval_from || !ph->interval_to || !ph->interval_class)
        return -1; /* gcsim_schedule_free frees what was allocated */
    for (int k = 0; k < ni; k++) {
        ph->interval_from[k] = bound[k];
        ph->interval_to[k] = bound[k + 1] - 1;
        ph->interval_class[k] = start[k];
    }
    ph->interval_class[ni] = start[ni];
    ph->n_intervals = ni;
    return 0;
}

int gcsim_closed_hierarchical(gcsim_schedule *s, const gcsim_topology *t, bool reduce_scatter_only)
{
    int i = t->gpus_per_node, j = t->nodes, n = t->gpus;
    hier h = {t, i, j, n, n - (j - 1) * i, 0, 0};
    if (t->leaves > 1)
        h.per_leaf = t->platform->fabric.nodes_per_leaf;
    int node_steps = (n < i ? n : i) - 1;
    int node_lens[2] = {j > 1 ? i : n, j > 1 && h.r != i ? h.r : 0};
    int rail_lens[2] = {j, h.r < i ? j - 1 : 0};
    if (add_rings_phase(s, &h, "node reduce-scatter", node_steps, 1, true, 1, node_lens, 2,
                        node_classes))
        return -1;
    if (j > 1 && add_rings_phase(s, &h, "rail reduce-scatter", j - 1, i, true, i, rail_lens, 2,
                                 rail_classes))
        return -1;
    if (reduce_scatter_only)
        return 0;
    if (j > 1 && add_rings_phase(s, &h, "rail all-gather", j - 1, 0, false, n, rail_lens, 2,
                                 rail_classes))
        return -1;
    return add_rings_phase(s, &h, "node all-gather", node_steps, 0, false, n, node_lens, 2,
                           node_classes);
}
