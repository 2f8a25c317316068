/*
 * sim/collectives/schedule.c: every collective as phases of flows (collectives.h).
 *
 * GPUs are placed node-major (node m holds GPUs m*i .. m*i+i-1). The schedules follow what
 * NCCL and the frameworks do, simplified to what decides their time:
 *   ring: one ring per NIC rail (R rings, each with 1/R of the data), ring r entering a
 *     node at the GPU after the last GPU of rail r and leaving from that GPU, so every NIC
 *     carries one ring each way; reduce-scatter (N-1 steps of 1/N) then all-gather;
 *     on rail-optimized fat trees ring r enters and leaves every node on rail r, relaying
 *     over NVLink to that rail where needed (NCCL's crossNic 0 and PXN, ring_rail.c);
 *   allgather: the same rings, N-1 steps each forwarding one worker's whole payload;
 *   halving-doubling: recursive halving then doubling over the largest power of two,
 *     the extra ranks folded into a partner first;
 *   tree: a chain through the GPUs of each node and a binary tree over the nodes, reduce
 *     then broadcast, pipelined in chunks; double-tree: two such trees each with half the
 *     data, the second over NCCL's mirrored (or, on an odd node count, shifted) node order
 *     and the reversed chain, so that a node interior in one tree is a leaf of the other
 *     (NCCL's double binary tree, tree_nodes.h);
 *   hierarchical: ring reduce-scatter inside each node, ring all-reduce of each 1/i shard
 *     across the nodes (one ring per local GPU index: per rail), ring all-gather inside;
 *   ps: every GPU pushes 1/S of its payload to each of S shards (on the nodes' CPUs, shard
 *     s on node s mod j) and pulls the sum back;
 *   terngrad: TernGrad Appendix B: recursive doubling of whole payloads among a node's
 *     GPUs, the node's first GPU hands the node's gradient to its CPU, recursive doubling
 *     among the CPUs; payloads never grow (the paper's model);
 *   dgc-paper: the same steps with payloads that grow as their sums do (DGC Sec. 5: "the
 *     density of sparse data doubles at every aggregation step in the worst case").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bagua_leader.h"
#include "byteps_ps.h"
#include "closed_form.h"
#include "mpi_host_allgather.h"
#include "onebit_alltoall.h"
#include "collectives.h"
#include "ring_rail.h"
#include "tree_cost.h"
#include "protocol.h"
#include "tree_nodes.h"

typedef struct {
    gcsim_flow *v;
    int n, cap;
} flow_list;

/* Room for at least `cap` flows (a builder that knows its count saves the copies of
 * growing by doubling). Returns -1 when out of memory. */
static int reserve(flow_list *l, int cap)
{
    if (cap <= l->cap)
        return 0;
    gcsim_flow *v = realloc(l->v, sizeof *v * (size_t)cap);
    if (!v)
        return -1;
    l->v = v;
    l->cap = cap;
    return 0;
}

static int push(flow_list *l, int src, int dst, double share, double k0, int first, int last)
{
    if (share <= 0 || src == dst)
        return 0;
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 64;
        gcsim_flow *v = realloc(l->v, sizeof *v * (size_t)cap);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = (gcsim_flow){src, dst, share, k0, first, last};
    return 0;
}

static int int_order(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int flow_order(const void *a, const void *b)
{
    const gcsim_flow *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    if (x->first_step != y->first_step)
        return x->first_step < y->first_step ? -1 : 1;
    if (x->last_step != y->last_step)
        return x->last_step < y->last_step ? -1 : 1;
    return (x->k0 > y->k0) - (x->k0 < y->k0);
}

/* Senders with at most this many flows are sorted by insertion (sort_flows). */
enum { SMALL_SORT_MAX = 64 };

static bool ordered(const gcsim_flow *v, int n)
{
    for (int f = 1; f < n; f++)
        if (flow_order(&v[f - 1], &v[f]) > 0)
            return false;
    return true;
}

/* Puts the flows in flow_order: grouped by sender with a counting sort (O(flows +
 * senders)), then each sender's flows sorted unless the builder pushed them in order, as
 * they nearly always are. A plain sort of every flow cost planners more than the rest of
 * the closed form at tens of thousands of GPUs. Returns -1 when out of memory. */
static int sort_flows(flow_list *l)
{
    if (ordered(l->v, l->n))
        return 0;
    int senders = 0;
    for (int f = 0; f < l->n; f++)
        if (l->v[f].src + 1 > senders)
            senders = l->v[f].src + 1;
    int *start = calloc((size_t)senders + 1, sizeof(int));
    gcsim_flow *out = malloc(sizeof *out * (size_t)l->n);
    if (!start || !out) {
        free(start);
        free(out);
        return -1;
    }
    for (int f = 0; f < l->n; f++)
        start[l->v[f].src + 1]++;
    for (int e = 0; e < senders; e++)
        start[e + 1] += start[e];
    for (int f = 0; f < l->n; f++)
        out[start[l->v[f].src]++] = l->v[f]; /* start[e] ends as the end of sender e */
    for (int e = 0, from = 0; e < senders; from = start[e++]) {
        int count = start[e] - from;
        if (ordered(out + from, count))
            continue;
        if (count > SMALL_SORT_MAX) {
            qsort(out + from, (size_t)count, sizeof *out, flow_order);
            continue;
        }
        /* A sender's few flows (a GPU of the railed trees has 2 x rails x trees): insertion
         * sort, stable like glibc's merge sort, so equal flows keep the order coalesce adds
         * their shares in; qsort's calls through a pointer were a tenth of a large plan. */
        gcsim_flow *v = out + from;
        for (int a = 1; a < count; a++) {
            gcsim_flow x = v[a];
            int b = a;
            for (; b > 0 && flow_order(&v[b - 1], &x) > 0; b--)
                v[b] = v[b - 1];
            v[b] = x;
        }
    }
    free(start);
    free(l->v);
    l->v = out;
    l->cap = l->n;
    return 0;
}

/* Flows between the same pair in the same steps holding the same sums are one message
 * (e.g. the R rings' hops inside a node): merge them, adding their shares. */
static int coalesce(flow_list *l)
{
    if (l->n < 2)
        return 0;
    if (sort_flows(l))
        return -1;
    int w = 0;
    for (int r = 1; r < l->n; r++) {
        gcsim_flow *a = &l->v[w], *b = &l->v[r];
        if (a->src == b->src && a->dst == b->dst && a->first_step == b->first_step &&
            a->last_step == b->last_step && a->k0 == b->k0)
            a->share += b->share;
        else
            l->v[++w] = *b;
    }
    l->n = w + 1;
    return 0;
}

/* Flows between the same pair whose windows overlap become one message per step: for
 * each stretch of steps in which the same flows of a pair are active, one flow with the
 * sum of their shares, holding the largest of their sums (exact for payloads that do not
 * grow as sums form; an upper bound for those that do). The railed trees send many trees'
 * chunks over the same GPU pair in the same step; as separate messages they multiplied
 * the DES's work by the number of trees without changing what either engine computes for
 * dense data. Returns -1 when out of memory. */
static int merge_pairs(flow_list *l)
{
    if (l->n < 2 || sort_flows(l))
        return l->n < 2 ? 0 : -1;
    flow_list out = {0};
    int *bound = NULL, cap = 0, rc = reserve(&out, l->n);
    for (int a = 0, b; a < l->n && !rc; a = b) {
        for (b = a + 1; b < l->n && l->v[b].src == l->v[a].src && l->v[b].dst == l->v[a].dst;)
            b++;
        int m = b - a, nb = 0;
        if (2 * m > cap) {
            cap = 2 * m;
            int *grown = realloc(bound, sizeof(int) * (size_t)cap);
            if (!grown) {
                rc = -1;
                break;
            }
            bound = grown;
        }
        for (int f = a; f < b; f++) {
            bound[nb++] = l->v[f].first_step;
            bound[nb++] = l->v[f].last_step + 1;
        }
        qsort(bound, (size_t)nb, sizeof *bound, int_order);
        int start = out.n;
        for (int k = 0; k + 1 < nb && !rc; k++) {
            int from = bound[k], to = bound[k + 1] - 1;
            if (from > to)
                continue;
            double share = 0, k0 = 0;
            for (int f = a; f < b; f++)
                if (l->v[f].first_step <= from && l->v[f].last_step >= to) {
                    share += l->v[f].share;
                    k0 = fmax(k0, l->v[f].k0);
                }
            gcsim_flow *prev = out.n > start ? &out.v[out.n - 1] : NULL;
            if (prev && prev->last_step == from - 1 && prev->share == share && prev->k0 == k0)
                prev->last_step = to;
            else
                rc = push(&out, l->v[a].src, l->v[a].dst, share, k0, from, to);
        }
    }
    free(bound);
    if (rc) {
        free(out.v);
        return -1;
    }
    free(l->v);
    *l = out;
    return 0;
}

gcsim_phase *gcsim_schedule_new_phase(gcsim_schedule *s, const char *name, int steps, double dk,
                                      bool reduce)
{
    gcsim_phase *ph = realloc(s->phases, sizeof *ph * (size_t)(s->n_phases + 1));
    if (!ph)
        return NULL;
    s->phases = ph;
    ph = &s->phases[s->n_phases++];
    memset(ph, 0, sizeof *ph);
    strncpy(ph->name, name, sizeof ph->name - 1);
    ph->steps = steps;
    ph->dk = dk;
    ph->reduce = reduce;
    ph->fixed_k = s->collective == COLLECTIVE_TERNGRAD;
    return ph;
}

static int add_phase(gcsim_schedule *s, const char *name, int steps, double dk, bool reduce,
                     flow_list *l)
{
    gcsim_phase *ph = NULL;
    if (steps >= 1 && l->n > 0 && coalesce(l) == 0)
        ph = gcsim_schedule_new_phase(s, name, steps, dk, reduce);
    if (ph) {
        ph->n_flows = l->n;
        ph->flows = l->v;
    } else {
        free(l->v);
    }
    int rc = ph || steps < 1 || l->n == 0 ? 0 : -1;
    *l = (flow_list){0};
    return rc;
}

/* ---- rings ---- */

/* The last phase added is a pipelined ring's with this route latency (gcsim_phase). */
static void pipelined_phase(gcsim_schedule *s, const gcsim_topology *t, double route_s)
{
    gcsim_phase *ph = &s->phases[s->n_phases - 1];
    ph->pipelined = gcsim_ring_pipelined(t);
    ph->route_latency_s = route_s;
}


/* The GPUs of ring r over nodes [node0, node0 + nodes) in order: node by node, starting
 * in each node after the last GPU of rail r (so that the ring leaves every node from rail
 * r). Returns the count. */
static int ring_order_nodes(const gcsim_topology *t, int node0, int nodes, int r, int rings,
                            int *order)
{
    int i = t->gpus_per_node, n = 0;
    int exit_local = rings > 1 ? (r + 1) * i / rings - 1 : i - 1;
    bool railed = rings > 1 && gcsim_ring_rail_aligned(t);
    for (int m = node0; m < node0 + nodes; m++) {
        int got = railed ? gcsim_ring_rail_order_node(t, m, r, order + n) : -1;
        if (got >= 0) { /* rail-optimized: in and out on rail r (ring_rail.c) */
            n += got;
            continue;
        }
        for (int step = 1; step <= i; step++) {
            int g = m * i + (exit_local + step) % i;
            if (g < t->gpus)
                order[n++] = g;
        }
    }
    return n;
}

/* A ring's hop a -> b; a hop between nodes that a rail-optimized fabric's ring sends
 * through the receiver's rail is relayed by the GPU on that rail (PXN, ring_rail.c): a ->
 * relay and relay -> b in the same steps. */
static int push_ring_hop(const gcsim_topology *t, flow_list *l, int a, int b, double share,
                         double k0, int first, int last)
{
    int relay = gcsim_ring_pxn_relay(t, a, b);
    if (relay < 0)
        return push(l, a, b, share, k0, first, last);
    return push(l, a, relay, share, k0, first, last) || push(l, relay, b, share, k0, first, last);
}

static int ring_order(const gcsim_topology *t, int r, int rings, int *order)
{
    return ring_order_nodes(t, 0, t->nodes, r, rings, order);
}

/* The latency of ring hop a -> b as its flows cross it: one route, or the two of a PXN
 * relay (push_ring_hop), one after the other. */
static double ring_hop_latency_s(const gcsim_topology *t, int a, int b, bool relayed)
{
    int links[GCSIM_ROUTE_MAX_LINKS];
    double lat = 0, leg = 0;
    int relay = relayed ? gcsim_ring_pxn_relay(t, a, b) : -1;
    if (relay < 0) {
        gcsim_topology_route(t, a, b, links, &lat);
        return lat;
    }
    gcsim_topology_route(t, a, relay, links, &lat);
    gcsim_topology_route(t, relay, b, links, &leg);
    return lat + leg;
}

/* *route_s raised to the latency of one chunk's route through a phase of cnt - 1 steps
 * of the ring `order` (gcsim_ring_route_s; relayed: its hops between nodes relayed as
 * push_ring_hop sends them). -1 with more distinct hop latencies than it counts. */
static int raise_route(const gcsim_topology *t, const int *order, int cnt, bool relayed,
                       double *route_s)
{
    double value_s[GCSIM_RING_ROUTE_VALUES];
    long long count[GCSIM_RING_ROUTE_VALUES];
    int values = 0;
    for (int p = 0; p < cnt; p++)
        if (gcsim_ring_route_add(value_s, count, &values,
                                 ring_hop_latency_s(t, order[p], order[(p + 1) % cnt], relayed),
                                 1))
            return -1;
    double x = gcsim_ring_route_s(value_s, count, values);
    if (x > *route_s)
        *route_s = x;
    return 0;
}

/* The rings' flows, and in *route_s (when not NULL) the latency of one chunk's route
 * through a phase of N - 1 steps of them, the worst ring's (gcsim_ring_route_s). */
static int ring_flows(const gcsim_topology *t, int *order, double share_per_ring, double k0,
                      int first, int last, flow_list *l, double *route_s)
{
    int rings = t->nodes > 1 ? t->nics_per_node : 1;
    if (route_s)
        *route_s = 0;
    for (int r = 0; r < rings; r++) {
        int n = ring_order(t, r, rings, order);
        for (int p = 0; p < n; p++)
            if (push_ring_hop(t, l, order[p], order[(p + 1) % n], share_per_ring / rings, k0,
                              first, last))
                return -1;
        if (route_s && raise_route(t, order, n, true, route_s))
            return -1;
    }
    return 0;
}

static int build_ring(gcsim_schedule *s, const gcsim_topology *t, int *scratch)
{
    int n = t->gpus;
    flow_list l = {0};
    double route_s = 0;
    if (ring_flows(t, scratch, 1.0 / n, 1, 0, n - 2, &l, &route_s) ||
        add_phase(s, "reduce-scatter", n - 1, 1, true, &l))
        return -1;
    pipelined_phase(s, t, route_s);
    if (ring_flows(t, scratch, 1.0 / n, n, 0, n - 2, &l, &route_s) ||
        add_phase(s, "all-gather", n - 1, 0, false, &l))
        return -1;
    pipelined_phase(s, t, route_s);
    return 0;
}

static int build_allgather(gcsim_schedule *s, const gcsim_topology *t, int *scratch)
{
    int n = t->gpus;
    flow_list l = {0};
    double route_s = 0;
    s->decodes = n - 1;
    if (ring_flows(t, scratch, 1.0, 1, 0, n - 2, &l, &route_s) ||
        add_phase(s, "all-gather", n - 1, 0, false, &l))
        return -1;
    pipelined_phase(s, t, route_s);
    return 0;
}

/* A ring over the given members (reduce-scatter steps with k growing by kstep, or
 * all-gather steps with the full sum), added to l. */
static int member_ring(const int *m, int g, double share, double k0, int steps, flow_list *l)
{
    for (int p = 0; p < g; p++)
        if (push(l, m[p], m[(p + 1) % g], share, k0, 0, steps - 1))
            return -1;
    return 0;
}

/* A ring inside every node over its GPUs, each step 1/g of the bucket (g the node's GPUs),
 * holding k0 workers' sums at its first step. */
static int node_rings(const gcsim_topology *t, int *m, double k0, flow_list *l)
{
    int i = t->gpus_per_node, n = t->gpus;
    for (int node = 0; node < t->nodes; node++) {
        int g = 0;
        for (int x = node * i; x < (node + 1) * i && x < n; x++)
            m[g++] = x;
        if (g > 1 && member_ring(m, g, 1.0 / g, k0, g - 1, l))
            return -1;
    }
    return 0;
}

/* Across nodes, a ring per local index (rail) over that GPU of every node, each carrying
 * its node shard's 1/g (g the nodes on the rail). */
static int rail_rings(const gcsim_topology *t, int *m, double k0, flow_list *l)
{
    int i = t->gpus_per_node, n = t->gpus;
    for (int loc = 0; loc < i; loc++) {
        int g = 0;
        for (int node = 0; node < t->nodes; node++)
            if (node * i + loc < n)
                m[g++] = node * i + loc;
        if (g > 1 && member_ring(m, g, 1.0 / ((double)i * g), k0, g - 1, l))
            return -1;
    }
    return 0;
}

/* Reduce-scatter in two levels: inside each node into i shards, then each shard across
 * the nodes on its rail. The first half of the hierarchical all-reduce, and ZeRO++'s
 * hierarchical gradient reduce-scatter (qgZ) on its own. */
static int hier_reduce_scatter(gcsim_schedule *s, const gcsim_topology *t, int *m)
{
    int i = t->gpus_per_node, j = t->nodes, n = t->gpus;
    flow_list l = {0};
    if (node_rings(t, m, 1, &l) ||
        add_phase(s, "node reduce-scatter", (n < i ? n : i) - 1, 1, true, &l))
        return -1;
    if (j > 1 && (rail_rings(t, m, i, &l) ||
                  add_phase(s, "rail reduce-scatter", j - 1, i, true, &l)))
        return -1;
    return 0;
}

static int build_hierarchical(gcsim_schedule *s, const gcsim_topology *t, int *m)
{
    int i = t->gpus_per_node, j = t->nodes, n = t->gpus;
    flow_list l = {0};
    if (hier_reduce_scatter(s, t, m))
        return -1;
    if (j > 1 && (rail_rings(t, m, n, &l) ||
                  add_phase(s, "rail all-gather", j - 1, 0, false, &l)))
        return -1;
    if (node_rings(t, m, n, &l))
        return -1;
    return add_phase(s, "node all-gather", (n < i ? n : i) - 1, 0, false, &l);
}

/* ---- grouped collectives (sharded data parallelism) ---- */

int gcsim_group_check(const gcsim_topology *t, int group, gcsim_error *err)
{
    int i = t->gpus_per_node, n = t->gpus;
    if (group == 0 || group == n)
        return 0;
    if (group < 1 || n % group != 0)
        return gcsim_fail(err, "a shard group of %d GPUs does not divide %d GPUs", group, n);
    if (!(i % group == 0 || group % i == 0))
        return gcsim_fail(err, "a shard group of %d GPUs neither fits in a %d-GPU node (a "
                               "divisor of %d) nor is whole nodes (a multiple of %d)",
                          group, i, i, i);
    return 0;
}

/* Rings inside every group of g consecutive GPUs: one ring per group inside a node; a
 * group of whole nodes gets the railed rings of ring_order over its nodes. */
static int group_rings(const gcsim_topology *t, int g, double share, double k0, int steps,
                       int *order, flow_list *l, double *route_s)
{
    int i = t->gpus_per_node, n = t->gpus;
    *route_s = 0;
    for (int first = 0; first < n; first += g) {
        if (g <= i || t->nodes == 1) {
            for (int p = 0; p < g; p++)
                order[p] = first + p;
            if (member_ring(order, g, share, k0, steps, l) ||
                raise_route(t, order, g, false, route_s))
                return -1;
            continue;
        }
        /* a group of all GPUs may end in a partly filled node: its GPUs take part too */
        int rings = t->nics_per_node, group_nodes = (g + i - 1) / i;
        for (int r = 0; r < rings; r++) {
            int cnt = ring_order_nodes(t, first / i, group_nodes, r, rings, order);
            for (int p = 0; p < cnt; p++)
                if (push_ring_hop(t, l, order[p], order[(p + 1) % cnt], share / rings, k0, 0,
                                  steps - 1))
                    return -1;
            if (raise_route(t, order, cnt, true, route_s))
                return -1;
        }
    }
    return 0;
}

static int build_group(gcsim_schedule *s, const gcsim_topology *t, int g, int *order)
{
    flow_list l = {0};
    int n = t->gpus;
    double route_s = 0;
    if (g < 2)
        return 0;
    switch (s->collective) {
    case COLLECTIVE_ALLGATHER:
        s->decodes = g - 1;
        if (group_rings(t, g, 1.0, 1, g - 1, order, &l, &route_s) ||
            add_phase(s, "all-gather", g - 1, 0, false, &l))
            return -1;
        pipelined_phase(s, t, route_s);
        return 0;
    case COLLECTIVE_REDUCE_SCATTER:
        if (group_rings(t, g, 1.0 / g, 1, g - 1, order, &l, &route_s) ||
            add_phase(s, "reduce-scatter", g - 1, 1, true, &l))
            return -1;
        pipelined_phase(s, t, route_s);
        return 0;
    case COLLECTIVE_CROSS_GROUP_RING: {
        int r = n / g; /* replicas */
        if (r < 2)
            return 0;
        for (int pass = 0; pass < 2; pass++) {
            route_s = 0;
            for (int rank = 0; rank < g; rank++) {
                for (int k = 0; k < r; k++)
                    order[k] = rank + k * g;
                if (member_ring(order, r, 1.0 / r, pass ? r : 1, r - 1, &l) ||
                    raise_route(t, order, r, false, &route_s))
                    return -1;
            }
            if (add_phase(s, pass ? "replica all-gather" : "replica reduce-scatter", r - 1,
                          pass ? 0 : 1, !pass, &l))
                return -1;
            pipelined_phase(s, t, route_s);
        }
        return 0;
    }
    default: return -1;
    }
}

/* ---- recursive halving and doubling ---- */

static int build_halving_doubling(gcsim_schedule *s, const gcsim_topology *t)
{
    int n = t->gpus, pow2 = 1, levels = 0;
    while (pow2 * 2 <= n) {
        pow2 *= 2;
        levels++;
    }
    int r = n - pow2;
    flow_list l = {0};
    for (int p = 0; p < 2 * r; p += 2)
        if (push(&l, p, p + 1, 1.0, 1, 0, 0))
            return -1;
    if (add_phase(s, "fold", 1, 0, true, &l))
        return -1;
    double per_vrank = (double)n / pow2;
    for (int pass = 0; pass < 2; pass++)
        for (int q = 1; q <= levels; q++) {
            int d = pass ? levels + 1 - q : q; /* halving: distance pow2/2 first */
            for (int vr = 0; vr < pow2; vr++) {
                int pv = vr ^ (pow2 >> d);
                int a = vr < r ? 2 * vr + 1 : vr + r, b = pv < r ? 2 * pv + 1 : pv + r;
                double k0 = pass ? n : per_vrank * (double)(1 << (d - 1));
                if (push(&l, a, b, 1.0 / (double)(1 << d), k0, 0, 0))
                    return -1;
            }
            if (add_phase(s, pass ? "doubling" : "halving", 1, 0, !pass, &l))
                return -1;
        }
    for (int p = 0; p < 2 * r; p += 2)
        if (push(&l, p + 1, p, 1.0, n, 0, 0))
            return -1;
    return add_phase(s, "unfold", 1, 0, false, &l);
}

/* ---- pipelined trees ---- */

typedef struct {
    int *parent, *height, *depth, *size;
} tree;

/* The local index (0..cnt-1) of the GPU at position pos of a node's chain that ends at
 * local index head; mirrored chains run the other way round the node. */
static int chain_local(int head, int pos, int cnt, bool mirrored)
{
    return mirrored ? ((head - pos) % cnt + cnt) % cnt : (head + pos) % cnt;
}

/* The head (local index) of rail r's chain in a node of cnt GPUs: the first GPU of the
 * rail's group (GPUs r*i/R .. (r+1)*i/R - 1 all use NIC r), the last one for the mirrored
 * tree, so that both leave the node through NIC r; on a short last node, its last GPU. */
static int rail_head(const gcsim_topology *t, int rail, int rails, bool mirrored, int cnt)
{
    int i = t->gpus_per_node;
    int h = mirrored ? (rail + 1) * i / rails - 1 : rail * i / rails;
    return h < cnt ? h : cnt - 1;
}

/* Rail r's tree: a chain through the GPUs of each node ending at the node's head (the
 * rail's GPU), plus NCCL's binary tree over the nodes linking the heads (tree_nodes.h);
 * mirrored: NCCL's second tree (mirrored or shifted node order) and the reversed chain
 * direction. Returns the root. */
static int tree_shape(const gcsim_topology *t, int rail, int rails, bool mirrored, tree *tr)
{
    int i = t->gpus_per_node, j = t->nodes, n = t->gpus;
    for (int g = 0; g < n; g++) {
        int node = g / i, cnt = (node + 1) * i <= n ? i : n - node * i, local = g % i;
        int head = rail_head(t, rail, rails, mirrored, cnt);
        int pos = mirrored ? ((head - local) % cnt + cnt) % cnt : ((local - head) % cnt + cnt) % cnt;
        /* the node's position in NCCL's node tree (tree_nodes.h) and its parent's */
        int q = gcsim_dtree_position(j, mirrored, node), up, d0, d1;
        gcsim_btree(j, q, &up, &d0, &d1);
        if (pos > 0) {
            tr->parent[g] = node * i + chain_local(head, pos - 1, cnt, mirrored);
        } else if (up >= 0) {
            int pnode = gcsim_dtree_node(j, mirrored, up);
            int pcnt = (pnode + 1) * i <= n ? i : n - pnode * i;
            tr->parent[g] = pnode * i + rail_head(t, rail, rails, mirrored, pcnt);
        } else {
            tr->parent[g] = -1;
        }
    }
    /* Depth from the root (breadth first), then size and height from the leaves. */
    int *queue = tr->size; /* reused: holds the BFS order first */
    int head = 0, tail = 0, root = -1;
    for (int g = 0; g < n; g++)
        if (tr->parent[g] < 0) {
            queue[tail++] = g;
            tr->depth[g] = 0;
            root = g;
        }
    /* Children lists: first child and next sibling, built in one pass. */
    int *first_child = tr->height, *next_sibling = malloc(sizeof(int) * (size_t)n);
    int *order = malloc(sizeof(int) * (size_t)n);
    if (!next_sibling || !order) {
        free(next_sibling);
        free(order);
        return -2;
    }
    for (int g = 0; g < n; g++)
        first_child[g] = next_sibling[g] = -1;
    for (int g = n - 1; g >= 0; g--)
        if (tr->parent[g] >= 0) {
            next_sibling[g] = first_child[tr->parent[g]];
            first_child[tr->parent[g]] = g;
        }
    while (head < tail) {
        int g = queue[head++];
        for (int c = first_child[g]; c >= 0; c = next_sibling[c]) {
            tr->depth[c] = tr->depth[g] + 1;
            queue[tail++] = c;
        }
    }
    memcpy(order, queue, sizeof(int) * (size_t)n);
    for (int g = 0; g < n; g++) {
        tr->size[g] = 1;
        tr->height[g] = 0;
    }
    for (int x = n - 1; x >= 0; x--) {
        int g = order[x], p = tr->parent[g];
        if (p >= 0) {
            tr->size[p] += tr->size[g];
            if (tr->height[g] + 1 > tr->height[p])
                tr->height[p] = tr->height[g] + 1;
        }
    }
    free(order);
    free(next_sibling);
    return root;
}

/* NCCL's trees, one set per NIC rail (NCCL builds them per channel, and channels are
 * spread over the NICs, tree r rooted at rail r), each with 1/(rails x per_rail) of the
 * data, moved in chunks. The all-reduce reduces towards the root and broadcasts back in
 * one pipeline, as NCCL's tree kernels do: a GPU at height h sends chunk c to its parent
 * in step h + c; the root (height H) has chunk c whole after step H - 1 + c and sends it
 * down in step H + c; a parent at depth d forwards it in step H + d + c. With
 * broadcast_only, only the downward half of one tree rooted at GPU 0, from step d + c (the
 * broadcast operation, whose data starts on one GPU). */
static int tree_flows(const gcsim_topology *t, int per_rail, int chunks, bool broadcast_only,
                      double port_scale, flow_list *l, int *steps_out)
{
    int n = t->gpus, rails = t->nodes > 1 && !broadcast_only ? t->nics_per_node : 1;
    int *mem = malloc(sizeof(int) * (size_t)n * 4);
    if (!mem)
        return -1;
    tree tr = {mem, mem + n, mem + 2 * n, mem + 3 * n};
    double share = 1.0 / ((double)rails * per_rail * chunks);
    /* NVLS-tree (tree_nvls.c): a flow inside a node moves its share at the switch's rate,
     * port_scale x the port's */
    double node_share = port_scale != 1.0 ? share / port_scale : share;
    int per_node = t->gpus_per_node;
    int steps = 0, rc = reserve(l, rails * per_rail * (broadcast_only ? 1 : 2) * n);
    for (int r = 0; r < rails && !rc; r++)
        for (int k = 0; k < per_rail && !rc; k++) {
            int root = tree_shape(t, r, rails, k == 1, &tr);
            if (root < 0) {
                rc = -1;
                break;
            }
            int down_from = broadcast_only ? 0 : tr.height[root];
            for (int g = 0; g < n && !rc; g++) {
                int p = tr.parent[g];
                if (p < 0)
                    continue;
                if (!broadcast_only) {
                    int h = tr.height[g];
                    rc = push(l, g, p, g / per_node == p / per_node ? node_share : share,
                              tr.size[g], h, h + chunks - 1);
                    if (h + chunks > steps)
                        steps = h + chunks;
                }
                int d = down_from + tr.depth[p];
                if (!rc)
                    rc = push(l, p, g, g / per_node == p / per_node ? node_share : share, n,
                              d, d + chunks - 1);
                if (d + chunks > steps)
                    steps = d + chunks;
            }
        }
    free(mem);
    *steps_out = steps;
    return rc;
}

static int build_trees(gcsim_schedule *s, const gcsim_topology *t, int per_rail, int chunks,
                       bool broadcast_only, double port_scale)
{
    flow_list l = {0};
    int steps = 0;
    if (tree_flows(t, per_rail, chunks, broadcast_only, port_scale, &l, &steps) ||
        merge_pairs(&l)) {
        free(l.v);
        return -1;
    }
    return add_phase(s, broadcast_only ? "tree broadcast" : "tree", steps, 0, !broadcast_only, &l);
}

int gcsim_tree_raw_flows(const gcsim_topology *t, int per_rail, gcsim_flow **flows, int *n)
{
    flow_list l = {0};
    int steps = 0;
    if (tree_flows(t, per_rail, 1, false, 1.0, &l, &steps) || sort_flows(&l)) {
        free(l.v);
        return -1;
    }
    *flows = l.v;
    *n = l.n;
    return 0;
}

/* ---- NVLink SHARP ---- */

/* NVLS inside one NVSwitch node: every GPU's buffer goes into the switch, which reduces it
 * and multicasts the sum back, so each GPU port moves about the whole buffer each way,
 * at the rate the platform measured for it (nvls_bandwidth). In flows: each GPU sends to
 * the next one the buffer scaled by gpu_to_gpu / nvls_bandwidth (the port at the switch's
 * reducing rate), spread over GCSIM_NVLS_STEPS steps, whose latencies add up to NCCL's NVLS
 * latency: 25 us per NVLS call against 3.4 us for a ring's Simple hop on NVLink (NCCL's
 * tuning model, src/graph/tuning.cc), about 7 of the platform's intra-node hops. */
static int build_nvls(gcsim_schedule *s, const gcsim_topology *t)
{
    const gcsim_platform *p = t->platform;
    int n = t->gpus;
    double share = p->intra.gpu_to_gpu_Bps / p->intra.nvls_Bps / GCSIM_NVLS_STEPS;
    flow_list l = {0};
    for (int g = 0; g < n; g++)
        if (push(&l, g, (g + 1) % n, share, n, 0, GCSIM_NVLS_STEPS - 1))
            return -1;
    return add_phase(s, "nvls", GCSIM_NVLS_STEPS, 0, true, &l);
}

/* ---- Bagua's leader exchange (bagua_leader.c: its phases and flows) ---- */

static int build_bagua_leader(gcsim_schedule *s, const gcsim_topology *t)
{
    for (int k = 0; k < GCSIM_BAGUA_LEADER_PHASES; k++) {
        gcsim_bagua_phase ph;
        flow_list l = {0};
        if (gcsim_bagua_leader_phase(t, k, &ph, &l.v, &l.n))
            return -1;
        l.cap = l.n;
        int before = s->n_phases;
        if (add_phase(s, ph.name, 1, 0, ph.reduce, &l))
            return -1;
        if (s->n_phases > before)
            s->phases[before].uncompressed = ph.uncompressed;
    }
    return 0;
}

/* ---- DeepSpeed's 1-bit all-to-all (onebit_alltoall.c: its phases and flows) ---- */

static int build_onebit_alltoall(gcsim_schedule *s, const gcsim_topology *t, int *scratch)
{
    int n = t->gpus;
    flow_list l = {0};
    if (gcsim_onebit_alltoall_exchange(t, &l.v, &l.n))
        return -1;
    l.cap = l.n;
    if (add_phase(s, "all-to-all", 1, 0, true, &l) ||
        ring_flows(t, scratch, 1.0 / n, n, 0, n - 2, &l, NULL) ||
        add_phase(s, "all-gather", n - 1, 0, false, &l))
        return -1;
    return 0;
}

/* ---- BytePS's push and pull (byteps_ps.c: its phases and flows) ---- */

static int build_byteps_ps(gcsim_schedule *s, const gcsim_topology *t)
{
    s->endpoints = t->gpus + t->nodes; /* the host copies end at the machines' memories */
    for (int k = 0; k < GCSIM_BYTEPS_PS_PHASES; k++) {
        gcsim_byteps_phase ph;
        flow_list l = {0};
        int steps;
        if (gcsim_byteps_ps_phase(t, k, &ph, &steps, &l.v, &l.n))
            return -1;
        l.cap = l.n;
        int before = s->n_phases;
        if (add_phase(s, ph.name, steps, 0, ph.reduce, &l))
            return -1;
        if (s->n_phases > before)
            s->phases[before].uncompressed = ph.uncompressed;
    }
    return 0;
}

/* ---- Horovod's all-gather through host memory and OpenMPI (mpi_host_allgather.c) ---- */

static int build_mpi_host_allgather(gcsim_schedule *s, const gcsim_topology *t)
{
    s->endpoints = t->gpus + t->nodes; /* the copies end at the machines' memories */
    s->decodes = t->gpus - 1;
    for (int k = 0; k < GCSIM_MPI_HOST_ALLGATHER_PHASES; k++) {
        const char *name = "";
        flow_list l = {0};
        int steps;
        if (gcsim_mpi_host_allgather_phase(t, k, &name, &steps, &l.v, &l.n))
            return -1;
        l.cap = l.n;
        if (add_phase(s, name, steps, 0, false, &l))
            return -1;
    }
    return 0;
}

/* ---- parameter server ---- */

static int build_ps(gcsim_schedule *s, const gcsim_topology *t, int shards)
{
    int n = t->gpus, j = t->nodes;
    if (shards < 1)
        shards = j;
    flow_list l = {0};
    s->endpoints = n + j;
    for (int g = 0; g < n; g++)
        for (int x = 0; x < shards; x++)
            if (push(&l, g, n + x % j, 1.0 / shards, 1, 0, 0))
                return -1;
    if (add_phase(s, "push", 1, 0, true, &l))
        return -1;
    for (int g = 0; g < n; g++)
        for (int x = 0; x < shards; x++)
            if (push(&l, n + x % j, g, 1.0 / shards, n, 0, 0))
                return -1;
    return add_phase(s, "pull", 1, 0, false, &l);
}

/* ---- TernGrad Appendix B ---- */

/* Workers whose sum member p holds before the doubling step of `mask`: its aligned group
 * of `mask` members, weighted by w (workers per member; NULL: one each). Only patterns
 * whose payloads grow (dgc-paper) read it; terngrad's are fixed. */
static double group_workers(const int *w, int members, int p, int mask)
{
    double k = 0;
    for (int q = p & ~(mask - 1); q < (p & ~(mask - 1)) + mask && q < members; q++)
        k += w ? w[q] : 1;
    return k;
}

static int doubling_phases(gcsim_schedule *s, const int *m, const int *w, int g,
                           const char *name)
{
    flow_list l = {0};
    for (int mask = 1; mask < g; mask <<= 1) {
        for (int p = 0; p < g; p++)
            if ((p ^ mask) < g &&
                push(&l, m[p], m[p ^ mask], 1.0, group_workers(w, g, p, mask), 0, 0))
                return -1;
        if (add_phase(s, name, 1, 0, true, &l))
            return -1;
    }
    return 0;
}

static int build_terngrad(gcsim_schedule *s, const gcsim_topology *t, int *m)
{
    int i = t->gpus_per_node, j = t->nodes, n = t->gpus;
    s->endpoints = n + j;
    /* Recursive doubling inside each node: all nodes in the same phases. */
    int local_max = n < i ? n : i;
    for (int mask = 1; mask < local_max; mask <<= 1) {
        flow_list l = {0};
        for (int g = 0; g < n; g++) {
            int node = g / i, partner = node * i + ((g % i) ^ mask);
            int in_node = n - node * i < i ? n - node * i : i;
            if (partner < n && partner / i == node &&
                push(&l, g, partner, 1.0, group_workers(NULL, in_node, g % i, mask), 0, 0))
                return -1;
        }
        if (add_phase(s, "node doubling", 1, 0, true, &l))
            return -1;
    }
    int *gpus_of = malloc(sizeof(int) * (size_t)j);
    if (!gpus_of)
        return -1;
    flow_list l = {0};
    for (int node = 0; node < j; node++) {
        gpus_of[node] = n - node * i < i ? n - node * i : i;
        if (push(&l, node * i, n + node, 1.0, gpus_of[node], 0, 0)) {
            free(gpus_of);
            return -1;
        }
    }
    int rc = add_phase(s, "to host", 1, 0, false, &l);
    for (int node = 0; node < j; node++)
        m[node] = n + node;
    if (rc == 0)
        rc = doubling_phases(s, m, gpus_of, j, "host doubling");
    free(gpus_of);
    return rc;
}

/* ---- public ---- */

int gcsim_pipeline_chunks(gcsim_collective c, double payload_bytes)
{
    if (c != COLLECTIVE_TREE && c != COLLECTIVE_DOUBLE_TREE && c != COLLECTIVE_NVLS_TREE)
        return 1;
    double per_tree = c != COLLECTIVE_TREE ? payload_bytes / 2 : payload_bytes;
    double chunks = ceil(per_tree / GCSIM_PIPELINE_CHUNK_BYTES);
    if (!(chunks >= 1))
        return 1;
    return chunks > GCSIM_PIPELINE_MAX_CHUNKS ? GCSIM_PIPELINE_MAX_CHUNKS : (int)chunks;
}

/* NVLS-tree runs NCCL's own loop count (tree_nvls.c) */
int gcsim_pipeline_chunks_on(const gcsim_platform *p, int gpus, gcsim_collective c, double bytes)
{
    int k = c == COLLECTIVE_NVLS_TREE && p ? gcsim_nvls_tree_chunks(p, gpus, bytes) : 0;
    return k > 0 ? k : gcsim_pipeline_chunks(c, bytes);
}

static int **csr(const gcsim_phase *ph, int endpoints, bool by_src, int **flows_out)
{
    int *index = calloc((size_t)endpoints + 1, sizeof(int));
    int *flows = malloc(sizeof(int) * (size_t)(ph->n_flows ? ph->n_flows : 1));
    if (!index || !flows) {
        free(index);
        free(flows);
        return NULL;
    }
    for (int f = 0; f < ph->n_flows; f++)
        index[(by_src ? ph->flows[f].src : ph->flows[f].dst) + 1]++;
    for (int e = 0; e < endpoints; e++)
        index[e + 1] += index[e];
    int *fill = malloc(sizeof(int) * (size_t)endpoints);
    if (!fill) {
        free(index);
        free(flows);
        return NULL;
    }
    memcpy(fill, index, sizeof(int) * (size_t)endpoints);
    for (int f = 0; f < ph->n_flows; f++)
        flows[fill[by_src ? ph->flows[f].src : ph->flows[f].dst]++] = f;
    free(fill);
    *flows_out = flows;
    int **ret = malloc(sizeof(int *));
    if (!ret) {
        free(index);
        free(flows);
        return NULL;
    }
    *ret = index;
    return ret;
}

static int index_schedule(gcsim_schedule *s)
{
    int np = s->n_phases;
    s->out_index = calloc((size_t)(np ? np : 1), sizeof(int *));
    s->out_flows = calloc((size_t)(np ? np : 1), sizeof(int *));
    s->in_index = calloc((size_t)(np ? np : 1), sizeof(int *));
    s->in_flows = calloc((size_t)(np ? np : 1), sizeof(int *));
    if (!s->out_index || !s->out_flows || !s->in_index || !s->in_flows)
        return -1;
    for (int p = 0; p < np; p++) {
        int **o = csr(&s->phases[p], s->endpoints, true, &s->out_flows[p]);
        int **i = csr(&s->phases[p], s->endpoints, false, &s->in_flows[p]);
        if (o) {
            s->out_index[p] = *o;
            free(o);
        }
        if (i) {
            s->in_index[p] = *i;
            free(i);
        }
        if (!o || !i)
            return -1;
    }
    return 0;
}

/* Indexes a built schedule (rc 0) or frees a failed one, with the error. */
/* Set while gcsim_schedule_build_for_cost builds (per thread): the per-endpoint lists only
 * the DES reads are not made. */
static _Thread_local bool cost_only;

static int finish(gcsim_schedule *s, int rc, const char *what, int n, gcsim_error *err)
{
    if (rc == 0 && !cost_only)
        rc = index_schedule(s);
    if (rc) {
        gcsim_schedule_free(s);
        return gcsim_fail(err, "out of memory building the %s schedule for %d GPUs", what, n);
    }
    return 0;
}

static void schedule_init(gcsim_schedule *s, gcsim_collective c, const gcsim_topology *t,
                          int chunks)
{
    memset(s, 0, sizeof *s);
    s->collective = c;
    s->chunks = chunks >= 1 ? chunks : 1;
    s->endpoints = t->gpus;
    s->decodes = 1;
}

int gcsim_schedule_build(gcsim_schedule *s, gcsim_collective c, const gcsim_topology *t,
                         int ps_shards, int chunks, gcsim_error *err)
{
    schedule_init(s, c, t, chunks);
    int n = t->gpus;
    if (c == COLLECTIVE_NVLS && n > 1 && t->nodes > 1)
        return gcsim_fail(err, "%s: collective nvls reduces inside one NVSwitch node, and %d GPUs "
                               "span %d nodes (across nodes use double-tree; NCCL's NVLS-tree is "
                               "not modelled)",
                          t->platform->source_path, n, t->nodes);
    if (c == COLLECTIVE_NVLS && n > 1 && !(t->platform->intra.nvls_Bps > 0))
        return gcsim_fail(err, "%s: collective nvls needs $.intra_node.nvls_bandwidth (an NVSwitch "
                               "that reduces in the switch: H100 generation on)",
                          t->platform->source_path);
    if (gcsim_schedule_size_check(c, t, ps_shards, 0, err) != 0)
        return -1;
    int *scratch = malloc(sizeof(int) * (size_t)(n + t->nodes + 1));
    if (!scratch)
        return gcsim_fail(err, "out of memory building the %s schedule for %d GPUs",
                          gcsim_collective_name(c), n);
    /* One GPU exchanges nothing, except in the TernGrad pattern, whose one GPU still
     * copies its gradient to the host and back (build_terngrad). */
    int rc = 0;
    switch (c) {
    case COLLECTIVE_RING: rc = n > 1 ? build_ring(s, t, scratch) : 0; break;
    case COLLECTIVE_ALLGATHER: rc = n > 1 ? build_allgather(s, t, scratch) : 0; break;
    case COLLECTIVE_HALVING_DOUBLING: rc = n > 1 ? build_halving_doubling(s, t) : 0; break;
    case COLLECTIVE_TREE: rc = n > 1 ? build_trees(s, t, 1, s->chunks, false, 1.0) : 0; break;
    case COLLECTIVE_DOUBLE_TREE: rc = n > 1 ? build_trees(s, t, 2, s->chunks, false, 1.0) : 0; break;
    case COLLECTIVE_NVLS_TREE:
        rc = n > 1 ? build_trees(s, t, 2, s->chunks, false,
                                 gcsim_nvls_tree_port_scale(t->platform))
                   : 0;
        break;
    case COLLECTIVE_HIERARCHICAL: rc = n > 1 ? build_hierarchical(s, t, scratch) : 0; break;
    case COLLECTIVE_PARAMETER_SERVER: rc = n > 1 ? build_ps(s, t, ps_shards) : 0; break;
    case COLLECTIVE_TERNGRAD:
    case COLLECTIVE_DGC_PAPER: rc = build_terngrad(s, t, scratch); break;
    case COLLECTIVE_NVLS: rc = n > 1 ? build_nvls(s, t) : 0; break;
    case COLLECTIVE_REDUCE_SCATTER:
    case COLLECTIVE_CROSS_GROUP_RING: rc = n > 1 ? build_group(s, t, n, scratch) : 0; break;
    case COLLECTIVE_HIER_REDUCE_SCATTER: rc = n > 1 ? hier_reduce_scatter(s, t, scratch) : 0; break;
    case COLLECTIVE_BAGUA_LEADER: rc = n > 1 ? build_bagua_leader(s, t) : 0; break;
    case COLLECTIVE_BYTEPS_PS: rc = n > 1 ? build_byteps_ps(s, t) : 0; break;
    case COLLECTIVE_ONEBIT_ALLTOALL: rc = n > 1 ? build_onebit_alltoall(s, t, scratch) : 0; break;
    case COLLECTIVE_MPI_HOST_ALLGATHER: rc = n > 1 ? build_mpi_host_allgather(s, t) : 0; break;
    case COLLECTIVE_COUNT: rc = n > 1 ? -1 : 0; break;
    }
    free(scratch);
    return finish(s, rc, gcsim_collective_name(c), n, err);
}

int gcsim_schedule_build_group(gcsim_schedule *s, gcsim_collective c, const gcsim_topology *t,
                               int group, gcsim_error *err)
{
    int n = t->gpus;
    bool grouped = c == COLLECTIVE_ALLGATHER || c == COLLECTIVE_REDUCE_SCATTER ||
                   c == COLLECTIVE_CROSS_GROUP_RING || c == COLLECTIVE_HIER_REDUCE_SCATTER;
    if (!grouped)
        return group == 0 ? gcsim_schedule_build(s, c, t, 0, 1, err)
                          : gcsim_fail(err, "collective %s does not run in groups",
                                       gcsim_collective_name(c));
    if (gcsim_group_check(t, group, err))
        return -1;
    int g = group > 0 ? group : n;
    if (c == COLLECTIVE_ALLGATHER && g == n)
        return gcsim_schedule_build(s, c, t, 0, 1, err);
    if (gcsim_schedule_size_check(c, t, 0, group, err) != 0)
        return -1;
    schedule_init(s, c, t, 1);
    s->group = group;
    int *scratch = malloc(sizeof(int) * (size_t)(n + t->nodes + 1));
    if (!scratch)
        return gcsim_fail(err, "out of memory building the %s schedule for %d GPUs",
                          gcsim_collective_name(c), n);
    int rc = c == COLLECTIVE_HIER_REDUCE_SCATTER
                 ? (g == n ? hier_reduce_scatter(s, t, scratch) : -1)
                 : build_group(s, t, g, scratch);
    free(scratch);
    if (rc && c == COLLECTIVE_HIER_REDUCE_SCATTER && g != n) {
        gcsim_schedule_free(s);
        return gcsim_fail(err, "the hierarchical reduce-scatter runs over all GPUs only");
    }
    return finish(s, rc, gcsim_collective_name(c), n, err);
}

int gcsim_schedule_build_broadcast(gcsim_schedule *s, const gcsim_topology *t, int chunks,
                                   gcsim_error *err)
{
    schedule_init(s, COLLECTIVE_TREE, t, chunks);
    if (gcsim_schedule_size_check(COLLECTIVE_TREE, t, 0, 0, err) != 0)
        return -1;
    int rc = t->gpus > 1 ? build_trees(s, t, 1, s->chunks, true, 1.0) : 0;
    return finish(s, rc, "broadcast", t->gpus, err);
}

int gcsim_schedule_build_for_cost(gcsim_schedule *s, gcsim_collective c,
                                  const gcsim_topology *t, int ps_shards, int chunks, int group,
                                  gcsim_error *err)
{
    cost_only = true;
    int rc = group > 0 || !gcsim_collective_runs_bare(c)
                 ? gcsim_schedule_build_group(s, c, t, group, err)
                 : gcsim_schedule_build(s, c, t, ps_shards, chunks, err);
    cost_only = false;
    return rc;
}

void gcsim_schedule_drop_flows(gcsim_schedule *s)
{
    for (int p = 0; p < s->n_phases; p++) {
        free(s->phases[p].flows);
        s->phases[p].flows = NULL;
        if (s->out_index) {
            free(s->out_index[p]);
            free(s->out_flows[p]);
            free(s->in_index[p]);
            free(s->in_flows[p]);
        }
    }
    free(s->out_index);
    free(s->out_flows);
    free(s->in_index);
    free(s->in_flows);
    s->out_index = s->out_flows = s->in_index = s->in_flows = NULL;
}

void gcsim_schedule_free(gcsim_schedule *s)
{
    for (int p = 0; p < s->n_phases; p++) {
        free(s->phases[p].flows);
        free(s->phases[p].classes);
        free(s->phases[p].interval_from);
        free(s->phases[p].interval_to);
        free(s->phases[p].interval_class);
        if (s->out_index) {
            free(s->out_index[p]);
            free(s->out_flows[p]);
            free(s->in_index[p]);
            free(s->in_flows[p]);
        }
    }
    free(s->phases);
    free(s->out_index);
    free(s->out_flows);
    free(s->in_index);
    free(s->in_flows);
    memset(s, 0, sizeof *s);
}
