/* sim/planning/stack_breakeven.c: break-even bandwidth under a training stack
 * (stack_breakeven.h). */
#include "stack_breakeven.h"

#include <stdio.h>
#include <string.h>

#include "analytic.h"
#include "case_build.h"
#include "engine.h"

/* One side of the comparison: case c under stack st, set up and built as `gcsim predict
 * --stack` builds its case (case_build.h); ss must outlive the scenario. */
static int scenario_of(const sweep_case *c, const gcsim_stack *st, gcsim_stack_setup *ss,
                       gcsim_scenario *s, gcsim_error *err)
{
    sweep_case one = *c;
    one.stack = st;
    if (case_build_setup(&one, ss, err))
        return -1;
    return case_build_scenario(&one, ss, s, err);
}

int stack_breakeven_find(const breakeven_case *bc, const gcsim_stack *st, stack_breakeven *out,
                         gcsim_error *err)
{
    memset(out, 0, sizeof *out);
    out->stack = st;
    /* Refused by the stack (an ORQ that no framework implementation was measured for):
     * the row says so, and the fused column beside it still answers. */
    gcsim_stack_setup sd, sc;
    gcsim_scenario dense, comp;
    sweep_case fp32 = bc->c;
    fp32.payload = bc->fp32;
    fp32.exchange = GCSIM_EXCHANGE_AUTO;
    fp32.collective_given = false;
    if (scenario_of(&fp32, st, &sd, &dense, err))
        return -1;
    const gcsim_stack_entry *entry;
    gcsim_error refusal = {.internal = 0};
    if (gcsim_stack_entry_for(st, bc->c.payload->spec, &entry, &refusal)) {
        /* fp32 still runs: the row keeps its fp32 throughput at the platform's bandwidth */
        gcsim_prediction pd;
        if (engine_run(ENGINE_ANALYTIC, &dense, &pd, err))
            return -1;
        out->be.status = BREAKEVEN_REFUSED;
        out->be.own_Bps = bc->c.platform->nic.bandwidth_Bps;
        out->be.none_tput = pd.throughput_samples_per_s;
        snprintf(out->be.reason, sizeof out->be.reason, "%.500s", refusal.message);
        return 0;
    }
    if (scenario_of(&bc->c, st, &sc, &comp, err))
        return -1;
    out->exchange = sc.cs.exchange.exchange;
    return gcsim_breakeven_find_factor(&dense, &comp, bc->conv_factor > 0 ? bc->conv_factor : 1.0,
                                       &out->be, err);
}
