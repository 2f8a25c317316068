/*
 * sim/step/case_memo.h: the iteration's part of a case memo (step.h,
 * gcsim_case_memo), for gcsim_iteration_build.
 */
#ifndef GCSIM_STEP_CASE_MEMO_H
#define GCSIM_STEP_CASE_MEMO_H

#include "step.h"

/* Fills it (zeroed) with the layers and buckets kept for scenario s: compute, forward,
 * overlap, the buckets before their programs and the per-layer arrays; false when none
 * are kept for s's inputs, or out of memory (it stays zeroed). */
bool case_memo_buckets(const gcsim_case_memo *m, const gcsim_scenario *s, gcsim_iteration *it);
/* Keeps a copy of it's layers and buckets (as built for s, before programs and blocks)
 * for the next cases with the same inputs; nothing when out of memory. */
void case_memo_keep_buckets(gcsim_case_memo *m, const gcsim_scenario *s,
                            const gcsim_iteration *it);

#endif
