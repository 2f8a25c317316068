/*
 * sim/step/call.c: what a step's collective call needs beyond its bytes (step.h).
 */
#include "step.h"

int gcsim_call_pipeline_chunks(const gcsim_call *c, const gcsim_platform *p, int gpus)
{
    return gcsim_pipeline_chunks_on(p, gpus, c->collective, gcsim_hop_bytes(&c->bytes, gpus));
}
