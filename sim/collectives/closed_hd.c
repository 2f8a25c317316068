/*
 * sim/collectives/closed_hd.c: halving-doubling's classes without listing its flows
 * (closed_form.h).
 *
 * build_halving_doubling (schedule.c) folds the r = N - 2^L extra ranks into a partner
 * (even rank p < 2r sends to p + 1), runs L halving phases then L doubling phases over the
 * virtual ranks (vrank v < r is rank 2v + 1, the others rank v + r; partner v XOR D, D =
 * 2^L/2 .. 1 then back), and unfolds. In every phase a GPU sends at most one flow and
 * receives at most one, all of one share, so:
 *   - inside a node the flow alone holds its port (or NVLink pair): the fabric's capacity;
 *   - between nodes its PCIe links carry it alone (PCIe capacity), and the NIC of its rail,
 *     and the leaves' links when the leaves differ, carry the flows of that NIC or leaf
 *     that leave it (up) or enter it (down): capacity x share / (count x share).
 * A flow's class is then its route's latency and the counts of its two NICs and two
 * leaves. The counts are found by walking the NIC's or leaf's GPUs; a few recent nodes'
 * and leaves' counts are kept (O(gpus_per_node) memory), as a GPU's partner sits in a node
 * and a leaf that move along with it. Only the GPUs near the irregular places (the fold
 * prefix's edge, the partly filled last node and leaf) and one period of the regular
 * stretches are walked (xor_classes): per phase O(leaf GPUs + the period), for the fold and
 * unfold O(r). Halving and doubling at one distance have the same flows, so each distance
 * is counted once. No per-GPU memory.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "closed_form.h"

enum { FOLD, UNFOLD, XOR };
enum { CACHED = 4 }; /* nodes and leaves whose counts are kept */

typedef struct {
    int id;                    /* node or leaf; -1: empty */
    int *up, *down;            /* per rail (nodes) or one (leaves) */
    unsigned long long used;   /* for replacing the least recently used */
} count_entry;

typedef struct {
    const gcsim_topology *t;
    int n, i, R, per_leaf, r, kind, D;
    count_entry node[CACHED], leaf[CACHED];
    unsigned long long clock;
} hd_phase;

/* The rank GPU a sends to in this phase, or -1. */
static int out_of(const hd_phase *h, int a)
{
    int r = h->r;
    switch (h->kind) {
    case FOLD: return a < 2 * r && a % 2 == 0 ? a + 1 : -1;
    case UNFOLD: return a < 2 * r && a % 2 == 1 ? a - 1 : -1;
    default: {
        if (a < 2 * r && a % 2 == 0)
            return -1; /* folded into a + 1 */
        int v = a < 2 * r ? (a - 1) / 2 : a - r, pv = v ^ h->D;
        return pv < r ? 2 * pv + 1 : pv + r;
    }
    }
}

/* The rank GPU b receives from, or -1 (XOR partners are mutual). */
static int in_of(const hd_phase *h, int b)
{
    int r = h->r;
    switch (h->kind) {
    case FOLD: return b < 2 * r && b % 2 == 1 ? b - 1 : -1;
    case UNFOLD: return b < 2 * r && b % 2 == 0 ? b + 1 : -1;
    default: return out_of(h, b);
    }
}

static int leaf_of_node(const hd_phase *h, int m) { return m / h->per_leaf; }

/* The entry of node (leaf = false) or leaf `id`, its counts found when not kept. */
static const count_entry *counts(hd_phase *h, bool leaf, int id)
{
    count_entry *c = leaf ? h->leaf : h->node, *victim = &c[0];
    h->clock++;
    for (int k = 0; k < CACHED; k++) {
        if (c[k].id == id) {
            c[k].used = h->clock;
            return &c[k];
        }
        if (c[k].used < victim->used)
            victim = &c[k];
    }
    int i = h->i, n = h->n, slots = leaf ? 1 : h->R;
    memset(victim->up, 0, sizeof(int) * (size_t)slots);
    memset(victim->down, 0, sizeof(int) * (size_t)slots);
    long long from = leaf ? (long long)id * h->per_leaf * i : (long long)id * i;
    long long to = leaf ? from + (long long)h->per_leaf * i : from + i;
    if (to > n)
        to = n;
    for (int a = (int)from; a < to; a++) {
        int q = leaf ? 0 : (a % i) * h->R / i;
        int o = out_of(h, a), s = in_of(h, a), here = a / i;
        if (leaf) {
            if (o >= 0 && leaf_of_node(h, o / i) != id)
                victim->up[0]++;
            if (s >= 0 && leaf_of_node(h, s / i) != id)
                victim->down[0]++;
        } else {
            if (o >= 0 && o / i != here)
                victim->up[q]++;
            if (s >= 0 && s / i != here)
                victim->down[q]++;
        }
    }
    victim->id = id;
    victim->used = h->clock;
    return victim;
}

/* The class of the flow a -> b of this phase, as gcsim_schedule_prepare finds it: the
 * same route latency and the same capacity x share / load, each load a count of flows of
 * one share (exact: the share is a power of two). */
static gcsim_flow_class flow_class(hd_phase *h, int a, int b, double share, double k0)
{
    const gcsim_topology *t = h->t;
    const gcsim_platform *p = t->platform;
    int i = h->i, ma = a / i, mb = b / i;
    if (ma == mb)
        return (gcsim_flow_class){p->intra.latency_s, p->intra.gpu_to_gpu_Bps * (share / share),
                                  share, k0, 0, 0};
    double sw = p->fabric.switch_latency_s, lat = p->nic.latency_s + 2 * sw;
    double cap_nic = gcsim_topology_nic_Bps(t);
    double bw = p->intra.gpu_to_host_Bps * (share / share);
    int qa = (a % i) * h->R / i, qb = (b % i) * h->R / i;
    int up = counts(h, false, ma)->up[qa];
    bw = fmin(bw, cap_nic * (share / (up * share)));
    int down = counts(h, false, mb)->down[qb];
    bw = fmin(bw, cap_nic * (share / (down * share)));
    if (t->leaves) {
        int La = leaf_of_node(h, ma), Lb = leaf_of_node(h, mb);
        if (La != Lb) {
            double cap_leaf = gcsim_topology_capacity_Bps(t, t->n_links - 1);
            int lu = counts(h, true, La)->up[0], ld = counts(h, true, Lb)->down[0];
            bw = fmin(bw, cap_leaf * (share / (lu * share)));
            bw = fmin(bw, cap_leaf * (share / (ld * share)));
            lat += 2 * sw;
        }
    }
    return (gcsim_flow_class){lat, bw, share, k0, 0, 0};
}

/* The flows of the phase from senders a in [from, to) into l. */
static int range_classes(hd_phase *h, long long from, long long to, double share, double k0,
                         gcsim_class_list *l)
{
    gcsim_flow_class last = {0};
    bool have = false;
    for (long long a = from < 0 ? 0 : from; a < to && a < h->n; a++) {
        int b = out_of(h, (int)a);
        if (b < 0)
            continue;
        gcsim_flow_class c = flow_class(h, (int)a, b, share, k0);
        /* consecutive GPUs mostly repeat a class: skip the list's scan */
        if (have && c.latency_s == last.latency_s && c.Bps == last.Bps)
            continue;
        last = c;
        have = true;
        if (gcsim_class_list_add(l, c))
            return -1;
    }
    return 0;
}

static void forget_counts(hd_phase *h)
{
    for (int k = 0; k < CACHED; k++)
        h->node[k].id = h->leaf[k].id = -1;
}

static long long gcd(long long a, long long b)
{
    while (b) {
        long long x = a % b;
        a = b;
        b = x;
    }
    return a;
}

/* The classes of an exchange at distance D without walking every GPU. Let L be a leaf's
 * GPUs (a node's on a star), [0, p1) the whole leaves inside the fold prefix (ranks < 2r:
 * the odd ones active, vrank (rank - 1) / 2, a partner in the prefix 2D away) and [z0, z1)
 * the whole leaves of full nodes past it (every rank active, vrank rank - r, a partner in
 * there D away); the GPUs between and after are walked one by one. Walking any GPU is
 * safe (its class is one of the phase's); what follows shows the walks miss none.
 *   D >= L: every flow leaves its node and leaf (a partner across the prefix's edge too:
 *     it is at least D away), so a NIC carries all its rail's active GPUs and a leaf link
 *     all the leaf's, whatever D: a rank's counts repeat every 2L ranks in [0, p1) (odd
 *     ranks active) and are the same everywhere in [z0, z1). A flow costs what its
 *     reverse does (partners are mutual, so a NIC or a leaf carries as many flows out as
 *     in), so the flows with an end outside both stretches are found from that end; the
 *     flows with both ends in [z0, z1) are one class, found from one pair; those inside
 *     [0, p1), or from [0, p1) to [z0, z1), from the first 2L senders of their stretch.
 *   D < L: a rank's class depends on its leaf, its partner's (a neighbour) and their
 *     partners' (the next ones): moving all by T, a whole number of leaves and of XOR
 *     blocks (T = lcm(2D, L) in [z0, z1), lcm(4D, 2L) in [0, p1), even so that odd stays
 *     odd), changes nothing while they stay inside. So ranks two leaves (four in the
 *     prefix, whose partners are twice as far) inside a stretch repeat their first T. */
static int xor_classes(hd_phase *h, double share, double k0, gcsim_class_list *l)
{
    forget_counts(h);
    long long n = h->n, D = h->D, r = h->r;
    long long L = (long long)(h->t->leaves ? h->per_leaf : 1) * h->i;
    long long p1 = 2 * r / L * L, z0 = (2 * r + L - 1) / L * L, z1 = n / L * L;
    long long span[16][2];
    int ns = 0;
#define WALK(from, to)                                                    \
    do {                                                                  \
        span[ns][0] = (from);                                             \
        span[ns][1] = (to);                                               \
        ns++;                                                             \
    } while (0)
    bool prefix = p1 >= 10 * L, suffix = z1 - z0 >= 5 * L;
    if (!prefix)
        p1 = 0; /* walked with what follows it */
    if (!suffix)
        WALK(p1, n);
    if (D >= L) {
        if (suffix) {
            WALK(p1, z0);
            WALK(z1, n);
            long long off = (z0 - r) % (2 * D), x = off < D ? z0 : z0 + 2 * D - off;
            if (x + D < z1)
                WALK(x, x + 1);
        }
        if (prefix) {
            /* inside the prefix: senders whose vrank has bit D clear, partner 2D up */
            WALK(0, 2 * L + 2);
            /* to [z0, z1): vranks v in [r - D, r), bit D clear, v + D + r in [z0, z1) */
            long long lo = r - D, hi = r;
            if (lo < z0 - D - r)
                lo = z0 - D - r;
            if (hi > z1 - D - r)
                hi = z1 - D - r;
            if (lo < 0)
                lo = 0;
            if (lo % (2 * D) >= D)
                lo += 2 * D - lo % (2 * D);
            if (lo < hi)
                WALK(2 * lo + 1, 2 * lo + 1 + 2 * L + 2);
        }
    } else {
        if (suffix) {
            long long T = 2 * D / gcd(2 * D, L) * L, s0 = z0 + 2 * L, s1 = z1 - 2 * L;
            WALK(p1, s0);
            WALK(s0, s0 + T < s1 ? s0 + T : s1);
            WALK(s1, n);
        }
        if (prefix) {
            long long T = 4 * D / gcd(4 * D, 2 * L) * 2 * L, s0 = 4 * L, s1 = p1 - 4 * L;
            WALK(0, s0);
            WALK(s0, s0 + T < s1 ? s0 + T : s1);
            WALK(s1, p1);
        }
    }
#undef WALK
    for (int k = 0; k < ns; k++)
        if (range_classes(h, span[k][0], span[k][1], share, k0, l))
            return -1;
    return 0;
}

/* Halving at distance index d (D = 2^L >> d) then, from saved classes, doubling. */
static int hd_phases(gcsim_schedule *s, hd_phase *h, int levels, int pow2)
{
    int n = h->n;
    double per_vrank = (double)n / pow2;
    gcsim_class_list *saved = calloc((size_t)(levels + 1), sizeof *saved);
    if (!saved)
        return -1;
    int rc = 0;
    h->kind = XOR;
    for (int d = 1; d <= levels && rc == 0; d++) {
        h->D = pow2 >> d;
        gcsim_class_list l = {0};
        double share = 1.0 / (double)(1 << d);
        rc = xor_classes(h, share, per_vrank * (double)(1 << (d - 1)), &l);
        for (int k = 0; k < l.n && rc == 0; k++) {
            gcsim_flow_class c = l.v[k];
            c.k0 = n;
            rc = gcsim_class_list_add(&saved[d], c);
        }
        if (rc == 0)
            rc = gcsim_closed_add_phase(s, "halving", 1, 0, true, &l);
        gcsim_class_list_free(&l);
    }
    for (int q = 1; q <= levels && rc == 0; q++)
        rc = gcsim_closed_add_phase(s, "doubling", 1, 0, false, &saved[levels + 1 - q]);
    for (int d = 0; d <= levels; d++)
        gcsim_class_list_free(&saved[d]);
    free(saved);
    return rc;
}

int gcsim_closed_halving_doubling(gcsim_schedule *s, const gcsim_topology *t)
{
    int n = t->gpus, pow2 = 1, levels = 0;
    while (pow2 * 2 <= n) {
        pow2 *= 2;
        levels++;
    }
    hd_phase h = {.t = t, .n = n, .i = t->gpus_per_node, .R = t->nics_per_node,
                  .per_leaf = t->leaves ? t->platform->fabric.nodes_per_leaf : t->nodes,
                  .r = n - pow2};
    int *mem = calloc((size_t)CACHED * 2 * (size_t)(h.R + 1), sizeof(int));
    if (!mem)
        return -1;
    for (int k = 0; k < CACHED; k++) {
        h.node[k].up = mem + (size_t)k * 2 * (h.R + 1);
        h.node[k].down = h.node[k].up + h.R;
        h.leaf[k].up = h.node[k].down + h.R;
        h.leaf[k].down = h.leaf[k].up + 1;
    }
    gcsim_class_list l = {0};
    h.kind = FOLD;
    forget_counts(&h);
    int rc = range_classes(&h, 0, 2 * h.r, 1.0, 1, &l);
    if (rc == 0)
        rc = gcsim_closed_add_phase(s, "fold", 1, 0, true, &l);
    if (rc == 0)
        rc = hd_phases(s, &h, levels, pow2);
    h.kind = UNFOLD;
    forget_counts(&h);
    if (rc == 0)
        rc = range_classes(&h, 0, 2 * h.r, 1.0, n, &l);
    if (rc == 0)
        rc = gcsim_closed_add_phase(s, "unfold", 1, 0, false, &l);
    gcsim_class_list_free(&l);
    free(mem);
    return rc;
}
