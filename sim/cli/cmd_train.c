/* gcsim train: data-parallel SGD with gradient compression on Fashion-MNIST or the UCI digits. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compressor_file.h"
#include "atomic_file.h"
#include "blas.h"
#include "cli_args.h"
#include "cli_files.h"
#include "commands.h"
#include "compressor.h"
#include "report.h"
#include "train.h"
#include "train_table.h"
#include "report_emit.h"

#define MAX_DUMP_STEPS 1024

extern const char gcsim_help_train[]; /* docs/help/train.txt */

static void train_usage(FILE *out)
{
    cli_help(out, gcsim_help_train, NULL);
}

typedef struct {
    train_config cfg;
    const char *data_dir, *output, *model_name;
    long long limit_train, limit_test;
    report_format format;
    long dump_steps[MAX_DUMP_STEPS];
    int has_dump_steps;
} train_options;

static int parse_steps(const char *text, long *steps, size_t *n)
{
    *n = 0;
    const char *p = text;
    while (*p) {
        char *end;
        errno = 0;
        if (*p < '0' || *p > '9') return -1;
        long v = strtol(p, &end, 10);
        if (errno || end == p || *n == MAX_DUMP_STEPS) return -1;
        steps[(*n)++] = v;
        if (*end == ',') {
            p = end + 1;
            if (!*p) return -1;
        } else if (*end == '\0') {
            p = end;
        } else {
            return -1;
        }
    }
    return *n ? 0 : -1;
}

static int parse_options(int argc, char **argv, train_options *o)
{
    static const struct option longopts[] = {
        {"model", required_argument, 0, 'm'},       {"workers", required_argument, 0, 'w'},
        {"compressor", required_argument, 0, 'c'},  {"epochs", required_argument, 0, 'e'},
        {"batch", required_argument, 0, 'b'},       {"lr", required_argument, 0, 'l'},
        {"seed", required_argument, 0, 's'},        {"momentum", required_argument, 0, 'M'},
        {"weight-decay", required_argument, 0, 'W'}, {"target-accuracy", required_argument, 0, 'a'},
        {"eval-every", required_argument, 0, 'E'},  {"data", required_argument, 0, 'd'},
        {"limit-train", required_argument, 0, 'L'}, {"limit-test", required_argument, 0, 'T'},
        {"dump-trace", required_argument, 0, 'D'},  {"dump-steps", required_argument, 0, 'S'},
        {"format", required_argument, 0, 'f'},      {"output", required_argument, 0, 'o'},
        {"stop-at-target", no_argument, 0, 'X'},
        {"help", no_argument, 0, 'h'},              {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    train_config_defaults(&o->cfg);
    o->data_dir = FMNIST_DEFAULT_DIR;
    o->format = REPORT_TABLE;
    optind = 1;
    opterr = 0;
    int ch;
    long long v;
    cli_seen seen = {0};
    while ((ch = cli_getopt_long(argc, argv, ":h", longopts, "train")) != -1) {
        if (cli_values_once("train", ch, longopts, NULL, &seen, argv))
            return -1;
        switch (ch) {
        case 'm':
            if (train_model_parse(optarg, &o->cfg.model)) {
                fprintf(stderr, "gcsim train: --model: expected softmax, mlp or lenet, got \"%s\"\n", optarg);
                return -1;
            }
            break;
        case 'w':
            if (cli_int_option("train", "--workers", optarg, 1, 4096, "an integer in 1..4096", &v))
                return -1;
            o->cfg.workers = (int)v;
            break;
        case 'c': o->cfg.compressor = optarg; break;
        case 'e':
            if (cli_int_option("train", "--epochs", optarg, 1, 10000, "an integer in 1..10000", &v))
                return -1;
            o->cfg.epochs = (int)v;
            break;
        case 'b':
            if (cli_int_option("train", "--batch", optarg, 1, 60000, "an integer in 1..60000", &v))
                return -1;
            o->cfg.batch = (int)v;
            break;
        case 'l':
            if (cli_num_option("train", "--lr", optarg, 1e-12, 1e3,
                               "a positive number", &o->cfg.lr))
                return -1;
            break;
        case 's':
            if (cli_int_option("train", "--seed", optarg, 0, (long long)(~0ull >> 1),
                               "a non-negative integer", &v))
                return -1;
            o->cfg.seed = (uint64_t)v;
            break;
        case 'M':
            if (cli_num_option("train", "--momentum", optarg, 0.0, 0.999999,
                               "a number in [0, 1)", &o->cfg.momentum))
                return -1;
            break;
        case 'W':
            if (cli_num_option("train", "--weight-decay", optarg, 0.0, 1.0,
                               "a number in [0, 1]", &o->cfg.weight_decay))
                return -1;
            break;
        case 'a':
            if (cli_num_option("train", "--target-accuracy", optarg, 1e-9, 1.0,
                               "a fraction in (0, 1]", &o->cfg.target_accuracy))
                return -1;
            break;
        case 'E':
            if (cli_int_option("train", "--eval-every", optarg, 0, 1LL << 40,
                               "a non-negative integer", &v))
                return -1;
            o->cfg.eval_every = (long)v;
            break;
        case 'X': o->cfg.stop_at_target = 1; break;
        case 'd': o->data_dir = optarg; break;
        case 'L':
            if (cli_int_option("train", "--limit-train", optarg, 1, 1LL << 40,
                               "a positive integer", &o->limit_train))
                return -1;
            break;
        case 'T':
            if (cli_int_option("train", "--limit-test", optarg, 1, 1LL << 40,
                               "a positive integer", &o->limit_test))
                return -1;
            break;
        case 'D': o->cfg.dump_dir = optarg; break;
        case 'S':
            if (parse_steps(optarg, o->dump_steps, &o->cfg.n_dump_steps)) {
                fprintf(stderr, "gcsim train: --dump-steps: expected comma-separated iterations "
                                "(non-negative integers, at most %d), got \"%s\"\n", MAX_DUMP_STEPS, optarg);
                return -1;
            }
            o->has_dump_steps = 1;
            break;
        case 'f':
            if (cli_format_option("train", optarg, &o->format))
                return -1;
            break;
        case 'o': o->output = optarg; break;
        case 'h':
            train_usage(stdout);
            return 1;
        default: return cli_option_error("train", ch, argv);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gcsim train: unexpected argument \"%s\"\n", argv[optind]);
        return -1;
    }
    if (o->cfg.stop_at_target && !(o->cfg.target_accuracy > 0.0)) {
        fprintf(stderr, "gcsim train: --stop-at-target needs --target-accuracy\n");
        return -1;
    }
    if (!!o->cfg.dump_dir != o->has_dump_steps) {
        fprintf(stderr, "gcsim train: --dump-trace and --dump-steps go together\n");
        return -1;
    }
    o->cfg.dump_steps = o->dump_steps;
    /* Checks that need no data, before the (slower) data loading. */
    if (o->cfg.batch % o->cfg.workers != 0) {
        fprintf(stderr, "gcsim train: --batch: %d samples cannot be split evenly among %d workers "
                        "(the batch must be a multiple of --workers)\n", o->cfg.batch, o->cfg.workers);
        return -1;
    }
    char err[1024];
    gc_compressor *probe = NULL;
    if (gcsim_compressor_is_file(o->cfg.compressor)) {
        fprintf(stderr, "gcsim train: --compressor: %s: a described compressor sizes payloads "
                        "only, it has no encoder to train with (docs/compressors.md)\n",
                o->cfg.compressor);
        return -1;
    }
    if (gc_compressor_create(o->cfg.compressor, &probe, err, sizeof err) != 0) {
        fprintf(stderr, "gcsim train: --compressor: %s\n", err);
        return -1;
    }
    gc_compressor_free(probe);
    return 0;
}

static int ensure_dir(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) return 0;
        fprintf(stderr, "gcsim train: --dump-trace: %s exists and is not a directory\n", path);
        return -1;
    }
    if (mkdir(path, 0777) != 0) {
        fprintf(stderr, "gcsim train: --dump-trace: cannot create %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* The data set's files and the trace dumps against --output (cli_files.h). */
static int check_files(const train_options *o)
{
    static const char *const data_files[] = {
        "train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
        "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz", DIGITS_FILE};
    cli_files files;
    cli_files_init(&files, "train");
    char path[4096];
    for (size_t k = 0; k < sizeof data_files / sizeof data_files[0]; k++) {
        snprintf(path, sizeof path, "%s/%s", o->data_dir, data_files[k]);
        cli_files_input(&files, "a file of --data", path);
    }
    for (size_t k = 0; o->cfg.dump_dir && k < o->cfg.n_dump_steps; k++) {
        bool again = false; /* a step listed twice is one file written twice */
        for (size_t j = 0; j < k; j++)
            again |= o->dump_steps[j] == o->dump_steps[k];
        snprintf(path, sizeof path, "%s/%s-step%06ld.safetensors", o->cfg.dump_dir,
                 train_model_name(o->cfg.model), o->dump_steps[k]);
        if (!again)
            cli_files_later_output(&files, "--dump-trace", path);
    }
    cli_files_output(&files, "--output", o->output);
    return cli_files_check(&files);
}

int cmd_train(int argc, char **argv)
{
    train_options o;
    int rc = parse_options(argc, argv, &o);
    if (rc) return rc > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    if (check_files(&o)) return EXIT_BAD_INPUT;
    if (o.cfg.dump_dir && ensure_dir(o.cfg.dump_dir)) return EXIT_BAD_INPUT;

    char msg[2048];
    fmnist_split train = {0}, test = {0};
    if (train_data_load(o.data_dir, "train", (size_t)o.limit_train, &train, msg, sizeof msg) ||
        train_data_load(o.data_dir, "t10k", (size_t)o.limit_test, &test, msg, sizeof msg)) {
        fprintf(stderr, "gcsim train: %s\n", msg);
        fmnist_free(&train);
        return EXIT_BAD_INPUT;
    }

    train_table sink;
    report *r = train_table_new(&sink);

    train_summary sum;
    if (train_run(&o.cfg, &train, &test, train_table_point, &sink, &sum, msg, sizeof msg)) {
        fprintf(stderr, "gcsim train: %s\n", msg);
        report_free(r);
        fmnist_free(&train);
        fmnist_free(&test);
        return EXIT_BAD_INPUT;
    }

    train_table_notes(r, &o.cfg, o.data_dir, &train, &test, &sum);
    rc = report_emit(r, o.format, o.output, "train");
    report_free(r);
    fmnist_free(&train);
    fmnist_free(&test);
    return rc;
}
