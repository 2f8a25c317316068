/* One row of gcsim breakeven; see breakeven_row.h. */
#include "breakeven_row.h"

#include <math.h>

#include "case_build.h"

int breakeven_row_answer(breakeven_case *bc, const gcsim_stack *st, const gcsim_stack *ideal,
                         double conv_factor, breakeven_row *out, gcsim_error *err)
{
    /* bad inputs fail the run; the sharding's refusal of
     * this payload or count is this row's answer. Memory is not checked here, as before:
     * breakeven compares rates. */
    sweep_case checked = bc->c;
    checked.no_memory_check = true;
    /* A count one platform of a --platforms list cannot hold is that row's answer, as in
     * sweep (issue 46); alone, it is still the run's error (the caller's one-row rule). */
    gcsim_placement placed;
    if (gcsim_platform_place(checked.platform, checked.gpus, &placed, err))
        return gcsim_error_skippable(err) ? 1 : -1;
    int feasible = case_build_feasible(&checked, err);
    if (feasible < 0)
        return -1;
    bool failed = feasible > 0 || stack_breakeven_find(bc, st, &out->own, err) ||
                  stack_breakeven_find(bc, ideal, &out->fused, err);
    if (!failed) {
        bc->conv_factor = out->conv_factor = isfinite(conv_factor) ? conv_factor : 1.0;
        failed = stack_breakeven_find(bc, st, &out->accuracy, err) != 0;
    }
    /* Issue 46: a compressor (or count) that cannot run these inputs, such as a sparse
     * payload under a ZeRO sharding, is a row that says why; the others are answered.
     * gcsim's own failures and machine limits still stop the run. */
    if (failed && !gcsim_error_skippable(err))
        return -1;
    return failed ? 1 : 0;
}
