/* gcsim predict: training throughput of a model on a platform, per GPU count. */
#include <getopt.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compressor_file.h"
#include "atomic_file.h"
#include "case_build.h"
#include "case_options.h"
#include "predict_phases.h"
#include "predict_report.h"
#include "predict_counts.h"
#include "predict_rows.h"
#include "cli_args.h"
#include "gpu_list.h"
#include "cli_files.h"
#include "cli_training.h"
#include "cli_groups.h"
#include "codec.h"
#include "step.h"
#include "commands.h"
#include "inputs.h"
#include "memory.h"
#include "mfu.h"
#include "sweep_space.h"
#include "sharding.h"
#include "predict_exchange.h"
#include "predict_first.h"
#include "predict_steps.h"
#include "predict_variability.h"
#include "fabric_notes.h"
#include "report.h"
#include "report_emit.h"
#include "roofline.h"
#include "stack.h"
#include "units.h"
#include "cli_convergence.h"
#include "convergence_factors.h"
#include "cli_fabric.h"
#include "cli_goodput.h"

#define MAX_GPU_COUNTS 256

extern const char gcsim_help_predict[]; /* docs/help/predict.txt */

static void predict_usage(FILE *out)
{
    cli_help(out, gcsim_help_predict, NULL);
}

typedef struct {
    const char *platform_path, *model_path, *compressor, *gpus, *timeline, *output, *stack;
    case_options run;             /* what every case is run with (case_options.h) */
    bool exchange_best;           /* --exchange best: the fastest per GPU count */
    bool exchange_mixed;          /* ... and the counts' fastest are not all the same */
    report_format format;
    bool buckets;
    bool tensors;
    bool steps;
    bool phased;                  /* --optimizer onebit-adam / zero-one-adam (run_phases.h) */
    run_phased_spec phases;
    long long steps_total;        /* --steps-total; 0: not given */
    bool convergence_given;       /* --convergence: notes only, the rows are per step */
    conv_source convergence;
    goodput_options goodput;      /* --goodput and its inputs (cli_goodput.h); off: as before */
    cli_fabric_options fabric;    /* --background-load, --background-links (cli_fabric.h) */
} predict_options;

/* --optimizer onebit-adam / zero-one-adam and --steps-total come together; the phases
 * replace predict's compressor (the warm-up is uncompressed, the rest 1-bit) and print
 * their own table. */
static int predict_phases_options(const predict_options *o)
{
    if (o->steps_total && !o->phased) {
        fprintf(stderr, "gcsim predict: --steps-total: only with --optimizer onebit-adam or "
                        "zero-one-adam (a run of phases)\n");
        return -1;
    }
    if (!o->phased)
        return 0;
    const char *clash = !o->steps_total ? NULL
                        : o->compressor && strcmp(o->compressor, "none") ? "--compressor"
                        : o->run.sharding.strategy != GCSIM_SHARD_DDP ? "--sharding"
                        : o->exchange_best ? "--exchange best"
                        : o->buckets ? "--buckets" : o->tensors ? "--tensors"
                        : o->steps ? "--steps" : o->timeline ? "--timeline"
                        : o->goodput.on ? "--goodput"
                        : o->run.variability.on ? "variable compute" : NULL;
    if (!o->steps_total) {
        fprintf(stderr, "gcsim predict: --optimizer %s: give the run's length with "
                        "--steps-total N (its end-to-end time is the sum over its phases)\n",
                o->phases.kind == RUN_PHASED_ONEBIT_ADAM ? "onebit-adam" : "zero-one-adam");
        return -1;
    }
    if (clash) {
        fprintf(stderr, "gcsim predict: --optimizer %s: not with %s (the phases set the "
                        "compressor per step, uncompressed then 1-bit, and print their own "
                        "table; docs/onebit-adam.md)\n",
                o->phases.kind == RUN_PHASED_ONEBIT_ADAM ? "onebit-adam" : "zero-one-adam",
                clash);
        return -1;
    }
    return 0;
}

static int parse_options(int argc, char **argv, predict_options *o)
{
    static const struct option longopts[] = {
        {"platform", required_argument, 0, 'p'}, {"model", required_argument, 0, 'm'},
        {"compressor", required_argument, 0, 'c'}, {"gpus", required_argument, 0, 'g'},
        {"scaling", required_argument, 0, 's'},  {"engine", required_argument, 0, 'e'},
        {"batch", required_argument, 0, 'b'},    {"collective", required_argument, 0, 'C'},
        {"ps-shards", required_argument, 0, 'S'}, {"bucket", required_argument, 0, 'B'},
        {"no-overlap", no_argument, 0, 'n'},     {"timeline", required_argument, 0, 't'},
        {"format", required_argument, 0, 'f'},   {"output", required_argument, 0, 'o'},
        {"buckets", no_argument, 0, 'k'},        {"help", no_argument, 0, 'h'},
        {"precision", required_argument, 0, 'P'}, {"optimizer", required_argument, 0, 'O'},
        {"exchange", required_argument, 0, 'X'},
        {"des-max-messages", required_argument, 0, 'M'},
        {"tensors", no_argument, 0, 'T'},      {"stack", required_argument, 0, 'K'},
        {"steps", no_argument, 0, 'Y'},
        {"sharding", required_argument, 0, 1000}, {"grad-accum", required_argument, 0, 1001},
        {"act-ckpt", optional_argument, 0, 1002},       {"mfu", required_argument, 0, 1003},
        {"step-time", required_argument, 0, 1004},
        {"no-memory-check", no_argument, 0, 1005}, {"wide", no_argument, 0, 1006},
        {"convergence", required_argument, 0, 1007},
        {"steps-total", required_argument, 0, 1008},
        {0, 0, 0, 0}};
    *o = (predict_options){.format = REPORT_TABLE};
    case_options_init(&o->run);
    cli_groups groups = {.variability = &o->run.variability, .goodput = &o->goodput,
                         .fabric = &o->fabric};
    const struct option *all_longopts = cli_groups_begin(&groups, longopts);
    optind = 1;
    opterr = 0;
    int ch;
    /* every value option takes one value: a second one replaced the first */
    cli_seen seen = {0};
    while ((ch = cli_getopt_long(argc, argv, ":h", all_longopts, "predict")) != -1) {
        if (cli_values_once("predict", ch, longopts, NULL, &seen, argv))
            return -1;
        int group = cli_groups_option(&groups, "predict", ch, optarg, argv);
        if (group < 0)
            return -1;
        if (group == 0)
            continue;
        switch (ch) {
        case 'p': o->platform_path = optarg; break;
        case 'm': o->model_path = optarg; break;
        case 'c': o->compressor = optarg; break;
        case 'g': o->gpus = optarg; break;
        case 't': o->timeline = optarg; break;
        case 'o': o->output = optarg; break;
        case 'n': o->run.overlap = false; break;
        case 'k': o->buckets = true; break;
        case 'T': o->tensors = true; break;
        case 'K':
            if (cli_stack_option("predict", optarg, &o->stack))
                return -1;
            break;
        case 'Y': o->steps = true; break;
        case 'P':
            if (cli_training_precision("predict", optarg, &o->run.precision))
                return -1;
            break;
        case 'O':
            if (cli_training_optimizer_phased("predict", optarg, &o->run.optimizer, &o->phases,
                                              &o->phased))
                return -1;
            break;
        case 's':
            if (strcmp(optarg, "strong") == 0)
                o->run.scaling = SCALING_STRONG;
            else if (strcmp(optarg, "weak") == 0)
                o->run.scaling = SCALING_WEAK;
            else {
                fprintf(stderr, "gcsim predict: --scaling: expected strong or weak, got \"%s\"\n", optarg);
                return -1;
            }
            break;
        case 'e':
            if (engine_parse(optarg, &o->run.engine)) {
                fprintf(stderr, "gcsim predict: --engine: expected analytic, des or both, got \"%s\"\n", optarg);
                return -1;
            }
            break;
        case 'C':
            o->run.collective_given = true;
            if (gcsim_collective_parse(optarg, &o->run.collective)) {
                fprintf(stderr, "gcsim predict: --collective: unknown collective \"%s\" (terngrad, "
                                "ring, halving-doubling, tree, double-tree, hierarchical, nvls, ps, allgather, "
                                "dgc-paper)\n",
                        optarg);
                return -1;
            }
            break;
        case 'M': {
            long long v = 0;
            if (!cli_parse_int(optarg, -1, LLONG_MAX, &v) || v == 0) {
                fprintf(stderr, "gcsim predict: --des-max-messages: expected a positive count or "
                                "-1 (no limit), got \"%s\"\n", optarg);
                return -1;
            }
            o->run.des_max_messages = v;
            break;
        }
        case 'X':
            if (exchange_option_parse(optarg, &o->run.exchange, &o->exchange_best)) {
                fprintf(stderr, "gcsim predict: --exchange: expected auto, allreduce, allgather, "
                                "ps or best, got \"%s\"\n", optarg);
                return -1;
            }
            break;
        case 'f':
            if (cli_format_option("predict", optarg, &o->format))
                return -1;
            break;
        case 'b':
            if (cli_int_option("predict", "--batch", optarg, 1, 1 << 24,
                               "a positive integer", &o->run.batch))
                return -1;
            break;
        case 'S':
            if (cli_int_option("predict", "--ps-shards", optarg, 1, 1 << 20,
                               "a positive integer", &o->run.ps_shards))
                return -1;
            break;
        case 'B':
            if (!gcsim_parse_whole_bytes(optarg, &o->run.bucket_bytes)) {
                fprintf(stderr, "gcsim predict: --bucket: expected a size such as 25MiB, got \"%s\" "
                                "(whole bytes, at most 2^50)\n", optarg);
                return -1;
            }
            break;
        case 1000:
            if (cli_training_sharding("predict", optarg, &o->run.sharding))
                return -1;
            break;
        case 1001:
            if (cli_training_grad_accum("predict", optarg, &o->run.grad_accum))
                return -1;
            break;
        case 1002:
            if (cli_training_act_ckpt("predict", optarg, &o->run.act_ckpt_policy))
                return -1;
            o->run.act_ckpt = true;
            break;
        case 1005: o->run.no_memory_check = true; break;
        case 1006: break; /* the full table: what any option prints */
        case 1007:
            if (cli_convergence_option("predict", optarg, &o->convergence))
                return -1;
            o->convergence_given = true;
            break;
        case 1003:
            if (cli_training_mfu("predict", optarg, &o->run.mfu))
                return -1;
            break;
        case 1004:
            if (cli_training_step_time("predict", optarg, &o->run.step_time_s))
                return -1;
            break;
        case 1008:
            if (cli_training_steps_total("predict", optarg, &o->steps_total))
                return -1;
            break;
        case 'h':
            predict_usage(stdout);
            return 1;
        default: return cli_option_error("predict", ch, argv);
        }
    }
    if (cli_training_compute_conflict("predict", o->run.mfu, o->run.step_time_s) ||
        cli_groups_finish(&groups, "predict"))
        return -1;
    if (cli_fabric_des_only(&o->fabric) && o->run.engine == ENGINE_ANALYTIC) {
        fprintf(stderr, "gcsim predict: %s is simulated by the DES only: use "
                        "--engine des or both\n",
                o->fabric.fraction > 0 ? "--background-load"
                : o->fabric.spines > 0 ? "--ecmp-spines" : "--jitter-us");
        return -1;
    }
    if (o->goodput.on && (o->buckets || o->tensors || o->steps)) {
        fprintf(stderr, "gcsim predict: goodput is reported beside the GPU counts' throughput: "
                        "not with --buckets, --tensors or --steps\n");
        return -1;
    }
    if (optind < argc) {
        cli_training_unexpected("predict", argv[optind]);
        return -1;
    }
    return predict_phases_options(o);
}


/* Sets ss and s up for the case that won the search at one count: that case's setup,
 * applied to s. */
static int exchange_use(const exchange_search_count *pc, gcsim_stack_setup *ss, gcsim_scenario *s,
                        gcsim_error *err)
{
    if (case_build_setup(exchange_search_winner(pc), ss, err))
        return -1;
    gcsim_stack_setup_apply(ss, s);
    return 0;
}

int cmd_predict(int argc, char **argv)
{
    /* No option at all: the README's run command, a newcomer's first screen. */
    if (argc <= 1 && report_table_limit()) /* `predict --wide`: the full table (main.c) */
        return predict_first_screen(stdout, &inputs_loaders);
    predict_options o;
    int rc = parse_options(argc, argv, &o);
    if (rc)
        return rc > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    /* Both outputs are renamed into place at the end: the report, written last, replaced
     * the timeline, or an input, without a word. */
    cli_files files;
    cli_files_init(&files, "predict");
    cli_files_platform(&files, "--platform", o.platform_path);
    cli_files_model(&files, "--model", o.model_path);
    cli_files_stack(&files, "--stack", o.stack);
    if (o.convergence_given)
        cli_convergence_files(&files, o.convergence);
    cli_files_output(&files, "--timeline", o.timeline);
    cli_files_output(&files, "--output", o.output);
    if (cli_files_check(&files))
        return EXIT_BAD_INPUT;
    if (o.run.engine != ENGINE_ANALYTIC && !engine_des_available()) {
        fprintf(stderr, "gcsim predict: --engine %s: this build has no SimGrid engine\n",
                engine_name(o.run.engine));
        return EXIT_BAD_INPUT;
    }
    if ((o.tensors || o.steps) && (o.buckets || o.timeline || (o.tensors && o.steps))) {
        fprintf(stderr, "gcsim predict: %s prints its own table: not with %s\n",
                o.tensors ? "--tensors" : "--steps",
                o.buckets ? "--buckets" : o.timeline ? "--timeline" : "--steps");
        return EXIT_BAD_INPUT;
    }
    if (o.timeline && o.run.engine == ENGINE_ANALYTIC) {
        fprintf(stderr, "gcsim predict: --timeline needs --engine des or both\n");
        return EXIT_BAD_INPUT;
    }

    gcsim_error err = {.internal = 0};
    gcsim_platform platform;
    gcsim_model model = {0};
    gcsim_payload_plan plan = {0}, onebit_plan = {0};
    gcsim_stack *stack = malloc(sizeof *stack);
    predict_row *rows = NULL;
    predict_skip *skips = NULL;
    exchange_search_count *search = NULL;
    report *r = NULL;
    int status = EXIT_BAD_INPUT;
    if (!stack) {
        gcsim_fail(&err, "out of memory");
        goto fail;
    }
    if (inputs_load_platform(o.platform_path, &platform, &err) ||
        inputs_load_model(o.model_path, &model, &err) ||
        (gcsim_stack_load(gcsim_stack_choice(o.stack, &platform), stack, &err) &&
         (gcsim_stack_blame_platform(o.stack, &platform, &err), 1)))
        goto fail;
    if (cli_fabric_apply("predict", &o.fabric, &platform))
        goto done; /* the reason is printed; status is still EXIT_BAD_INPUT */
    if (case_options_model(&o.run, &platform, &model, &err))
        goto fail;
    int batch = o.run.batch ? (int)o.run.batch : model.batch_per_gpu;
    if (o.run.sharding.strategy != GCSIM_SHARD_DDP && o.stack && strcmp(o.stack, "fused") != 0) {
        gcsim_fail(&err, "--stack %s: sharded strategies run their own exchange (reduce-scatters "
                         "and all-gathers as FSDP and DeepSpeed issue them, docs/sharding.md), "
                         "not a DDP stack's hooks: leave --stack out or give fused", o.stack);
        goto fail;
    }
    gcsim_profile roofline;
    const gcsim_profile *prof = gcsim_compute_profile(&model, &platform, batch, &roofline, &err);
    double T1_s = 0.0;
    if (!prof)
        goto fail;
    if (gcsim_profile_time_s(prof, batch, &T1_s, &err))
        goto fail;
    char spec[256]; /* a description file's spec (file:PATH.json), else the name given */
    if (gcsim_compressor_resolve(o.compressor, spec, sizeof spec, &err))
        goto fail;
    o.compressor = spec;
    if (gcsim_payload_plan_build(o.compressor, &model, &plan, &err))
        goto fail;
    sweep_case base = case_options_case(&o.run, &platform, &model, &plan, stack, 1);
    gcsim_stack_setup ss;
    if (case_build_setup(&base, &ss, &err))
        goto fail;
    base.collective = o.run.collective = ss.cs.exchange.collective;
    if (ss.unimplemented[0])
        fprintf(stderr, "gcsim predict: warning: %s; running it as asked, a what-if "
                        "(--exchange best and the exchange warning never pick it; --stack fused "
                        "or a stack file whose \"exchanges\" lists it for the ideal or your own "
                        "implementation)\n",
                ss.unimplemented);

    int counts[MAX_GPU_COUNTS], n_counts, listed[MAX_GPU_COUNTS];
    const char *one_table = o.timeline ? "--timeline" : o.buckets ? "--buckets"
                            : o.steps ? "--steps" : o.tensors ? "--tensors" : NULL;
    char note[160];
    if ((n_counts = predict_counts(&platform, o.gpus, one_table, counts, MAX_GPU_COUNTS, note,
                                   sizeof note, &err)) < 0)
        goto fail;
    if (note[0])
        fprintf(stderr, "gcsim predict: %s\n", note);
    if (o.buckets && o.run.engine == ENGINE_ANALYTIC) {
        fprintf(stderr, "gcsim predict: --buckets needs --engine des or both\n");
        goto done;
    }
    if (o.run.variability.on && predict_variability_check(&o.run.variability, counts, n_counts))
        goto done;

    /* Every count is checked before any engine runs. Bad inputs fail the run; a count
     * that alone cannot run them (memory, a sharding's refusal) is a row with its reason
     * and the others are answered (issue 46); none running is a failure with every reason. */
    if (o.run.act_ckpt && gcsim_act_ckpt_check(&model, &o.run.act_ckpt_policy, &err))
        goto fail;
    int n_listed = n_counts, n_skips = 0;
    memcpy(listed, counts, sizeof counts);
    skips = calloc((size_t)n_listed, sizeof *skips);
    if (!skips) {
        gcsim_fail(&err, "out of memory");
        goto fail;
    }
    if (predict_rows_split(&base, listed, n_listed, counts, &n_counts, skips, &n_skips, &err))
        goto fail;
    if (!n_counts) {
        for (int k = 0; k < n_skips; k++)
            fprintf(stderr, "gcsim predict: %s\n", skips[k].why);
        if (n_listed > 1)
            fprintf(stderr, "gcsim predict: none of the %d GPU counts in the list can run\n",
                    n_listed);
        goto done;
    }
    gcsim_scenario s;
    if (case_build_scenario(&base, &ss, &s, &err))
        goto fail;
    /* The other exchanges, tried with the analytic engine (predict_exchange.h): --exchange
     * best runs the fastest; otherwise a warning when it is much faster than this one,
     * for a compressed payload whose schedule nobody named (a collective given on the
     * command line or by the platform, such as the papers' patterns, is a choice). */
    bool check_exchange = !(o.tensors || o.steps) && !o.run.collective_given &&
                          o.run.sharding.strategy == GCSIM_SHARD_DDP &&
                          !platform.collective[0] && strcmp(plan.spec, "none") != 0;
    if (check_exchange || o.exchange_best) {
        search = calloc((size_t)n_counts, sizeof *search);
        if (!search) {
            gcsim_fail(&err, "out of memory");
            goto fail;
        }
        if (exchange_search_run(&base, counts, n_counts, o.run.exchange, o.exchange_best, search,
                                &err))
            goto fail;
    }
    if ((o.tensors || o.steps) && o.exchange_best && search[0].searched) {
        /* one count: its winner's program */
        if (exchange_use(&search[0], &ss, &s, &err))
            goto fail;
        o.run.collective = ss.cs.exchange.collective;
    }
    if (o.tensors && ss.entry) {
        gcsim_fail(&err, "--tensors lists the codec model's per-tensor figures, which only the "
                         "fused stack charges; stack %s prices its ops per %s: use --steps, or "
                         "--stack fused", stack->name,
                   stack->unit == STACK_UNIT_BUCKET ? "bucket" : "tensor group");
        goto fail;
    }
    if (o.steps) {
        r = report_new();
        if (gcsim_platform_place(&platform, counts[0], &s.placement, &err) ||
            predict_steps_fill(r, &s, &err))
            goto fail;
        goto print;
    }
    if (o.tensors) {
        /* the count matters only in whether it compresses at all (not on one GPU) */
        if (gcsim_platform_place(&platform, counts[0], &s.placement, &err) ||
            !(r = predict_report_tensors(&s, &err)))
            goto fail;
        goto print;
    }
    bool both = o.run.engine == ENGINE_BOTH;
    int per_count = both ? 2 : 1;
    rows = calloc((size_t)n_counts * per_count, sizeof *rows);
    if (!rows) {
        gcsim_fail(&err, "out of memory");
        goto fail;
    }
    int n_rows = n_counts * per_count;
    gcsim_stack_setup last_ss;
    bool last_won;
    if (predict_rows_run(&base, &ss, counts, n_counts, both, o.exchange_best ? search : NULL,
                         o.timeline, rows, &last_ss, &last_won, &err))
        goto fail;
    if (o.buckets && last_won) { /* the bucket table below needs the setup that ran */
        ss = last_ss;
        gcsim_stack_setup_apply(&ss, &s);
    }

    if (o.buckets) {
        s.placement = rows[n_rows - 1].placement;
        s.timeline_path = NULL;
        if (!(r = predict_report_buckets(&s, &err)))
            goto fail;
    } else if (o.phased) {
        gcsim_engine engines[2] = {rows[0].engine, both ? ENGINE_DES : rows[0].engine};
        if (gcsim_payload_plan_build(RUN_PHASES_ONEBIT_COMPRESSOR, &model, &onebit_plan, &err) ||
            !(r = predict_phases_report(&o.phases, o.steps_total, &base, &onebit_plan, counts,
                                        n_counts, engines, both ? 2 : 1, &err)))
            goto fail;
    } else {
        predict_view v = {.c = &base, .goodput = o.goodput.on ? &o.goodput : NULL};
        r = predict_report_rows(&v, rows, n_rows, both, listed, n_listed, skips, n_skips);
    }
print:
    if (o.exchange_best) {
        int w = exchange_search_uniform_winner(search, n_counts);
        if (w >= 0) {
            if (exchange_use(&search[w], &ss, &s, &err))
                goto fail;
            o.run.collective = ss.cs.exchange.collective;
        } else {
            o.exchange_mixed = true;
        }
    }
    int max_gpus = 1;
    for (int k = 0; k < n_counts; k++)
        max_gpus = counts[k] > max_gpus ? counts[k] : max_gpus;
    sweep_case shown = base; /* the collective that ran, when a search chose it */
    shown.collective = o.run.collective;
    predict_view v = {.c = &shown, .exchange_best = o.exchange_best,
                      .exchange_mixed = o.exchange_mixed};
    predict_report_describe(r, &v, T1_s, &ss, max_gpus);
    fabric_notes_report(r, &platform);
    interference_note_report(r, &platform, o.run.collective);
    if (search)
        predict_exchange_report(r, search, n_counts, o.exchange_best);
    if (o.convergence_given) {
        conv_factor cf;
        const char *spec = plan.spec;
        if (convergence_factors(o.convergence, model.name, &spec, 1, 0, &cf, &err))
            goto fail;
        convergence_notes_report(r, o.convergence, &spec, 1, &cf);
        convergence_notes_meta(r, &cf, max_gpus);
    }
    status = report_emit(r, o.format, o.output, "predict");
    goto done;
fail:
    fprintf(stderr, "gcsim predict: %s\n", err.message);
    status = exit_code_for(&err);
done:
    report_free(r);
    free(rows);
    free(skips);
    free(search);
    free(stack);
    gcsim_payload_plan_free(&plan);
    gcsim_payload_plan_free(&onebit_plan);
    gcsim_model_free(&model);
    return status;
}
