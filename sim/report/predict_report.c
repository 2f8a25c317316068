/* gcsim predict's tables: the GPU counts' rows and notes, the DES's buckets, the tensors;
 * see predict_report.h. */
#include "predict_report.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "memory.h"
#include "mfu.h"
#include "engine.h"
#include "predict_variability.h"
#include "report_emit.h"
#include "roofline.h"
#include "row_fields.h"
#include "sharding.h"
#include "step.h"
#include "sweep_output.h"
#ifdef GCSIM_HAVE_DES
#include "des.h"
#endif

void predict_report_describe(report *r, const predict_view *v, double T1_s,
                             const gcsim_stack_setup *ss, int max_gpus)
{
    const sweep_case *o = v->c;
    const gcsim_platform *pf = o->platform;
    const gcsim_model *m = o->model;
    const gcsim_payload_plan *pl = o->payload;
    int batch = o->batch;
    const gcsim_codec_setup *cs = &ss->cs;
    char buf[2048];
    snprintf(buf, sizeof buf, "%s (%s)", pf->name, pf->source_path);
    report_note(r, "platform", buf);
    snprintf(buf, sizeof buf, "%s (%s), %lld parameters, |g| = %.2f MiB fp32", m->name,
             m->source_path, gcsim_model_params(m), pl->dense_bytes / 1048576.0);
    report_note(r, "model", buf);
    snprintf(buf, sizeof buf, "%s: %.2f MiB per worker, %.2fx smaller than fp32 (%s)", pl->spec,
             pl->total_bytes / 1048576.0, pl->dense_bytes / pl->total_bytes, pl->method);
    report_note(r, "compressor", buf);
    snprintf(buf, sizeof buf, "%s scaling, %s %d, T(1,1,K) = %.3f ms on %s",
             gcsim_scaling_name(o->scaling),
             o->scaling == SCALING_STRONG ? "global mini-batch K =" : "mini-batch per GPU K =",
             batch, T1_s * 1e3, pf->gpu.type);
    report_note(r, "workload", buf);
    gcsim_profile roofline, *no_profile = NULL;
    gcsim_error unused;
    const gcsim_profile *prof = gcsim_platform_profile(m, pf);
    if (!prof)
        prof = no_profile = (gcsim_profile *)gcsim_compute_profile(m, pf, batch, &roofline, &unused);
    snprintf(buf, sizeof buf, "%s training; %s for %s at %s: %s; %s",
             gcsim_precision_name(m->precision),
             !no_profile ? "profile"
             : strncmp(prof->source, "modelled", 8) == 0
                 ? "the model has no profile: TRANSFORMER EFFICIENCY MODEL"
                 : "the model has no profile: ROOFLINE MODEL",
             prof->gpu, gcsim_precision_name(prof->precision), prof->framework, prof->source);
    if (prof->layer_backward_s) /* bucket backward times follow them (sim/collectives) */
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "; backward shared between "
                 "buckets by per-layer times, %s", prof->layer_times_source);
    report_note(r, "compute", buf);
    gcsim_memory mem;
    gcsim_memory_estimate_sharded(m, pf, &o->sharding, max_gpus,
                                  gcsim_samples_per_gpu(o->scaling, batch, max_gpus),
                                  o->act_ckpt ? &o->act_ckpt_policy : NULL, o->bucket_bytes,
                                  &mem);
    gcsim_memory_describe(m, &mem, buf, sizeof buf);
    char at[64];
    snprintf(at, sizeof at, " (at %d GPUs; column mem GB per count)", max_gpus);
    snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%s", at);
    report_note(r, "memory", buf);
    char strategy[48];
    gcsim_sharding_format(&o->sharding, strategy, sizeof strategy);
    if (o->sharding.strategy != GCSIM_SHARD_DDP || o->grad_accum > 1 || o->act_ckpt) {
        char ckpt_note[200] = "";
        if (o->act_ckpt) {
            char what[160];
            gcsim_act_ckpt_describe(&o->act_ckpt_policy, what, sizeof what);
            snprintf(ckpt_note, sizeof ckpt_note, "; activations checkpointed (%s)", what);
        }
        char group_note[96] = "";
        if (o->sharding.strategy == GCSIM_SHARD_HSDP && o->sharding.group > 0)
            snprintf(group_note, sizeof group_note,
                     "; on %d GPUs or fewer one group of all of them, which is zero3",
                     o->sharding.group);
        snprintf(buf, sizeof buf,
                 "%s%s; %lld micro-batch%s of %d per optimizer step%s%s", strategy, group_note,
                 o->grad_accum > 1 ? o->grad_accum : 1LL, o->grad_accum > 1 ? "es" : "", batch,
                 ckpt_note,
                 o->sharding.strategy == GCSIM_SHARD_ZERO3 || o->sharding.strategy == GCSIM_SHARD_HSDP
                     ? "; per unit: parameter all-gather before forward and before backward "
                       "(prefetched one unit ahead), gradient reduce-scatter after backward "
                       "(ring); one communication stream (docs/sharding.md)"
                 : o->sharding.strategy != GCSIM_SHARD_DDP
                     ? "; gradient buckets reduce-scattered, updated parameters all-gathered "
                       "after the step (ring; docs/sharding.md)"
                     : "");
        report_note(r, "sharding", buf);
    }
    report_meta_str(r, "sharding", strategy);
    report_meta_int(r, "grad_accum", o->grad_accum > 1 ? (int)o->grad_accum : 1);
    report_meta_bool(r, "act_ckpt", o->act_ckpt);
    char policy[48];
    gcsim_act_ckpt_format(&o->act_ckpt_policy, policy, sizeof policy);
    report_meta_str(r, "act_ckpt_policy", o->act_ckpt ? policy : "none");
    report_meta_str(r, "compute_source", gcsim_compute_source(m, pf));
    snprintf(buf, sizeof buf, "MFU = %.4g training FLOPs per sample (3 x forward) x samples/s / "
                              "(GPUs x %s %.4g TFLOP/s)",
             gcsim_model_train_flops_per_sample(m), gcsim_mfu_peak_name(m, pf),
             gcsim_mfu_peak_flops(m, pf) / 1e12);
    report_note(r, "mfu", buf);
    bool tuned = ss->tune && cs->exchange.exchange == GCSIM_EXCHANGE_ALLREDUCE;
    snprintf(buf, sizeof buf, "%s, collective %s%s%s, %s%s", engine_name(o->engine),
             tuned ? "tuned per call" : gcsim_collective_name(o->collective),
             tuned ? " (the stack's library picks ring, double-tree or nvls per call, as NCCL's "
                     "tuner; predict --steps lists them)"
             : o->collective_given ? "" : " (chosen by the exchange)",
             o->collective == COLLECTIVE_TERNGRAD    ? " (TernGrad Appendix B, eq. 27-30)"
             : o->collective == COLLECTIVE_DGC_PAPER ? " (DGC Sec. 5: TernGrad's pattern, sparse "
                                                       "density doubling per aggregation)"
                                                     : "",
             gcsim_step_overlaps(o->collective, o->overlap)
                 ? "buckets exchanged while backward runs"
                 : "exchange after backward (no overlap)",
             o->engine == ENGINE_ANALYTIC ? ""
                                          : "; the DES also sees contention between flows, "
                                            "buckets and codec work, the analytic engine not");
    if (o->sharding.strategy != GCSIM_SHARD_DDP) /* the DDP tuner does not apply */
        snprintf(buf, sizeof buf, "%s, the sharded exchange's ring reduce-scatters and "
                 "all-gathers%s", engine_name(o->engine),
                 o->engine == ENGINE_ANALYTIC ? ""
                                              : "; the DES also sees contention between flows, "
                                                "units and codec work, the analytic engine not");
    report_note(r, "engine", buf);
    snprintf(buf, sizeof buf, "%s%s, schedule %s (%s)",
             !v->exchange_best ? ""
             : v->exchange_mixed ? "best per GPU count, not the same at every count (the exchange "
                                   "column and the exchange search note); the stack's own: "
                                 : "best at every GPU count: ",
             gcsim_exchange_name(cs->exchange.exchange),
             tuned ? "tuned per call" : gcsim_collective_name(cs->exchange.collective),
             cs->exchange.why);
    if (ss->unimplemented[0]) /* named, a what-if: said where the exchange is */
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "; a what-if: %s",
                 ss->unimplemented);
    if (o->sharding.strategy == GCSIM_SHARD_DDP) {
        report_note(r, "exchange", buf);
        snprintf(buf, sizeof buf, "%s (%s): %s", ss->stack->name, ss->stack->path,
                 ss->stack->description);
        report_note(r, "stack", buf);
        report_note(r, "codec cost", ss->description);
    } else if (strcmp(pl->spec, "none") != 0 || o->sharding.qwz || o->sharding.qgz) {
        report_note(r, "codec cost", "compressor: the codec model per tensor (docs/codec.md); "
                                     "ZeRO++ quantization: memory-bound passes at "
                                     "gpu.memory_bandwidth (docs/sharding.md)");
    }
    report_meta_scenario(r, pf, m, pl, ss);
    report_meta_str(r, "engine", engine_name(o->engine));
    report_meta_str(r, "scaling", gcsim_scaling_name(o->scaling));
    report_meta_int(r, "batch", batch);
    report_meta_str(r, "batch_kind", o->scaling == SCALING_STRONG ? "global" : "per_gpu");
    report_meta_num(r, "single_gpu_iteration_s", T1_s);
    report_meta_bool(r, "overlap", gcsim_step_overlaps(o->collective, o->overlap));
    report_meta_str(r, "precision", gcsim_precision_name(m->precision));
    report_meta_str(r, "compute_profile", !no_profile ? "profile"
                                          : strncmp(prof->source, "modelled", 8) == 0
                                              ? "transformer-efficiency"
                                              : "roofline");
    report_meta_str(r, "mfu_peak", gcsim_mfu_peak_name(m, pf));
    report_meta_num(r, "mfu_peak_flops", gcsim_mfu_peak_flops(m, pf));
}

/* The row of a count that cannot run: its count and placement, status and reason; the
 * table shows a marker and the reason as a note. */
static void skip_row(report *r, const gcsim_platform *pf, const predict_skip *sk, int c_gpus,
                     int c_j, int c_i, int c_status, int c_why)
{
    report_row(r);
    report_int(r, c_gpus, sk->gpus);
    gcsim_placement pl;
    gcsim_error ignored;
    if (!gcsim_platform_place(pf, sk->gpus, &pl, &ignored)) {
        report_int(r, c_j, pl.machines);
        report_int(r, c_i, pl.gpus_per_machine);
    }
    report_str(r, c_status, "infeasible");
    char key[64];
    snprintf(key, sizeof key, "infeasible at %d GPUs", sk->gpus);
    report_str_table(r, c_why, sk->why, "see notes");
    report_note(r, key, sk->why);
}

/* --goodput (issue 41): columns after every other, only when asked, so that the table of a
 * run without it is as it was. */
enum { GOODPUT_COLS = 6 };

static void goodput_columns(report *r, int *c)
{
    c[0] = report_column(r, "goodput_samples_per_s", "goodput/s", 1);
    c[1] = report_column(r, "useful_pct", "useful %", 2);
    c[2] = report_column(r, "checkpoint_interval_s", "ckpt every s", 1);
    c[3] = report_column(r, "checkpoint_write_s", "ckpt write s", 2);
    c[4] = report_column(r, "restart_s", "restart s", 1);
    c[5] = report_column_scaled(r, "job_mtbf_s", "job MTBF h", 3, 1.0 / 3600.0);
}

static void goodput_cells(report *r, const int *c, const goodput_options *o,
                          const gcsim_model *m, const gcsim_platform *pf, const predict_row *row)
{
    goodput_result g;
    gcsim_error err;
    if (goodput_evaluate(o, m, row->gpus, pf->gpus_per_node, row->p.throughput_samples_per_s,
                         &g, &err))
        return; /* options are checked when parsed: nothing here can be refused */
    report_num(r, c[0], g.goodput_samples_per_s);
    report_num(r, c[1], 100.0 * g.useful_fraction);
    report_num(r, c[2], g.interval_s);
    report_num(r, c[3], g.checkpoint_write_s);
    report_num(r, c[4], g.restart_s);
    report_num(r, c[5], g.job_mtbf_s);
}

/* The formula, the interval rule and each input's source, once (the inputs that do not
 * depend on the GPU count go to the JSON meta as well). */
static void goodput_note(report *r, const goodput_options *o, const gcsim_model *m,
                         const gcsim_platform *pf, const predict_row *rows, int n_rows)
{
    goodput_result g;
    gcsim_error err;
    int gpus = n_rows > 0 ? rows[n_rows - 1].gpus : pf->gpus_per_node;
    if (goodput_evaluate(o, m, gpus, pf->gpus_per_node, 0.0, &g, &err))
        return;
    char buf[1400];
    goodput_describe(o, &g, buf, sizeof buf);
    report_note(r, "goodput", buf);
    report_meta_str(r, "goodput.checkpoint_interval_rule", g.rule_name);
    report_meta_num(r, "goodput.checkpoint_bytes", g.checkpoint_bytes);
    report_meta_num(r, o->node_mtbf_h > 0 ? "goodput.node_mtbf_hours" : "goodput.gpu_mtbf_hours",
                    o->node_mtbf_h > 0   ? o->node_mtbf_h
                    : o->gpu_mtbf_h > 0 ? o->gpu_mtbf_h
                                        : GOODPUT_DEFAULT_GPU_MTBF_H);
}

report *predict_report_rows(const predict_view *v, const predict_row *rows, int n_rows,
                            bool both, const int *listed, int n_listed,
                            const predict_skip *skips, int n_skips)
{
    const sweep_case *o = v->c;
    const gcsim_platform *pf = o->platform;
    const gcsim_model *m = o->model;
    report *r = report_new_for_file("predict");
    report_meta_str(r, "table", "gpu_counts");
    int c_gpus = report_column(r, "gpus", "GPUs", 0);
    int c_j = report_column(r, "machines", "j", 0);
    int c_i = report_column(r, "gpus_per_machine", "i", 0);
    /* Every column is always there (null where it does not apply), so one header fits
     * every run; the engine columns come last, after the ones scripts read by position.
     * Times are seconds (_s) in CSV and JSON, milliseconds in the text table. */
    int c_samples = report_column(r, "samples_per_iteration", "samples/iter", 0);
    int c_iter = report_column_scaled(r, "iteration_s", "iter ms", 3, 1e3);
    int c_comp = report_column_scaled(r, "compute_s", "compute ms", 3, 1e3);
    int c_comm = report_column_scaled(r, "comm_s", "comm ms", 3, 1e3);
    int c_exposed = report_column_scaled(r, "exposed_comm_s", "exposed ms", 3, 1e3);
    int c_codec = report_column_scaled(r, "compress_s", "codec ms", 3, 1e3);
    int c_tput = report_column(r, "throughput_samples_per_s", "samples/s", 1);
    int c_speed = report_column(r, "speedup", "speedup", 2);
    int c_eff = report_column(r, "efficiency_pct", "eff %", 1);
    int c_tokens = report_column(r, "tokens_per_s", "tokens/s", 0);
    int c_mfu = report_column(r, "mfu_pct", "MFU %", 1);
    /* added after the columns scripts read by position */
    int c_enc = report_column_scaled(r, "encode_s", "encode ms", 3, 1e3);
    int c_dec = report_column_scaled(r, "decode_s", "decode ms", 3, 1e3);
    int c_exch = report_column(r, "exchange", "exchange", 0);
    int c_engine = report_column(r, "engine", "engine", 0);
    int c_diff = report_column(r, "des_vs_analytic_pct", "DES vs analytic %", 1);
    int c_mem = report_column_scaled(r, "memory_bytes_per_gpu", "mem GB", 1, 1e-9);
    int c_csrc = report_column(r, "compute_source", "compute", 0);
    const char *csrc = gcsim_compute_source(m, pf);
    /* the text table in 100 columns (issue 46): the answer first, then where the time goes */
    report_column_brief(r, c_diff, "DES-ana %");
    report_column_brief(r, c_samples, "smp/iter");
    {
        const int lead[] = {c_gpus, c_engine, c_tput, c_tokens, c_mfu, c_speed, c_eff, c_mem,
                            c_iter, c_comp, c_exposed, c_codec, c_comm, c_enc, c_dec, c_exch};
        report_table_lead(r, 2, lead, (int)(sizeof lead / sizeof lead[0]));
    }
    /* variable compute: its columns and notes only when asked (predict_variability.c) */
    predict_var_columns vc;
    if (o->variability)
        predict_variability_columns(r, o->variability, both, &vc);
    /* only where a count could not run, so the columns of a run that answers every count
     * stay as they were */
    int c_status = -1, c_why = -1;
    int gp_cols[GOODPUT_COLS] = {0};
    if (v->goodput)
        goodput_columns(r, gp_cols);
    if (n_skips) {
        c_status = report_column(r, "status", "status", 0);
        c_why = report_column(r, "why", "why", 0);
        report_note(r, "infeasible", "a count marked infeasible cannot run this configuration "
                                     "(the reason follows); the others are answered. Speedup "
                                     "and efficiency stay over one GPU, predicted without the "
                                     "memory check even where one GPU cannot hold the state");
    }
    /* the listed counts in their order: a skipped one's row, or its engines' rows */
    int next_skip = 0, k = 0;
    for (int li = 0; li < n_listed; li++) {
        if (next_skip < n_skips && skips[next_skip].gpus == listed[li]) {
            skip_row(r, pf, &skips[next_skip++], c_gpus, c_j, c_i, c_status, c_why);
            continue;
        }
        for (int e = 0; e < (both ? 2 : 1) && k < n_rows; e++, k++) {
            const predict_row *row = &rows[k];
            report_row(r);
            if (n_skips)
                report_str(r, c_status, "ok");
            report_int(r, c_gpus, row->gpus);
            report_int(r, c_j, row->placement.machines);
            report_int(r, c_i, row->placement.gpus_per_machine);
            report_str(r, c_engine, engine_name(row->engine));
            report_num(r, c_samples, row->p.samples_per_iteration);
            report_num(r, c_iter, row->p.iteration_s);
            report_num(r, c_comp, row->p.compute_s);
            report_num(r, c_comm, row->p.comm_s);
            report_num(r, c_exposed, row->p.exposed_comm_s);
            report_num(r, c_codec, row->p.compress_s);
            report_num(r, c_enc, row->p.encode_s);
            report_num(r, c_dec, row->p.decode_s);
            report_str(r, c_exch, sweep_exchange_label(&o->sharding, row->exchange));
            report_num(r, c_tput, row->p.throughput_samples_per_s);
            report_num(r, c_speed, row->speedup);
            report_num(r, c_eff, 100.0 * row->speedup / row->gpus);
            if (both && row->engine == ENGINE_DES && k > 0)
                report_num(r, c_diff, 100.0 * (row->p.throughput_samples_per_s /
                                                   rows[k - 1].p.throughput_samples_per_s -
                                               1.0));
            /* one definition for predict, sweep, breakeven and plan (row_fields.h) */
            double tokens = row_tokens_per_s(m, row->p.throughput_samples_per_s);
            if (isfinite(tokens)) /* null for a model without tokens_per_sample */
                report_num(r, c_tokens, tokens);
            report_num(r, c_mfu,
                       row_mfu_pct(m, pf, row->p.throughput_samples_per_s, row->gpus));
            report_num(r, c_mem, sweep_case_memory_bytes(o, row->gpus));
            report_str(r, c_csrc, csrc);
            if (o->variability)
                predict_variability_row(r, &vc, &row->var, row->engine == ENGINE_DES,
                                        row->p.samples_per_iteration);
            if (v->goodput)
                goodput_cells(r, gp_cols, v->goodput, m, pf, row);
        }
    }
    if (v->goodput)
        goodput_note(r, v->goodput, m, pf, rows, n_rows);
    return r;
}

/* The DES's gradient buckets for one GPU count: sizes and simulated times. */
report *predict_report_buckets(const gcsim_scenario *s, gcsim_error *err)
{
#ifdef GCSIM_HAVE_DES
    gcsim_prediction p;
    gcsim_des_details d = {0};
    if (engine_run_des(s, &p, &d, err))
        return NULL;
    report *r = report_new_for_file("predict");
    report_meta_str(r, "table", "buckets");
    int c_b = report_column(r, "bucket", "bucket", 0);
    int c_first = report_column(r, "first_layer", "first layer", 0);
    int c_last = report_column(r, "last_layer", "last layer", 0);
    int c_dense = report_column_scaled(r, "dense_bytes", "fp32 MiB", 3, 1.0 / 1048576.0);
    int c_payload = report_column_scaled(r, "payload_bytes", "payload MiB", 3, 1.0 / 1048576.0);
    int c_ready = report_column_scaled(r, "ready_s", "ready ms", 3, 1e3);
    int c_start = report_column_scaled(r, "exchange_start_s", "start ms", 3, 1e3);
    int c_end = report_column_scaled(r, "exchange_end_s", "end ms", 3, 1e3);
    int c_enc = report_column_scaled(r, "encode_s", "encode ms", 3, 1e3);
    int c_dec = report_column_scaled(r, "decode_s", "decode ms", 3, 1e3);
    for (int b = 0; b < d.n_buckets; b++) {
        const gcsim_des_bucket *k = &d.buckets[b];
        report_row(r);
        report_int(r, c_b, b);
        report_str(r, c_first, s->model->layers[k->first_layer].name);
        report_str(r, c_last, s->model->layers[k->last_layer].name);
        report_num(r, c_dense, k->dense_bytes);
        report_num(r, c_payload, k->payload_bytes);
        report_num(r, c_ready, k->ready_s);
        report_num(r, c_start, k->exchange_start_s);
        report_num(r, c_end, k->exchange_end_s);
        report_num(r, c_enc, k->encode_s);
        report_num(r, c_dec, k->decode_s);
    }
    report_meta_int(r, "gpus", s->placement.gpus);
    report_meta_num(r, "iteration_s", p.iteration_s);
    report_meta_num(r, "compute_end_s", d.compute_end_s);
    report_meta_num(r, "exposed_comm_s", p.exposed_comm_s);
    report_meta_int(r, "transfers", d.transfers);
    report_meta_str(r, "network_model", d.network_model);
    char buf[256];
    snprintf(buf, sizeof buf, "%d GPUs: iteration %.3f ms, backward done at %.3f ms, exposed "
                              "communication %.3f ms, %lld simulated transfers, network model %s",
             s->placement.gpus, p.iteration_s * 1e3, d.compute_end_s * 1e3,
             p.exposed_comm_s * 1e3, d.transfers, d.network_model);
    report_note(r, "iteration", buf);
    gcsim_des_details_free(&d);
    return r;
#else
    (void)s;
    gcsim_fail(err, "--buckets: this build has no SimGrid engine");
    return NULL;
#endif
}

/* Per layer, the codec model's figures that both engines sum into a bucket's encode_s
 * and decode_s (gcsim_iteration_build); no engine runs. */
report *predict_report_tensors(const gcsim_scenario *s, gcsim_error *err)
{
    gcsim_iteration it;
    if (gcsim_iteration_build(&it, s, err))
        return NULL;
    report *r = report_new_for_file("predict");
    report_meta_str(r, "table", "tensors");
    report_meta_int(r, "gpus", s->placement.gpus);
    report_meta_int(r, "buckets", it.n_buckets);
    int c_l = report_column(r, "layer", "layer", 0);
    int c_name = report_column(r, "name", "name", 0);
    int c_b = report_column(r, "bucket", "bucket", 0);
    int c_el = report_column(r, "elements", "elements", 0);
    int c_dense = report_column(r, "dense_bytes", "fp32 bytes", 0);
    int c_payload = report_column(r, "payload_bytes", "payload bytes", 0);
    int c_enc = report_column_scaled(r, "encode_s", "encode us", 3, 1e6);
    int c_dec = report_column_scaled(r, "decode_s", "decode us", 3, 1e6);
    double enc_s = 0, dec_s = 0;
    for (int l = 0; l < it.n_layers; l++) {
        long long elems = gcsim_layer_params(&s->model->layers[l]);
        report_row(r);
        report_int(r, c_l, l);
        report_str(r, c_name, s->model->layers[l].name);
        report_int(r, c_b, it.layer_bucket[l]);
        report_int(r, c_el, elems);
        report_num(r, c_dense, 4.0 * (double)elems);
        report_num(r, c_payload, it.layer_payload_bytes[l]);
        report_num(r, c_enc, it.layer_encode_s[l]);
        report_num(r, c_dec, it.layer_decode_s[l]);
        enc_s += it.layer_encode_s[l];
        dec_s += it.layer_decode_s[l];
    }
    char buf[256];
    snprintf(buf, sizeof buf, "%d layers in %d buckets: encode %.3f ms, decode of one received "
                              "payload %.3f ms per GPU (an all-gather decodes N-1 of them)",
             it.n_layers, it.n_buckets, enc_s * 1e3, dec_s * 1e3);
    report_note(r, "tensors", buf);
    gcsim_iteration_free(&it);
    return r;
}
