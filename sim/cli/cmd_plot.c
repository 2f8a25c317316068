/*
 * sim/cli/cmd_plot.c: `gcsim plot`, a picture of the output of sweep, plan or predict
 * drawn by gnuplot. Reading the file, the script and running gnuplot are sim/plot; this
 * file parses the command line, checks the files against each other and writes them.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "cli_args.h"
#include "cli_files.h"
#include "commands.h"
#include "report_emit.h"
#include "plot_gnuplot.h"
#include "plot_script.h"
#include "plot_table.h"

extern const char gcsim_help_plot[]; /* docs/help/plot.txt */

static void usage(FILE *out)
{
    cli_help(out, gcsim_help_plot, NULL);
}

typedef struct {
    const char *input, *output, *script, *title;
} options;

/* 0: run; 1: --help printed; -1: bad usage (message printed). */
static int parse(int argc, char **argv, options *o)
{
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'}, {"script", required_argument, 0, 's'},
        {"title", required_argument, 0, 't'},  {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    cli_seen seen = {0};
    optind = 1;
    opterr = 0;
    int ch;
    while ((ch = cli_getopt_long(argc, argv, ":h", longopts, "plot")) != -1) {
        if (cli_values_once("plot", ch, longopts, NULL, &seen, argv))
            return -1;
        switch (ch) {
        case 'o': o->output = optarg; break;
        case 's': o->script = optarg; break;
        case 't': o->title = optarg; break;
        case 'h': usage(stdout); return 1;
        default: return cli_option_error("plot", ch, argv);
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "gcsim plot: no input file: the output of gcsim sweep, plan or predict "
                        "(see gcsim plot --help)\n");
        return -1;
    }
    o->input = argv[optind];
    if (optind + 1 < argc) {
        fprintf(stderr, "gcsim plot: one input file, got \"%s\" after \"%s\"\n",
                argv[optind + 1], o->input);
        return -1;
    }
    if (!o->output) {
        fprintf(stderr, "gcsim plot: --output FILE is needed: the picture, .png or .svg\n");
        return -1;
    }
    if (plot_output_is_svg(o->output) < 0) {
        fprintf(stderr, "gcsim plot: --output \"%s\": expected a file name ending .png or .svg "
                        "(the extension picks the format)\n", o->output);
        return -1;
    }
    if (o->title && !*o->title) {
        fprintf(stderr, "gcsim plot: --title: empty\n");
        return -1;
    }
    return 0;
}

/* The script in a temporary file of its own (no --script). Returns 0, or -1 after the
 * message. */
static int write_temp_script(const char *text, char *path, size_t size)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, size, "%s/gcsim-plot-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        fprintf(stderr, "gcsim plot: cannot create a temporary file for the gnuplot script "
                        "(%s): %s\n", path, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlink(path);
        }
        return -1;
    }
    int failed = fputs(text, f) == EOF;
    failed |= fclose(f) != 0;
    if (failed) {
        fprintf(stderr, "gcsim plot: %s: write failed: %s\n", path, strerror(errno));
        unlink(path);
        return -1;
    }
    return 0;
}

/* Prints what gnuplot said, line by line, after "gcsim plot: gnuplot: ". */
static void print_gnuplot_lines(const char *text)
{
    for (const char *line = text; *line;) {
        size_t n = strcspn(line, "\n");
        if (n)
            fprintf(stderr, "gcsim plot: gnuplot: %.*s\n", (int)n, line);
        line += n + (line[n] == '\n');
    }
}

int cmd_plot(int argc, char **argv)
{
    options o = {0};
    int p = parse(argc, argv, &o);
    if (p)
        return p > 0 ? EXIT_OK : EXIT_BAD_INPUT;
    /* An output naming the input replaced it with the picture (cli_files.h). */
    cli_files files;
    cli_files_init(&files, "plot");
    cli_files_input(&files, "the input file", o.input);
    cli_files_output(&files, "--output", o.output);
    cli_files_output(&files, "--script", o.script);
    if (cli_files_check(&files))
        return EXIT_BAD_INPUT;

    gcsim_error err = {0};
    plot_table t;
    if (plot_table_read(o.input, &t, &err)) {
        fprintf(stderr, "gcsim plot: %s\n", err.message);
        return exit_code_for(&err);
    }
    plot_options po = {o.output, plot_output_is_svg(o.output) == 1, o.title};
    char *script = NULL;
    int rc = plot_script_build(&t, &po, &script, &err);
    plot_table_free(&t);
    if (rc) {
        fprintf(stderr, "gcsim plot: %s\n", err.message);
        return exit_code_for(&err);
    }

    int status = EXIT_INTERNAL;
    char temp_script[4096] = "", msg[8192];
    const char *script_path = o.script;
    if (o.script ? report_emit_text(o.script, script, "plot")
                 : write_temp_script(script, temp_script, sizeof temp_script))
        goto done;
    if (!o.script)
        script_path = temp_script;
    atomic_file picture;
    if (atomic_file_open(&picture, o.output, msg, sizeof msg)) {
        fprintf(stderr, "gcsim plot: %s\n", msg);
        goto done;
    }
    char *said = NULL;
    if (plot_gnuplot_run(script_path, picture.direct ? picture.final_path : picture.temp_path,
                         &said, &err)) {
        atomic_file_abort(&picture);
        fprintf(stderr, "gcsim plot: %s\n", err.message);
        if (o.script)
            fprintf(stderr, "gcsim plot: the script is kept in %s (rerun: gnuplot %s)\n",
                    o.script, o.script);
        goto done;
    }
    if (said)
        print_gnuplot_lines(said);
    free(said);
    struct stat st;
    if (!picture.direct && (stat(picture.temp_path, &st) || st.st_size == 0)) {
        atomic_file_abort(&picture);
        fprintf(stderr, "gcsim plot: %s wrote no picture (an empty file)\n",
                plot_gnuplot_program());
        goto done;
    }
    if (atomic_file_commit(&picture, msg, sizeof msg)) {
        fprintf(stderr, "gcsim plot: %s\n", msg);
        goto done;
    }
    status = EXIT_OK;
done:
    if (temp_script[0])
        unlink(temp_script);
    free(script);
    return status;
}
