/* sim/planning/exchange_best.c: the fastest exchange for a case (exchange_best.h). */
#include "exchange_best.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "codec.h"

/* The stack's own first: ties keep it, so "best" never moves a configuration for nothing. */
static const gcsim_exchange tried_order[EXCHANGE_BEST_TRIES] = {
    GCSIM_EXCHANGE_AUTO, GCSIM_EXCHANGE_ALLREDUCE, GCSIM_EXCHANGE_ALLGATHER, GCSIM_EXCHANGE_PS};

/* Runs one try into t; -1 only when gcsim itself failed (err set). */
static int run_try(const sweep_case *one, exchange_try *t, gcsim_error *own_err, bool own,
                   gcsim_error *err)
{
    gcsim_error e = {.internal = 0};
    t->rc = sweep_case_run(one, &t->r, &e);
    if (t->rc == 0)
        return 0;
    /* gcsim itself failed, or a limit of this machine kept it from costing the try: not a
     * property of this exchange, so not skipped (skipped, the best would depend on the
     * machine, issue 45) */
    if (!gcsim_error_skippable(&e)) {
        *err = e;
        return -1;
    }
    snprintf(t->why_not, sizeof t->why_not, "%.500s", e.message);
    if (own)
        *own_err = e;
    return 0;
}

int exchange_best_run(const sweep_case *c, exchange_best_result *out, gcsim_error *err)
{
    memset(out, 0, sizeof *out);
    out->best = -1;
    gcsim_error own_err = {.internal = 0};
    for (int k = 0; k < EXCHANGE_BEST_TRIES; k++) {
        exchange_try *t = &out->tried[k];
        sweep_case one = *c;
        one.exchange = t->asked = tried_order[k];
        t->c = one;
        if (k > 0 && gcsim_stack_unimplemented(c->stack, c->payload->spec, t->asked,
                                               t->why_not, sizeof t->why_not)) {
            t->rc = -1;
            t->unimplemented = true;
            out->n_tried++;
            continue;
        }
        if (run_try(&one, t, &own_err, k == 0, err))
            return -1;
        out->n_tried++;
        if (t->rc)
            continue;
        double tput = t->r.p.throughput_samples_per_s;
        if (k == 0) {
            out->has_own = true;
            out->own_samples_per_s = tput;
        }
        if (out->best < 0 || tput > out->best_samples_per_s) {
            out->best = k;
            out->best_samples_per_s = tput;
        }
    }
    if (out->best < 0) {
        *err = own_err;
        return -1;
    }
    return 0;
}

const char *exchange_try_name(const exchange_try *t)
{
    return gcsim_exchange_name(t->asked);
}

double exchange_best_gain(const exchange_best_result *r)
{
    return r->has_own && r->own_samples_per_s > 0 ? r->best_samples_per_s / r->own_samples_per_s
                                                  : INFINITY;
}

bool exchange_best_warns(const exchange_best_result *r)
{
    return exchange_best_gain(r) > EXCHANGE_BEST_WARN_RATIO;
}

int exchange_option_parse(const char *text, gcsim_exchange *out, bool *best)
{
    *best = false;
    if (text && strcmp(text, "best") == 0) {
        *best = true;
        *out = GCSIM_EXCHANGE_AUTO;
        return 0;
    }
    return text ? gcsim_exchange_parse(text, out) : -1;
}
