/* sim/planning/exchange_search.c: predict's exchange search per GPU count
 * (exchange_search.h). */
#include "exchange_search.h"

#include <string.h>

/* The try predict runs when --exchange is `asked`: the stack's own for auto, else the
 * exchange of that name. */
static int used_try(const exchange_best_result *res, gcsim_exchange asked, bool best)
{
    if (best)
        return res->best;
    for (int k = 0; k < res->n_tried; k++)
        if (res->tried[k].asked == asked)
            return res->tried[k].rc == 0 ? k : -1;
    return -1;
}

int exchange_search_run(const sweep_case *c, const int *counts, int n, gcsim_exchange asked,
                        bool best, exchange_search_count *out, gcsim_error *err)
{
    for (int k = 0; k < n; k++) {
        exchange_search_count *pc = &out[k];
        memset(pc, 0, sizeof *pc);
        pc->gpus = counts[k];
        pc->used = -1;
        if (counts[k] < 2)
            continue; /* one GPU exchanges nothing */
        sweep_case one = *c;
        one.gpus = counts[k];
        one.engine = ENGINE_ANALYTIC;
        gcsim_error e = {.internal = 0};
        if (exchange_best_run(&one, &pc->res, &e)) {
            if (e.internal) {
                *err = e;
                return -1;
            }
            continue; /* nothing runs at this count: predict's own run says why */
        }
        pc->searched = true;
        pc->used = used_try(&pc->res, asked, best);
    }
    return 0;
}

const sweep_case *exchange_search_winner(const exchange_search_count *pc)
{
    return pc->searched ? &pc->res.tried[pc->res.best].c : NULL;
}

double exchange_search_slowdown(const exchange_search_count *pc)
{
    if (!pc->searched || pc->used < 0)
        return 1.0;
    return pc->res.best_samples_per_s / pc->res.tried[pc->used].r.p.throughput_samples_per_s;
}

int exchange_search_uniform_winner(const exchange_search_count *search, int n)
{
    int last = -1;
    for (int k = 0; k < n; k++) {
        if (!search[k].searched)
            continue;
        if (last >= 0) {
            const exchange_try *a = &search[last].res.tried[search[last].res.best];
            const exchange_try *b = &search[k].res.tried[search[k].res.best];
            if (a->asked != b->asked)
                return -1;
        }
        last = k;
    }
    return last;
}
