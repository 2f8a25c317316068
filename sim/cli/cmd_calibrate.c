/* gcsim calibrate: platform figures fitted to nccl-tests all-reduce logs. The fitting and
 * patching live in sim/calibrate (calibrate.h); this file parses options and prints. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "calibrate.h"
#include "calibrate_report.h"
#include "cli_args.h"
#include "cli_files.h"
#include "commands.h"
#include "data_dir.h"
#include "report_emit.h"
#include "units.h"

extern const char gcsim_help_calibrate[]; /* docs/help/calibrate.txt */

static void calibrate_usage(FILE *out)
{
    char v[4][24];
    snprintf(v[0], sizeof v[0], "%ld", NCCL_LOG_MAX_BYTES);
    snprintf(v[1], sizeof v[1], "%d", NCCL_LOG_MAX_ROWS);
    snprintf(v[2], sizeof v[2], "%d", NCCL_LOG_MAX_RANKS);
    snprintf(v[3], sizeof v[3], "%d", NCCL_LOG_MAX_TABLES);
    const char *const values[] = {"@LOG_MAX_BYTES@", v[0], "@LOG_MAX_ROWS@", v[1],
                                  "@LOG_MAX_RANKS@", v[2], "@LOG_MAX_TABLES@", v[3], NULL};
    cli_help(out, gcsim_help_calibrate, values);
}

typedef struct {
    calib_options calib;
    report_format format;
    char platform_file[PATH_MAX]; /* a catalog name resolved */
} calibrate_cli;

static int parse_options(int argc, char **argv, calibrate_cli *o)
{
    static const struct option longopts[] = {
        {"log", required_argument, 0, 'l'},      {"gpus", required_argument, 0, 'g'},
        {"nodes", required_argument, 0, 'n'},    {"platform", required_argument, 0, 'p'},
        {"output", required_argument, 0, 'o'},   {"out-of-place", no_argument, 0, 'O'},
        {"min-size", required_argument, 0, 'm'}, {"format", required_argument, 0, 'f'},
        {"table", required_argument, 0, 't'},    {"force", no_argument, 0, 'F'},
        {"collective", required_argument, 0, 'C'}, {"protocol", required_argument, 0, 'P'},
        {"nccl-min-channels", required_argument, 0, 'c'},
        {"nccl-max-channels", required_argument, 0, 'X'},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->format = REPORT_TABLE;
    o->calib.min_size_bytes = CALIB_DEFAULT_MIN_SIZE_BYTES;
    calib_options *c = &o->calib;
    optind = 1;
    opterr = 0;
    int ch;
    /* one value each, but for the logs and what each log says of its run (checked per log) */
    static const int lists[] = {'l', 'g', 'n', 't', 'C', 'P', 0};
    cli_seen seen = {0};
    while ((ch = cli_getopt_long(argc, argv, ":h", longopts, "calibrate")) != -1) {
        if (cli_values_once("calibrate", ch, longopts, lists, &seen, argv))
            return EXIT_BAD_INPUT;
        long long v;
        switch (ch) {
        case 'l':
            if (c->n_logs == CALIB_MAX_LOGS) {
                fprintf(stderr, "gcsim calibrate: at most %d --log files (a single-node and a "
                                "multi-node one)\n", CALIB_MAX_LOGS);
                return EXIT_BAD_INPUT;
            }
            c->log_paths[c->n_logs++] = optarg;
            break;
        case 'g':
        case 'n':
            if (c->n_logs == 0) {
                fprintf(stderr, "gcsim calibrate: --%s applies to the --log before it; give "
                                "--log first\n", ch == 'g' ? "gpus" : "nodes");
                return EXIT_BAD_INPUT;
            }
            if (!cli_parse_int(optarg, ch == 'g' ? 2 : 1, NCCL_LOG_MAX_RANKS, &v)) {
                fprintf(stderr, "gcsim calibrate: --%s: \"%s\" is not a count %s\n",
                        ch == 'g' ? "gpus" : "nodes", optarg,
                        ch == 'g' ? "of at least 2 GPUs" : "of at least 1 node");
                return EXIT_BAD_INPUT;
            }
            if ((ch == 'g' ? c->gpus : c->nodes)[c->n_logs - 1]) {
                fprintf(stderr, "gcsim calibrate: --%s given twice for --log %s (it takes one "
                                "value per log)\n", ch == 'g' ? "gpus" : "nodes",
                        c->log_paths[c->n_logs - 1]);
                return EXIT_BAD_INPUT;
            }
            (ch == 'g' ? c->gpus : c->nodes)[c->n_logs - 1] = (int)v;
            break;
        case 't':
            if (c->n_logs == 0) {
                fprintf(stderr, "gcsim calibrate: --table applies to the --log before it; give "
                                "--log first\n");
                return EXIT_BAD_INPUT;
            }
            if (!cli_parse_int(optarg, 1, NCCL_LOG_MAX_TABLES, &v)) {
                fprintf(stderr, "gcsim calibrate: --table: \"%s\" is not a table number from 1 "
                                "to %d\n", optarg, NCCL_LOG_MAX_TABLES);
                return EXIT_BAD_INPUT;
            }
            if (c->table[c->n_logs - 1]) {
                fprintf(stderr, "gcsim calibrate: --table given twice for --log %s (it takes one "
                                "value per log)\n", c->log_paths[c->n_logs - 1]);
                return EXIT_BAD_INPUT;
            }
            c->table[c->n_logs - 1] = (int)v;
            break;
        case 'C':
        case 'P': {
            const char *name = ch == 'C' ? "collective" : "protocol";
            const char **slot = ch == 'C' ? c->collective : c->protocol;
            if (c->n_logs == 0) {
                fprintf(stderr, "gcsim calibrate: --%s applies to the --log before it; give "
                                "--log first\n", name);
                return EXIT_BAD_INPUT;
            }
            if (slot[c->n_logs - 1]) {
                fprintf(stderr, "gcsim calibrate: --%s given twice for --log %s (it takes one "
                                "value per log)\n", name, c->log_paths[c->n_logs - 1]);
                return EXIT_BAD_INPUT;
            }
            slot[c->n_logs - 1] = optarg;
            break;
        }
        case 'c':
        case 'X':
            /* NCCL_MIN_CTAS / NCCL_MAX_CTAS of the logs' runs, as gcsim collective's */
            if (cli_int_option("calibrate", ch == 'c' ? "--nccl-min-channels"
                                                      : "--nccl-max-channels",
                               optarg, 1, 64, "a channel count from 1 to 64", &v))
                return EXIT_BAD_INPUT;
            *(ch == 'c' ? &c->nccl_min_channels : &c->nccl_max_channels) = (int)v;
            break;
        case 'F': c->force = true; break;
        case 'p': c->platform_path = optarg; break;
        case 'o': c->output_path = optarg; break;
        case 'O': c->out_of_place = true; break;
        case 'm': {
            double bytes;
            if (cli_parse_int(optarg, 0, 1LL << 50, &v))
                bytes = (double)v;
            else if (!gcsim_parse_size_bytes(optarg, &bytes)) {
                fprintf(stderr, "gcsim calibrate: --min-size: expected a size such as 1MiB or "
                                "a byte count, got \"%s\"\n", optarg);
                return EXIT_BAD_INPUT;
            }
            c->min_size_bytes = bytes;
            break;
        }
        case 'f':
            if (cli_format_option("calibrate", optarg, &o->format))
                return EXIT_BAD_INPUT;
            break;
        case 'h': calibrate_usage(stdout); return EXIT_OK;
        default: cli_option_error("calibrate", ch, argv); return EXIT_BAD_INPUT;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gcsim calibrate: unexpected argument \"%s\"\n", argv[optind]);
        return EXIT_BAD_INPUT;
    }
    const char *missing = c->n_logs == 0         ? "--log"
                          : !c->platform_path    ? "--platform"
                          : !c->output_path      ? "--output"
                                                 : NULL;
    if (missing) {
        fprintf(stderr, "gcsim calibrate: %s is required (see gcsim calibrate --help)\n",
                missing);
        return EXIT_BAD_INPUT;
    }
    /* A catalog name ("h100-ndr"), as --platform of the other commands (inputs.c). */
    if (gcsim_data_catalog_path("platforms", c->platform_path, o->platform_file,
                                sizeof o->platform_file) == 0)
        c->platform_path = o->platform_file;
    return -1;
}

int cmd_calibrate(int argc, char **argv)
{
    calibrate_cli o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0)
        return rc;
    /* --output may not be the base platform or a log it was fitted to (cli_files.h). */
    cli_files files;
    cli_files_init(&files, "calibrate");
    for (int k = 0; k < o.calib.n_logs; k++)
        cli_files_input(&files, "--log", o.calib.log_paths[k]);
    cli_files_platform(&files, "--platform", o.calib.platform_path);
    cli_files_output(&files, "--output", o.calib.output_path);
    if (cli_files_check(&files))
        return EXIT_BAD_INPUT;
    calib_result r;
    gcsim_error err;
    if (calib_run(&o.calib, &r, &err)) {
        fprintf(stderr, "gcsim calibrate: %s\n", err.message);
        return exit_code_for(&err);
    }
    for (int i = 0; i < r.n_notes; i++)
        fprintf(stderr, "gcsim calibrate: note: %s\n", r.notes[i]);
    for (int i = 0; i < r.n_warnings; i++)
        fprintf(stderr, "gcsim calibrate: warning: %s\n", r.warnings[i]);
    report *rep = calibrate_report(&o.calib, &r);
    rc = report_emit_text(o.calib.output_path, r.platform_json, "calibrate") ? EXIT_BAD_INPUT
                                                                              : EXIT_OK;
    if (rc == EXIT_OK)
        rc = report_emit(rep, o.format, NULL, "calibrate");
    report_free(rep);
    calib_result_free(&r);
    return rc;
}
