/*
 * sim/step/step_rules.c: what the papers' patterns (terngrad, dgc-paper) change in a step,
 * decided here only (step.h): the engines and the rooms below read it as data.
 */
#include <string.h>

#include "step.h"

bool gcsim_collective_is_paper_pattern(gcsim_collective c)
{
    return gcsim_collective_exchange(c) == GCSIM_EXCHANGE_PATTERN;
}

bool gcsim_scenario_compresses(const gcsim_scenario *s)
{
    return strcmp(s->payload->spec, "none") != 0 &&
           (s->placement.gpus > 1 || gcsim_collective_is_paper_pattern(s->collective));
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
