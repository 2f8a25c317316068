/* gcsim breakeven: per model, platform, GPU count and compressor, the inter-node bandwidth
 * below which the compressor beats fp32 (sim/analytic/breakeven.h), or why it never does,
 * under the chosen training stack and, beside it, under the ideal fused stack
 * (sim/planning/stack_breakeven.h). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analytic.h"
#include "breakeven.h"
#include "case_build.h"
#include "cli_args.h"
#include "cli_files.h"
#include "cli_training.h"
#include "cli_convergence.h"
#include "codec.h"
#include "commands.h"
#include "report.h"
#include "inputs.h"
#include "report_emit.h"
#include "stack_breakeven.h"
#include "sweep_case.h"
#include "sharding.h"
#include "sweep_lists.h"

#define MAX_GPU_COUNTS 64
/* The ideal implementation every row is also shown under (platforms/stacks/fused.json). */
#define IDEAL_STACK "fused"

static void usage(FILE *out)
{
    fprintf(out,
"usage: gcsim breakeven [--platform FILES] [--model FILES] --compressor SPECS\n"
"                       [--gpus LIST] [--stack NAME] [--exchange X] [--collective C]\n"
"                       [--batch K] [--format table|json|csv] [--output FILE]\n"
"                       [--precision P] [--optimizer O] [--sharding S] [--grad-accum K]\n"
"                       [--act-ckpt[=P]] [--convergence best|catalog|train|bound|none]\n"
"\n"
"For every platform, model, GPU count and compressor: the NIC bandwidth below which the\n"
"compressor's throughput beats the uncompressed gradient's (none, at the training\n"
"precision: the none samples/s column; analytic engine, codec time and the exchange\n"
"included; bisection over the platform's NIC bandwidth / and x 10^4, to 0.1%%), or the\n"
"reason it never does. Weak scaling. docs/codec.md.\n"
"A compressor or count the inputs cannot run (dgc under --sharding zero2) is a row with\n"
"status infeasible and the reason; the others are answered. Exit 2 when none can run.\n"
"\n"
"Each row answers twice: under the training stack (none and the compressor both as it\n"
"runs them, as gcsim predict --stack does) and, in the fused_ columns, under the fused\n"
"stack (gcsim's codec model: fused kernels per tensor, no framework or per-call cost),\n"
"what an implementation without the framework's overhead would need.\n"
"\n"
"  --platform FILES  clusters (default: the embedded " DEFAULT_PLATFORM_NAME ")\n"
"  --model FILES     workloads (default: the embedded " DEFAULT_MODEL_NAME ")\n"
"  --compressor SPECS  compressors to compare with the uncompressed gradient (none) at\n"
"                    the training precision; file:PATH.json is a compressor described in\n"
"                    JSON (docs/compressors.md)\n"
"  (each list option takes its plural name too: --platforms, --models, --compressors)\n"
"  --gpus LIST       GPU counts (default: 64)\n"
"  --stack NAME      training stack: pytorch-ddp, horovod, fused or a stack file (default:\n"
"                    each platform's \"stack\", else " GCSIM_DEFAULT_STACK "); a compressor it\n"
"                    cannot run is a row with status refused\n"
"  --exchange X, --collective C   as in gcsim predict (none uses its own default)\n"
"  --batch K         mini-batch per GPU (default: the model's)\n"
"  --format F, --output FILE      as in gcsim predict\n"
"  --precision P, --optimizer O, --sharding S, --grad-accum K, --act-ckpt[=P]\n"
"                    as in gcsim predict, for both sides (docs/sharding.md)\n"
"  --convergence S   also answer on time to accuracy: the compressor wins where its\n"
"                    throughput / its convergence factor beats none's (the accuracy_\n"
"                    columns; default best: the best evidence, docs/convergence.md;\n"
"                    none: per step only); docs/convergence.md\n");
}

typedef struct {
    sweep_list platforms, models, compressors;
    const char *gpus, *output, *stack;
    gcsim_exchange exchange;
    gcsim_collective collective;
    bool collective_given;
    long long batch;
    report_format format;
    int precision, optimizer;     /* -1: the model's */
    gcsim_sharding sharding;
    long long grad_accum;
    bool act_ckpt;
    gcsim_act_ckpt act_ckpt_policy;
    conv_source convergence;
} options;

static int parse(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"platform", required_argument, 0, 'p'}, {"model", required_argument, 0, 'm'},
        {"compressor", required_argument, 0, 'c'}, {"gpus", required_argument, 0, 'g'},
        {"exchange", required_argument, 0, 'X'}, {"collective", required_argument, 0, 'C'},
        {"batch", required_argument, 0, 'b'},    {"format", required_argument, 0, 'f'},
        {"output", required_argument, 0, 'o'},   {"help", no_argument, 0, 'h'},
        {"stack", required_argument, 0, 'K'},
        {"platforms", required_argument, 0, 'p'}, {"models", required_argument, 0, 'm'},
        {"compressors", required_argument, 0, 'c'},
        {"precision", required_argument, 0, 1000}, {"optimizer", required_argument, 0, 1001},
        {"sharding", required_argument, 0, 1002},  {"grad-accum", required_argument, 0, 1003},
        {"act-ckpt", optional_argument, 0, 1004},        {"convergence", required_argument, 0, 1005},
        {0, 0, 0, 0}};
    optind = 1;
    opterr = 0;
    int ch;
    char msg[512];
    /* the training options take one value each: a second one replaced the first */
    static const int once[] = {'K', 1002, 1003, 1004, 0};
    unsigned seen = 0;
    while ((ch = cli_getopt_long(argc, argv, ":h", longopts, "breakeven")) != -1) {
        if (cli_option_once("breakeven", ch, once, &seen, argv))
            return -1;
        int bad = 0;
        switch (ch) {
        case 'p': bad = sweep_list_add(&o->platforms, optarg, "--platform", msg, sizeof msg); break;
        case 'm': bad = sweep_list_add(&o->models, optarg, "--model", msg, sizeof msg); break;
        case 'c': bad = sweep_list_add_compressors(&o->compressors, optarg, msg, sizeof msg); break;
        case 'g': o->gpus = optarg; break;
        case 'o': o->output = optarg; break;
        case 'K':
            if (cli_stack_option("breakeven", optarg, &o->stack))
                return -1;
            break;
        case 'X':
            bad = gcsim_exchange_parse(optarg, &o->exchange) != 0;
            snprintf(msg, sizeof msg, "--exchange: expected auto, allreduce, allgather or ps, got \"%s\"", optarg);
            break;
        case 'C':
            o->collective_given = true;
            bad = gcsim_collective_parse(optarg, &o->collective) != 0;
            snprintf(msg, sizeof msg, "--collective: unknown collective \"%s\"", optarg);
            break;
        case 'b':
            bad = !cli_parse_int(optarg, 1, 1 << 24, &o->batch);
            snprintf(msg, sizeof msg, "--batch: expected a positive integer, got \"%s\"", optarg);
            break;
        case 'f':
            bad = report_format_parse(optarg, &o->format) != 0;
            snprintf(msg, sizeof msg, "--format: expected table, json or csv, got \"%s\"", optarg);
            break;
        case 1000:
            if (cli_training_precision("breakeven", optarg, &o->precision))
                return -1;
            break;
        case 1001:
            if (cli_training_optimizer("breakeven", optarg, &o->optimizer))
                return -1;
            break;
        case 1002:
            if (cli_training_sharding("breakeven", optarg, &o->sharding))
                return -1;
            break;
        case 1003:
            if (cli_training_grad_accum("breakeven", optarg, &o->grad_accum))
                return -1;
            break;
        case 1004:
            if (cli_training_act_ckpt("breakeven", optarg, &o->act_ckpt_policy))
                return -1;
            o->act_ckpt = true;
            break;
        case 1005:
            if (cli_convergence_option("breakeven", optarg, &o->convergence))
                return -1;
            break;
        case 'h': usage(stdout); return 1;
        case ':': snprintf(msg, sizeof msg, "%s needs a value", argv[optind - 1]); bad = 1; break;
        default:
            snprintf(msg, sizeof msg, "unknown option \"%s\" (see gcsim breakeven --help)",
                     argv[optind - 1]);
            bad = 1;
        }
        if (bad) {
            fprintf(stderr, "gcsim breakeven: %s\n", msg);
            return -1;
        }
    }
    if (optind < argc) {
        cli_training_unexpected("breakeven", argv[optind]);
        return -1;
    }
    if (!o->compressors.n) {
        fprintf(stderr, "gcsim breakeven: --compressor is required\n");
        return -1;
    }
    return 0;
}

/* The columns of one stack's answer (the chosen stack's, or fused's with a "fused"
 * prefix); the exchange column is placed by the caller. */
typedef struct {
    int ex, none, tput, codec, be, st, why;
} answer_columns;

static int prefixed_column(report *r, const char *prefix, const char *key, const char *header,
                           int precision, double scale)
{
    char k[64], h[64];
    snprintf(k, sizeof k, "%s%s%s", prefix, *prefix ? "_" : "", key);
    snprintf(h, sizeof h, "%s%s%s", prefix, *prefix ? " " : "", header);
    return report_column_scaled(r, k, h, precision, scale);
}

static void answer_columns_add(report *r, answer_columns *c, const char *prefix)
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

/* A refused answer has no exchange, throughput or codec time; only a found one has a
 * break-even bandwidth. */
static void answer_write(report *r, const answer_columns *c, const stack_breakeven *a)
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

/* A row that cannot run: every status says so and every reason why (the table shows the
 * reason once, in the first reason column). */
static void infeasible_write(report *r, const answer_columns *own, const answer_columns *fused,
                             int c_acc_st, int c_acc_why, const char *why)
{
    report_str(r, own->st, "infeasible");
    report_str(r, own->why, why);
    report_str(r, fused->st, "infeasible");
    report_str_table(r, fused->why, why, "as reason");
    report_str(r, c_acc_st, "infeasible");
    report_str_table(r, c_acc_why, why, "as reason");
}

/* The reasons of the rows that could not run, for standard error when none could. */
typedef struct {
    char *text;
    size_t len;
    int n;
} infeasible_rows;

static int infeasible_log(infeasible_rows *log, const char *spec, int gpus, const char *model,
                          const char *platform, const char *why, gcsim_error *err)
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

/* The run's inputs and output, checked before any work (cli_files.h). */
static int check_files(const options *o)
{
    cli_files files;
    cli_files_init(&files, "breakeven");
    for (int k = 0; k < o->platforms.n; k++)
        cli_files_platform(&files, "--platform", o->platforms.items[k]);
    for (int k = 0; k < o->models.n; k++)
        cli_files_model(&files, "--model", o->models.items[k]);
    cli_files_stack(&files, "--stack", o->stack);
    cli_convergence_files(&files, o->convergence);
    cli_files_output(&files, "--output", o->output);
    return cli_files_check(&files);
}

int cmd_breakeven(int argc, char **argv)
{
    options o;
    memset(&o, 0, sizeof o);
    o.precision = o.optimizer = -1;
    o.convergence = CONV_SOURCE_BEST;
    int rc = parse(argc, argv, &o);
    int status = EXIT_BAD_INPUT;
    sweep_cache *cache = NULL;
    report *r = NULL;
    conv_factor *conv = NULL;
    gcsim_error err;
    infeasible_rows log = {0};
    int n_answered = 0;
    if (rc || check_files(&o))
        goto done_opts;
    int counts[MAX_GPU_COUNTS] = {64}, n_counts = 1;
    char msg[256];
    if (o.gpus && (n_counts = cli_parse_gpu_list(o.gpus, counts, MAX_GPU_COUNTS, msg, sizeof msg)) < 0) {
        fprintf(stderr, "gcsim breakeven: %s\n", msg);
        goto done;
    }
    cache = sweep_cache_new(&inputs_loaders);
    r = report_new();
    if (!cache || !r) {
        gcsim_fail(&err, "out of memory");
        goto fail;
    }
    int c_model = report_column(r, "model", "model", 0);
    int c_plat = report_column(r, "platform", "platform", 0);
    int c_gpus = report_column(r, "gpus", "GPUs", 0);
    int c_comp = report_column(r, "compressor", "compressor", 0);
    /* Bandwidths in bytes per second (_Bps) and times in seconds in CSV and JSON; the
     * text table shows Gb/s and ms. */
    answer_columns own;
    own.ex = report_column(r, "exchange", "exchange", 0);
    int c_own = report_column_scaled(r, "nic_Bps", "NIC Gb/s", 1, 8e-9);
    answer_columns_add(r, &own, "");
    /* added after the columns scripts read by position: the stack of the columns above,
     * then the same answer under the ideal fused stack */
    int c_stack = report_column(r, "stack", "stack", 0);
    answer_columns fused;
    fused.ex = report_column(r, "fused_exchange", "fused exchange", 0);
    answer_columns_add(r, &fused, "fused");
    /* issue 26, last: the same question on time to accuracy under the chosen stack */
    int c_conv = report_column(r, "convergence_factor", "conv factor", 3);
    int c_conv_src = report_column(r, "convergence_source", "conv source", 0);
    int c_acc_be = report_column_scaled(r, "accuracy_breakeven_Bps", "to-accuracy break-even Gb/s",
                                        3, 8e-9);
    int c_acc_st = report_column(r, "accuracy_status", "to-accuracy status", 0);
    int c_acc_why = report_column(r, "accuracy_reason", "to-accuracy reason", 0);
    /* the text table in 100 columns (issue 46): the row's keys, then the answer under the
     * chosen stack, under fused, to accuracy; the reasons are listed after the tables */
    report_column_brief(r, own.none, "fp32/s");
    report_column_brief(r, own.be, "BE Gb/s");
    report_column_brief(r, fused.ex, "fused exch");
    report_column_brief(r, fused.none, "fused fp32/s");
    report_column_brief(r, fused.tput, "fused/s");
    report_column_brief(r, fused.codec, "fused codec");
    report_column_brief(r, fused.be, "fused BE");
    report_column_brief(r, c_acc_be, "acc BE Gb/s");
    report_column_brief(r, c_acc_st, "acc status");
    {
        const int lead[] = {c_model, c_plat, c_gpus, c_comp, own.be, own.st, c_own, own.none,
                            own.tput, own.codec, own.ex, c_stack, fused.be, fused.st,
                            fused.none, fused.tput, fused.codec, fused.ex, c_acc_be, c_acc_st,
                            c_conv, c_conv_src};
        report_table_lead(r, 4, lead, (int)(sizeof lead / sizeof lead[0]));
    }
    conv = calloc((size_t)o.compressors.n, sizeof *conv);
    if (!conv) {
        gcsim_fail(&err, "out of memory");
        goto fail;
    }
    const gcsim_stack *ideal = sweep_cache_stack(cache, IDEAL_STACK, &err);
    if (!ideal)
        goto fail;
    const gcsim_stack *shared = NULL; /* the stack of every row, when they have one */
    bool one_stack = true;
    int n_pl = o.platforms.n ? o.platforms.n : 1, n_m = o.models.n ? o.models.n : 1;
    for (int mi = 0; mi < n_m; mi++) {
        const gcsim_model *m = sweep_cache_model_as(cache, o.models.n ? o.models.items[mi] : NULL,
                                                    o.precision, o.optimizer, &err);
        const gcsim_payload_plan *fp32 = m ? sweep_cache_payload(cache, m, "none", &err) : NULL;
        if (!fp32)
            goto fail;
        /* A bad spec is a --compressor error: name it before the convergence lookup does. */
        for (int ci = 0; ci < o.compressors.n; ci++)
            if (!sweep_cache_payload(cache, m, o.compressors.items[ci], &err))
                goto fail;
        if (cli_convergence_factors("breakeven", o.convergence, m->name,
                                    (const char *const *)o.compressors.items, o.compressors.n, 0,
                                    conv))
            goto done;
        if (mi == 0)
            cli_convergence_notes(r, o.convergence, (const char *const *)o.compressors.items,
                                  o.compressors.n, conv);
        for (int pi = 0; pi < n_pl; pi++) {
            const gcsim_platform *p =
                sweep_cache_platform(cache, o.platforms.n ? o.platforms.items[pi] : NULL, &err);
            /* as gcsim predict: --stack, else the platform's "stack", else the default */
            const gcsim_stack *st =
                p ? sweep_cache_stack(cache, gcsim_stack_choice(o.stack, p), &err) : NULL;
            if (p && !st)
                gcsim_stack_blame_platform(o.stack, p, &err);
            if (!st)
                goto fail;
            one_stack = one_stack && (!shared || shared == st);
            shared = st;
            for (int g = 0; g < n_counts; g++)
                for (int ci = 0; ci < o.compressors.n; ci++) {
                    const gcsim_payload_plan *pl =
                        sweep_cache_payload(cache, m, o.compressors.items[ci], &err);
                    breakeven_case bc = {
                        .c = {.platform = p, .model = m, .payload = pl, .stack = st,
                              .gpus = counts[g], .batch = (int)o.batch,
                              .exchange = o.exchange, .collective = o.collective,
                              .collective_given = o.collective_given,
                              .scaling = SCALING_WEAK, .overlap = true,
                              .sharding = o.sharding, .grad_accum = (int)o.grad_accum,
                              .act_ckpt = o.act_ckpt, .act_ckpt_policy = o.act_ckpt_policy},
                        .fp32 = fp32};
                    conv_factor cf = conv_factor_at(&conv[ci], counts[g]);
                    stack_breakeven be, fe, ae;
                    if (!pl)
                        goto fail;
                    /* bad inputs (a count above the platform...) fail the run; the
                     * sharding's refusal of this payload or count is this row's answer.
                     * Memory is not checked here, as before: breakeven compares rates. */
                    sweep_case checked = bc.c;
                    checked.no_memory_check = true;
                    int feasible = case_build_feasible(&checked, &err);
                    if (feasible < 0)
                        goto fail;
                    bool failed = feasible > 0 || stack_breakeven_find(&bc, st, &be, &err) ||
                                  stack_breakeven_find(&bc, ideal, &fe, &err);
                    if (!failed) {
                        bc.conv_factor = isfinite(cf.factor) ? cf.factor : 1.0;
                        failed = stack_breakeven_find(&bc, st, &ae, &err) != 0;
                    }
                    /* Issue 46: a compressor (or count) that cannot run these inputs, such as
                     * a sparse payload under a ZeRO sharding, is a row that says why; the
                     * others are answered. gcsim's own failures and machine limits still
                     * stop the run. */
                    if (failed && !gcsim_error_skippable(&err))
                        goto fail;
                    report_row(r);
                    report_str(r, c_model, m->name);
                    report_str(r, c_plat, p->name);
                    report_int(r, c_gpus, counts[g]);
                    /* as written in the table, the full spec in CSV and JSON */
                    report_str_table(r, c_comp, pl->spec, o.compressors.items[ci]);
                    report_str(r, c_stack, st->name);
                    if (failed) {
                        infeasible_write(r, &own, &fused, c_acc_st, c_acc_why, err.message);
                        report_num(r, c_own, p->nic.bandwidth_Bps);
                        if (infeasible_log(&log, pl->spec, counts[g], m->name, p->name,
                                           err.message, &err))
                            goto fail;
                        continue;
                    }
                    n_answered++;
                    report_num(r, c_own, be.be.own_Bps);
                    answer_write(r, &own, &be);
                    answer_write(r, &fused, &fe);
                    if (isfinite(cf.factor)) /* unknown (issue 43): no number, not 1 */
                        report_num(r, c_conv, bc.conv_factor);
                    report_str(r, c_conv_src, cli_convergence_source_label(&cf));
                    if (ae.be.status == BREAKEVEN_FOUND)
                        report_num(r, c_acc_be, ae.be.breakeven_Bps);
                    report_str(r, c_acc_st, gcsim_breakeven_status_name(ae.be.status));
                    report_str(r, c_acc_why, ae.be.reason);
                }
        }
    }
    if (!n_answered) {
        /* nothing could run: no table, every row's reason */
        if (log.n == 1) /* the one row: its reason as before issue 46 */
            goto fail;
        fputs(log.text, stderr);
        fprintf(stderr, "gcsim breakeven: none of the %d rows can run\n", log.n);
        goto done;
    }
    if (log.n)
        report_note(r, "infeasible", "a row with status infeasible cannot run these inputs "
                                     "(reason says why); the other rows are answered");
    report_meta_str(r, "engine", "analytic");
    report_meta_str(r, "scaling", "weak");
    /* null when the platforms chose different stacks: each row names its own */
    report_meta_str(r, "stack.name", one_stack && shared ? shared->name : NULL);
    report_meta_str(r, "stack.file", one_stack && shared ? shared->path : NULL);
    report_meta_str(r, "fused_stack.name", ideal->name);
    report_meta_str(r, "fused_stack.file", ideal->path);
    report_note(r, "method", "analytic engine, weak scaling, codec cost and exchange as gcsim "
                             "predict chooses them; NIC bandwidth per NIC, one direction");
    char line[1024];
    snprintf(line, sizeof line, "none and the compressor both under %s%s; the fused_ columns "
             "under %s (%s): the ideal implementation, codec model and no per-call cost",
             one_stack && shared ? shared->name : "each platform's stack",
             one_stack && shared && !o.stack ? " (the platforms' choice)" : "", ideal->name,
             ideal->path);
    report_note(r, "stacks", line);
    status = report_emit(r, o.format, o.output, "breakeven");
    goto done;
fail:
    fprintf(stderr, "gcsim breakeven: %s\n", err.message);
done:
    free(log.text);
    free(conv);
    report_free(r);
    sweep_cache_free(cache);
done_opts:
    sweep_list_free(&o.platforms);
    sweep_list_free(&o.models);
    sweep_list_free(&o.compressors);
    return rc > 0 ? EXIT_OK : status;
}
