/* gcsim sweep: the cross product of platforms, models, compressors, training stacks,
 * collectives, scalings, batches, engines and GPU counts, one row per case, streamed as CSV
 * or JSON lines. */
#include <getopt.h>
#include <signal.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "cli_args.h"
#include "gpu_list.h"
#include "cli_files.h"
#include "cli_training.h"
#include "codec.h"
#include "commands.h"
#include "inputs.h"
#include "sweep_case.h"
#include "cli_groups.h"
#include "sharding.h"
#include "sweep_lists.h"
#include "sweep_values.h"
#include "sweep_output.h"
#include "sweep_progress.h"
#include "sweep_rows.h"
#include "sweep_run.h"
#include "sweep_space.h"
#include "units.h"
#include "report_emit.h"

#define MAX_GPU_COUNTS 4096

extern const char gcsim_help_sweep[]; /* docs/help/sweep.txt */

static void sweep_usage(FILE *out)
{
    cli_help(out, gcsim_help_sweep, NULL);
}

typedef struct {
    sweep_list platforms, models, compressors, stacks, collectives, scalings, batches, engines;
    const char *gpus, *output;
    sweep_format format;
    bool count_only;
    int progress; /* -1 never, 0 when stderr is a terminal, 1 always */
    int shard_k, shard_n;
    case_options run;             /* every case's options (case_options.h) */
    long long max_cases;          /* the most cases this run writes (--max-cases) */
} sweep_options;

static void free_options(sweep_options *o)
{
    sweep_list_free(&o->platforms);
    sweep_list_free(&o->models);
    sweep_list_free(&o->compressors);
    sweep_list_free(&o->stacks);
    sweep_list_free(&o->collectives);
    sweep_list_free(&o->scalings);
    sweep_list_free(&o->batches);
    sweep_list_free(&o->engines);
}

static int parse_shard(const char *text, int *k, int *n)
{
    const char *slash = strchr(text, '/');
    char a[32];
    long long kk, nn;
    if (!slash || (size_t)(slash - text) >= sizeof a)
        return -1;
    memcpy(a, text, (size_t)(slash - text));
    a[slash - text] = '\0';
    if (!cli_parse_int(a, 1, 1 << 24, &kk) || !cli_parse_int(slash + 1, 1, 1 << 24, &nn) ||
        kk > nn)
        return -1;
    *k = (int)kk;
    *n = (int)nn;
    return 0;
}

static int parse_options(int argc, char **argv, sweep_options *o)
{
    static const struct option longopts[] = {
        {"platform", required_argument, 0, 'p'}, {"model", required_argument, 0, 'm'},
        {"compressor", required_argument, 0, 'c'}, {"collective", required_argument, 0, 'C'},
        {"gpus", required_argument, 0, 'g'},     {"scaling", required_argument, 0, 's'},
        {"batch", required_argument, 0, 'b'},    {"engine", required_argument, 0, 'e'},
        {"ps-shards", required_argument, 0, 'S'}, {"bucket", required_argument, 0, 'B'},
        {"no-overlap", no_argument, 0, 'n'},     {"format", required_argument, 0, 'f'},
        {"output", required_argument, 0, 'o'},   {"shard", required_argument, 0, 'k'},
        {"progress", no_argument, 0, 'P'},       {"no-progress", no_argument, 0, 'Q'},
        {"count", no_argument, 0, 'N'},          {"help", no_argument, 0, 'h'},
        {"exchange", required_argument, 0, 'X'}, {"stack", required_argument, 0, 'K'},
        {"precision", required_argument, 0, 1000}, {"optimizer", required_argument, 0, 1001},
        {"sharding", required_argument, 0, 1002},  {"grad-accum", required_argument, 0, 1003},
        {"act-ckpt", optional_argument, 0, 1004},
        {"max-cases", required_argument, 0, 1005},
        /* the list options by their plural names too (docs/cli.md, "One vocabulary") */
        {"platforms", required_argument, 0, 'p'}, {"models", required_argument, 0, 'm'},
        {"compressors", required_argument, 0, 'c'}, {"collectives", required_argument, 0, 'C'},
        {"stacks", required_argument, 0, 'K'},    {"scalings", required_argument, 0, 's'},
        {"batches", required_argument, 0, 'b'},   {"engines", required_argument, 0, 'e'},
        {0, 0, 0, 0}};
    optind = 1;
    opterr = 0;
    int ch;
    char msg[512];
    /* one value each, but for the axes of the grid, whose values add up */
    static const int lists[] = {'p', 'm', 'c', 'C', 'K', 's', 'b', 'e', 0};
    cli_seen seen = {0};
    cli_groups groups = {.variability = &o->run.variability};
    const struct option *all_longopts = cli_groups_begin(&groups, longopts);
    while ((ch = cli_getopt_long(argc, argv, ":h", all_longopts, "sweep")) != -1) {
        if (cli_values_once("sweep", ch, longopts, lists, &seen, argv))
            return -1;
        int group = cli_groups_option(&groups, "sweep", ch, optarg, argv);
        if (group < 0)
            return -1;
        if (group == 0)
            continue;
        int bad = 0;
        switch (ch) {
        case 'p': bad = sweep_list_add(&o->platforms, optarg, "--platform", msg, sizeof msg); break;
        case 'm': bad = sweep_list_add(&o->models, optarg, "--model", msg, sizeof msg); break;
        case 'c': bad = sweep_list_add_compressors(&o->compressors, optarg, msg, sizeof msg); break;
        case 'C': bad = sweep_list_add(&o->collectives, optarg, "--collective", msg, sizeof msg); break;
        case 'K': bad = sweep_list_add(&o->stacks, optarg, "--stack", msg, sizeof msg); break;
        case 's': bad = sweep_list_add(&o->scalings, optarg, "--scaling", msg, sizeof msg); break;
        case 'b': bad = sweep_list_add(&o->batches, optarg, "--batch", msg, sizeof msg); break;
        case 'e': bad = sweep_list_add(&o->engines, optarg, "--engine", msg, sizeof msg); break;
        case 'g': o->gpus = optarg; break;
        case 'o': o->output = optarg; break;
        case 'n': o->run.overlap = false; break;
        case 'P': o->progress = 1; break;
        case 'Q': o->progress = -1; break;
        case 'N': o->count_only = true; break;
        case 1000:
            if (cli_training_precision("sweep", optarg, &o->run.precision))
                return -1;
            break;
        case 1001:
            if (cli_training_optimizer("sweep", optarg, &o->run.optimizer))
                return -1;
            break;
        case 1002:
            if (cli_training_sharding("sweep", optarg, &o->run.sharding))
                return -1;
            break;
        case 1003:
            if (cli_training_grad_accum("sweep", optarg, &o->run.grad_accum))
                return -1;
            break;
        case 1004:
            if (cli_training_act_ckpt("sweep", optarg, &o->run.act_ckpt_policy))
                return -1;
            o->run.act_ckpt = true;
            break;
        case 1005:
            if (!cli_parse_int(optarg, 1, 1LL << 62, &o->max_cases)) {
                snprintf(msg, sizeof msg, "--max-cases: expected a positive number of cases, "
                                          "got \"%s\"", optarg);
                bad = 1;
            }
            break;
        case 'X':
            if (gcsim_exchange_parse(optarg, &o->run.exchange)) {
                snprintf(msg, sizeof msg, "--exchange: expected auto, allreduce, allgather or ps, "
                                          "got \"%s\"", optarg);
                bad = 1;
            }
            break;
        case 'S':
            if (!cli_parse_int(optarg, 1, 1 << 20, &o->run.ps_shards)) {
                snprintf(msg, sizeof msg, "--ps-shards: expected a positive integer, got \"%s\"", optarg);
                bad = 1;
            }
            break;
        case 'B':
            if (!gcsim_parse_whole_bytes(optarg, &o->run.bucket_bytes)) {
                snprintf(msg, sizeof msg, "--bucket: expected a size such as 25MiB, got \"%s\" "
                                          "(whole bytes, at most 2^50)", optarg);
                bad = 1;
            }
            break;
        case 'f':
            if (strcmp(optarg, "csv") == 0)
                o->format = SWEEP_CSV;
            else if (strcmp(optarg, "jsonl") == 0)
                o->format = SWEEP_JSONL;
            else {
                snprintf(msg, sizeof msg, "--format: expected csv or jsonl, got \"%s\"", optarg);
                bad = 1;
            }
            break;
        case 'k':
            if (parse_shard(optarg, &o->shard_k, &o->shard_n)) {
                snprintf(msg, sizeof msg, "--shard: expected K/N with 1 <= K <= N, got \"%s\"", optarg);
                bad = 1;
            }
            break;
        case 'h':
            sweep_usage(stdout);
            return 1;
        default: return cli_option_error("sweep", ch, argv);
        }
        if (bad) {
            fprintf(stderr, "gcsim sweep: %s\n", msg);
            return -1;
        }
    }
    if (cli_groups_finish(&groups, "sweep"))
        return -1;
    if (optind < argc) {
        cli_training_unexpected("sweep", argv[optind]);
        return -1;
    }
    return 0;
}

/* Loads every input and parses every value, so that any bad input stops the sweep before
 * it writes anything. */
static int build_space(const sweep_options *o, sweep_cache *cache, sweep_space *s)
{
    gcsim_error err;
    char msg[512];
    sweep_inputs in = {.n_platforms = o->platforms.n, .platforms = (const char *const *)o->platforms.items,
                       .n_models = o->models.n, .models = (const char *const *)o->models.items,
                       .n_compressors = o->compressors.n,
                       .compressors = (const char *const *)o->compressors.items,
                       .n_stacks = o->stacks.n, .stacks = (const char *const *)o->stacks.items,
                       .n_collectives = o->collectives.n, .n_scalings = o->scalings.n,
                       .n_batches = o->batches.n, .max_engines = 2 * (o->engines.n ? o->engines.n : 1),
                       .max_gpu_counts = MAX_GPU_COUNTS, .precision = o->run.precision,
                       .optimizer = o->run.optimizer};
    if (sweep_space_load(s, &in, cache, &err))
        goto fail;
    if (sweep_values_parse(s, &o->collectives, &o->scalings, &o->batches, &o->engines, &err))
        goto fail;
    for (int p = 0; p < s->n_platforms; p++) {
        if (o->gpus) {
            s->n_gpus[p] = gpu_list_parse(o->gpus, s->gpus[p], MAX_GPU_COUNTS, msg, sizeof msg);
            if (s->n_gpus[p] < 0) {
                fprintf(stderr, "gcsim sweep: %s\n", msg);
                return -1;
            }
        } else {
            long long capacity = (long long)s->platforms[p]->nodes * s->platforms[p]->gpus_per_node;
            s->n_gpus[p] = sweep_default_gpus(capacity, s->gpus[p], MAX_GPU_COUNTS);
        }
    }
    return 0;
fail:
    fprintf(stderr, "gcsim sweep: %s\n", err.message);
    return -1;
}

/* The temporary output file, removed if the sweep is interrupted (the command-line layer
 * is the one place allowed process-wide state: a signal handler has no other way in). */
static char *volatile interrupted_temp_path;

static void on_signal(int sig)
{
    char *path = interrupted_temp_path;
    if (path)
        unlink(path);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void watch_signals(const char *temp_path)
{
    interrupted_temp_path = (char *)temp_path;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

static void unwatch_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    interrupted_temp_path = NULL;
}

/* The sweep's rows to out (sweep_rows.h), with the progress bar when asked or stderr is a
 * terminal. */
static int run_sweep(const sweep_options *o, const sweep_space *s, FILE *out)
{
    /* A large sweep writes one MiB at a time instead of one st_blksize (4 KiB): the
     * 307,200-case sweep writes 133 MB (issue 47: 0.2 CPU-s of system time). A full disk
     * still stops it at the first buffer that cannot be written (issue 15), ~2,400 rows
     * of 430 bytes in, so only sweeps of at least 16,384 cases take it: a small one keeps
     * stopping within its first few rows. Nothing has been written to out yet (setvbuf's
     * precondition); a terminal keeps its line buffering. Static: out is closed after
     * this returns. */
    static char buffer[1 << 20];
    long long mine = sweep_shard_size(sweep_space_count(s), o->shard_k, o->shard_n);
    if (mine >= 16384 && !isatty(fileno(out)))
        setvbuf(out, buffer, _IOFBF, sizeof buffer);
    bool show = o->progress > 0 || (o->progress == 0 && isatty(STDERR_FILENO));
    case_options run = o->run;
    run.collective_given = o->collectives.n > 0;
    sweep_run_options ro = {.run = &run, .shard_k = o->shard_k, .shard_n = o->shard_n};
    return sweep_rows_write(s, &ro, o->format, show, out);
}

int cmd_sweep(int argc, char **argv)
{
    /* bucket 0: each case's stack's (25 MiB in DDP, with its 1 MiB first bucket) */
    sweep_options o = {.format = SWEEP_CSV, .max_cases = SWEEP_DEFAULT_MAX_CASES};
    case_options_init(&o.run);
    int rc = parse_options(argc, argv, &o);
    if (rc) {
        free_options(&o);
        return rc > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    }
    cli_files files;
    cli_files_init(&files, "sweep");
    for (int k = 0; k < o.platforms.n; k++)
        cli_files_platform(&files, "--platform", o.platforms.items[k]);
    for (int k = 0; k < o.models.n; k++)
        cli_files_model(&files, "--model", o.models.items[k]);
    for (int k = 0; k < o.stacks.n; k++)
        cli_files_stack(&files, "--stack", o.stacks.items[k]);
    cli_files_output(&files, "--output", o.output);
    if (cli_files_check(&files)) {
        free_options(&o);
        return EXIT_BAD_INPUT;
    }
    int status = EXIT_BAD_INPUT;
    sweep_cache *cache = sweep_cache_new(&inputs_loaders);
    sweep_space space = {0};
    if (!cache) {
        fprintf(stderr, "gcsim sweep: out of memory\n");
        goto done;
    }
    if (build_space(&o, cache, &space))
        goto done;
    if (o.count_only) {
        long long total = sweep_space_count(&space);
        if (o.shard_n)
            printf("%lld of %lld cases in shard %d/%d\n",
                   sweep_shard_size(total, o.shard_k, o.shard_n), total, o.shard_k, o.shard_n);
        else
            printf("%lld cases\n", total);
        status = EXIT_OK;
        goto done;
    }
    char msg[512];
    /* Before the output is opened: a product too large is said, not written until the
     * disk is full. */
    if (sweep_space_check_limit(&space, o.shard_k, o.shard_n, o.max_cases, msg, sizeof msg)) {
        fprintf(stderr, "gcsim sweep: %s\n", msg);
        goto done;
    }
    if (o.output) {
        atomic_file f;
        if (atomic_file_open(&f, o.output, msg, sizeof msg)) {
            fprintf(stderr, "gcsim sweep: %s\n", msg);
            goto done;
        }
        watch_signals(f.temp_path);
        int ran = ((errno = 0), run_sweep(&o, &space, f.stream));
        if (ran) {
            int write_errno = errno;
            atomic_file_abort(&f);
            unwatch_signals();
            if (ran == -2) /* said why */
                goto done;
            fprintf(stderr, "gcsim sweep: %s: write failed: %s\n", o.output, atomic_file_reason(write_errno));
            goto done;
        }
        if (atomic_file_commit(&f, msg, sizeof msg)) {
            unwatch_signals();
            fprintf(stderr, "gcsim sweep: %s\n", msg);
            goto done;
        }
        unwatch_signals();
    } else if ((rc = ((errno = 0), run_sweep(&o, &space, stdout))) || fflush(stdout)) {
        if (rc == -2) /* said why */
            goto done;
        fprintf(stderr, "gcsim sweep: cannot write to standard output: %s\n", atomic_file_reason(errno));
        goto done;
    }
    status = EXIT_OK;
done:
    sweep_space_free(&space);
    sweep_cache_free(cache);
    free_options(&o);
    return status;
}
