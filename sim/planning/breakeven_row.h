/*
 * sim/planning/breakeven_row.h: one row of `gcsim breakeven`: a compressor's case answered
 * under the chosen stack, under the ideal fused stack, and on time to accuracy (its
 * convergence factor applied), or the reason the case cannot run (issue 46).
 */
#ifndef GCSIM_PLANNING_BREAKEVEN_ROW_H
#define GCSIM_PLANNING_BREAKEVEN_ROW_H

#include <stdbool.h>

#include "gcsim_error.h"
#include "stack_breakeven.h"

typedef struct {
    stack_breakeven own;      /* under the chosen stack */
    stack_breakeven fused;    /* under the ideal fused stack */
    stack_breakeven accuracy; /* under the chosen stack, to fp32's accuracy */
    double conv_factor;       /* the factor applied (1 when unknown) */
} breakeven_row;

/* Answers bc (its case checked and built by case_build.h, memory included, as predict's)
 * under st and ideal, then to accuracy with conv_factor (NAN: unknown, taken as 1).
 * Returns 0 answered; 1 the case cannot run these inputs (a worker that cannot hold its
 * training state, a sparse payload under a ZeRO sharding, a count the sharding refuses: err
 * says why, the row says so); -1 the run
 * fails (bad inputs at any count, gcsim's own failure or a machine limit). */
int breakeven_row_answer(breakeven_case *bc, const gcsim_stack *st, const gcsim_stack *ideal,
                         double conv_factor, breakeven_row *out, gcsim_error *err);

#endif
