/*
 * sim/cli/cli_files.h: the files one run of a command reads and writes, checked against
 * each other before any work (issue 45).
 *
 * Outputs are renamed into place at the end of a run, so an output that is also an input
 * (`--output` naming the model, the platform, the baseline, a log or a merge shard)
 * replaced the input with the report, and two outputs naming one file left only the last.
 * Each command lists its inputs and outputs here; cli_files_check then refuses, before
 * anything is computed or written:
 * - an output that is the same file as an input (the same device and inode: links, "./x"
 *   and "x", hard links), naming both options and the path;
 * - two outputs that name one file (the same existing file, or the same name in the same
 *   folder for files not yet written);
 * - an output that cannot be written (report_file_usable: no folder, a dangling link, a
 *   FIFO nobody reads).
 * Devices and FIFOs are written through, never replaced, so they never count as the same
 * file. An input that does not exist is left to the command's own loader to report.
 */
#ifndef GCSIM_CLI_FILES_H
#define GCSIM_CLI_FILES_H

#include <stdbool.h>

typedef struct {
    char *option; /* "--model", "the codec profile of --platform" */
    char *given;  /* the path as the user (or the input file) gave it, for messages */
    char *path;   /* the file it means (a catalog name resolved) */
    bool output;
    bool probe;   /* an output checked for writability (not one in a folder the run makes) */
} cli_file;

typedef struct {
    const char *command; /* "predict": messages begin "gcsim predict: " */
    cli_file *files;
    int n, cap;
    bool out_of_memory;
} cli_files;

void cli_files_init(cli_files *f, const char *command);

/* An input file named by option (NULL or "": nothing to add). */
void cli_files_input(cli_files *f, const char *option, const char *path);
/* --platform: a file or a catalog name (inputs.c's rule), with the files the platform
 * itself names: its gpu.codec_profile and a stack file in its "stack". */
void cli_files_platform(cli_files *f, const char *option, const char *name);
/* --model: a file or a catalog name. */
void cli_files_model(cli_files *f, const char *option, const char *name);
/* --stack: a stack file or a catalog stack (gcsim_stack_load's rule). */
void cli_files_stack(cli_files *f, const char *option, const char *name);

/* A file the command writes (NULL: standard output, nothing to check). */
void cli_files_output(cli_files *f, const char *option, const char *path);
/* One it writes into a folder it creates later (train --dump-trace): compared with the
 * others, not checked for writability. */
void cli_files_later_output(cli_files *f, const char *option, const char *path);

/* The checks above. Prints the first problem as "gcsim COMMAND: ..." on stderr and returns
 * -1, or returns 0. Frees what f holds either way (f may be checked only once). */
int cli_files_check(cli_files *f);

#endif
