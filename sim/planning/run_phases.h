/*
 * sim/planning/run_phases.h: a training run made of phases whose steps communicate
 * differently, and its end-to-end time (issue 43): DeepSpeed's 1-bit Adam and 0/1 Adam.
 *
 * Each step of such a run is one of three kinds, each an ordinary step both engines cost:
 *   full:   uncompressed Adam, the gradient all-reduced at the training precision (the run as
 *           predict's other options describe it, compressor none);
 *   1-bit:  the momentum (or gradient) exchanged by DeepSpeed's compressed all-reduce
 *           (deepspeed/runtime/comm/nccl.py compressed_allreduce: sign bits plus one fp32
 *           scale per worker, error feedback on the worker and on the server chunk; an
 *           all-to-all of the sign chunks, the server chunk decoded, summed and re-encoded,
 *           then an all-gather), priced as the compressor RUN_PHASES_ONEBIT_COMPRESSOR
 *           exchanged by all-reduce, whose per-worker-scale hop rule keeps the payload at one
 *           bit per element and charges each reducing hop's decode-sum-encode (docs/codec.md);
 *   local:  no communication at all (0/1 Adam's local steps): the step's compute, the
 *           prediction's compute_s.
 * Which step is which follows DeepSpeed's optimizers (deepspeed/runtime/fp16/onebit/adam.py
 * and zoadam.py), step by step:
 *   1-bit Adam: steps 1..freeze_step full, the rest 1-bit;
 *   0/1 Adam: steps 1..var_freeze_step+1 (the optimizer freezes after the step that passes
 *     var_freeze_step) full when the step is a multiple of var_interval, else 1-bit;
 *     var_interval starts at 1 and doubles after every var_update_scaler full steps. Later
 *     steps synchronise (1-bit) when the step is a multiple of local_step_interval, else are
 *     local; local_step_interval starts at 1 and doubles (up to local_step_clipper) every
 *     local_step_scaler steps.
 * Not modelled: DeepSpeed's one initialisation step of each optimizer, the scale
 * all-gathers (4 bytes per worker), and the error buffers' memory.
 */
#ifndef GCSIM_PLANNING_RUN_PHASES_H
#define GCSIM_PLANNING_RUN_PHASES_H

#include <stdbool.h>
#include <stddef.h>

#include "gcsim_error.h"
#include "sweep_case.h"

/* The compressor that prices a 1-bit step: scaled sign with error feedback, as
 * compressed_allreduce (one scale per buffer, the residual kept). */
#define RUN_PHASES_ONEBIT_COMPRESSOR "ef+signsgd"
/* The most steps a run may have (a BERT pre-training is 10^5 to 10^6 steps). */
#define RUN_PHASES_MAX_STEPS 1000000000000LL

typedef enum { RUN_PHASED_ONEBIT_ADAM = 1, RUN_PHASED_ZERO_ONE_ADAM } run_phased_kind;

typedef struct {
    run_phased_kind kind;
    long long freeze_step;        /* 1-bit Adam (DeepSpeed's default 100000) */
    long long var_freeze_step;    /* 0/1 Adam (DeepSpeed's defaults: 100000, */
    long long var_update_scaler;  /*   16, */
    long long local_step_scaler;  /*   32678, */
    long long local_step_clipper; /*   16) */
} run_phased_spec;

/* Parses "onebit-adam[:freeze=N]" or "zero-one-adam[:var_freeze=N,var_update_scaler=K,
 * local_step_scaler=A,local_step_clipper=B]" (keys in any order, DeepSpeed's defaults for
 * the others). Returns 1 when text names neither (a plain optimizer), 0 when parsed, -1
 * with the reason in why (an unknown key, a value that is not a whole number in range). */
int run_phased_parse(const char *text, run_phased_spec *out, char *why, size_t why_size);
/* "1-bit Adam (freeze_step 23000)" and the like. */
void run_phased_describe(const run_phased_spec *s, char *buf, size_t size);

typedef struct {
    long long full, onebit, local; /* steps of each kind; they sum to the run's steps */
} run_phase_counts;

/* The steps of each kind in a run of total_steps (1..RUN_PHASES_MAX_STEPS). */
void run_phases_count(const run_phased_spec *s, long long total_steps, run_phase_counts *out);

typedef struct {
    double full_s, onebit_s, local_s; /* one step of each kind */
    /* run_phases_step_times: the stack's warning when it does not implement the 1-bit
     * step's exchange (gcsim_stack_setup.unimplemented; "" when it does): a what-if. */
    char onebit_unimplemented[384];
} run_phase_step_s;

/* sum of steps x step time over the kinds. */
double run_phases_total_s(const run_phase_counts *n, const run_phase_step_s *t);

/* The three step times of case `full` (a compressor none, ddp case at its GPU count) with
 * its engine: the case itself, the case with `onebit_plan` (RUN_PHASES_ONEBIT_COMPRESSOR's
 * payload plan for the same model) exchanged by all-reduce, and the full step's compute.
 * 0, or -1 with err. */
int run_phases_step_times(const sweep_case *full, const gcsim_payload_plan *onebit_plan,
                          run_phase_step_s *out, gcsim_error *err);

#endif
