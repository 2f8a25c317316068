#include "scenario.h"

#include <string.h>

static const char *const collective_names[COLLECTIVE_COUNT] = {
    [COLLECTIVE_TERNGRAD] = "terngrad",
    [COLLECTIVE_RING] = "ring",
    [COLLECTIVE_HALVING_DOUBLING] = "halving-doubling",
    [COLLECTIVE_TREE] = "tree",
    [COLLECTIVE_DOUBLE_TREE] = "double-tree",
    [COLLECTIVE_HIERARCHICAL] = "hierarchical",
    [COLLECTIVE_PARAMETER_SERVER] = "ps",
    [COLLECTIVE_ALLGATHER] = "allgather",
    [COLLECTIVE_DGC_PAPER] = "dgc-paper",
    [COLLECTIVE_NVLS] = "nvls",
};

const char *gcsim_collective_name(gcsim_collective c)
{
    switch (c) {
    case COLLECTIVE_REDUCE_SCATTER: return "reduce-scatter";
    case COLLECTIVE_HIER_REDUCE_SCATTER: return "hierarchical-reduce-scatter";
    case COLLECTIVE_CROSS_GROUP_RING: return "cross-group-ring";
    case COLLECTIVE_NVLS_TREE: return "nvls-tree";
    case COLLECTIVE_BAGUA_LEADER: return "bagua-leader";
    case COLLECTIVE_BYTEPS_PS: return "byteps-ps";
    case COLLECTIVE_ONEBIT_ALLTOALL: return "onebit-alltoall";
    case COLLECTIVE_MPI_HOST_ALLGATHER: return "mpi-host-allgather";
    default: break;
    }
    return (unsigned)c < COLLECTIVE_COUNT ? collective_names[c] : "?";
}

int gcsim_collective_parse(const char *text, gcsim_collective *out)
{
    for (int i = 0; i < COLLECTIVE_COUNT; i++)
        if (strcmp(text, collective_names[i]) == 0) {
            *out = (gcsim_collective)i;
            return 0;
        }
    return -1;
}

/* Which exchange each collective performs: data, so that no layer below sim/step asks
 * whether a collective is one of the papers' patterns (scenario.h). */
static const gcsim_exchange collective_exchanges[COLLECTIVE_COUNT] = {
    [COLLECTIVE_TERNGRAD] = GCSIM_EXCHANGE_PATTERN,
    [COLLECTIVE_RING] = GCSIM_EXCHANGE_ALLREDUCE,
    [COLLECTIVE_HALVING_DOUBLING] = GCSIM_EXCHANGE_ALLREDUCE,
    [COLLECTIVE_TREE] = GCSIM_EXCHANGE_ALLREDUCE,
    [COLLECTIVE_DOUBLE_TREE] = GCSIM_EXCHANGE_ALLREDUCE,
    [COLLECTIVE_HIERARCHICAL] = GCSIM_EXCHANGE_ALLREDUCE,
    [COLLECTIVE_PARAMETER_SERVER] = GCSIM_EXCHANGE_PS,
    [COLLECTIVE_ALLGATHER] = GCSIM_EXCHANGE_ALLGATHER,
    [COLLECTIVE_DGC_PAPER] = GCSIM_EXCHANGE_PATTERN,
    [COLLECTIVE_NVLS] = GCSIM_EXCHANGE_ALLREDUCE,
};

gcsim_exchange gcsim_collective_exchange(gcsim_collective c)
{
    if (c == COLLECTIVE_MPI_HOST_ALLGATHER) /* a stack's own all-gather */
        return GCSIM_EXCHANGE_ALLGATHER;
    /* the pieces of sharded data parallelism (never parsed) are pieces of an all-reduce */
    return (unsigned)c < COLLECTIVE_COUNT ? collective_exchanges[c] : GCSIM_EXCHANGE_ALLREDUCE;
}

int gcsim_collective_parse_algorithm(const char *text, gcsim_collective *out)
{
    gcsim_collective c;
    if (gcsim_collective_parse(text, &c) || collective_exchanges[c] == GCSIM_EXCHANGE_PATTERN)
        return -1;
    *out = c;
    return 0;
}

const char *gcsim_scaling_name(gcsim_scaling s) { return s == SCALING_STRONG ? "strong" : "weak"; }

gcsim_collective gcsim_platform_default_collective(const gcsim_platform *p)
{
    gcsim_collective c;
    if (p->collective[0] && gcsim_collective_parse(p->collective, &c) == 0)
        return c;
    return COLLECTIVE_RING;
}

bool gcsim_platform_default_algorithm(const gcsim_platform *p, gcsim_collective *out)
{
    *out = gcsim_platform_default_collective(p);
    return gcsim_collective_exchange(*out) != GCSIM_EXCHANGE_PATTERN;
}
