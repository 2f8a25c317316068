/* gcsim plan: capacity planning. For each platform, compressor, training stack and
 * collective (or, with --exchange best, the fastest exchange), the GPU count that meets a
 * throughput or time-to-train target (within a budget) at the lowest cost or in the
 * shortest time; the configurations ranked. */
#include <getopt.h>
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "cli_args.h"
#include "cli_files.h"
#include "cli_training.h"
#include "cli_groups.h"
#include "cli_convergence.h"
#include "codec.h"
#include "commands.h"
#include "exchange_best.h"
#include "inputs.h"
#include "plan_answer.h"
#include "plan_rank.h"
#include "plan_run.h"
#include "plan_search.h"
#include "plan_notes.h"
#include "plan_setup.h"
#include "mfu.h"
#include "report.h"
#include "sweep_case.h"
#include "roofline.h"
#include "sharding.h"
#include "sweep_lists.h"
#include "report_emit.h"

#define DEFAULT_COMPRESSORS "none,fp16,terngrad"

extern const char gcsim_help_plan[]; /* docs/help/plan.txt */

static void plan_usage(FILE *out)
{
    static const char *const values[] = {"@DEFAULT_COMPRESSORS@", DEFAULT_COMPRESSORS, "@DEFAULT_MICRO_BATCHES@", PLAN_DEFAULT_MICRO_BATCHES, NULL};
    cli_help(out, gcsim_help_plan, values);
}

typedef struct {
    const char *model_path, *gpus, *output;
    sweep_list platforms, compressors, collectives, stacks;
    double target_tput, samples, epochs, dataset_size, deadline_h, budget_usd;
    bool rank_by_time, whole_nodes;
    int nodes_rule; /* 1 --whole-nodes, 0 --partial-nodes, -1 neither given */
    plan_search_mode search; /* --search */
    gcsim_scaling scaling;
    gcsim_engine engine;
    long long batch, top;
    report_format format;
    gcsim_exchange exchange;
    bool exchange_best;   /* --exchange best */
    sweep_list shardings;
    sweep_list ckpts;        /* --act-ckpt=LIST: none, policies or all (plan_variant.h) */
    sweep_list micro;        /* --micro-batch LIST */
    long long global_batch;  /* --global-batch (samples), or from --tokens-per-step */
    double tokens_per_step;
    unsigned best_per;       /* --best-per keys (plan_answer.h); 0: every group's row */
    bool act_ckpt;
    gcsim_act_ckpt act_ckpt_policy;
    int precision, optimizer;     /* -1: the model's */
    long long grad_accum;
    double mfu;
    conv_source convergence;
    goodput_options goodput;      /* --goodput and its inputs (cli_goodput.h); off: as before */
    gcsim_variability variability; /* --compute-cv and the straggler options */
} plan_options;

static void free_options(plan_options *o)
{
    sweep_list_free(&o->platforms);
    sweep_list_free(&o->compressors);
    sweep_list_free(&o->collectives);
    sweep_list_free(&o->stacks);
    sweep_list_free(&o->shardings);
    sweep_list_free(&o->ckpts);
    sweep_list_free(&o->micro);
}

static int parse_positive(const char *opt, const char *text, double *out)
{
    if (!cli_parse_double(text, 1e-300, 1e300, out)) {
        fprintf(stderr, "gcsim plan: %s: expected a positive number, got \"%s\"\n", opt, text);
        return -1;
    }
    return 0;
}

static int parse_options(int argc, char **argv, plan_options *o)
{
    static const struct option longopts[] = {
        {"model", required_argument, 0, 'm'},         {"platform", required_argument, 0, 'p'},
        {"target-throughput", required_argument, 0, 'T'}, {"samples", required_argument, 0, 'S'},
        {"epochs", required_argument, 0, 'E'},        {"dataset-size", required_argument, 0, 'D'},
        {"deadline", required_argument, 0, 'd'},      {"budget", required_argument, 0, 'u'},
        {"compressors", required_argument, 0, 'c'},   {"compressor", required_argument, 0, 'c'},
        {"collectives", required_argument, 0, 'C'},   {"collective", required_argument, 0, 'C'},
        {"rank-by", required_argument, 0, 'r'},       {"gpus", required_argument, 0, 'g'},
        {"whole-nodes", no_argument, 0, 'w'},         {"scaling", required_argument, 0, 's'},
        {"partial-nodes", no_argument, 0, 1007},
        {"batch", required_argument, 0, 'b'},         {"engine", required_argument, 0, 'e'},
        {"top", required_argument, 0, 't'},           {"format", required_argument, 0, 'f'},
        {"output", required_argument, 0, 'o'},        {"help", no_argument, 0, 'h'},
        {"exchange", required_argument, 0, 'X'},     {"stack", required_argument, 0, 'K'},
        {"stacks", required_argument, 0, 'K'},
        {"platforms", required_argument, 0, 'p'}, {"shardings", required_argument, 0, 1000},
        {"sharding", required_argument, 0, 1000},    {"precision", required_argument, 0, 1001},
        {"optimizer", required_argument, 0, 1002},   {"grad-accum", required_argument, 0, 1003},
        {"act-ckpt", optional_argument, 0, 1004},          {"mfu", required_argument, 0, 1005},
        {"convergence", required_argument, 0, 1006},
        {"search", required_argument, 0, 1008},
        {"act-ckpts", required_argument, 0, 1009},   {"micro-batch", required_argument, 0, 1010},
        {"micro-batches", required_argument, 0, 1010}, {"global-batch", required_argument, 0, 1011},
        {"tokens-per-step", required_argument, 0, 1012}, {"best-per", required_argument, 0, 1013},
        {0, 0, 0, 0}};
    optind = 1;
    opterr = 0;
    int ch;
    char msg[512];
    /* the training options take one value each: a second one replaced the first */
    static const int once[] = {1003, 1004, 1005, 1009, 1011, 1012, 1013, 0};
    unsigned seen = 0;
    cli_groups groups = {.variability = &o->variability, .goodput = &o->goodput};
    const struct option *all_longopts = cli_groups_begin(&groups, longopts);
    while ((ch = cli_getopt_long(argc, argv, ":h", all_longopts, "plan")) != -1) {
        if (cli_option_once("plan", ch, once, &seen, argv))
            return -1;
        int group = cli_groups_option(&groups, "plan", ch, optarg, argv);
        if (group < 0)
            return -1;
        if (group == 0)
            continue;
        switch (ch) {
        case 'm': o->model_path = optarg; break;
        case 'g': o->gpus = optarg; break;
        case 1008:
            if (strcmp(optarg, "bounded") && strcmp(optarg, "exhaustive")) {
                fprintf(stderr, "gcsim plan: --search: expected bounded or exhaustive, got \"%s\"\n",
                        optarg);
                return -1;
            }
            o->search = strcmp(optarg, "exhaustive") == 0 ? PLAN_SEARCH_EXHAUSTIVE
                                                           : PLAN_SEARCH_BOUNDED;
            break;
        case 'o': o->output = optarg; break;
        case 'w':
        case 1007:
            if (o->nodes_rule == (ch == 'w' ? 0 : 1)) {
                fprintf(stderr, "gcsim plan: --whole-nodes and --partial-nodes contradict each other\n");
                return -1;
            }
            o->nodes_rule = ch == 'w';
            break;
        case 'p':
        case 'c':
        case 'K':
        case 'C': {
            int bad = ch == 'p' ? sweep_list_add(&o->platforms, optarg, "--platform", msg, sizeof msg)
                    : ch == 'c' ? sweep_list_add_compressors(&o->compressors, optarg, msg, sizeof msg)
                    : ch == 'K' ? sweep_list_add(&o->stacks, optarg, "--stack", msg, sizeof msg)
                                : sweep_list_add(&o->collectives, optarg, "--collectives", msg, sizeof msg);
            if (bad) {
                fprintf(stderr, "gcsim plan: %s\n", msg);
                return -1;
            }
            break;
        }
        case 'X':
            if (exchange_option_parse(optarg, &o->exchange, &o->exchange_best)) {
                fprintf(stderr, "gcsim plan: --exchange: expected auto, allreduce, allgather, ps "
                                "or best, got \"%s\"\n", optarg);
                return -1;
            }
            break;
        case 'T': if (parse_positive("--target-throughput", optarg, &o->target_tput)) return -1; break;
        case 'S': if (parse_positive("--samples", optarg, &o->samples)) return -1; break;
        case 'E': if (parse_positive("--epochs", optarg, &o->epochs)) return -1; break;
        case 'D': if (parse_positive("--dataset-size", optarg, &o->dataset_size)) return -1; break;
        case 'd': if (parse_positive("--deadline", optarg, &o->deadline_h)) return -1; break;
        case 'u': if (parse_positive("--budget", optarg, &o->budget_usd)) return -1; break;
        case 'r':
            if (strcmp(optarg, "cost") && strcmp(optarg, "time")) {
                fprintf(stderr, "gcsim plan: --rank-by: expected cost or time, got \"%s\"\n", optarg);
                return -1;
            }
            o->rank_by_time = strcmp(optarg, "time") == 0;
            break;
        case 's':
            if (strcmp(optarg, "strong") && strcmp(optarg, "weak")) {
                fprintf(stderr, "gcsim plan: --scaling: expected strong or weak, got \"%s\"\n", optarg);
                return -1;
            }
            o->scaling = strcmp(optarg, "strong") == 0 ? SCALING_STRONG : SCALING_WEAK;
            break;
        case 'b':
            if (!cli_parse_int(optarg, 1, 1 << 24, &o->batch)) {
                fprintf(stderr, "gcsim plan: --batch: expected a positive integer, got \"%s\"\n", optarg);
                return -1;
            }
            break;
        case 't':
            if (!cli_parse_int(optarg, 0, 1 << 30, &o->top)) {
                fprintf(stderr, "gcsim plan: --top: expected a count (0: all), got \"%s\"\n", optarg);
                return -1;
            }
            break;
        case 'e':
            if (engine_parse(optarg, &o->engine) || o->engine == ENGINE_BOTH) {
                fprintf(stderr, "gcsim plan: --engine: expected analytic or des, got \"%s\"\n", optarg);
                return -1;
            }
            if (o->engine == ENGINE_DES && !engine_des_available()) {
                fprintf(stderr, "gcsim plan: --engine des: this build has no SimGrid engine\n");
                return -1;
            }
            break;
        case 'f':
            if (report_format_parse(optarg, &o->format)) {
                fprintf(stderr, "gcsim plan: --format: expected table, json or csv, got \"%s\"\n", optarg);
                return -1;
            }
            break;
        case 1000: /* "all" stays a word: its HSDP groups depend on the platforms */
            if (sweep_list_add(&o->shardings, optarg, "--sharding", msg, sizeof msg)) {
                fprintf(stderr, "gcsim plan: %s\n", msg);
                return -1;
            }
            break;
        case 1009:
        case 1010: {
            sweep_list *l = ch == 1009 ? &o->ckpts : &o->micro;
            if (sweep_list_add(l, optarg, ch == 1009 ? "--act-ckpt" : "--micro-batch", msg,
                               sizeof msg)) {
                fprintf(stderr, "gcsim plan: %s\n", msg);
                return -1;
            }
            break;
        }
        case 1011:
            if (!cli_parse_int(optarg, 1, 1LL << 40, &o->global_batch)) {
                fprintf(stderr, "gcsim plan: --global-batch: expected a positive integer "
                                "(samples per optimizer step), got \"%s\"\n", optarg);
                return -1;
            }
            break;
        case 1012:
            if (parse_positive("--tokens-per-step", optarg, &o->tokens_per_step))
                return -1;
            break;
        case 1013:
            if (plan_keys_parse(optarg, &o->best_per, msg, sizeof msg)) {
                fprintf(stderr, "gcsim plan: --best-per: %s\n", msg);
                return -1;
            }
            break;
        case 1001:
            if (cli_training_precision("plan", optarg, &o->precision))
                return -1;
            break;
        case 1002:
            if (cli_training_optimizer("plan", optarg, &o->optimizer))
                return -1;
            break;
        case 1003:
            if (cli_training_grad_accum("plan", optarg, &o->grad_accum))
                return -1;
            break;
        case 1004:
            /* a list (or none, all) is searched (--act-ckpts); one policy applies to all */
            if (optarg && (strchr(optarg, ',') || !strcmp(optarg, "all") ||
                           !strcmp(optarg, "none"))) {
                if (sweep_list_add(&o->ckpts, optarg, "--act-ckpt", msg, sizeof msg)) {
                    fprintf(stderr, "gcsim plan: %s\n", msg);
                    return -1;
                }
                break;
            }
            if (cli_training_act_ckpt("plan", optarg, &o->act_ckpt_policy))
                return -1;
            o->act_ckpt = true;
            break;
        case 1005:
            if (cli_training_mfu("plan", optarg, &o->mfu))
                return -1;
            break;
        case 1006:
            if (cli_convergence_option("plan", optarg, &o->convergence))
                return -1;
            break;
        case 'h':
            plan_usage(stdout);
            return 1;
        case ':':
            fprintf(stderr, "gcsim plan: %s needs a value\n", argv[optind - 1]);
            return -1;
        default:
            fprintf(stderr, "gcsim plan: unknown option \"%s\" (see gcsim plan --help)\n",
                    argv[optind - 1]);
            return -1;
        }
    }
    if (cli_groups_finish(&groups, "plan"))
        return -1;
    if (optind < argc) {
        cli_training_unexpected("plan", argv[optind]);
        return -1;
    }
    const char *problem = NULL;
    if (o->samples > 0 && o->epochs > 0)
        problem = "--samples and --epochs both give the work: use one";
    else if ((o->epochs > 0) != (o->dataset_size > 0))
        problem = "--epochs and --dataset-size go together";
    else if (!(o->target_tput > 0) && !(o->samples > 0) && !(o->epochs > 0))
        problem = "no target: give --target-throughput X, --samples S, or --epochs E "
                  "--dataset-size D";
    else if ((o->deadline_h > 0 || o->budget_usd > 0) && !(o->samples > 0) && !(o->epochs > 0))
        problem = "--deadline and --budget need the work: --samples S or --epochs E "
                  "--dataset-size D";
    else if (o->exchange_best && o->collectives.n)
        problem = "--exchange best picks each configuration's collective with its exchange: "
                  "not with --collectives";
    else if (o->exchange_best && o->shardings.n)
        problem = "--exchange best searches plain data parallelism's exchanges: not with "
                  "--sharding";
    else if (o->act_ckpt && o->ckpts.n)
        problem = "--act-ckpt: one policy or one list (--act-ckpt=none,op,full), not both";
    else if (o->global_batch > 0 && o->tokens_per_step > 0)
        problem = "--global-batch and --tokens-per-step both give the batch: use one";
    else if ((o->global_batch > 0 || o->tokens_per_step > 0) && o->grad_accum > 0)
        problem = "--grad-accum: the global batch sets the micro-batches per step at each "
                  "GPU count: not with --global-batch or --tokens-per-step";
    else if ((o->global_batch > 0 || o->tokens_per_step > 0 || o->micro.n) &&
             o->scaling == SCALING_STRONG)
        problem = "--scaling strong splits --batch over the GPUs: not with --global-batch, "
                  "--tokens-per-step or --micro-batch";
    else if (o->micro.n && o->batch)
        problem = "--batch and --micro-batch both give the samples per GPU: use one";
    if (problem) {
        fprintf(stderr, "gcsim plan: %s\n", problem);
        return -1;
    }
    /* Clouds rent whole machines: the default search proposes whole nodes (9 GPUs on 8-GPU
     * nodes pays for 16). A --gpus list is searched as given unless --whole-nodes filters it. */
    o->whole_nodes = o->nodes_rule == 1 || (o->nodes_rule == -1 && !o->gpus);
    return 0;
}

/* One row's goodput cells: the interval the plan picks at its GPU count, and what it
 * gives (goodput.h). */
static void goodput_cells(report *r, const int *c, const plan_problem *pb,
                          const plan_candidate *cand)
{
    goodput_result g;
    gcsim_error err;
    if (goodput_evaluate(pb->goodput, pb->model, cand->gpus,
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

/* names: the compressors as the user wrote them, one per pb->plans entry (the table's
 * short form; CSV and JSON carry the full spec); conv: each one's convergence factor */
static report *build_report(const plan_problem *pb, const sweep_list *names,
                            const plan_candidate *rows, int n, bool feasible,
                            const conv_factor *conv)
{
    report *r = report_new();
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
    double train_flops = gcsim_model_train_flops_per_sample(pb->model);
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
                         names->items[c->compressor]);
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
        if (pb->model->tokens_per_sample > 0)
            report_num(r, c_tokens, c->tput * pb->model->tokens_per_sample);
        report_num(r, c_mfu, 100.0 * train_flops * c->tput /
                                 ((double)c->gpus *
                                  gcsim_mfu_peak_flops(pb->model, pb->platforms[c->platform])));
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
            report_str(r, c_conv_src, cli_convergence_source_label(&conv[c->compressor]));
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

/* The plan's meta (JSON, CSV header comments): the model, the target, what was searched. */
static void describe_meta(report *r, const plan_options *o, const plan_problem *pb,
                          const gcsim_model *m, int batch, long long evaluated)
{
    report_meta_scenario(r, NULL, m, NULL, NULL);
    report_meta_str(r, "engine", engine_name(o->engine));
    report_meta_str(r, "scaling", gcsim_scaling_name(o->scaling));
    report_meta_int(r, "batch", batch);
    report_meta_str(r, "batch_kind", o->scaling == SCALING_STRONG ? "global" : "per_gpu");
    report_meta_num(r, "target.throughput_samples_per_s", o->target_tput > 0 ? o->target_tput : NAN);
    report_meta_num(r, "target.work_samples",
                    pb->target.work_samples > 0 ? pb->target.work_samples : NAN);
    report_meta_num(r, "target.deadline_s", o->deadline_h > 0 ? o->deadline_h * 3600.0 : NAN);
    report_meta_num(r, "target.budget_usd", o->budget_usd > 0 ? o->budget_usd : NAN);
    report_meta_int(r, "configurations_evaluated", evaluated);
    report_meta_int(r, "platforms", pb->n_platforms);
    report_meta_int(r, "compressors", pb->n_compressors);
    /* with --exchange best no collective is searched: each exchange takes its schedule */
    report_meta_int(r, "collectives", pb->exchange_best ? 0 : pb->n_collectives);
    report_meta_int(r, "stacks", pb->n_stacks);
    report_meta_str(r, "exchange", pb->exchange_best ? "best" : gcsim_exchange_name(pb->exchange));
    report_meta_str(r, "rank_by", o->rank_by_time ? "time"
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

/* The notes into the report, in order; the warnings on standard error too. */
static void put_notes(report *r, const plan_notes *n)
{
    for (int k = 0; k < n->n; k++) {
        report_note(r, n->v[k].key, n->v[k].text);
        if (n->v[k].warn)
            fprintf(stderr, "gcsim plan: warning: %s\n", n->v[k].text);
    }
}

static int write_report(const report *r, const plan_options *o)
{
    char msg[512];
    if (o->output) {
        atomic_file f;
        if (atomic_file_open(&f, o->output, msg, sizeof msg)) {
            fprintf(stderr, "gcsim plan: %s\n", msg);
            return -1;
        }
        if ((errno = 0), report_write(r, o->format, f.stream)) {
            int write_errno = errno;
            atomic_file_abort(&f);
            fprintf(stderr, "gcsim plan: %s: write failed: %s\n", o->output, atomic_file_reason(write_errno));
            return -1;
        }
        if (atomic_file_commit(&f, msg, sizeof msg)) {
            fprintf(stderr, "gcsim plan: %s\n", msg);
            return -1;
        }
        return 0;
    }
    if ((errno = 0), report_write(r, o->format, stdout) || fflush(stdout)) {
        fprintf(stderr, "gcsim plan: cannot write to standard output: %s\n", atomic_file_reason(errno));
        return -1;
    }
    return 0;
}

int cmd_plan(int argc, char **argv)
{
    plan_options o = {.top = 10, .scaling = SCALING_WEAK, .engine = ENGINE_ANALYTIC,
                      .format = REPORT_TABLE, .nodes_rule = -1,
                      .convergence = CONV_SOURCE_BEST, .precision = -1, .optimizer = -1};
    int rc = parse_options(argc, argv, &o);
    if (rc) {
        free_options(&o);
        return rc > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    }
    cli_files files;
    cli_files_init(&files, "plan");
    for (int k = 0; k < o.platforms.n; k++)
        cli_files_platform(&files, "--platform", o.platforms.items[k]);
    cli_files_model(&files, "--model", o.model_path);
    for (int k = 0; k < o.stacks.n; k++)
        cli_files_stack(&files, "--stack", o.stacks.items[k]);
    cli_convergence_files(&files, o.convergence);
    cli_files_output(&files, "--output", o.output);
    if (cli_files_check(&files)) {
        free_options(&o);
        return EXIT_BAD_INPUT;
    }
    int status = EXIT_BAD_INPUT;
    gcsim_error err = {.internal = 0};
    char msg[512];
    sweep_cache *cache = sweep_cache_new(&inputs_loaders);
    plan_problem pb = {.rank_by_time = o.rank_by_time, .scaling = o.scaling, .engine = o.engine,
                       .batch = (int)o.batch, .exchange = o.exchange,
                       .exchange_best = o.exchange_best, .whole_nodes = o.whole_nodes,
                       .search = o.search,
                       .goodput = o.goodput.on ? &o.goodput : NULL};
    plan_result res = {0};
    plan_loaded loaded = {0};
    plan_variant *variants = NULL;
    plan_notes described = {0}, outcome = {0}, answers = {0};
    int *gpus = NULL;
    report *r = NULL;
    conv_factor *conv = NULL;
    if (!cache) {
        fprintf(stderr, "gcsim plan: out of memory\n");
        goto done;
    }
    if (!o.compressors.n && sweep_list_add_compressors(&o.compressors, DEFAULT_COMPRESSORS, msg, sizeof msg))
        goto done;
    pb.target.work_samples = o.samples > 0 ? o.samples : o.epochs * o.dataset_size;
    pb.target.need_samples_per_s = o.target_tput;
    pb.target.budget_usd = o.budget_usd;
    if (o.deadline_h > 0 && pb.target.work_samples / (o.deadline_h * 3600.0) > pb.target.need_samples_per_s)
        pb.target.need_samples_per_s = pb.target.work_samples / (o.deadline_h * 3600.0);
    plan_inputs in = {.model_path = o.model_path, .platforms = &o.platforms,
                      .compressors = &o.compressors, .stacks = &o.stacks,
                      .collectives = &o.collectives, .precision = o.precision,
                      .optimizer = o.optimizer, .mfu = o.mfu, .batch = (int)o.batch,
                      .exchange = o.exchange};
    if (plan_inputs_load(&pb, &loaded, cache, &in, &err))
        goto fail;
    const gcsim_model *model = pb.model;
    pb.grad_accum = (int)o.grad_accum;
    pb.variability = o.variability.on ? &o.variability : NULL;
    if (!(conv = calloc((size_t)pb.n_compressors, sizeof *conv))) {
        fprintf(stderr, "gcsim plan: out of memory\n");
        goto done;
    }
    if (cli_convergence_factors("plan", o.convergence, model->name,
                                (const char *const *)o.compressors.items, pb.n_compressors, 0,
                                conv))
        goto done;
    pb.conv = conv;
    if (plan_inputs_load_stacks(&pb, &loaded, cache, &in, &err))
        goto fail;
    if (o.gpus) {
        if (!(gpus = malloc(PLAN_MAX_GPU_COUNTS * sizeof *gpus))) {
            fprintf(stderr, "gcsim plan: out of memory\n");
            goto done;
        }
        pb.n_gpus = cli_parse_gpu_list(o.gpus, gpus, PLAN_MAX_GPU_COUNTS, msg, sizeof msg);
        if (pb.n_gpus < 0) {
            fprintf(stderr, "gcsim plan: %s\n", msg);
            goto done;
        }
        pb.gpus = gpus;
    }

    if (o.tokens_per_step > 0 &&
        (o.global_batch = plan_global_batch_of_tokens(model, o.tokens_per_step, &err)) < 0)
        goto fail;
    pb.global_batch = o.global_batch;
    plan_request rq = {.shardings = &o.shardings, .ckpts = &o.ckpts, .micro = &o.micro,
                       .act_ckpt = o.act_ckpt, .act_ckpt_policy = o.act_ckpt_policy,
                       .batch = (int)o.batch, .global_batch = o.global_batch,
                       .max_gpus = pb.gpus && pb.n_gpus > 0 ? pb.gpus[pb.n_gpus - 1] : 0};
    if (o.engine == ENGINE_DES) {
        /* The DES takes a fraction of a second per case: say what is coming (the variants
         * built here only to count them: plan_run_widening builds its own). */
        int n_var;
        if (plan_variants_build(&rq, model, pb.platforms, pb.n_platforms, &variants, &n_var,
                                &err))
            goto fail;
        pb.variants = variants;
        pb.n_variants = n_var;
        long long planned = plan_candidate_count(&pb);
        free(variants);
        variants = NULL;
        pb.variants = NULL;
        pb.n_variants = 0;
        if (planned > 200)
            fprintf(stderr, "gcsim plan: --engine des: %s%lld simulations ahead; narrow them with "
                            "--gpus, --whole-nodes, --compressors or --collectives\n",
                    pb.search == PLAN_SEARCH_BOUNDED ? "at least " : "", planned);
    }
    plan_widening widened;
    if (plan_run_widening(&pb, &rq, &res, &variants, &widened, &err))
        goto fail;
    /* the answer per platform, from every feasible row (before --best-per and --top) */
    plan_notes_answers(&answers, &pb, &res);
    int n_shown = o.best_per ? plan_rows_best_per(&pb, res.rows, res.n_rows, o.best_per)
                             : res.n_rows;
    int n_rows = n_shown;
    if (o.top > 0 && n_rows > o.top)
        n_rows = (int)o.top;
    r = build_report(&pb, &o.compressors, res.rows, n_rows, res.feasible, conv);
    int batch = o.batch ? (int)o.batch : model->batch_per_gpu;
    describe_meta(r, &o, &pb, model, batch, res.evaluated);
    plan_asked asked = {.target_tput = o.target_tput, .epochs = o.epochs,
                        .dataset_size = o.dataset_size, .deadline_h = o.deadline_h,
                        .budget_usd = o.budget_usd, .gpus = o.gpus, .batch = batch,
                        .engine = engine_name(o.engine)};
    plan_notes_describe(&described, &pb, &asked, res.evaluated, res.skipped);
    put_notes(r, &described);
    cli_convergence_notes(r, o.convergence, (const char *const *)o.compressors.items,
                          pb.n_compressors, conv);
    plan_notes_outcome(&outcome, &pb, &res, widened, n_rows, n_shown);
    put_notes(r, &outcome);
    put_notes(r, &answers);
    if (described.failed || outcome.failed || answers.failed) {
        fprintf(stderr, "gcsim plan: out of memory\n");
        status = EXIT_INTERNAL;
        goto done;
    }
    if (!res.feasible)
        fprintf(stderr, "gcsim plan: no feasible configuration: %s\n", res.why);
    if (write_report(r, &o))
        goto done;
    status = res.feasible ? EXIT_OK : EXIT_CHECK_FAILED;
    goto done;
fail:
    fprintf(stderr, "gcsim plan: %s\n", err.message);
    status = exit_code_for(&err);
done:
    report_free(r);
    plan_result_free(&res);
    free(gpus);
    plan_inputs_free(&loaded);
    free(variants);
    plan_notes_free(&described);
    plan_notes_free(&outcome);
    plan_notes_free(&answers);
    free(conv);
    sweep_cache_free(cache);
    free_options(&o);
    return status;
}
