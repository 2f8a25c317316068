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
#include "gpu_list.h"
#include "cli_files.h"
#include "cli_training.h"
#include "cli_groups.h"
#include "cli_convergence.h"
#include "convergence_factors.h"
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
#include "plan_table.h"
#include "case_options.h"
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
    case_options run;        /* what every case is run with (case_options.h) */
    long long top;
    report_format format;
    bool exchange_best;   /* --exchange best */
    sweep_list shardings;
    sweep_list ckpts;        /* --act-ckpt=LIST: none, policies or all (plan_variant.h) */
    sweep_list micro;        /* --micro-batch LIST */
    long long global_batch;  /* --global-batch (samples), or from --tokens-per-step */
    double tokens_per_step;
    unsigned best_per;       /* --best-per keys (plan_answer.h); 0: every group's row */
    sweep_list precisions;   /* --precision LIST: searched (one name: run.precision) */
    conv_source convergence;
    goodput_options goodput;      /* --goodput and its inputs (cli_goodput.h); off: as before */
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
    sweep_list_free(&o->precisions);
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
    cli_groups groups = {.variability = &o->run.variability, .goodput = &o->goodput};
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
            if (exchange_option_parse(optarg, &o->run.exchange, &o->exchange_best)) {
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
            o->run.scaling = strcmp(optarg, "strong") == 0 ? SCALING_STRONG : SCALING_WEAK;
            break;
        case 'b':
            if (cli_int_option("plan", "--batch", optarg, 1, 1 << 24,
                               "a positive integer", &o->run.batch))
                return -1;
            break;
        case 't':
            if (cli_int_option("plan", "--top", optarg, 0, 1 << 30, "a count (0: all)", &o->top))
                return -1;
            break;
        case 'e':
            if (engine_parse(optarg, &o->run.engine) || o->run.engine == ENGINE_BOTH) {
                fprintf(stderr, "gcsim plan: --engine: expected analytic or des, got \"%s\"\n", optarg);
                return -1;
            }
            if (o->run.engine == ENGINE_DES && !engine_des_available()) {
                fprintf(stderr, "gcsim plan: --engine des: this build has no SimGrid engine\n");
                return -1;
            }
            break;
        case 'f':
            if (cli_format_option("plan", optarg, &o->format))
                return -1;
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
            if (cli_int_option("plan", "--global-batch", optarg, 1, 1LL << 40,
                               "a positive integer (samples per optimizer step)", &o->global_batch))
                return -1;
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
        case 1001: /* a list (or all) is searched; one precision sets the model's */
            if (strchr(optarg, ',') || !strcmp(optarg, "all")) {
                if (sweep_list_add(&o->precisions, optarg, "--precision", msg, sizeof msg)) {
                    fprintf(stderr, "gcsim plan: %s\n", msg);
                    return -1;
                }
                break;
            }
            if (cli_training_precision("plan", optarg, &o->run.precision))
                return -1;
            break;
        case 1002:
            if (cli_training_optimizer("plan", optarg, &o->run.optimizer))
                return -1;
            break;
        case 1003:
            if (cli_training_grad_accum("plan", optarg, &o->run.grad_accum))
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
            if (cli_training_act_ckpt("plan", optarg, &o->run.act_ckpt_policy))
                return -1;
            o->run.act_ckpt = true;
            break;
        case 1005:
            if (cli_training_mfu("plan", optarg, &o->run.mfu))
                return -1;
            break;
        case 1006:
            if (cli_convergence_option("plan", optarg, &o->convergence))
                return -1;
            break;
        case 'h':
            plan_usage(stdout);
            return 1;
        default: return cli_option_error("plan", ch, argv);
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
    else if (o->run.act_ckpt && o->ckpts.n)
        problem = "--act-ckpt: one policy or one list (--act-ckpt=none,op,full), not both";
    else if (o->global_batch > 0 && o->tokens_per_step > 0)
        problem = "--global-batch and --tokens-per-step both give the batch: use one";
    else if ((o->global_batch > 0 || o->tokens_per_step > 0) && o->run.grad_accum > 0)
        problem = "--grad-accum: the global batch sets the micro-batches per step at each "
                  "GPU count: not with --global-batch or --tokens-per-step";
    else if ((o->global_batch > 0 || o->tokens_per_step > 0 || o->micro.n) &&
             o->run.scaling == SCALING_STRONG)
        problem = "--scaling strong splits --batch over the GPUs: not with --global-batch, "
                  "--tokens-per-step or --micro-batch";
    else if (o->micro.n && o->run.batch)
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

int cmd_plan(int argc, char **argv)
{
    plan_options o = {.top = 10, .format = REPORT_TABLE, .nodes_rule = -1,
                      .convergence = CONV_SOURCE_BEST};
    case_options_init(&o.run);
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
    plan_problem pb = {.rank_by_time = o.rank_by_time, .scaling = o.run.scaling,
                       .engine = o.run.engine, .batch = (int)o.run.batch,
                       .exchange = o.run.exchange, .run = &o.run,
                       .grad_accum = (int)o.run.grad_accum,
                       .variability = o.run.variability.on ? &o.run.variability : NULL,
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
    int precisions[4], n_precisions = 0;
    if (o.precisions.n && (n_precisions = plan_precisions_parse(&o.precisions, precisions, &err)) < 0)
        goto fail;
    plan_inputs in = {.model_path = o.model_path, .platforms = &o.platforms,
                      .compressors = &o.compressors, .stacks = &o.stacks,
                      .collectives = &o.collectives, .precision = o.run.precision,
                      .optimizer = o.run.optimizer, .mfu = o.run.mfu, .batch = (int)o.run.batch,
                      .exchange = o.run.exchange, .precisions = precisions,
                      .n_precisions = n_precisions};
    if (plan_inputs_load(&pb, &loaded, cache, &in, &err))
        goto fail;
    const gcsim_model *model = pb.model;
    if (!(conv = calloc((size_t)pb.n_compressors, sizeof *conv))) {
        fprintf(stderr, "gcsim plan: out of memory\n");
        goto done;
    }
    if (convergence_factors(o.convergence, model->name, (const char *const *)o.compressors.items,
                            pb.n_compressors, 0, conv, &err))
        goto fail;
    pb.conv = conv;
    if (plan_inputs_load_stacks(&pb, &loaded, cache, &in, &err))
        goto fail;
    if (o.gpus) {
        if (!(gpus = malloc(PLAN_MAX_GPU_COUNTS * sizeof *gpus))) {
            fprintf(stderr, "gcsim plan: out of memory\n");
            goto done;
        }
        pb.n_gpus = gpu_list_parse(o.gpus, gpus, PLAN_MAX_GPU_COUNTS, msg, sizeof msg);
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
                       .act_ckpt = o.run.act_ckpt, .act_ckpt_policy = o.run.act_ckpt_policy,
                       .batch = (int)o.run.batch, .global_batch = o.global_batch,
                       .n_precisions = n_precisions,
                       .max_gpus = pb.gpus && pb.n_gpus > 0 ? pb.gpus[pb.n_gpus - 1] : 0};
    if (o.run.engine == ENGINE_DES) {
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
    r = plan_table_rows(&pb, (const char *const *)o.compressors.items, res.rows, n_rows,
                        res.feasible, conv);
    int batch = o.run.batch ? (int)o.run.batch : model->batch_per_gpu;
    plan_asked asked = {.target_tput = o.target_tput, .epochs = o.epochs,
                        .dataset_size = o.dataset_size, .deadline_h = o.deadline_h,
                        .budget_usd = o.budget_usd, .gpus = o.gpus, .batch = batch,
                        .engine = engine_name(o.run.engine)};
    plan_table_meta(r, &pb, &asked, res.evaluated);
    plan_notes_describe(&described, &pb, &asked, res.evaluated, res.skipped);
    plan_table_notes(r, &described);
    convergence_notes_report(r, o.convergence, (const char *const *)o.compressors.items,
                          pb.n_compressors, conv);
    plan_notes_outcome(&outcome, &pb, &res, widened, n_rows, n_shown);
    plan_table_notes(r, &outcome);
    plan_table_notes(r, &answers);
    if (described.failed || outcome.failed || answers.failed) {
        fprintf(stderr, "gcsim plan: out of memory\n");
        status = EXIT_INTERNAL;
        goto done;
    }
    if (!res.feasible)
        fprintf(stderr, "gcsim plan: no feasible configuration: %s\n", res.why);
    if (report_emit(r, o.format, o.output, "plan"))
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
