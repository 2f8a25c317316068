/*
 * gcsim: a cluster simulator and performance model for data-parallel DNN training with
 * gradient compression. This file only dispatches to the subcommands.
 */
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "data_dir.h"
#include "inputs.h"
#include "report.h"
#include "version.h"

typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"predict", cmd_predict, "training throughput of a model on a platform (analytic or DES)"},
    {"train", cmd_train, "data-parallel SGD with a compressor on Fashion-MNIST (convergence proxy)"},
    {"collective", cmd_collective, "one collective over message sizes: time, algbw, busbw as nccl-tests"},
    {"trace", cmd_trace, "gradient trace files: tensors, shapes, sizes, statistics (trace info)"},
    {"compress", cmd_compress, "compressors on real gradient traces: payload bytes, error, bias"},
    {"sweep", cmd_sweep, "the cross product of platforms, models, compressors, GPU counts (CSV/JSONL, shards)"},
    {"merge", cmd_merge, "join the outputs of sharded sweeps into the unsharded order"},
    {"check", cmd_check, "re-evaluate a committed baseline; exit 1 when throughput drifted (CI)"},
    {"plan", cmd_plan, "capacity planning: GPUs, compressor, collective for a target, ranked by cost"},
    {"breakeven", cmd_breakeven, "per compressor, the network bandwidth below which it beats fp32 (or why never)"},
    {"calibrate", cmd_calibrate, "fit a platform's latencies and bandwidths to nccl-tests all-reduce logs"},
    {"catalog", cmd_catalog, "what ships, one line each: platforms, models, stacks, compressors"},
    {"plot", cmd_plot, "a picture (gnuplot, PNG or SVG) of a sweep, a plan or a predict breakdown"},
};

/* `gcsim --version`: what a bug report needs to say which gcsim produced a number. */
static int print_version(void)
{
    printf("gcsim %s\n", GCSIM_VERSION);
    printf("commit: %s\n", GCSIM_GIT_COMMIT[0] ? GCSIM_GIT_COMMIT : "unknown (configured without git)");
    printf("built against: SimGrid %s, GSL %s, cJSON %s\n", GCSIM_SIMGRID_VERSION,
           GCSIM_GSL_VERSION, GCSIM_CJSON_VERSION);
    printf("engines: analytic%s\n", engine_des_available() ? ", des" : "");
    const char *missing = gcsim_data_dir_missing();
    printf("data: %s (%s%s%s)\n", gcsim_data_dir(), gcsim_data_dir_origin(),
           missing ? ": " : "", missing ? missing : "");
    return fflush(stdout) == 0 ? EXIT_OK : EXIT_INTERNAL;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: gcsim <command> [options]   (gcsim <command> --help for details)\n"
                 "       gcsim --version\n\n"
                 "every command: --wide prints its text tables whole, one line per row (by\n"
                 "default they fit 100 columns: short headers, stacked tables, a legend)\n\n"
                 "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    /* The README's list (tests/cli/exit_codes.sh keeps the two the same). */
    fprintf(out, "\nexit codes: 0 success, 1 a check failed, 2 bad input or usage, 3 an "
                 "internal error\n");
}

/* The first argument holding a control character (a byte below 0x20, or 0x7f), or 0. No
 * option, name, number or path gcsim takes has one, and messages echo arguments: an ESC or a
 * BEL typed (or pasted) into one would reach the terminal with the message (issue 45). */
static int argument_with_control(int argc, char **argv, int *at)
{
    for (int k = 1; k < argc; k++)
        for (const unsigned char *c = (const unsigned char *)argv[k]; *c; c++)
            if (*c < 0x20 || *c == 0x7f) {
                *at = (int)((const char *)c - argv[k]);
                return k;
            }
    return 0;
}

/* Writes text to stderr with control bytes as \xNN. */
static void put_escaped(const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            fprintf(stderr, "\\x%02x", *c);
        else
            fputc(*c, stderr);
}

int main(int argc, char **argv)
{
    /* Planners build and free the same large schedules case after case: with glibc's
     * defaults each block over 128 KiB is its own mapping, unmapped on free and faulted in
     * page by page on the next case (a third of a sweep of railed trees went to page
     * faults). Keep such blocks in the heap and freed memory mapped. */
    mallopt(M_MMAP_THRESHOLD, 64 * 1024 * 1024);
    mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
    gcsim_data_dir_init();
    if (argc < 2) {
        usage(stderr);
        return EXIT_BAD_INPUT;
    }
    int at, bad = argument_with_control(argc, argv, &at);
    if (bad) {
        const char *prev = bad > 2 ? argv[bad - 1] : "";
        /* prev, before the first argument with a control byte, has none */
        bool value_of = strncmp(prev, "--", 2) == 0 && !strchr(prev, '=');
        fprintf(stderr, "gcsim: argument %d (%s%s%s\"", bad, value_of ? "the value of " : "",
                value_of ? prev : "", value_of ? ", " : "");
        put_escaped(argv[bad]);
        fprintf(stderr, "\") holds the control character \\x%02x at byte %d: no option, name, "
                        "number or path gcsim takes has one\n",
                (unsigned char)argv[bad][at], at + 1);
        return EXIT_BAD_INPUT;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0)
        return print_version();
    const char *missing = gcsim_data_dir_missing();
    if (missing) {
        fprintf(stderr, "gcsim: %s: the data folder of this installed gcsim is missing (%s): "
                        "reinstall it (cmake --install BUILD --prefix PREFIX puts it in "
                        "PREFIX/share/gcsim)\n", gcsim_data_dir(), missing);
        return EXIT_BAD_INPUT;
    }
    /* --wide is every command's (issue 46): the text tables in their plain layout, one line
     * per row, instead of fitted to 100 columns. Taken out here so that no command's
     * options need to know it (predict's first screen asks report_table_limit()). */
    int kept = 2;
    for (int k = 2; k < argc; k++) {
        if (strcmp(argv[k], "--wide") == 0)
            report_table_set_wide(true);
        else
            argv[kept++] = argv[k];
    }
    argv[kept] = NULL;
    argc = kept;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "gcsim: unknown command \"%s\"\n\n", argv[1]);
    usage(stderr);
    return EXIT_BAD_INPUT;
}
