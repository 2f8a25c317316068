/* gcsim collective: one collective operation over a range of message sizes, from both
 * engines, with time, algbw and busbw as nccl-tests defines them. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analytic.h"
#include "cli_args.h"
#include "gpu_list.h"
#include "cli_groups.h"
#include "cli_files.h"
#include "collectives.h"
#include "commands.h"
#include "des.h"
#include "inputs.h"
#include "protocol.h"
#include "collective_table.h"
#include "report_emit.h"
#include "size_list.h"
#include "units.h"

#define MAX_SIZES 64
#define MAX_GPU_COUNTS 64

extern const char gcsim_help_collective[]; /* docs/help/collective.txt */

static void collective_usage(FILE *out)
{
    char n[16];
    snprintf(n, sizeof n, "%d", MAX_GPU_COUNTS);
    const char *const values[] = {"@MAX_GPU_COUNTS@", n, NULL};
    cli_help(out, gcsim_help_collective, values);
}

typedef struct {
    const char *platform, *sizes, *output;
    int gpus[MAX_GPU_COUNTS];
    int gpu_counts; /* 0: --gpus not given */
    gcsim_op op;
    gcsim_collective collective;
    bool collective_given;
    gcsim_protocol protocol; /* GCSIM_PROTO_COUNT: the tuner's */
    int engines; /* bit 1 analytic, bit 2 des */
    report_format format;
    int elem_bytes; /* --dtype: 4 or 2 */
    const char *dtype; /* its name as reported: fp32, bf16 or fp16 */
    cli_fabric_options fabric; /* --background-load, --background-links (cli_fabric.h) */
    int nccl_min_channels, nccl_max_channels; /* --nccl-min/max-channels; 0: not set */
} collective_options;

static int parse_options(int argc, char **argv, collective_options *o)
{
    static const struct option longopts[] = {
        {"platform", required_argument, 0, 'p'}, {"gpus", required_argument, 0, 'g'},
        {"op", required_argument, 0, 'o'},       {"sizes", required_argument, 0, 's'},
        {"collective", required_argument, 0, 'C'}, {"engine", required_argument, 0, 'e'},
        {"format", required_argument, 0, 'f'},   {"output", required_argument, 0, 'O'},
        {"protocol", required_argument, 0, 'P'}, {"dtype", required_argument, 0, 'd'},
        {"nccl-min-channels", required_argument, 0, 'm'},
        {"nccl-max-channels", required_argument, 0, 'M'},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
    *o = (collective_options){.sizes = "8B:8GiB", .op = GCSIM_OP_ALLREDUCE, .engines = 3,
                              .format = REPORT_TABLE, .protocol = GCSIM_PROTO_COUNT,
                              .elem_bytes = 4, .dtype = "fp32"};
    cli_groups groups = {.fabric = &o->fabric};
    const struct option *all_longopts = cli_groups_begin(&groups, longopts);
    optind = 1;
    opterr = 0;
    int c;
    cli_seen seen = {0};
    while ((c = cli_getopt_long(argc, argv, "", all_longopts, "collective")) != -1) {
        if (cli_values_once("collective", c, longopts, NULL, &seen, argv))
            return EXIT_BAD_INPUT;
        int group = cli_groups_option(&groups, "collective", c, optarg, argv);
        if (group < 0)
            return EXIT_BAD_INPUT;
        if (group == 0)
            continue;
        switch (c) {
        case 'p': o->platform = optarg; break;
        case 's': o->sizes = optarg; break;
        case 'O': o->output = optarg; break;
        case 'd':
            if (strcmp(optarg, "fp32") == 0 || strcmp(optarg, "float") == 0)
                o->elem_bytes = 4, o->dtype = "fp32";
            else if (strcmp(optarg, "bf16") == 0 || strcmp(optarg, "bfloat16") == 0)
                o->elem_bytes = 2, o->dtype = "bf16";
            else if (strcmp(optarg, "fp16") == 0 || strcmp(optarg, "half") == 0)
                o->elem_bytes = 2, o->dtype = "fp16";
            else {
                fprintf(stderr, "gcsim collective: --dtype: expected fp32, bf16 or fp16, got "
                                "\"%s\"\n", optarg);
                return EXIT_BAD_INPUT;
            }
            break;
        case 'g': {
            char msg[256];
            o->gpu_counts = gpu_list_parse(optarg, o->gpus, MAX_GPU_COUNTS, msg, sizeof msg);
            if (o->gpu_counts < 0) {
                fprintf(stderr, "gcsim collective: %s\n", msg);
                return EXIT_BAD_INPUT;
            }
            break;
        }
        case 'o':
            if (gcsim_op_parse(optarg, &o->op)) {
                fprintf(stderr, "gcsim collective: --op: expected allreduce, allgather, "
                                "reducescatter or broadcast, got \"%s\"\n", optarg);
                return EXIT_BAD_INPUT;
            }
            break;
        case 'C':
            o->collective_given = true;
            if (gcsim_collective_parse_algorithm(optarg, &o->collective)) {
                fprintf(stderr, "gcsim collective: --collective: expected ring, halving-doubling, "
                                "tree, double-tree, hierarchical, nvls, ps or allgather, got \"%s\"\n", optarg);
                return EXIT_BAD_INPUT;
            }
            break;
        case 'P':
            if (strcmp(optarg, "auto") != 0 && gcsim_protocol_parse(optarg, &o->protocol)) {
                fprintf(stderr, "gcsim collective: --protocol: expected simple, ll128, ll or auto, "
                                "got \"%s\"\n", optarg);
                return EXIT_BAD_INPUT;
            }
            break;
        case 'e':
            o->engines = strcmp(optarg, "analytic") == 0 ? 1 : strcmp(optarg, "des") == 0 ? 2
                         : strcmp(optarg, "both") == 0   ? 3 : 0;
            if (!o->engines) {
                fprintf(stderr, "gcsim collective: --engine: expected analytic, des or both, got \"%s\"\n", optarg);
                return EXIT_BAD_INPUT;
            }
            break;
        case 'f':
            if (cli_format_option("collective", optarg, &o->format))
                return EXIT_BAD_INPUT;
            break;
        case 'm':
        case 'M': {
            /* NCCL_MIN_CTAS / NCCL_MAX_CTAS (and _NCHANNELS): 1 to MAXCHANNELS, 64 */
            long long v;
            if (cli_int_option("collective", c == 'm' ? "--nccl-min-channels"
                                                      : "--nccl-max-channels",
                               optarg, 1, 64, "a channel count from 1 to 64", &v))
                return EXIT_BAD_INPUT;
            *(c == 'm' ? &o->nccl_min_channels : &o->nccl_max_channels) = (int)v;
            break;
        }
        case 'h': collective_usage(stdout); return EXIT_OK;
        default:
            fprintf(stderr, "gcsim collective: unknown or incomplete option \"%s\" (see --help)\n",
                    argv[optind - 1]);
            return EXIT_BAD_INPUT;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gcsim collective: unexpected argument \"%s\"\n", argv[optind]);
        return EXIT_BAD_INPUT;
    }
    if (cli_groups_finish(&groups, "collective"))
        return EXIT_BAD_INPUT;
    if (!o->gpu_counts) {
        fprintf(stderr, "gcsim collective: --gpus is required\n");
        return EXIT_BAD_INPUT;
    }
    /* One GPU exchanges nothing: its time is 0, algbw infinite and busbw 0 x inf (it printed
     * inf and -nan). nccl-tests' busbw factors are defined from 2 ranks. The list increases,
     * so only its first count can be 1. */
    if (o->gpus[0] < 2) {
        fprintf(stderr, "gcsim collective: --gpus 1: a collective needs at least 2 GPUs (one "
                        "GPU has nothing to exchange, so no time or bandwidth to report)\n");
        return EXIT_BAD_INPUT;
    }
    return -1;
}

int cmd_collective(int argc, char **argv)
{
    collective_options o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0)
        return rc;
    cli_files files;
    cli_files_init(&files, "collective");
    cli_files_platform(&files, "--platform", o.platform);
    cli_files_output(&files, "--output", o.output);
    if (cli_files_check(&files))
        return EXIT_BAD_INPUT;
    double sizes[MAX_SIZES];
    char msg[1024];
    int n = gcsim_parse_size_list(o.sizes, sizes, MAX_SIZES, msg, sizeof msg);
    if (n < 0) {
        fprintf(stderr, "gcsim collective: %s\n", msg);
        return EXIT_BAD_INPUT;
    }
    gcsim_platform platform;
    gcsim_error err = {.internal = 0};
    if (inputs_load_platform(o.platform, &platform, &err)) {
        fprintf(stderr, "gcsim collective: %s\n", err.message);
        return EXIT_BAD_INPUT;
    }
    if (cli_fabric_apply("collective", &o.fabric, &platform))
        return EXIT_BAD_INPUT;
    platform.nccl_env.min_channels = o.nccl_min_channels;
    platform.nccl_env.max_channels = o.nccl_max_channels;
    /* A count the platform cannot hold is skipped with its reason (a note, and on stderr);
     * the others are timed (issue 46). None left: exit 2. */
    char skipped[1024] = "";
    int n_fit = 0;
    for (int g = 0; g < o.gpu_counts; g++)
        if (o.gpus[g] <= (long long)platform.nodes * platform.gpus_per_node)
            o.gpus[n_fit++] = o.gpus[g];
        else if (!skipped[0]) /* counts increase: the first too large, and the rest */
            snprintf(skipped, sizeof skipped, "%.900s: --gpus %d%s does not fit %d nodes x %d GPUs",
                     platform.source_path, o.gpus[g], g + 1 < o.gpu_counts ? " and above" : "",
                     platform.nodes, platform.gpus_per_node);
    if (skipped[0])
        fprintf(stderr, "gcsim collective: %s%s\n", skipped, n_fit ? ": skipped" : "");
    if (!(o.gpu_counts = n_fit))
        return EXIT_BAD_INPUT;
    /* The tuner picks the algorithm unless the user or the platform names one (a paper's
     * pattern is no NCCL algorithm: the tuner's then); other operations have one each. */
    gcsim_collective forced = COLLECTIVE_COUNT;
    if (!o.collective_given && platform.collective[0]) {
        o.collective_given = gcsim_platform_default_algorithm(&platform, &o.collective);
    }
    if (o.collective_given && o.op == GCSIM_OP_ALLREDUCE)
        forced = o.collective;
    collective_request q = {.op = o.op, .protocol = o.protocol, .engines = o.engines,
                            .elem_bytes = o.elem_bytes, .dtype = o.dtype, .forced = forced,
                            .gpus = o.gpus, .n_gpus = o.gpu_counts, .sizes = sizes, .n_sizes = n,
                            .skipped = skipped};
    int status = EXIT_OK;
    report *r = collective_table(&q, &platform, &status);
    if (status == EXIT_OK)
        status = report_emit(r, o.format, o.output, "collective");
    report_free(r);
    return status;
}
