/*
 * gcsim: a cluster simulator and performance model for data-parallel DNN training with
 * gradient compression. This file only dispatches to the subcommands.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"

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
};

static void usage(FILE *out)
{
    fprintf(out, "usage: gcsim <command> [options]   (gcsim <command> --help for details)\n\n"
                 "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nexit codes: 0 success, 1 a check failed, 2 bad input or usage\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_BAD_INPUT;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "gcsim: unknown command \"%s\"\n\n", argv[1]);
    usage(stderr);
    return EXIT_BAD_INPUT;
}
