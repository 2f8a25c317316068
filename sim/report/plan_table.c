/* sim/report/plan_table.c: plan's table, meta and notes (plan_table.h). */
#include "plan_table.h"

#include <math.h>
#include <stdio.h>

#include "convergence_notes.h"
#include "roofline.h"
#include "row_fields.h"
#include "report_emit.h"
#include "sharding.h"
#include "sweep_case.h"

/* One row's goodput cells: the interval the plan picks at its GPU count, and what it
 * gives (goodput.h). */
static void goodput_cells(report *r, const int *c, const plan_problem *pb,
                          const plan_candidate *cand)
{
    goodput_result g;
    gcsim_error err;
    plan_variant v = plan_problem_variant(pb, cand->variant);
    if (goodput_evaluate(pb->goodput, plan_variant_model(pb, &v), cand->gpus,
                         pb->platforms[cand->platform]->gpus_per_node,
                         cand->r.p.throughput_samples_per_s, &g, &err))
        return; /* the search evaluated the same inputs: nothing here can be refused */
    report_num(r, c[0], g.goodput_samples_per_s);
    report_num(r, c[1], 100.0 * g.useful_fraction);
    report_num(r, c[2], g.interval_s);
    report_num(r, c[3], g.checkpoint_write_s);
    report_num(r, c[4], g.restart_s);
    report_num(r, c[5], g.job_mtbf_s);
}

report *plan_table_rows(const plan_problem *pb, const char *const *names,
                            const plan_candidate *rows, int n, bool feasible,
                            const conv_factor *conv)
{
    report *r = report_new_for_file("plan");
    int c_rank = report_column(r, "rank", "#", 0);
    int c_pf = report_column(r, "platform", "platform", 0);
    int c_gpus = report_column(r, "gpus", "GPUs", 0);
    int c_j = report_column(r, "machines", "j", 0);
    int c_comp = report_column(r, "compressor", "compressor", 0);
    int c_coll = report_column(r, "collective", "collective", 0);
    int c_tput = report_column(r, "throughput_samples_per_s", "samples/s", 1);
    int c_eff = report_column(r, "efficiency_pct", "eff %", 1);
    int c_rate = report_column(r, "usd_per_hour", "$/h", 2);
    int c_hours = report_column_scaled(r, "train_time_s", "hours", 2, 1.0 / 3600.0);
    int c_total = report_column(r, "total_usd", "total $", 2);
    int c_bn = report_column(r, "bottleneck", "bottleneck", 0);
    int c_cmp = report_column_scaled(r, "compute_s", "compute ms", 3, 1e3);
    int c_net = report_column_scaled(r, "exposed_comm_s", "exposed comm ms", 3, 1e3);
    int c_cod = report_column_scaled(r, "compress_s", "codec ms", 3, 1e3);
    /* always there (null in a feasible plan), so the header does not depend on the result */
    int c_why = report_column(r, "why_not", "why not", 0);
    report_meta_bool(r, "feasible", feasible);
    /* last, so that readers of the CSV by position before it was added still read theirs */
    int c_exch = report_column(r, "exchange", "exchange", 0);
    int c_stack = report_column(r, "stack", "stack", 0);
    /* --exchange best: what the stack does by itself, and how much the winner gains */
    int c_own = report_column(r, "stack_exchange", "stack's exchange", 0);
    int c_own_tput = report_column(r, "stack_exchange_samples_per_s", "its samples/s", 1);
    int c_gain = report_column(r, "exchange_speedup", "best / stack's", 2);
    int c_shard = report_column(r, "sharding", "sharding", 0);
    /* issue 26: the convergence factor in hours and cost, its source, the per-step hours */
    int c_conv = report_column(r, "convergence_factor", "conv factor", 3);
    int c_conv_src = report_column(r, "convergence_source", "conv source", 0);
    int c_step_h = report_column_scaled(r, "per_step_train_time_s", "per-step hours", 2,
                                        1.0 / 3600.0);
    /* issue 43: the factor's interval at the row's GPU count (hi null: no upper limit) and
     * how far below the target gcsim's own runs ended (null when they reached it) */
    int c_conv_lo = report_column(r, "convergence_lo", "conv lo", 3);
    int c_conv_hi = report_column(r, "convergence_hi", "conv hi", 3);
    int c_conv_gap = report_column(r, "convergence_missed_gap_pts", "missed by pts", 1);
    /* issue 46: what predict has for each row, and the variant's policy and micro-batches */
    int c_tokens = report_column(r, "tokens_per_s", "tokens/s", 0);
    int c_mfu = report_column(r, "mfu_pct", "MFU %", 1);
    int c_mem = report_column_scaled(r, "memory_bytes_per_gpu", "mem GB", 1, 1e-9);
    int c_ckpt = report_column(r, "act_ckpt_policy", "act ckpt", 0);
    int c_mb = report_column(r, "micro_batch", "micro", 0);
    int c_accum = report_column(r, "grad_accum", "accum", 0);
    /* --goodput (issue 41): only when asked, last, so that a plan without it is as it was */
    int gp[6] = {0};
    if (pb->goodput) {
        gp[0] = report_column(r, "goodput_samples_per_s", "goodput/s", 1);
        gp[1] = report_column(r, "useful_pct", "useful %", 2);
        gp[2] = report_column(r, "checkpoint_interval_s", "ckpt every s", 1);
        gp[3] = report_column(r, "checkpoint_write_s", "ckpt write s", 2);
        gp[4] = report_column(r, "restart_s", "restart s", 1);
        gp[5] = report_column_scaled(r, "job_mtbf_s", "job MTBF h", 3, 1.0 / 3600.0);
    }
    /* --precision LIST (issue 46): each row's precision, only when searched */
    int c_prec = pb->n_precisions > 1 ? report_column(r, "precision", "precision", 0) : -1;
    /* issue 46: the compute source predict has for the row, after every other column */
    int c_csrc = report_column(r, "compute_source", "compute", 0);
    /* the text table in 100 columns (issue 46): the answer first (what to buy, how fast,
     * what it costs), then why; # names the row in each stacked table */
    report_column_brief(r, c_net, "exposed ms");
    report_column_brief(r, c_own, "own exchange");
    report_column_brief(r, c_own_tput, "own samples/s");
    report_column_brief(r, c_gain, "gain");
    report_column_brief(r, c_conv, "conv");
    report_column_brief(r, c_step_h, "step hours");
    report_column_brief(r, c_conv_gap, "missed pts");
    {
        const int lead[] = {c_rank, c_pf, c_gpus, c_shard, c_ckpt, c_mb, c_accum, c_tokens,
                            c_mfu, c_mem, c_comp, c_tput, c_eff, c_rate, c_hours, c_total,
                            c_bn, c_cmp, c_net, c_cod, c_coll, c_exch, c_stack, c_j};
        report_table_lead(r, 1, lead, (int)(sizeof lead / sizeof lead[0]));
    }
    for (int k = 0; k < n; k++) {
        const plan_candidate *c = &rows[k];
        report_row(r);
        report_int(r, c_rank, k + 1);
        report_str(r, c_pf, pb->platforms[c->platform]->name);
        report_int(r, c_gpus, c->gpus);
        report_int(r, c_j, c->r.placement.machines);
        report_str_table(r, c_comp, pb->plans[c->compressor]->spec,
                         names[c->compressor]);
        plan_variant v = plan_problem_variant(pb, c->variant);
        char sh[48], ck[48];
        gcsim_sharding_format(&v.sharding, sh, sizeof sh);
        plan_ckpt_format(&v.ckpt, ck, sizeof ck);
        bool sharded = v.sharding.strategy != GCSIM_SHARD_DDP;
        report_str(r, c_coll, sharded ? "ring (sharded)"
                                      : gcsim_collective_name(plan_candidate_collective(pb, c)));
        report_str(r, c_shard, sh);
        report_num(r, c_tput, c->tput);
        if (isfinite(c->efficiency))
            report_num(r, c_eff, 100.0 * c->efficiency);
        if (isfinite(c->usd_per_hour))
            report_num(r, c_rate, c->usd_per_hour);
        if (isfinite(c->hours))
            report_num(r, c_hours, c->hours * 3600.0);
        if (isfinite(c->total_usd))
            report_num(r, c_total, c->total_usd);
        report_str(r, c_bn, sweep_bottleneck_name(sweep_bottleneck_of(&c->r.p)));
        report_num(r, c_cmp, c->r.p.compute_s);
        report_num(r, c_net, c->r.p.exposed_comm_s);
        report_num(r, c_cod, c->r.p.compress_s);
        if (!feasible)
            report_str(r, c_why, c->why);
        report_str(r, c_exch, sweep_exchange_label(&v.sharding, c->r.exchange));
        report_str(r, c_ckpt, ck);
        report_int(r, c_mb, c->micro_batch);
        report_int(r, c_accum, c->grad_accum);
        const gcsim_model *vm = plan_variant_model(pb, &v);
        /* one definition for predict, sweep, breakeven and plan (row_fields.h) */
        double tokens = row_tokens_per_s(vm, c->tput);
        if (isfinite(tokens)) /* null for a model without tokens_per_sample */
            report_num(r, c_tokens, tokens);
        report_num(r, c_mfu, row_mfu_pct(vm, pb->platforms[c->platform], c->tput, c->gpus));
        report_str(r, c_csrc, gcsim_compute_source(vm, pb->platforms[c->platform]));
        if (c_prec >= 0)
            report_str(r, c_prec, gcsim_precision_name(pb->precisions[v.precision]));
        report_num(r, c_mem, plan_candidate_memory_bytes(pb, c));
        report_str(r, c_stack, sharded ? "none (sharded)" : c->r.stack->name);
        if (c->exchange_searched && c->own_samples_per_s > 0) {
            report_str(r, c_own, gcsim_exchange_name(c->own_exchange));
            report_num(r, c_own_tput, c->own_samples_per_s);
            report_num(r, c_gain, c->tput / c->own_samples_per_s);
        }
        conv_factor cf = {.factor = NAN};
        if (conv) {
            cf = conv_factor_at(&conv[c->compressor], c->gpus);
            if (isfinite(cf.factor)) /* unknown: no number (the hours are per step) */
                report_num(r, c_conv, cf.factor);
            report_str(r, c_conv_src, convergence_source_label(&conv[c->compressor]));
        }
        if (isfinite(c->hours))
            report_num(r, c_step_h, c->hours * 3600.0 * c->tput_to_accuracy / c->tput /
                                        (c->useful_fraction > 0 ? c->useful_fraction : 1.0));
        if (conv) {
            report_num(r, c_conv_lo, isfinite(cf.factor) ? cf.lo : 1.0);
            if (isfinite(cf.hi)) /* empty: no upper limit (error feedback, unknown) */
                report_num(r, c_conv_hi, cf.hi);
            if (cf.missed)
                report_num(r, c_conv_gap, 100.0 * (cf.missed_target - cf.missed_reached));
        }
        if (pb->goodput)
            goodput_cells(r, gp, pb, c);
    }
    return r;
}

void plan_table_meta(report *r, const plan_problem *pb, const plan_asked *a, long long evaluated)
{
    const gcsim_model *m = pb->model;
    report_meta_scenario(r, NULL, m, NULL, NULL);
    report_meta_str(r, "engine", a->engine);
    report_meta_str(r, "scaling", gcsim_scaling_name(pb->scaling));
    report_meta_int(r, "batch", a->batch);
    report_meta_str(r, "batch_kind", pb->scaling == SCALING_STRONG ? "global" : "per_gpu");
    report_meta_num(r, "target.throughput_samples_per_s", a->target_tput > 0 ? a->target_tput : NAN);
    report_meta_num(r, "target.work_samples",
                    pb->target.work_samples > 0 ? pb->target.work_samples : NAN);
    report_meta_num(r, "target.deadline_s", a->deadline_h > 0 ? a->deadline_h * 3600.0 : NAN);
    report_meta_num(r, "target.budget_usd", a->budget_usd > 0 ? a->budget_usd : NAN);
    report_meta_int(r, "configurations_evaluated", evaluated);
    report_meta_int(r, "platforms", pb->n_platforms);
    report_meta_int(r, "compressors", pb->n_compressors);
    /* with --exchange best no collective is searched: each exchange takes its schedule */
    report_meta_int(r, "collectives", pb->exchange_best ? 0 : pb->n_collectives);
    report_meta_int(r, "stacks", pb->n_stacks);
    report_meta_str(r, "exchange", pb->exchange_best ? "best" : gcsim_exchange_name(pb->exchange));
    report_meta_str(r, "rank_by", pb->rank_by_time ? "time"
                                  : pb->target.work_samples > 0 ? "total_cost"
                                                                : "cost_per_hour");
    goodput_result g;
    gcsim_error err;
    const gcsim_platform *pf = pb->platforms[0];
    if (pb->goodput && !goodput_evaluate(pb->goodput, m, pf->gpus_per_node, pf->gpus_per_node,
                                         0.0, &g, &err)) {
        const goodput_options *go = pb->goodput;
        report_meta_str(r, "goodput.checkpoint_interval_rule", g.rule_name);
        report_meta_num(r, "goodput.checkpoint_bytes", g.checkpoint_bytes);
        report_meta_num(r, go->node_mtbf_h > 0 ? "goodput.node_mtbf_hours"
                                               : "goodput.gpu_mtbf_hours",
                        go->node_mtbf_h > 0  ? go->node_mtbf_h
                        : go->gpu_mtbf_h > 0 ? go->gpu_mtbf_h
                                             : GOODPUT_DEFAULT_GPU_MTBF_H);
    }
}

void plan_table_notes(report *r, const plan_notes *n)
{
    for (int k = 0; k < n->n; k++) {
        report_note(r, n->v[k].key, n->v[k].text);
        if (n->v[k].warn)
            fprintf(stderr, "gcsim plan: warning: %s\n", n->v[k].text);
    }
}

