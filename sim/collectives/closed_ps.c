/*
 * sim/collectives/closed_ps.c: the parameter server's classes without its N x S flows
 * (closed_form.h).
 *
 * build_ps (schedule.c) sends 1/S of every GPU's payload to each of S shards, shard x on
 * the CPU of node x mod j, and pulls the sums back; coalescing merges a GPU's shards on the
 * same CPU, so GPU g sends CPU c the share m_c / S, m_c = floor(S / j) + (c < S mod j). A
 * push flow g -> c crosses g's PCIe up (load: all of g's shares, 1), and between nodes the
 * NIC of g's rail (its rail's GPUs' shares to other nodes), the leaves' uplink and downlink
 * when the leaves differ, and NIC 0 down of node c (every other node's GPUs' m_c / S):
 *   NIC up (a, q):   G_aq x (S - m_a) / S     G_aq: node a's GPUs on rail q
 *   leaf up L:       gpus(L) x (S - m(L)) / S  m(L): the m_c of L's nodes summed
 *   leaf down L:     (N - gpus(L)) x m(L) / S
 *   NIC 0 down c:    (N - gpus(c)) x m_c / S
 * The pull crosses the same links the other way with the same loads (CPU c's NIC 0 up
 * carries what its NIC 0 down did), so its classes are the push's with k0 = N.
 *
 * A node's flows depend only on its type (m_c: S mod j splits the nodes in two; its GPUs:
 * the last node may be short), its leaf's type (its nodes' types) and which leaf and node
 * the destination shares with it. Leaves of one type are interchangeable, and so are nodes
 * of one type in one leaf, so two leaves of every type and two nodes of every type in each
 * (when there are) see every situation: about 9 leaves x 10 nodes, whatever N.
 */
#include <math.h>

#include "closed_form.h"

typedef struct {
    const gcsim_topology *t;
    int n, i, j, S, per_leaf; /* per_leaf: nodes per leaf, j on a star (one "leaf") */
    int high;                 /* nodes 0 .. high-1 hold one shard more (S mod j) */
    int base;                 /* floor(S / j) */
} ps_shape;

static int node_shards(const ps_shape *p, int c) { return p->base + (c < p->high ? 1 : 0); }

static int node_gpus(const ps_shape *p, int c)
{
    int left = p->n - c * p->i;
    return left < p->i ? left : p->i;
}

static int leaf_first(const ps_shape *p, int L) { return L * p->per_leaf; }

static int leaf_end(const ps_shape *p, int L)
{
    long long e = (long long)(L + 1) * p->per_leaf;
    return e < p->j ? (int)e : p->j;
}

static long long leaf_shards(const ps_shape *p, int L)
{
    int a = leaf_first(p, L), z = leaf_end(p, L);
    int hi = (z < p->high ? z : p->high) - a;
    return (long long)(z - a) * p->base + (hi > 0 ? hi : 0);
}

static long long leaf_gpus(const ps_shape *p, int L)
{
    long long e = (long long)leaf_end(p, L) * p->i;
    return (e < p->n ? e : p->n) - (long long)leaf_first(p, L) * p->i;
}

static int leaf_of(const ps_shape *p, int c) { return c / p->per_leaf; }

/* The class of a push flow from a GPU on rail q of node a (G of its node's GPUs on that
 * rail) to node c's CPU. */
static gcsim_flow_class push_class(const ps_shape *p, int a, int G, int c, double k0)
{
    const gcsim_topology *t = p->t;
    const gcsim_platform *pl = t->platform;
    double S = p->S, share = node_shards(p, c) / S;
    double cap_host = pl->intra.gpu_to_host_Bps, cap_nic = gcsim_topology_nic_Bps(t);
    /* PCIe up carries all the GPU's shares: they add up to 1. */
    double bw = cap_host * (share / 1.0), lat;
    if (a == c) {
        lat = pl->intra.latency_s;
    } else {
        double sw = pl->fabric.switch_latency_s;
        lat = pl->nic.latency_s + 2 * sw;
        bw = fmin(bw, cap_nic * (share / (G * (double)(p->S - node_shards(p, a)) / S)));
        int La = leaf_of(p, a), Lc = leaf_of(p, c);
        if (t->leaves && La != Lc) {
            /* any leaf link's capacity: all are alike (gcsim_topology_capacity_Bps) */
            double cap_leaf = gcsim_topology_capacity_Bps(t, t->n_links - 1);
            double up = leaf_gpus(p, La) * (double)(p->S - leaf_shards(p, La)) / S;
            double down = (double)(p->n - leaf_gpus(p, Lc)) * (double)leaf_shards(p, Lc) / S;
            bw = fmin(bw, cap_leaf * (share / up));
            bw = fmin(bw, cap_leaf * (share / down));
            lat += 2 * sw;
        }
        bw = fmin(bw, cap_nic * (share / ((double)(p->n - node_gpus(p, c)) * node_shards(p, c) / S)));
    }
    return (gcsim_flow_class){lat, bw, share, k0, 0, 0};
}

/* Nodes that stand for all (see the top): in two leaves of every leaf type, two nodes of
 * every node type. Returns the count (at most cap). */
static int representatives(const ps_shape *p, int *out, int cap)
{
    int leaves = (p->j + p->per_leaf - 1) / p->per_leaf;
    int Lb = p->high < p->j ? leaf_of(p, p->high) : leaves - 1, Ll = leaves - 1;
    int lv[9] = {0, 1, Lb - 1, Lb, Lb + 1, Lb + 2, Ll - 2, Ll - 1, Ll};
    int n = 0;
    for (int x = 0; x < 9; x++) {
        int L = lv[x];
        if (L < 0 || L >= leaves)
            continue;
        int a = leaf_first(p, L), z = leaf_end(p, L);
        int nd[10] = {a, a + 1, p->high - 2, p->high - 1, p->high, p->high + 1,
                      p->j - 2, p->j - 1, z - 2, z - 1};
        for (int y = 0; y < 10; y++) {
            int c = nd[y];
            if (c < a || c >= z)
                continue;
            bool seen = false;
            for (int k = 0; k < n && !seen; k++)
                seen = out[k] == c;
            if (!seen && n < cap)
                out[n++] = c;
        }
    }
    return n;
}

static int ps_classes(const ps_shape *p, const int *rep, int nrep, double k0,
                      gcsim_class_list *l)
{
    const gcsim_topology *t = p->t;
    int i = p->i, R = t->nics_per_node;
    for (int x = 0; x < nrep; x++) {
        int a = rep[x], g = node_gpus(p, a);
        for (int q = 0; q < R; q++) {
            int G = 0; /* GPUs l < g with l * R / i == q */
            for (int loc = q * i / R; loc < (q + 1) * i / R && loc < g; loc++)
                G++;
            if (G == 0)
                continue;
            for (int y = 0; y < nrep; y++) {
                int c = rep[y];
                if (node_shards(p, c) == 0)
                    continue;
                if (gcsim_class_list_add(l, push_class(p, a, G, c, k0)))
                    return -1;
            }
        }
    }
    return 0;
}

int gcsim_closed_ps(gcsim_schedule *s, const gcsim_topology *t, int shards)
{
    ps_shape p = {.t = t, .n = t->gpus, .i = t->gpus_per_node, .j = t->nodes,
                  .S = shards < 1 ? t->nodes : shards};
    p.per_leaf = t->leaves ? t->platform->fabric.nodes_per_leaf : p.j;
    p.base = p.S / p.j;
    p.high = p.S % p.j;
    int rep[90];
    int nrep = representatives(&p, rep, 90);
    gcsim_class_list l = {0};
    int rc = ps_classes(&p, rep, nrep, 1, &l);
    if (rc == 0)
        rc = gcsim_closed_add_phase(s, "push", 1, 0, true, &l);
    if (rc == 0)
        rc = ps_classes(&p, rep, nrep, p.n, &l);
    if (rc == 0)
        rc = gcsim_closed_add_phase(s, "pull", 1, 0, false, &l);
    gcsim_class_list_free(&l);
    return rc;
}
