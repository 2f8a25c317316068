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
#include "breakeven_row.h"
#include "breakeven_report.h"
#include "breakeven_table.h"
#include "case_options.h"
#include "cli_args.h"
#include "gpu_list.h"
#include "cli_files.h"
#include "cli_training.h"
#include "cli_convergence.h"
#include "convergence_factors.h"
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

extern const char gcsim_help_breakeven[]; /* docs/help/breakeven.txt */

static void usage(FILE *out)
{
    cli_help(out, gcsim_help_breakeven, NULL);
}

typedef struct {
    sweep_list platforms, models, compressors;
    const char *gpus, *output, *stack;
    case_options run;             /* what every case is run with (case_options.h) */
    report_format format;
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
    /* one value each, but for the lists compared, whose values add up */
    static const int lists[] = {'p', 'm', 'c', 0};
    cli_seen seen = {0};
    while ((ch = cli_getopt_long(argc, argv, ":h", longopts, "breakeven")) != -1) {
        if (cli_values_once("breakeven", ch, longopts, lists, &seen, argv))
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
            bad = gcsim_exchange_parse(optarg, &o->run.exchange) != 0;
            snprintf(msg, sizeof msg, "--exchange: expected auto, allreduce, allgather or ps, got \"%s\"", optarg);
            break;
        case 'C':
            o->run.collective_given = true;
            bad = gcsim_collective_parse(optarg, &o->run.collective) != 0;
            snprintf(msg, sizeof msg, "--collective: unknown collective \"%s\"", optarg);
            break;
        case 'b':
            bad = !cli_parse_int(optarg, 1, 1 << 24, &o->run.batch);
            snprintf(msg, sizeof msg, "--batch: expected a positive integer, got \"%s\"", optarg);
            break;
        case 'f':
            if (cli_format_option("breakeven", optarg, &o->format))
                return -1;
            break;
        case 1000:
            if (cli_training_precision("breakeven", optarg, &o->run.precision))
                return -1;
            break;
        case 1001:
            if (cli_training_optimizer("breakeven", optarg, &o->run.optimizer))
                return -1;
            break;
        case 1002:
            if (cli_training_sharding("breakeven", optarg, &o->run.sharding))
                return -1;
            break;
        case 1003:
            if (cli_training_grad_accum("breakeven", optarg, &o->run.grad_accum))
                return -1;
            break;
        case 1004:
            if (cli_training_act_ckpt("breakeven", optarg, &o->run.act_ckpt_policy))
                return -1;
            o->run.act_ckpt = true;
            break;
        case 1005:
            if (cli_convergence_option("breakeven", optarg, &o->convergence))
                return -1;
            break;
        case 'h': usage(stdout); return 1;
        default: return cli_option_error("breakeven", ch, argv);
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
    case_options_init(&o.run); /* weak scaling, analytic, overlap: breakeven's method */
    o.convergence = CONV_SOURCE_BEST;
    int rc = parse(argc, argv, &o);
    int status = EXIT_BAD_INPUT;
    sweep_cache *cache = NULL;
    report *r = NULL;
    gcsim_error err;
    breakeven_infeasible_log log = {0};
    int n_answered = 0;
    if (rc || check_files(&o))
        goto done_opts;
    int counts[MAX_GPU_COUNTS] = {64}, n_counts = 1;
    char msg[256];
    if (o.gpus && (n_counts = gpu_list_parse(o.gpus, counts, MAX_GPU_COUNTS, msg, sizeof msg)) < 0) {
        fprintf(stderr, "gcsim breakeven: %s\n", msg);
        goto done;
    }
    cache = sweep_cache_new(&inputs_loaders);
    if (!cache) {
        gcsim_fail(&err, "out of memory");
        goto fail;
    }
    breakeven_request q = {.platforms = &o.platforms, .models = &o.models,
                           .compressors = &o.compressors, .stack = o.stack, .run = &o.run,
                           .counts = counts, .n_counts = n_counts,
                           .convergence = o.convergence};
    if (!(r = breakeven_report(&q, cache, &log, &n_answered, &err)))
        goto fail;
    if (!n_answered) {
        /* nothing could run: no table, every row's reason */
        if (log.n == 1) /* the one row: its reason as before issue 46 */
            goto fail;
        fputs(log.text, stderr);
        fprintf(stderr, "gcsim breakeven: none of the %d rows can run\n", log.n);
        goto done;
    }
    status = report_emit(r, o.format, o.output, "breakeven");
    goto done;
fail:
    fprintf(stderr, "gcsim breakeven: %s\n", err.message);
done:
    free(log.text);
    report_free(r);
    sweep_cache_free(cache);
done_opts:
    sweep_list_free(&o.platforms);
    sweep_list_free(&o.models);
    sweep_list_free(&o.compressors);
    return rc > 0 ? EXIT_OK : status;
}
