/* sim/planning/stack_breakeven.c: break-even bandwidth under a training stack
 * (stack_breakeven.h). */
#include "stack_breakeven.h"

#include <stdio.h>
#include <string.h>

#include "analytic.h"

/* One side of the comparison set up as `gcsim predict --stack` sets it up; ss must outlive
 * the scenario. */
static int scenario_of(const breakeven_case *bc, const gcsim_stack *st,
                       const gcsim_payload_plan *pl, gcsim_exchange exchange,
                       const gcsim_collective *collective, gcsim_stack_setup *ss,
                       gcsim_scenario *s, gcsim_error *err)
{
    if (gcsim_stack_setup_init(ss, bc->platform, st, pl->spec, exchange, collective, err))
        return -1;
    *s = (gcsim_scenario){.platform = bc->platform, .model = bc->model, .payload = pl,
                          .scaling = SCALING_WEAK,
                          .batch = bc->batch > 0 ? bc->batch : bc->model->batch_per_gpu,
                          .bucket_bytes = 0.0 /* the stack's */, .overlap = true,
                          .sharding = bc->sharding, .grad_accum = bc->grad_accum,
                          .act_ckpt = bc->act_ckpt,
                          .act_ckpt_policy = bc->act_ckpt_policy};
    gcsim_stack_setup_apply(ss, s);
    if (gcsim_scenario_training_check(s, err))
        return -1;
    return gcsim_platform_place(bc->platform, bc->gpus, &s->placement, err);
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
    if (scenario_of(bc, st, bc->fp32, GCSIM_EXCHANGE_AUTO, NULL, &sd, &dense, err))
        return -1;
    const gcsim_stack_entry *entry;
    gcsim_error refusal = {.internal = 0};
    if (gcsim_stack_entry_for(st, bc->payload->spec, &entry, &refusal)) {
        /* fp32 still runs: the row keeps its fp32 throughput at the platform's bandwidth */
        gcsim_prediction pd;
        if (gcsim_analytic_predict(&dense, &pd, err))
            return -1;
        out->be.status = BREAKEVEN_REFUSED;
        out->be.own_Bps = bc->platform->nic.bandwidth_Bps;
        out->be.none_tput = pd.throughput_samples_per_s;
        snprintf(out->be.reason, sizeof out->be.reason, "%.500s", refusal.message);
        return 0;
    }
    if (scenario_of(bc, st, bc->payload, bc->exchange, bc->collective, &sc, &comp, err))
        return -1;
    out->exchange = sc.cs.exchange.exchange;
    return gcsim_breakeven_find_factor(&dense, &comp, bc->conv_factor > 0 ? bc->conv_factor : 1.0,
                                       &out->be, err);
}
