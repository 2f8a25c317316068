/* gcsim plan: capacity planning. For each platform, compressor, training stack and
 * collective (or, with --exchange best, the fastest exchange), the GPU count that meets a
 * throughput or time-to-train target (within a budget) at the lowest cost or in the
 * shortest time; the configurations ranked. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_convergence.h"
#include "cli_files.h"
#include "cli_groups.h"
#include "cli_training.h"
#include "commands.h"
#include "exchange_best.h"
#include "inputs.h"
#include "plan_answer.h"
#include "plan_command.h"
#include "plan_notes.h"
#include "plan_table.h"
#include "report.h"
#include "report_emit.h"

extern const char gcsim_help_plan[]; /* docs/help/plan.txt */

static void plan_usage(FILE *out)
{
    static const char *const values[] = {"@DEFAULT_COMPRESSORS@", PLAN_DEFAULT_COMPRESSORS,
                                         "@DEFAULT_MICRO_BATCHES@", PLAN_DEFAULT_MICRO_BATCHES,
                                         NULL};
    cli_help(out, gcsim_help_plan, values);
}

typedef struct {
    plan_command c;          /* what plan is asked (plan_command.h) */
    const char *output;
    report_format format;
} plan_options;

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
    /* one value each, but for the lists searched, whose values add up */
    static const int lists[] = {'p', 'c', 'K', 'C', 1000, 1001, 1010, 0};
    cli_seen seen = {0};
    cli_groups groups = {.variability = &o->c.run.variability, .goodput = &o->c.goodput};
    const struct option *all_longopts = cli_groups_begin(&groups, longopts);
    while ((ch = cli_getopt_long(argc, argv, ":h", all_longopts, "plan")) != -1) {
        if (cli_values_once("plan", ch, longopts, lists, &seen, argv))
            return -1;
        int group = cli_groups_option(&groups, "plan", ch, optarg, argv);
        if (group < 0)
            return -1;
        if (group == 0)
            continue;
        switch (ch) {
        case 'm': o->c.model_path = optarg; break;
        case 'g': o->c.gpus = optarg; break;
        case 1008:
            if (strcmp(optarg, "bounded") && strcmp(optarg, "exhaustive")) {
                fprintf(stderr, "gcsim plan: --search: expected bounded or exhaustive, got \"%s\"\n",
                        optarg);
                return -1;
            }
            o->c.search = strcmp(optarg, "exhaustive") == 0 ? PLAN_SEARCH_EXHAUSTIVE
                                                           : PLAN_SEARCH_BOUNDED;
            break;
        case 'o': o->output = optarg; break;
        case 'w':
        case 1007:
            if (o->c.nodes_rule == (ch == 'w' ? 0 : 1)) {
                fprintf(stderr, "gcsim plan: --whole-nodes and --partial-nodes contradict each other\n");
                return -1;
            }
            o->c.nodes_rule = ch == 'w';
            break;
        case 'p':
        case 'c':
        case 'K':
        case 'C': {
            int bad = ch == 'p' ? sweep_list_add(&o->c.platforms, optarg, "--platform", msg, sizeof msg)
                    : ch == 'c' ? sweep_list_add_compressors(&o->c.compressors, optarg, msg, sizeof msg)
                    : ch == 'K' ? sweep_list_add(&o->c.stacks, optarg, "--stack", msg, sizeof msg)
                                : sweep_list_add(&o->c.collectives, optarg, "--collectives", msg, sizeof msg);
            if (bad) {
                fprintf(stderr, "gcsim plan: %s\n", msg);
                return -1;
            }
            break;
        }
        case 'X':
            if (exchange_option_parse(optarg, &o->c.run.exchange, &o->c.exchange_best)) {
                fprintf(stderr, "gcsim plan: --exchange: expected auto, allreduce, allgather, ps "
                                "or best, got \"%s\"\n", optarg);
                return -1;
            }
            break;
        case 'T': if (parse_positive("--target-throughput", optarg, &o->c.target_tput)) return -1; break;
        case 'S': if (parse_positive("--samples", optarg, &o->c.samples)) return -1; break;
        case 'E': if (parse_positive("--epochs", optarg, &o->c.epochs)) return -1; break;
        case 'D': if (parse_positive("--dataset-size", optarg, &o->c.dataset_size)) return -1; break;
        case 'd': if (parse_positive("--deadline", optarg, &o->c.deadline_h)) return -1; break;
        case 'u': if (parse_positive("--budget", optarg, &o->c.budget_usd)) return -1; break;
        case 'r':
            if (strcmp(optarg, "cost") && strcmp(optarg, "time")) {
                fprintf(stderr, "gcsim plan: --rank-by: expected cost or time, got \"%s\"\n", optarg);
                return -1;
            }
            o->c.rank_by_time = strcmp(optarg, "time") == 0;
            break;
        case 's':
            if (strcmp(optarg, "strong") && strcmp(optarg, "weak")) {
                fprintf(stderr, "gcsim plan: --scaling: expected strong or weak, got \"%s\"\n", optarg);
                return -1;
            }
            o->c.run.scaling = strcmp(optarg, "strong") == 0 ? SCALING_STRONG : SCALING_WEAK;
            break;
        case 'b':
            if (cli_int_option("plan", "--batch", optarg, 1, 1 << 24,
                               "a positive integer", &o->c.run.batch))
                return -1;
            break;
        case 't':
            if (cli_int_option("plan", "--top", optarg, 0, 1 << 30, "a count (0: all)", &o->c.top))
                return -1;
            break;
        case 'e':
            if (engine_parse(optarg, &o->c.run.engine) || o->c.run.engine == ENGINE_BOTH) {
                fprintf(stderr, "gcsim plan: --engine: expected analytic or des, got \"%s\"\n", optarg);
                return -1;
            }
            if (o->c.run.engine == ENGINE_DES && !engine_des_available()) {
                fprintf(stderr, "gcsim plan: --engine des: this build has no SimGrid engine\n");
                return -1;
            }
            break;
        case 'f':
            if (cli_format_option("plan", optarg, &o->format))
                return -1;
            break;
        case 1000: /* "all" stays a word: its HSDP groups depend on the platforms */
            if (sweep_list_add(&o->c.shardings, optarg, "--sharding", msg, sizeof msg)) {
                fprintf(stderr, "gcsim plan: %s\n", msg);
                return -1;
            }
            break;
        case 1009:
        case 1010: {
            sweep_list *l = ch == 1009 ? &o->c.ckpts : &o->c.micro;
            if (sweep_list_add(l, optarg, ch == 1009 ? "--act-ckpt" : "--micro-batch", msg,
                               sizeof msg)) {
                fprintf(stderr, "gcsim plan: %s\n", msg);
                return -1;
            }
            break;
        }
        case 1011:
            if (cli_int_option("plan", "--global-batch", optarg, 1, 1LL << 40,
                               "a positive integer (samples per optimizer step)", &o->c.global_batch))
                return -1;
            break;
        case 1012:
            if (parse_positive("--tokens-per-step", optarg, &o->c.tokens_per_step))
                return -1;
            break;
        case 1013:
            if (plan_keys_parse(optarg, &o->c.best_per, msg, sizeof msg)) {
                fprintf(stderr, "gcsim plan: --best-per: %s\n", msg);
                return -1;
            }
            break;
        case 1001: /* a list (or all) is searched; one precision sets the model's */
            if (strchr(optarg, ',') || !strcmp(optarg, "all")) {
                if (sweep_list_add(&o->c.precisions, optarg, "--precision", msg, sizeof msg)) {
                    fprintf(stderr, "gcsim plan: %s\n", msg);
                    return -1;
                }
                break;
            }
            if (cli_training_precision("plan", optarg, &o->c.run.precision))
                return -1;
            break;
        case 1002:
            if (cli_training_optimizer("plan", optarg, &o->c.run.optimizer))
                return -1;
            break;
        case 1003:
            if (cli_training_grad_accum("plan", optarg, &o->c.run.grad_accum))
                return -1;
            break;
        case 1004:
            /* a list (or none, all) is searched (--act-ckpts); one policy applies to all */
            if (optarg && (strchr(optarg, ',') || !strcmp(optarg, "all") ||
                           !strcmp(optarg, "none"))) {
                if (sweep_list_add(&o->c.ckpts, optarg, "--act-ckpt", msg, sizeof msg)) {
                    fprintf(stderr, "gcsim plan: %s\n", msg);
                    return -1;
                }
                break;
            }
            if (cli_training_act_ckpt("plan", optarg, &o->c.run.act_ckpt_policy))
                return -1;
            o->c.run.act_ckpt = true;
            break;
        case 1005:
            if (cli_training_mfu("plan", optarg, &o->c.run.mfu))
                return -1;
            break;
        case 1006:
            if (cli_convergence_option("plan", optarg, &o->c.convergence))
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
    const char *problem = plan_command_check(&o->c);
    if (problem) {
        fprintf(stderr, "gcsim plan: %s\n", problem);
        return -1;
    }
    return 0;
}

int cmd_plan(int argc, char **argv)
{
    plan_options o = {.format = REPORT_TABLE};
    plan_command_init(&o.c);
    const plan_command *c = &o.c;
    int rc = parse_options(argc, argv, &o);
    cli_files files;
    cli_files_init(&files, "plan");
    if (!rc) {
        for (int k = 0; k < c->platforms.n; k++)
            cli_files_platform(&files, "--platform", c->platforms.items[k]);
        cli_files_model(&files, "--model", c->model_path);
        for (int k = 0; k < c->stacks.n; k++)
            cli_files_stack(&files, "--stack", c->stacks.items[k]);
        cli_convergence_files(&files, c->convergence);
        cli_files_output(&files, "--output", o.output);
    }
    if (rc || cli_files_check(&files)) {
        plan_command_free(&o.c);
        return rc > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    }
    int status = EXIT_BAD_INPUT;
    gcsim_error err = {.internal = 0};
    sweep_cache *cache = sweep_cache_new(&inputs_loaders);
    plan_session s = {0};
    const plan_problem *pb = &s.pb;
    const plan_result *res = &s.res;
    plan_notes described = {0}, outcome = {0}, answers = {0};
    report *r = NULL;
    if (!cache) {
        gcsim_fail_internal(&err, "out of memory");
        goto fail;
    }
    if (plan_command_setup(&o.c, cache, &s, &err))
        goto fail;
    if (s.des_planned > 200)
        fprintf(stderr, "gcsim plan: --engine des: %s%lld simulations ahead; narrow them with "
                        "--gpus, --whole-nodes, --compressors or --collectives\n",
                pb->search == PLAN_SEARCH_BOUNDED ? "at least " : "", s.des_planned);
    if (plan_command_search(&s, &err))
        goto fail;
    /* the answer per platform, from every feasible row (before --best-per and --top) */
    plan_notes_answers(&answers, pb, res);
    int n_shown = c->best_per ? plan_rows_best_per(pb, res->rows, res->n_rows, c->best_per)
                              : res->n_rows;
    int n_rows = c->top > 0 && n_shown > c->top ? (int)c->top : n_shown;
    const char *const *names = (const char *const *)c->compressors.items;
    r = plan_table_rows(pb, names, res->rows, n_rows, res->feasible, s.conv);
    plan_asked asked = {.target_tput = c->target_tput, .epochs = c->epochs,
                        .dataset_size = c->dataset_size, .deadline_h = c->deadline_h,
                        .budget_usd = c->budget_usd, .gpus = c->gpus,
                        .batch = c->run.batch ? (int)c->run.batch : pb->model->batch_per_gpu,
                        .engine = engine_name(c->run.engine)};
    plan_table_meta(r, pb, &asked, res->evaluated);
    plan_notes_describe(&described, pb, &asked, res->evaluated, res->skipped);
    plan_table_notes(r, &described);
    convergence_notes_report(r, c->convergence, names, pb->n_compressors, s.conv);
    plan_notes_outcome(&outcome, pb, res, s.widened, n_rows, n_shown);
    plan_table_notes(r, &outcome);
    plan_table_notes(r, &answers);
    if (described.failed || outcome.failed || answers.failed) {
        gcsim_fail_internal(&err, "out of memory");
        goto fail;
    }
    if (!res->feasible)
        fprintf(stderr, "gcsim plan: no feasible configuration: %s\n", res->why);
    if (report_emit(r, o.format, o.output, "plan"))
        goto done;
    status = res->feasible ? EXIT_OK : EXIT_CHECK_FAILED;
    goto done;
fail:
    fprintf(stderr, "gcsim plan: %s\n", err.message);
    status = exit_code_for(&err);
done:
    report_free(r);
    plan_session_free(&s);
    plan_notes_free(&described);
    plan_notes_free(&outcome);
    plan_notes_free(&answers);
    sweep_cache_free(cache);
    plan_command_free(&o.c);
    return status;
}
