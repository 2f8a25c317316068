/*
 * sim/cli/atomic_file.h: output files that appear whole or not at all.
 *
 * Output is written to a temporary file beside the target and renamed over it only when
 * complete, so an interrupted or failed run leaves either the old file or none, never a
 * truncated one.
 */
#ifndef GCSIM_CLI_ATOMIC_FILE_H
#define GCSIM_CLI_ATOMIC_FILE_H

#include <stdio.h>

typedef struct {
    FILE *stream;
    char final_path[4096];
    char temp_path[4096];
} atomic_file;

/* Opens a temporary file beside path. Returns 0, or -1 with a message in err. */
int atomic_file_open(atomic_file *f, const char *path, char *err, size_t err_len);
/* Flushes, syncs and renames over the target. On failure the temporary file is removed. */
int atomic_file_commit(atomic_file *f, char *err, size_t err_len);
/* Removes the temporary file; the target is untouched. */
void atomic_file_abort(atomic_file *f);

#endif
