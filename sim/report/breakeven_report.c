/* sim/report/breakeven_report.c: breakeven's rows for every model, platform, GPU count and
 * compressor (breakeven_report.h). */
#include "breakeven_report.h"

#include <stdlib.h>

#include "convergence_factors.h"
#include "convergence_notes.h"

/* The ideal implementation every row is also shown under (platforms/stacks/fused.json). */
#define IDEAL_STACK "fused"

report *breakeven_report(const breakeven_request *q, sweep_cache *cache,
                         breakeven_infeasible_log *log, int *n_answered, gcsim_error *err)
{
    breakeven_table t;
    report *r = breakeven_table_new(&t);
    conv_factor *conv = calloc((size_t)q->compressors->n, sizeof *conv);
    *n_answered = 0;
    if (!r || !conv) {
        gcsim_fail_internal(err, "out of memory");
        goto fail;
    }
    const gcsim_stack *ideal = sweep_cache_stack(cache, IDEAL_STACK, err);
    if (!ideal)
        goto fail;
    const gcsim_stack *shared = NULL; /* the stack of every row, when they have one */
    bool one_stack = true;
    int n_pl = q->platforms->n ? q->platforms->n : 1, n_m = q->models->n ? q->models->n : 1;
    for (int mi = 0; mi < n_m; mi++) {
        const char *path = q->models->n ? q->models->items[mi] : NULL;
        const gcsim_model *m = sweep_cache_model_as(cache, path,
                                                    q->run->precision, q->run->optimizer, err);
        const gcsim_payload_plan *fp32 = m ? sweep_cache_payload(cache, m, "none", err) : NULL;
        if (!fp32)
            goto fail;
        /* A bad spec is a --compressor error: name it before the convergence lookup does. */
        for (int ci = 0; ci < q->compressors->n; ci++)
            if (!sweep_cache_payload(cache, m, q->compressors->items[ci], err))
                goto fail;
        if (convergence_factors(q->convergence, m->name, (const char *const *)q->compressors->items,
                                q->compressors->n, 0, conv, err))
            goto fail;
        if (mi == 0)
            convergence_notes_report(r, q->convergence, (const char *const *)q->compressors->items,
                                  q->compressors->n, conv);
        for (int pi = 0; pi < n_pl; pi++) {
            const gcsim_platform *p =
                sweep_cache_platform(cache, q->platforms->n ? q->platforms->items[pi] : NULL, err);
            /* as gcsim predict: --stack, else the platform's "stack", else the default */
            const gcsim_stack *st =
                p ? sweep_cache_stack(cache, gcsim_stack_choice(q->stack, p), err) : NULL;
            if (p && !st)
                gcsim_stack_blame_platform(q->stack, p, err);
            if (!st)
                goto fail;
            one_stack = one_stack && (!shared || shared == st);
            shared = st;
            for (int g = 0; g < q->n_counts; g++)
                for (int ci = 0; ci < q->compressors->n; ci++) {
                    const gcsim_payload_plan *pl =
                        sweep_cache_payload(cache, m, q->compressors->items[ci], err);
                    breakeven_case bc = {
                        .c = case_options_case(q->run, p, m, pl, st, q->counts[g]), .fp32 = fp32};
                    conv_factor cf = conv_factor_at(&conv[ci], q->counts[g]);
                    breakeven_row answer;
                    if (!pl)
                        goto fail;
                    int row = breakeven_row_answer(&bc, st, ideal, cf.factor, &answer, err);
                    if (row < 0)
                        goto fail;
                    breakeven_table_keys(r, &t, m->name, p->name, q->counts[g], pl->spec,
                                         q->compressors->items[ci], st->name);
                    breakeven_table_case(r, &t, &bc.c, row == 0 ? &answer : NULL);
                    if (row > 0) {
                        breakeven_table_infeasible(r, &t, p->nic.bandwidth_Bps, err->message);
                        if (breakeven_infeasible_add(log, pl->spec, q->counts[g], m->name,
                                                     p->name, err->message, err))
                            goto fail;
                        continue;
                    }
                    (*n_answered)++;
                    breakeven_table_answer(r, &t, &answer, &cf,
                                           convergence_source_label(&cf));
                }
        }
    }
    if (*n_answered)
        breakeven_table_finish(r, log->n, one_stack ? shared : NULL, q->stack != NULL, ideal);
    free(conv);
    return r;
fail:
    free(conv);
    report_free(r);
    return NULL;
}
