/* sim/collectives/nccl_call.c: NCCL's per-call latency for a training call (nccl_call.h). */
#include <stdbool.h>

#include "nccl_call.h"
#include "protocol.h"
#include "tuner_model.h"

int gcsim_nccl_call_algo(gcsim_collective c)
{
    switch (c) {
    case COLLECTIVE_ALLGATHER:
    case COLLECTIVE_REDUCE_SCATTER: return GCSIM_NCCL_RING;
    default: return gcsim_nccl_algo_of(c);
    }
}

static gcsim_op op_of(gcsim_collective c)
{
    switch (c) {
    case COLLECTIVE_ALLGATHER: return GCSIM_OP_ALLGATHER;
    case COLLECTIVE_REDUCE_SCATTER: return GCSIM_OP_REDUCESCATTER;
    default: return GCSIM_OP_ALLREDUCE;
    }
}

double gcsim_nccl_call_overhead_s(const gcsim_platform *p, int gpus, gcsim_collective c,
                                  int algo)
{
    if (gpus < 2)
        return 0;
    if (algo < 0)
        algo = gcsim_nccl_call_algo(c);
    /* the figure `gcsim collective` spreads over a Simple call's steps (protocol.c) */
    return gcsim_protocol_overhead_s(p, op_of(c), algo, gpus, GCSIM_PROTO_SIMPLE);
}

/* The node's GPUs talk over NVLink (else PCIe), as protocol.c decides it. Only the hops
 * inside a node depend on it, and those are not charged here: the figures below do not
 * move with it; it is passed for NCCL's shape all the same. */
static bool nvlink_node(const gcsim_platform *p)
{
    return p->intra.kind == INTRA_NVLINK || p->intra.kind == INTRA_NVSWITCH;
}

double gcsim_nccl_ranks_overhead_s(const gcsim_platform *p, int ranks, int nodes,
                                   gcsim_collective c, int algo)
{
    if (ranks < 2)
        return 0;
    if (algo < 0)
        algo = gcsim_nccl_call_algo(c);
    /* what NCCL does not run, and NVLS (its figures hold its latency): as
     * gcsim_protocol_overhead_s */
    if (algo < 0 || algo >= GCSIM_NCCL_ALGO_COUNT || algo == GCSIM_NCCL_NVLS)
        return 0;
    gcsim_nccl_latency l;
    gcsim_nccl_latency_of((gcsim_nccl_algo)algo, GCSIM_PROTO_SIMPLE, op_of(c), nvlink_node(p),
                          ranks, nodes < 1 ? 1 : nodes, &l);
    return l.base_s + l.inter_hops * l.inter_hop_s;
}

double gcsim_nccl_alltoall_overhead_s(const gcsim_platform *p, int ranks, int nodes)
{
    if (ranks < 2)
        return 0;
    if (nodes < 1)
        nodes = 1;
    gcsim_nccl_latency l;
    gcsim_nccl_latency_of(GCSIM_NCCL_RING, GCSIM_PROTO_SIMPLE, GCSIM_OP_ALLGATHER,
                          nvlink_node(p), ranks, nodes, &l);
    return l.base_s + (nodes > 1 ? l.inter_hop_s : 0);
}
