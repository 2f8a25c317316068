/* What the plan search keeps of its candidates (plan_keep.h). */
#include "plan_keep.h"

void plan_keep(const plan_target *t, bool by_time, const plan_candidate *c, plan_group *g,
               plan_extremes *x)
{
    if (c->feasible && (!g->has_best || plan_better(c, &g->best, by_time) < 0)) {
        g->best = *c;
        g->has_best = true;
    }
    if (!g->has_closest || c->shortfall < g->closest.shortfall ||
        (c->shortfall == g->closest.shortfall && plan_better(c, &g->closest, by_time) < 0)) {
        g->closest = *c;
        g->has_closest = true;
    }
    if (!x->has_fastest || c->tput > x->fastest.tput) {
        x->fastest = *c;
        x->has_fastest = true;
    }
    if (c->tput >= t->need_samples_per_s &&
        (!x->has_cheapest_fast || plan_cost_key(c) < plan_cost_key(&x->cheapest_fast))) {
        x->cheapest_fast = *c;
        x->has_cheapest_fast = true;
    }
}
