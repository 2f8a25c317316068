/*
 * traces/atomic_file.h: output files that appear whole or not at all.
 *
 * Output is written to a temporary file beside the target and renamed over it only when
 * complete, so an interrupted or failed run leaves either the old file or none, never a
 * truncated one. The temporary is named TARGET.tmp.PID.XXXXXX (TARGET shortened when the
 * name would pass the 255-byte limit of a file name); opening an output removes the
 * temporaries of the same target left by runs that are no longer running on this machine
 * (a SIGKILLed run cannot remove its own).
 *
 * Targets that are not regular files are not replaced:
 * - a device, FIFO or socket (/dev/null, a named pipe) is written through, without a
 *   temporary file, since renaming over it would replace the device with a regular file;
 *   a FIFO that no process opens for reading within a few seconds is refused, where
 *   opening it used to wait for a reader forever;
 * - a symbolic link to a regular file keeps being a link: the file it points to is
 *   replaced, atomically as above; a link to a device is written through;
 * - a link to nothing (dangling) and a directory are refused.
 *
 * Every file gcsim writes goes through this module: the outputs of the subcommands, the
 * baselines `gcsim check --update` rewrites (sim/planning), the safetensors traces
 * (safetensors_write.c) and the DES's Chrome trace (sim/des/des_timeline.c). It lives in
 * traces/, the lowest layer that writes files, so that every layer above may use it
 * (traces/ and compressors/ never depend on sim/).
 */
#ifndef GCSIM_TRACES_ATOMIC_FILE_H
#define GCSIM_TRACES_ATOMIC_FILE_H

#include <stdbool.h>
#include <stdio.h>

typedef struct {
    FILE *stream;
    bool direct;           /* writing straight into a device or FIFO: no temporary file */
    char final_path[4096]; /* the file replaced on commit (a symlink's target, resolved) */
    char temp_path[4096];  /* empty when direct */
} atomic_file;

/* Opens a temporary file beside path (or path itself when it is a device or FIFO).
 * Returns 0, or -1 with a message naming path and the reason in err. */
int atomic_file_open(atomic_file *f, const char *path, char *err, size_t err_len);
/* Checks, before any work, that path could be opened as atomic_file_open would: a
 * temporary file is created beside it and removed at once (a device is only checked for
 * write permission). A FIFO is opened for writing, which needs a reader (refused when none
 * comes), and kept open for the atomic_file_open of the same FIFO later in the run, since
 * closing it would end the reader's input before the output. Returns 0, or -1 with the
 * message atomic_file_open would give in err. */
int atomic_file_probe(const char *path, char *err, size_t err_len);
/* Flushes, syncs and renames over the target. On failure the temporary file is removed
 * and err says why (the system's reason, e.g. "No space left on device"). */
int atomic_file_commit(atomic_file *f, char *err, size_t err_len);
/* Removes the temporary file; the target is untouched. */
void atomic_file_abort(atomic_file *f);

/* The reason for a failed write, for messages: strerror(saved_errno), or a plain phrase
 * when the C library left no errno. */
const char *atomic_file_reason(int saved_errno);

#endif
