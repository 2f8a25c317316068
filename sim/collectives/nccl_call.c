/* sim/collectives/nccl_call.c: NCCL's per-call latency for a training call (nccl_call.h). */
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
