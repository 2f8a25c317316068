/*
 * sim/step/program.h: building the programs of an iteration's buckets (what every
 * worker does with a bucket once backward has produced it: codec steps and collective
 * calls, in order), shared by iteration.c and the stack programs (program_stack.c).
 * Internal to sim/step; both engines read the result through gcsim_iteration.
 */
#ifndef GCSIM_STEP_PROGRAM_H
#define GCSIM_STEP_PROGRAM_H

#include "step.h"
#include "stack.h"

/* Appends to it->steps / it->calls (growing them). Return 0, or -1 when out of memory. */
int program_codec(gcsim_iteration *it, const char *name, gcsim_codec_class cls, double s);
/* A codec step that is the per-tensor encode (tensors 1) or decode (2) of the bucket's
 * layers: seconds = factor x their layer_encode_s / layer_decode_s sum. */
int program_codec_tensors(gcsim_iteration *it, const char *name, gcsim_codec_class cls,
                          double s, int tensors, double factor);
int program_call(gcsim_iteration *it, int bucket, const char *name, gcsim_collective c,
                 const gcsim_bucket_bytes *bytes, double overhead_s);
/* The last call appended, to set what program_call does not (blocking). */
gcsim_call *program_last_call(gcsim_iteration *it);

/* The program of bucket b when no training stack shapes it (the fused stack): encode its
 * tensors, run the scenario's collective on the bucket, decode what arrives (an
 * all-gather's N-1 payloads). */
int program_fused(gcsim_iteration *it, const gcsim_scenario *s, int b);

/* The all-reduce algorithm a stack's collective library picks per call when the scenario
 * leaves it to it (gcsim_scenario.tune_allreduce), as NCCL's tuner does: of ring and
 * double binary tree, the one whose closed form is faster for the call's bytes, costed
 * through the process's schedule memo; a candidate it cannot cost fails the program (it is
 * never left out of the choice: program_stack.c). */
typedef struct program_tuner program_tuner;
/* NULL with err empty when the scenario does not tune; NULL with a message on failure. */
program_tuner *program_tuner_new(const gcsim_scenario *s, gcsim_error *err);
void program_tuner_free(program_tuner *t);

/* The program of bucket b as the scenario's training stack runs its compressor
 * (program_stack.c); the stack has laws (not the fused codec model). tuner may be NULL.
 * Fails (bad input) when the stack cannot run the compressor or the exchange. */
/* The stack's entry for the scenario's compressor, looked up by the first bucket and kept
 * for the others: one iteration's buckets share one stack and one spec, and the look-up
 * creates the compressor and formats its spec (a sweep's per-case cost when done per
 * bucket). Zero-initialize one per iteration. */
/* The platform's GPU parameters and the spec's setting are kept the same way (the same
 * inputs for every bucket; about 230 instructions a bucket, issue 47): the GPU's only once
 * found (a platform without them is asked again each bucket, as before, for its error). */
typedef struct {
    bool found;
    const gcsim_stack_entry *entry;
    bool have_gpu, have_setting;
    gcsim_gpu_params gpu;
    gcsim_stack_setting setting;
} program_entry_memo;

int program_stack(gcsim_iteration *it, const gcsim_scenario *s, int b, program_tuner *tuner,
                  program_entry_memo *memo, gcsim_error *err);

#endif
