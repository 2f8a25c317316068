/*
 * sim/collectives/ring_rail.c: rail-aligned rings on rail-optimized fat trees
 * (fabric.placement "rail-optimized"; docs/formats.md, "Rail-optimized fat trees").
 *
 * NCCL's ring search (NCCL 2.30, github.com/NVIDIA/nccl commit 5067397, src/graph/search.cc
 * ncclTopoCompute) first looks for rings with crossNic 0: channel c enters every node
 * from NET n and leaves it to the same NET n ("NET n -> GPU a -> .. -> GPU x -> NET n (or m
 * if crossNic)"; NCCL_CROSS_NIC defaults to 2, "try crossNic only when no other graph
 * is found"), relaxing the path type from the last GPU to that NIC up to PATH_PXN before it
 * allows crossNic. PATH_PXN (src/graph/paths.cc, on unless NCCL_PXN_DISABLE=1) is a GPU
 * reaching a NIC through the NVLink-connected GPU local to that NIC, which relays the data
 * (net.cc: "favor receiving locally and sending remotely"). So on rail-optimized fabrics a
 * ring's hop between nodes goes from NIC n to NIC n of the next node: the same rail leaf.
 *
 * gcsim models that default with:
 *   - ring r entering every node at the first GPU of rail r and leaving it from the last
 *     GPU of rail r (gcsim_ring_rail_order_node): with several GPUs per NIC the exit GPU is
 *     local to the entry NIC (NCCL finds such rings at PATH_PIX/PXB, without PXN);
 *   - with one GPU per NIC (DGX H100: i = R) the exit GPU is another rail's: its hop to the
 *     next node is relayed (gcsim_ring_pxn_relay) over NVLink to the node's GPU on the
 *     receiver's rail, which sends on its own NIC: two flows in the same steps, GPU to GPU
 *     inside the node and rail to rail between nodes (PXN's data path: an NVLink write into
 *     the relay GPU's memory, read by its NIC).
 * Only on rail-optimized fat trees, so node-placed outputs do not move; PXN only on NVLink
 * or NVSwitch nodes (NCCL requires the relay to be NVLink-connected, PATH_NVL).
 */
#include "ring_rail.h"

/* Local GPUs l with l R / i == r (topology.c's GPU-to-NIC rule): [*first, *last];
 * false when rail r has none (more NICs than GPUs). */
static bool rail_gpus(const gcsim_topology *t, int r, int *first, int *last)
{
    int i = t->gpus_per_node, R = t->nics_per_node;
    int f = (r * i + R - 1) / R, e = ((r + 1) * i + R - 1) / R - 1;
    if (f >= i || f > e)
        return false;
    *first = f;
    *last = e < i ? e : i - 1;
    return true;
}

bool gcsim_ring_rail_aligned(const gcsim_topology *t)
{
    return gcsim_topology_rail_placed(t) && t->nodes > 1 && t->nics_per_node > 1;
}

int gcsim_ring_rail_order_node(const gcsim_topology *t, int node, int r, int *order)
{
    int i = t->gpus_per_node, first, last, n = 0, base = node * i;
    if (!rail_gpus(t, r, &first, &last))
        return -1;
    if (base + first < t->gpus)
        order[n++] = base + first;
    /* the other rails' GPUs, from the one after rail r round to the one before */
    for (int s = 1; s < i; s++) {
        int l = (last + s) % i;
        if ((l < first || l > last) && base + l < t->gpus)
            order[n++] = base + l;
    }
    for (int l = first + 1; l <= last; l++)
        if (base + l < t->gpus)
            order[n++] = base + l;
    return n;
}

int gcsim_ring_pxn_relay(const gcsim_topology *t, int src, int dst)
{
    gcsim_intra_kind k = t->platform->intra.kind;
    if (!gcsim_ring_rail_aligned(t) || (k != INTRA_NVLINK && k != INTRA_NVSWITCH) ||
        src >= t->gpus || dst >= t->gpus)
        return -1;
    int ns = gcsim_topology_node_of(t, src), nd = gcsim_topology_node_of(t, dst);
    int rail = gcsim_topology_nic_of(t, dst), first, last;
    if (ns == nd || gcsim_topology_nic_of(t, src) == rail || !rail_gpus(t, rail, &first, &last))
        return -1;
    int relay = ns * t->gpus_per_node + first;
    return relay < t->gpus ? relay : -1; /* a short last node may lack that rail */
}
