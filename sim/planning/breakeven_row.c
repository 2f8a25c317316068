/* One row of gcsim breakeven; see breakeven_row.h. */
#include "breakeven_row.h"

#include <math.h>

#include "case_build.h"

int breakeven_row_answer(breakeven_case *bc, const gcsim_stack *st, const gcsim_stack *ideal,
                         double conv_factor, breakeven_row *out, gcsim_error *err)
{
    /* Bad inputs fail the run; what this count alone cannot run is this row's answer:
     * the sharding's refusal of the payload or count, and a worker that cannot hold its
     * training state. Memory is checked as predict, sweep and plan check it (the one
     * builder, case_build.h): a break-even bandwidth of a configuration that cannot run
     * would be a number that looks like an answer (issue 46; it used to be skipped here,
     * "breakeven compares rates", and llama-2-70b on 16 GPUs of a100-hdr under ddp got a
     * break-even of 14.9 Gb/s at 1195 GB per GPU). */
    const sweep_case checked = bc->c;
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
