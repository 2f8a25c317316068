/*
 * sim/planning/stack_breakeven.h: the break-even NIC bandwidth of a compressor under a
 * training stack (`gcsim breakeven`): fp32 and the compressor both run as the stack runs
 * them (its exchange, codec and per-call costs, buckets), each as `gcsim predict --stack S
 * --compressor X` would, and gcsim_breakeven_find (sim/planning/breakeven.h) bisects the
 * platform's NIC bandwidth between them.
 *
 * The command asks twice: under the chosen stack (what the user runs) and under "fused"
 * (the ideal implementation, the codec model and no per-call cost): the second says what
 * the compressor could do if the framework's overhead were gone.
 */
#ifndef GCSIM_PLANNING_STACK_BREAKEVEN_H
#define GCSIM_PLANNING_STACK_BREAKEVEN_H

#include "breakeven.h"
#include "gcsim_error.h"
#include "scenario.h"
#include "stack.h"
#include "sweep_case.h"

typedef struct {
    /* The compressor's case, as `gcsim predict` would run it (case_build.h): platform,
     * model, payload, GPUs, batch, exchange and collective (collective_given false: the
     * platform's), sharding, micro-batches, checkpointing. Its stack is ignored (each call
     * names one); fp32's side is the same case with the payload fp32 and the stack's own
     * exchange. Breakeven runs weak scaling, the stack's buckets, overlap on. */
    sweep_case c;
    const gcsim_payload_plan *fp32;     /* compressor "none" of c.model */
    double conv_factor;                 /* issue 26: on time to accuracy; 0 counts as 1 */
} breakeven_case;

typedef struct {
    const gcsim_stack *stack;
    /* be.status BREAKEVEN_REFUSED: the stack has no way to run the compressor (be.reason
     * says why; of the rest only own_Bps and none_tput, fp32's throughput, are set) */
    gcsim_breakeven be;
    gcsim_exchange exchange;            /* the compressor's exchange under the stack */
} stack_breakeven;

/* The break-even of case bc under stack st. A stack that cannot run the compressor is an
 * answer (BREAKEVEN_REFUSED), not an error, so a table of several stacks and compressors
 * goes on. Returns 0, or -1 with err (bad input such as a codec profile that cannot be
 * read, or an exchange the stack refuses for a compressor it runs, e.g. PowerSGD by
 * all-gather; more GPUs than the platform holds). */
int stack_breakeven_find(const breakeven_case *bc, const gcsim_stack *st, stack_breakeven *out,
                         gcsim_error *err);

#endif
