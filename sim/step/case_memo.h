/*
 * sim/step/case_memo.h: the iteration's part of a case memo (step.h,
 * gcsim_case_memo), for gcsim_iteration_build.
 */
#ifndef GCSIM_STEP_CASE_MEMO_H
#define GCSIM_STEP_CASE_MEMO_H

#include "program.h"
#include "step.h"

/* Fills it (zeroed) with the layers and buckets kept for scenario s: compute, forward,
 * overlap, the buckets before their programs and the per-layer arrays; false when none
 * are kept for s's inputs, or out of memory (it stays zeroed). */
bool case_memo_buckets(const gcsim_case_memo *m, const gcsim_scenario *s, gcsim_iteration *it);
/* The same, into arrays m lends it (it->lender = m): the ones its last case gave back,
 * else new ones; steps, calls, blocks and layer_elements come empty, with their room.
 * gcsim_iteration_free gives them back (case_memo_take_back). Whatever it holds when
 * false is returned, gcsim_iteration_free releases. */
bool case_memo_lend(gcsim_case_memo *m, const gcsim_scenario *s, gcsim_iteration *it);
/* Takes back the arrays of it, which m lent (case_memo_lend), and clears them in it (to
 * NULL): m keeps one set for its next case and frees any other. */
void case_memo_take_back(gcsim_case_memo *m, gcsim_iteration *it);
/* Frees the arrays it holds and zeroes their counts (iteration_arrays.c); for an iteration
 * that holds none lent (it->lender NULL): gcsim_iteration_free is that, after giving lent
 * arrays back. */
void iteration_arrays_free(gcsim_iteration *it);
/* The program entry memo (program.h) an earlier case of the group left for s's stack,
 * compressor spec and platform (the inputs of the stack's entry, the spec's setting and
 * the GPU's parameters), copied into *out; false (and *out untouched) when none is kept
 * for them. */
bool case_memo_entry(const gcsim_case_memo *m, const gcsim_scenario *s, program_entry_memo *out);
/* Keeps e, as found for s's stack, spec and platform, for the next cases. */
void case_memo_keep_entry(gcsim_case_memo *m, const gcsim_scenario *s,
                          const program_entry_memo *e);
/* Keeps a copy of it's layers and buckets (as built for s, before programs and blocks)
 * for the next cases with the same inputs; nothing when out of memory. */
void case_memo_keep_buckets(gcsim_case_memo *m, const gcsim_scenario *s,
                            const gcsim_iteration *it);

#endif
