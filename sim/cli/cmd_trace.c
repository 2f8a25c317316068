/* gcsim trace info: what a gradient trace file holds, tensor by tensor, with statistics. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_args.h"
#include "cli_files.h"
#include "commands.h"
#include "report_emit.h"
#include "trace_table.h"
#include "traces.h"

extern const char gcsim_help_trace[]; /* docs/help/trace.txt */

static void trace_usage(FILE *out)
{
    cli_help(out, gcsim_help_trace, NULL);
}

int cmd_trace(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        trace_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_BAD_INPUT : EXIT_OK;
    }
    if (strcmp(argv[1], "info") != 0) {
        fprintf(stderr, "gcsim trace: unknown subcommand \"%s\" (expected info)\n", argv[1]);
        return EXIT_BAD_INPUT;
    }
    argc--;
    argv++;
    static const struct option longopts[] = {{"format", required_argument, 0, 'f'},
                                             {"output", required_argument, 0, 'o'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    report_format format = REPORT_TABLE;
    const char *output = NULL;
    optind = 1;
    opterr = 0;
    int ch;
    cli_seen seen = {0};
    while ((ch = cli_getopt_long(argc, argv, ":h", longopts, "trace info")) != -1) {
        if (cli_values_once("trace info", ch, longopts, NULL, &seen, argv))
            return EXIT_BAD_INPUT;
        switch (ch) {
        case 'f':
            if (cli_format_option("trace info", optarg, &format))
                return EXIT_BAD_INPUT;
            break;
        case 'o': output = optarg; break;
        case 'h': trace_usage(stdout); return EXIT_OK;
        case ':':
            fprintf(stderr, "gcsim trace info: %s needs a value\n", argv[optind - 1]);
            return EXIT_BAD_INPUT;
        default:
            fprintf(stderr, "gcsim trace info: unknown option \"%s\" (see gcsim trace --help)\n",
                    argv[optind - 1]);
            return EXIT_BAD_INPUT;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "gcsim trace info: no trace file given\n");
        return EXIT_BAD_INPUT;
    }
    cli_files files;
    cli_files_init(&files, "trace info");
    for (int i = optind; i < argc; i++)
        cli_files_input(&files, "a trace file", argv[i]);
    cli_files_output(&files, "--output", output);
    if (cli_files_check(&files))
        return EXIT_BAD_INPUT;
    int col[TRACE_TABLE_COLUMNS];
    report *r = trace_table_new(col);
    for (int i = optind; i < argc; i++) {
        if (trace_table_add(r, col, argv[i]) != 0) {
            report_free(r);
            return EXIT_BAD_INPUT;
        }
    }
    report_meta_int(r, "files", argc - optind);
    int rc = report_emit(r, format, output, "trace info");
    report_free(r);
    return rc;
}
