/* gcsim merge: joins the outputs of `gcsim sweep --shard K/N` into the unsharded output
 * (the checks and the join are sim/planning/merge.c). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "atomic_file.h"
#include "cli_args.h"
#include "cli_files.h"
#include "commands.h"
#include "merge.h"

extern const char gcsim_help_merge[]; /* docs/help/merge.txt */

static void merge_usage(FILE *out)
{
    cli_help(out, gcsim_help_merge, NULL);
}

int cmd_merge(int argc, char **argv)
{
    static const struct option longopts[] = {{"output", required_argument, 0, 'o'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};
    const char *output = NULL;
    optind = 1;
    opterr = 0;
    int ch;
    cli_seen seen = {0};
    while ((ch = cli_getopt_long(argc, argv, ":h", longopts, "merge")) != -1) {
        if (cli_values_once("merge", ch, longopts, NULL, &seen, argv))
            return EXIT_BAD_INPUT;
        switch (ch) {
        case 'o': output = optarg; break;
        case 'h': merge_usage(stdout); return EXIT_OK;
        default: cli_option_error("merge", ch, argv); return EXIT_BAD_INPUT;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "gcsim merge: no shard files (see gcsim merge --help)\n");
        return EXIT_BAD_INPUT;
    }
    /* --output naming a shard replaced it with the merge (cli_files.h). */
    cli_files files;
    cli_files_init(&files, "merge");
    for (int k = optind; k < argc; k++)
        cli_files_input(&files, "a shard file", argv[k]);
    cli_files_output(&files, "--output", output);
    if (cli_files_check(&files))
        return EXIT_BAD_INPUT;
    merge_rows *st = merge_new();
    int status = EXIT_BAD_INPUT;
    /* Messages name files and lines, so the buffer holds a few paths. */
    char msg[16384];
    if (!st) {
        fprintf(stderr, "gcsim merge: out of memory\n");
        return EXIT_INTERNAL;
    }
    for (int k = optind; k < argc; k++)
        if (merge_add_file(st, argv[k], k, msg, sizeof msg)) {
            fprintf(stderr, "gcsim merge: %s\n", msg);
            goto done;
        }
    if (merge_finish(st, msg, sizeof msg)) {
        fprintf(stderr, "gcsim merge: %s\n", msg);
        goto done;
    }
    if (output) {
        atomic_file f;
        if (atomic_file_open(&f, output, msg, sizeof msg)) {
            fprintf(stderr, "gcsim merge: %s\n", msg);
            goto done;
        }
        if ((errno = 0), merge_write(st, f.stream)) {
            int write_errno = errno;
            atomic_file_abort(&f);
            fprintf(stderr, "gcsim merge: %s: write failed: %s\n", output, atomic_file_reason(write_errno));
            goto done;
        }
        if (atomic_file_commit(&f, msg, sizeof msg)) {
            fprintf(stderr, "gcsim merge: %s\n", msg);
            goto done;
        }
    } else if ((errno = 0), merge_write(st, stdout) || fflush(stdout)) {
        fprintf(stderr, "gcsim merge: cannot write to standard output: %s\n", atomic_file_reason(errno));
        goto done;
    }
    status = EXIT_OK;
done:
    merge_free(st);
    return status;
}
