/*
 * sim/cli/cmd_catalog.c: `gcsim catalog`, what ships (platforms, models, training stacks,
 * compressors), one line each. The listing is sim/planning/catalog_list.c; this file parses
 * the command line and prints: one text table per kind (descriptions cut so a line fits
 * 100 columns), or one JSON/CSV table of every kind asked with a `kind` column and the
 * descriptions whole.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "atomic_file.h"
#include "catalog_list.h"
#include "catalog_table.h"
#include "cli_args.h"
#include "commands.h"
#include "data_dir.h"
#include "report.h"
#include "report_emit.h"

extern const char gcsim_help_catalog[]; /* docs/help/catalog.txt */

static void usage(FILE *out)
{
    cli_help(out, gcsim_help_catalog, NULL);
}

typedef struct {
    int kind; /* a gcsim_catalog_kind, or GCSIM_CATALOG_KINDS for all */
    report_format format;
    const char *output;
} options;

/* 0: run; 1: --help printed; -1: bad usage (message printed). */
static int parse(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"format", required_argument, 0, 'f'}, {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    optind = 1;
    opterr = 0;
    int ch;
    cli_seen seen = {0};
    while ((ch = cli_getopt_long(argc, argv, ":h", longopts, "catalog")) != -1) {
        if (cli_values_once("catalog", ch, longopts, NULL, &seen, argv))
            return -1;
        switch (ch) {
        case 'f':
            if (cli_format_option("catalog", optarg, &o->format))
                return -1;
            break;
        case 'o': o->output = optarg; break;
        case 'h': usage(stdout); return 1;
        default: return cli_option_error("catalog", ch, argv);
        }
    }
    if (optind < argc) {
        gcsim_catalog_kind k;
        if (gcsim_catalog_kind_parse(argv[optind], &k)) {
            fprintf(stderr, "gcsim catalog: unknown kind \"%s\" (platforms, models, stacks or "
                            "compressors)\n", argv[optind]);
            return -1;
        }
        o->kind = (int)k;
        if (optind + 1 < argc) {
            fprintf(stderr, "gcsim catalog: one kind at most, got \"%s\" after \"%s\" (no kind: "
                            "all four)\n", argv[optind + 1], argv[optind]);
            return -1;
        }
    }
    return 0;
}

int cmd_catalog(int argc, char **argv)
{
    options o = {.kind = GCSIM_CATALOG_KINDS, .format = REPORT_TABLE};
    int p = parse(argc, argv, &o);
    if (p)
        return p > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    if (report_file_usable(o.output, "catalog", "--output"))
        return EXIT_BAD_INPUT;
    gcsim_catalog_list lists[GCSIM_CATALOG_KINDS];
    int n_lists = 0, status = EXIT_OK;
    gcsim_error err = {0};
    for (int k = 0; k < GCSIM_CATALOG_KINDS && status == EXIT_OK; k++) {
        if (o.kind != GCSIM_CATALOG_KINDS && o.kind != k)
            continue;
        if (gcsim_catalog_list_kind((gcsim_catalog_kind)k, &lists[n_lists], &err)) {
            fprintf(stderr, "gcsim catalog: %s\n", err.message);
            status = exit_code_for(&err);
        } else
            n_lists++;
    }
    if (status == EXIT_OK) {
        char msg[1024];
        atomic_file f;
        if (o.output && atomic_file_open(&f, o.output, msg, sizeof msg)) {
            fprintf(stderr, "gcsim catalog: %s\n", msg);
            status = EXIT_BAD_INPUT;
        } else {
            FILE *out = o.output ? f.stream : stdout;
            errno = 0;
            if (catalog_table_write(out, lists, n_lists, o.format, o.kind) || (!o.output && fflush(stdout))) {
                fprintf(stderr, "gcsim catalog: cannot write to %s: %s\n",
                        o.output ? o.output : "standard output", atomic_file_reason(errno));
                if (o.output)
                    atomic_file_abort(&f);
                status = EXIT_BAD_INPUT;
            } else if (o.output && atomic_file_commit(&f, msg, sizeof msg)) {
                fprintf(stderr, "gcsim catalog: %s\n", msg);
                status = EXIT_BAD_INPUT;
            }
        }
    }
    for (int l = 0; l < n_lists; l++)
        gcsim_catalog_list_free(&lists[l]);
    return status;
}
