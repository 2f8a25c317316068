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

bool gcsim_scenario_compresses(const gcsim_scenario *s)
{
    return strcmp(s->payload->spec, "none") != 0 &&
           (s->placement.gpus > 1 || gcsim_collective_is_paper_pattern(s->collective));
}

bool gcsim_collective_is_paper_pattern(gcsim_collective c)
{
    return c == COLLECTIVE_TERNGRAD || c == COLLECTIVE_DGC_PAPER;
}

gcsim_exchange gcsim_collective_exchange(gcsim_collective c)
{
    return gcsim_collective_is_paper_pattern(c)      ? GCSIM_EXCHANGE_PATTERN
           : c == COLLECTIVE_PARAMETER_SERVER ? GCSIM_EXCHANGE_PS
           : c == COLLECTIVE_ALLGATHER        ? GCSIM_EXCHANGE_ALLGATHER
                                              : GCSIM_EXCHANGE_ALLREDUCE;
}

int gcsim_scenario_training_check(const gcsim_scenario *s, gcsim_error *err)
{
    if (!gcsim_collective_is_paper_pattern(s->collective))
        return 0;
    const char *what = s->sharding.strategy != GCSIM_SHARD_DDP ? "--sharding"
                       : s->grad_accum > 1                      ? "--grad-accum"
                       : s->act_ckpt                            ? "--act-ckpt"
                                                                : NULL;
    if (!what)
        return 0;
    return gcsim_fail(err, "%s does not apply to the %s collective: it is the paper's own model "
                           "of one plain data-parallel step (TernGrad's Appendix B), which "
                           "neither shards, accumulates micro-batches nor recomputes; name "
                           "another collective (--collective ring, hierarchical, ...)",
                      what, gcsim_collective_name(s->collective));
}

const char *gcsim_scaling_name(gcsim_scaling s) { return s == SCALING_STRONG ? "strong" : "weak"; }

gcsim_collective gcsim_platform_default_collective(const gcsim_platform *p)
{
    gcsim_collective c;
    if (p->collective[0] && gcsim_collective_parse(p->collective, &c) == 0)
        return c;
    return COLLECTIVE_RING;
}
