/*
 * gcsim compress: compressors on real gradient traces, side by side: exact payload bytes,
 * compression ratio, normalized error, cosine, density, bias. The files of a trace series
 * run in the order of their step metadata, so that stateful compressors (error feedback,
 * DGC momentum) see the real sequence of gradients.
 */
#include <getopt.h>
#include <math.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atomic_file.h"
#include "cli_args.h"
#include "cli_files.h"
#include "commands.h"
#include "compressor.h"
#include "metrics.h"
#include "compress_table.h"
#include "report.h"
#include "sweep_lists.h"
#include "traces.h"
#include "report_emit.h"

#define MAX_SPECS 64
#define MAX_FILES 4096

/* The names --compressor takes, from the library's registry (the help listed none). */
static void print_compressor_names(FILE *out)
{
    fprintf(out, "\nCompressors (NAME, or ef+NAME for error feedback; keys and defaults in\n"
                 "docs/compressors.md):\n ");
    int column = 1;
    const char *const *names = gc_compressor_names();
    for (int i = 0; names[i]; i++) {
        int width = (int)strlen(names[i]) + 2;
        if (column + width > 88) {
            fprintf(out, "\n ");
            column = 1;
        }
        column += fprintf(out, " %s%s", names[i], names[i + 1] ? "," : "\n");
    }
}

extern const char gcsim_help_compress[]; /* docs/help/compress.txt */

static void compress_usage(FILE *out)
{
    cli_help(out, gcsim_help_compress, NULL);
    print_compressor_names(out);
}

typedef struct {
    const char *files[MAX_FILES];
    int n_files;
    const char *specs[MAX_SPECS]; /* spec_list's items */
    int n_specs;
    sweep_list spec_list;         /* --compressor, --compressors: comma lists, as in sweep */
    int seeds;
    long long seed;
    int per_layer, quiet;
    report_format format;
    const char *output;
} compress_options;

static int parse_options(int argc, char **argv, compress_options *o)
{
    static const struct option longopts[] = {
        {"trace", required_argument, 0, 't'},    {"compressor", required_argument, 0, 'c'},
        {"compressors", required_argument, 0, 'c'},
        {"seeds", required_argument, 0, 'r'},    {"seed", required_argument, 0, 's'},
        {"per-layer", no_argument, 0, 'p'},      {"quiet", no_argument, 0, 'q'},
        {"format", required_argument, 0, 'f'},   {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    o->seeds = 4;
    o->seed = 1;
    o->format = REPORT_TABLE;
    optind = 1;
    opterr = 0;
    int ch;
    long long v;
    /* "+": no argument permutation, so the files after --trace stay where they are. */
    static const int lists[] = {'t', 'c', 0};
    cli_seen seen = {0};
    while ((ch = cli_getopt_long(argc, argv, "+:h", longopts, "compress")) != -1) {
        if (cli_values_once("compress", ch, longopts, lists, &seen, argv))
            return -1;
        switch (ch) {
        case 't':
            /* --trace takes its value and every following argument up to the next option
             * (so a shell glob works), in both the "--trace F" and "--trace=F" forms. */
            for (const char *file = optarg; file;
                 file = optind < argc && argv[optind][0] != '-' ? argv[optind++] : NULL) {
                if (o->n_files == MAX_FILES) {
                    fprintf(stderr, "gcsim compress: more than %d trace files\n", MAX_FILES);
                    return -1;
                }
                o->files[o->n_files++] = file;
            }
            break;
        case 'c': {
            /* a comma list as in sweep and plan: "terngrad,qsgd:s=4,bucket=512" is two */
            char msg[512];
            if (sweep_list_add_compressors(&o->spec_list, optarg, msg, sizeof msg)) {
                fprintf(stderr, "gcsim compress: %s\n", msg);
                return -1;
            }
            break;
        }
        case 'r':
            if (!cli_parse_int(optarg, 0, 1000, &v) || v == 1) {
                fprintf(stderr, "gcsim compress: --seeds: expected 0 or an integer in 2..1000, "
                                "got \"%s\"\n", optarg);
                return -1;
            }
            o->seeds = (int)v;
            break;
        case 's':
            if (cli_int_option("compress", "--seed", optarg, 0, (long long)(~0ull >> 1),
                               "a non-negative integer", &o->seed))
                return -1;
            break;
        case 'p': o->per_layer = 1; break;
        case 'q': o->quiet = 1; break;
        case 'f':
            if (cli_format_option("compress", optarg, &o->format))
                return -1;
            break;
        case 'o': o->output = optarg; break;
        case 'h': compress_usage(stdout); return 1;
        default: return cli_option_error("compress", ch, argv);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gcsim compress: unexpected argument \"%s\"\n", argv[optind]);
        return -1;
    }
    if (o->spec_list.n > MAX_SPECS) {
        fprintf(stderr, "gcsim compress: more than %d compressors\n", MAX_SPECS);
        return -1;
    }
    for (int i = 0; i < o->spec_list.n; i++)
        o->specs[o->n_specs++] = o->spec_list.items[i];
    if (o->n_files == 0 || o->n_specs == 0) {
        fprintf(stderr, "gcsim compress: %s is required (see gcsim compress --help)\n",
                o->n_files == 0 ? "--trace FILE" : "--compressor SPEC");
        return -1;
    }
    return 0;
}

static int compress_command(int argc, char **argv, compress_options *op)
{
    compress_options o;
    int prc = parse_options(argc, argv, &o);
    op->spec_list = o.spec_list; /* freed by cmd_compress, whatever the way out */
    if (prc != 0)
        return prc > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    cli_files files;
    cli_files_init(&files, "compress");
    for (int i = 0; i < o.n_files; i++)
        cli_files_input(&files, "--trace", o.files[i]);
    cli_files_output(&files, "--output", o.output);
    if (cli_files_check(&files))
        return EXIT_BAD_INPUT;
    char err[1024];
    /* Every spec is checked before any work, so a typo fails fast. A described compressor
     * (payload sizes only, no encoder) cannot run on gradients: skipped with its reason,
     * the others answered (issue 46); none left is exit 2. */
    char skipped[1024] = "";
    int n_run = 0;
    for (int i = 0; i < o.n_specs; i++) {
        gc_compressor *c;
        if (gc_compressor_create(o.specs[i], &c, err, sizeof err) != 0) {
            fprintf(stderr, "gcsim compress: --compressor \"%s\": %s\n", o.specs[i], err);
            return EXIT_BAD_INPUT;
        }
        bool described = strcmp(gc_compressor_name(c), "described") == 0;
        gc_compressor_free(c);
        if (!described)
            o.specs[n_run++] = o.specs[i];
        else if (snprintf(skipped, sizeof skipped, "%.700s: a described compressor sizes "
                          "payloads only: it has no encoder to run on gradients "
                          "(docs/compressors.md)", o.specs[i]) > 0)
            fprintf(stderr, "gcsim compress: %s%s\n", skipped, o.n_specs > 1 ? ": skipped" : "");
    }
    if (!(o.n_specs = n_run))
        return EXIT_BAD_INPUT;
    compress_series_file *s = calloc((size_t)o.n_files, sizeof *s);
    if (!s) {
        fprintf(stderr, "gcsim compress: out of memory\n");
        return EXIT_BAD_INPUT;
    }
    int rc = EXIT_OK;
    report *r = NULL;
    if (compress_series_open(o.files, o.n_files, s, err, sizeof err) != 0) {
        fprintf(stderr, "gcsim compress: %s\n", err);
        rc = EXIT_BAD_INPUT;
        goto out;
    }
    compress_run run = {.n_files = o.n_files, .n_specs = o.n_specs, .seeds = o.seeds,
                        .seed = o.seed, .per_layer = o.per_layer, .quiet = o.quiet};
    int col[COMPRESS_COLUMNS];
    r = compress_table_new(&run, col);
    if (skipped[0])
        report_note(r, "skipped", skipped);
    double t0 = compress_now_s();
    for (int i = 0; i < o.n_specs; i++) {
        if (compress_table_run(&run, s, o.specs[i], i, r, col, t0, err, sizeof err) != 0) {
            fprintf(stderr, "gcsim compress: %s: %s\n", o.specs[i], err);
            rc = EXIT_BAD_INPUT;
            goto out;
        }
    }
    rc = report_emit(r, o.format, o.output, "compress");
out:
    report_free(r);
    for (int i = 0; i < o.n_files; i++)
        gc_trace_close(&s[i].file);
    free(s);
    return rc;
}

int cmd_compress(int argc, char **argv)
{
    compress_options o = {0};
    int rc = compress_command(argc, argv, &o);
    sweep_list_free(&o.spec_list);
    return rc;
}
