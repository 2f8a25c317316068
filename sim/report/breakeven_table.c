/* gcsim breakeven's table; see breakeven_table.h. */
#include "breakeven_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act_ckpt.h"
#include "breakeven.h"
#include "roofline.h"
#include "row_fields.h"
#include "sharding.h"

static int prefixed_column(report *r, const char *prefix, const char *key, const char *header,
                           int precision, double scale)
{
    char k[64], h[64];
    snprintf(k, sizeof k, "%s%s%s", prefix, *prefix ? "_" : "", key);
    snprintf(h, sizeof h, "%s%s%s", prefix, *prefix ? " " : "", header);
    return report_column_scaled(r, k, h, precision, scale);
}

static void answer_columns_add(report *r, breakeven_answer_columns *c, const char *prefix)
{
    /* the uncompressed gradient ("none") at the training precision: bf16 under --precision
     * bf16, so the table says "none", not "fp32"; the field keeps its name (schema version
     * 1: a renamed field would raise it) */
    c->none = prefixed_column(r, prefix, "fp32_samples_per_s", "none samples/s", 1, 1.0);
    c->tput = prefixed_column(r, prefix, "samples_per_s", "samples/s", 1, 1.0);
    c->codec = prefixed_column(r, prefix, "codec_s", "codec ms", 3, 1e3);
    c->be = prefixed_column(r, prefix, "breakeven_Bps", "break-even Gb/s", 3, 8e-9);
    c->st = prefixed_column(r, prefix, "status", "status", 0, 1.0);
    c->why = prefixed_column(r, prefix, "reason", "reason", 0, 1.0);
}

report *breakeven_table_new(breakeven_table *t)
{
    report *r = report_new_for_file("breakeven");
    if (!r)
        return NULL;
    t->model = report_column(r, "model", "model", 0);
    t->platform = report_column(r, "platform", "platform", 0);
    t->gpus = report_column(r, "gpus", "GPUs", 0);
    t->compressor = report_column(r, "compressor", "compressor", 0);
    /* Bandwidths in bytes per second (_Bps) and times in seconds in CSV and JSON; the
     * text table shows Gb/s and ms. */
    breakeven_answer_columns *own = &t->own, *fused = &t->fused;
    own->ex = report_column(r, "exchange", "exchange", 0);
    t->own_Bps = report_column_scaled(r, "nic_Bps", "NIC Gb/s", 1, 8e-9);
    answer_columns_add(r, own, "");
    /* added after the columns scripts read by position: the stack of the columns above,
     * then the same answer under the ideal fused stack */
    t->stack = report_column(r, "stack", "stack", 0);
    fused->ex = report_column(r, "fused_exchange", "fused exchange", 0);
    answer_columns_add(r, fused, "fused");
    /* issue 26, last: the same question on time to accuracy under the chosen stack */
    t->conv = report_column(r, "convergence_factor", "conv factor", 3);
    t->conv_src = report_column(r, "convergence_source", "conv source", 0);
    t->acc_be = report_column_scaled(r, "accuracy_breakeven_Bps", "to-accuracy break-even Gb/s",
                                     3, 8e-9);
    t->acc_st = report_column(r, "accuracy_status", "to-accuracy status", 0);
    t->acc_why = report_column(r, "accuracy_reason", "to-accuracy reason", 0);
    /* issue 46, after every other: what predict has for the row's case */
    t->tokens = report_column(r, "tokens_per_s", "tokens/s", 0);
    t->mfu = report_column(r, "mfu_pct", "MFU %", 1);
    t->mem = report_column_scaled(r, "memory_bytes_per_gpu", "mem GB", 1, 1e-9);
    t->sharding = report_column(r, "sharding", "sharding", 0);
    t->ckpt = report_column(r, "act_ckpt_policy", "act ckpt", 0);
    t->csrc = report_column(r, "compute_source", "compute", 0);
    /* the text table in 100 columns (issue 46): the row's keys, then the answer under the
     * chosen stack, under fused, to accuracy; the reasons are listed after the tables */
    report_column_brief(r, own->none, "fp32/s");
    report_column_brief(r, own->be, "BE Gb/s");
    report_column_brief(r, fused->ex, "fused exch");
    report_column_brief(r, fused->none, "fused fp32/s");
    report_column_brief(r, fused->tput, "fused/s");
    report_column_brief(r, fused->codec, "fused codec");
    report_column_brief(r, fused->be, "fused BE");
    report_column_brief(r, t->acc_be, "acc BE Gb/s");
    report_column_brief(r, t->acc_st, "acc status");
    const int lead[] = {t->model, t->platform, t->gpus, t->compressor, own->be, own->st,
                        t->own_Bps, own->none, own->tput, own->codec, own->ex, t->stack,
                        fused->be, fused->st, fused->none, fused->tput, fused->codec, fused->ex,
                        t->acc_be, t->acc_st, t->conv, t->conv_src};
    report_table_lead(r, 4, lead, (int)(sizeof lead / sizeof lead[0]));
    return r;
}

void breakeven_table_keys(report *r, const breakeven_table *t, const char *model,
                          const char *platform, int gpus, const char *spec, const char *given,
                          const char *stack)
{
    report_row(r);
    report_str(r, t->model, model);
    report_str(r, t->platform, platform);
    report_int(r, t->gpus, gpus);
    /* as written in the table, the full spec in CSV and JSON */
    report_str_table(r, t->compressor, spec, given);
    report_str(r, t->stack, stack);
}

/* A refused answer has no exchange, throughput or codec time; only a found one has a
 * break-even bandwidth. */
static void answer_write(report *r, const breakeven_answer_columns *c, const stack_breakeven *a)
{
    report_num(r, c->none, a->be.none_tput);
    if (a->be.status != BREAKEVEN_REFUSED) {
        report_str(r, c->ex, gcsim_exchange_name(a->exchange));
        report_num(r, c->tput, a->be.comp_tput);
        report_num(r, c->codec, a->be.codec_s);
    }
    if (a->be.status == BREAKEVEN_FOUND)
        report_num(r, c->be, a->be.breakeven_Bps);
    report_str(r, c->st, gcsim_breakeven_status_name(a->be.status));
    report_str(r, c->why, a->be.reason);
}

void breakeven_table_answer(report *r, const breakeven_table *t, const breakeven_row *a,
                            const conv_factor *cf, const char *conv_source)
{
    report_num(r, t->own_Bps, a->own.be.own_Bps);
    answer_write(r, &t->own, &a->own);
    answer_write(r, &t->fused, &a->fused);
    if (isfinite(cf->factor)) /* unknown (issue 43): no number, not 1 */
        report_num(r, t->conv, a->conv_factor);
    report_str(r, t->conv_src, conv_source);
    if (a->accuracy.be.status == BREAKEVEN_FOUND)
        report_num(r, t->acc_be, a->accuracy.be.breakeven_Bps);
    report_str(r, t->acc_st, gcsim_breakeven_status_name(a->accuracy.be.status));
    report_str(r, t->acc_why, a->accuracy.be.reason);
}

void breakeven_table_case(report *r, const breakeven_table *t, const sweep_case *c,
                          const breakeven_row *a)
{
    if (a) {
        if (a->own.be.status != BREAKEVEN_REFUSED) {
            double tokens = row_tokens_per_s(c->model, a->own.be.comp_tput);
            if (isfinite(tokens)) /* null for a model without tokens_per_sample */
                report_num(r, t->tokens, tokens);
            report_num(r, t->mfu, row_mfu_pct(c->model, c->platform, a->own.be.comp_tput,
                                              c->gpus));
        }
        report_num(r, t->mem, sweep_case_memory_bytes(c, c->gpus));
    }
    char text[48];
    gcsim_sharding_format(&c->sharding, text, sizeof text);
    report_str(r, t->sharding, text);
    if (c->act_ckpt)
        gcsim_act_ckpt_format(&c->act_ckpt_policy, text, sizeof text);
    else
        snprintf(text, sizeof text, "none");
    report_str(r, t->ckpt, text);
    report_str(r, t->csrc, gcsim_compute_source(c->model, c->platform));
}

void breakeven_table_infeasible(report *r, const breakeven_table *t, double nic_Bps,
                                const char *why)
{
    /* the table shows the reason once, in the first reason column */
    report_str(r, t->own.st, "infeasible");
    report_str(r, t->own.why, why);
    report_str(r, t->fused.st, "infeasible");
    report_str_table(r, t->fused.why, why, "as reason");
    report_str(r, t->acc_st, "infeasible");
    report_str_table(r, t->acc_why, why, "as reason");
    report_num(r, t->own_Bps, nic_Bps);
}

void breakeven_table_finish(report *r, int n_infeasible, const gcsim_stack *shared,
                            bool stack_given, const gcsim_stack *ideal)
{
    if (n_infeasible)
        report_note(r, "infeasible", "a row with status infeasible cannot run these inputs "
                                     "(reason says why); the other rows are answered");
    report_meta_str(r, "engine", "analytic");
    report_meta_str(r, "scaling", "weak");
    /* null when the platforms chose different stacks: each row names its own */
    report_meta_str(r, "stack.name", shared ? shared->name : NULL);
    report_meta_str(r, "stack.file", shared ? shared->path : NULL);
    report_meta_str(r, "fused_stack.name", ideal->name);
    report_meta_str(r, "fused_stack.file", ideal->path);
    report_note(r, "method", "analytic engine, weak scaling, codec cost and exchange as gcsim "
                             "predict chooses them; NIC bandwidth per NIC, one direction");
    char line[1024];
    snprintf(line, sizeof line, "none and the compressor both under %s%s; the fused_ columns "
             "under %s (%s): the ideal implementation, codec model and no per-call cost",
             shared ? shared->name : "each platform's stack",
             shared && !stack_given ? " (the platforms' choice)" : "", ideal->name,
             ideal->path);
    report_note(r, "stacks", line);
}

int breakeven_infeasible_add(breakeven_infeasible_log *log, const char *spec, int gpus,
                             const char *model, const char *platform, const char *why,
                             gcsim_error *err)
{
    char line[1400];
    int w = snprintf(line, sizeof line, "gcsim breakeven: %s, %d GPUs, %s on %s: %s\n", spec,
                     gpus, model, platform, why);
    size_t add = w < 0 ? 0 : (size_t)w < sizeof line ? (size_t)w : sizeof line - 1;
    char *t = realloc(log->text, log->len + add + 1);
    if (!t)
        return gcsim_fail(err, "out of memory");
    memcpy(t + log->len, line, add);
    log->text = t;
    log->len += add;
    t[log->len] = 0;
    log->n++;
    return 0;
}
