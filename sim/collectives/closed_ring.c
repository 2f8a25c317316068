/*
 * sim/collectives/closed_ring.c: the ring all-reduce and the ring all-gather from the node
 * shape, without a flow (closed_form.h; docs/collectives.md, "The ring's closed form").
 *
 * schedule.c's rings (ring_order_nodes, ring_flows) run one ring per NIC rail when there
 * are several nodes (R rings, 1 on one node), each with share s = S / R of the bucket per
 * step, visiting the nodes in order and each node's present GPUs in the cyclic order
 * e_r + 1, e_r + 2, ..., e_r, where e_r = (r + 1) i / R - 1 is the last GPU of rail r. So
 * inside a node of g GPUs every ring uses the same successor pairs l -> (l + 1) mod g, cut
 * at its exit x_r (e_r, or g - 1 when e_r is absent from a partly filled last node), and
 * leaves from x_r to the next node's entry (x_{r} + 1) mod g there. Coalescing merges the
 * rings' flows over the same pair: a pair carries c x s, c the rings not cut there.
 *
 * Links and loads (schedule_cost.c's interval_classes: a flow moves at the minimum over its
 * route of capacity x share / load):
 *   - a GPU sends and receives at most one intra-node flow (its successor, its
 *     predecessor), so its port or NVLink pair carries that flow alone: Bps = C_gwd;
 *   - full nodes: ring r leaves from e_r on NIC r and enters at e_r + 1 on NIC r + 1, one
 *     ring per PCIe link and NIC each way;
 *   - the last node of g GPUs: with q = (g - 1) R / i the NIC of its GPU g - 1, rings r < q
 *     leave from e_r and enter at e_r + 1 as in a full node, rings r >= q (R - q of them)
 *     all leave from GPU g - 1 (NIC q) and enter at GPU 0 (NIC 0): those PCIe links and
 *     NICs carry R - q flows of s;
 *   - a leaf's uplink carries the R flows that leave its last node for the next leaf (the
 *     last leaf: the wrap-around to node 0), its downlink the R that enter: load R s.
 * So the classes are a constant set (at most 3 intra-node and 6 inter-node situations),
 * whatever the node count: O(R) time for the loads summed as the flows' are, O(1) memory.
 */
#include <math.h>
#include <stdbool.h>

#include "closed_form.h"

typedef struct {
    const gcsim_topology *t;
    double s;           /* one ring's share of the bucket per step */
    double k0;
    int last;           /* the phase's last step */
    int rings;
} ring_shape;

/* c flows of s summed one by one, as coalesce() merges a pair's flows and
 * interval_classes sums a link's load, so the values are the same bit for bit. */
static double shares(double s, int c)
{
    double x = s;
    for (int k = 1; k < c; k++)
        x += s;
    return x;
}

/* A flow's part of a link, as interval_classes computes it. */
static double part_Bps(double capacity_Bps, double share, double load)
{
    return capacity_Bps * (share / load);
}

/* A pair inside a node carrying c rings' flows (the only flow on its links). */
static int add_intra(const ring_shape *r, int c, gcsim_class_list *l)
{
    if (c < 1)
        return 0;
    const gcsim_platform *p = r->t->platform;
    double share = shares(r->s, c);
    gcsim_flow_class k = {p->intra.latency_s, part_Bps(p->intra.gpu_to_gpu_Bps, share, share),
                          share, r->k0, 0, r->last};
    return gcsim_class_list_add(l, k);
}

/* A ring's hop between nodes whose sender's PCIe link and NIC carry src_flows such hops,
 * the receiver's dst_flows, crossing leaves or not. */
static int add_inter(const ring_shape *r, int src_flows, int dst_flows, bool cross,
                     gcsim_class_list *l)
{
    const gcsim_platform *p = r->t->platform;
    double s = r->s, src_load = shares(s, src_flows), dst_load = shares(s, dst_flows);
    double bw = INFINITY;
    bw = fmin(bw, part_Bps(p->intra.gpu_to_host_Bps, s, src_load));
    bw = fmin(bw, part_Bps(gcsim_topology_nic_Bps(r->t), s, src_load));
    double sw = p->fabric.switch_latency_s, lat = p->nic.latency_s + 2 * sw;
    if (cross) {
        /* gcsim_topology_capacity_Bps of a leaf link */
        double oversub = p->fabric.oversubscription >= 1 ? p->fabric.oversubscription : 1;
        double leaf_Bps =
            p->fabric.nodes_per_leaf * r->t->nics_per_node * gcsim_topology_nic_Bps(r->t) / oversub;
        /* up out of the sender's leaf and down into the receiver's: the same part */
        bw = fmin(bw, part_Bps(leaf_Bps, s, shares(s, r->rings)));
        lat += 2 * sw;
    }
    bw = fmin(bw, part_Bps(gcsim_topology_nic_Bps(r->t), s, dst_load));
    bw = fmin(bw, part_Bps(p->intra.gpu_to_host_Bps, s, dst_load));
    gcsim_flow_class k = {lat, bw, s, r->k0, 0, r->last};
    return gcsim_class_list_add(l, k);
}

/* The classes of the ring's steps (rings over every GPU, share S per step each). */
static int ring_classes(const gcsim_topology *t, double share_per_ring, double k0,
                        gcsim_class_list *l)
{
    int n = t->gpus, i = t->gpus_per_node, j = t->nodes;
    int rings = j > 1 ? t->nics_per_node : 1;
    ring_shape r = {t, share_per_ring / rings, k0, n - 2, rings};
    if (j == 1) /* one ring 0 -> 1 -> ... -> n-1 -> 0 inside the node */
        return add_intra(&r, 1, l);
    int R = rings, g = n - (j - 1) * i, q = (g - 1) * R / i;
    /* Full nodes (node 0 at least): pairs at a rail's last GPU carry R - 1 rings, the
     * i - R others all R. */
    if (add_intra(&r, R - 1, l) || (i > R && add_intra(&r, R, l)))
        return -1;
    /* The last node's g-cycle: cut at e_r by rings r < q (R - 1 rings each), at g - 1 by
     * the other R - q (its pair g-1 -> 0 carries q), the g - 1 - q other pairs all R. */
    if (g >= 2 && ((q > 0 && add_intra(&r, R - 1, l)) || add_intra(&r, q, l) ||
                   (g - 1 - q > 0 && add_intra(&r, R, l))))
        return -1;
    /* Between nodes m -> m+1, and the wrap-around j-1 -> 0. A hop crosses leaves where
     * its nodes' leaves differ. */
    bool tree = t->leaves > 0;
    int per_leaf = tree ? t->platform->fabric.nodes_per_leaf : 1;
    if (j >= 3) { /* full to full: m + 1 in 1 .. j - 2 */
        if ((!tree || per_leaf > 1) && add_inter(&r, 1, 1, false, l))
            return -1;
        if (tree && per_leaf <= j - 2 && add_inter(&r, 1, 1, true, l))
            return -1;
    }
    bool into_last_crosses = tree && (j - 1) % per_leaf == 0;
    bool wrap_crosses = tree && j > per_leaf;
    int crowd = R - q; /* rings r >= q: leave the last node from g - 1, enter it at 0 */
    if (q > 0 && (add_inter(&r, 1, 1, into_last_crosses, l) ||
                  add_inter(&r, 1, 1, wrap_crosses, l)))
        return -1;
    if (add_inter(&r, 1, crowd, into_last_crosses, l) ||
        add_inter(&r, crowd, 1, wrap_crosses, l))
        return -1;
    return 0;
}

/* The latency of one chunk's route through a phase of n - 1 steps (gcsim_ring_route_s),
 * from the hops' count: every ring's cycle has n - j hops inside nodes and j between them
 * (one into each node, the wrap-around included), of which those whose nodes' leaves
 * differ also cross the leaves (add_inter: the same latencies). The same on every ring. */
static double ring_route_s(const gcsim_topology *t)
{
    const gcsim_platform *p = t->platform;
    int n = t->gpus, j = t->nodes;
    double value_s[3];
    long long count[3];
    int values = 0;
    if (j == 1) {
        gcsim_ring_route_add(value_s, count, &values, p->intra.latency_s, n);
        return gcsim_ring_route_s(value_s, count, values);
    }
    int per_leaf = t->leaves > 0 ? t->platform->fabric.nodes_per_leaf : 0;
    /* hops m - 1 -> m with m a multiple of per_leaf (m in 1 .. j-1), and the wrap-around
     * j-1 -> 0 when node j-1 is beyond the first leaf */
    long long cross = per_leaf > 0 ? (j - 1) / per_leaf + (j > per_leaf) : 0;
    double sw = p->fabric.switch_latency_s, inter_s = p->nic.latency_s + 2 * sw;
    double intra[1] = {p->intra.latency_s}, between[2] = {inter_s, inter_s + 2 * sw};
    long long c[3] = {n - j, j - cross, cross};
    const double *v[3] = {intra, &between[0], &between[1]};
    for (int k = 0; k < 3; k++) /* (3 values: the table cannot be full) */
        if (c[k] > 0)
            gcsim_ring_route_add(value_s, count, &values, *v[k], c[k]);
    return gcsim_ring_route_s(value_s, count, values);
}

/* The last phase added is a pipelined ring's (gcsim_phase) with this route latency. */
static void pipelined_phase(gcsim_schedule *s, const gcsim_topology *t, double route_s)
{
    gcsim_phase *ph = &s->phases[s->n_phases - 1];
    ph->pipelined = gcsim_ring_pipelined(t);
    ph->route_latency_s = route_s;
}

int gcsim_closed_ring(gcsim_schedule *s, const gcsim_topology *t, gcsim_ring_kind kind)
{
    int n = t->gpus, rc = 0;
    double route_s = ring_route_s(t);
    gcsim_class_list l = {0};
    if (kind == GCSIM_RING_ALLGATHER) { /* every GPU's whole payload forwarded n - 1 times */
        rc = ring_classes(t, 1.0, 1, &l) ||
             gcsim_closed_add_phase(s, "all-gather", n - 1, 0, false, &l);
        if (!rc)
            pipelined_phase(s, t, route_s);
    } else { /* reduce-scatter of 1/n per step (the grouped reduce-scatter over all GPUs is
              * the same rings), then for the all-reduce the all-gather of the sums */
        rc = ring_classes(t, 1.0 / n, 1, &l) ||
             gcsim_closed_add_phase(s, "reduce-scatter", n - 1, 1, true, &l);
        if (!rc)
            pipelined_phase(s, t, route_s);
        if (!rc && kind == GCSIM_RING_ALLREDUCE) {
            rc = ring_classes(t, 1.0 / n, n, &l) ||
                 gcsim_closed_add_phase(s, "all-gather", n - 1, 0, false, &l);
            if (!rc)
                pipelined_phase(s, t, route_s);
        }
    }
    if (rc) {
        gcsim_class_list_free(&l);
        return -1;
    }
    return 0;
}
