/*
 * traces/input_file.h: opening an input file that gcsim reads whole (a trace, a
 * configuration file, an nccl-tests log) without blocking on a FIFO.
 *
 * open(2) of a FIFO for reading waits for a writer, forever when none comes (issue 29:
 * `calibrate --log FIFO`, `check --baseline FIFO` hung before printing anything). The file
 * is opened non-blocking, checked to be a regular file, then read as usual.
 */
#ifndef GCSIM_TRACES_INPUT_FILE_H
#define GCSIM_TRACES_INPUT_FILE_H

#include <stddef.h>
#include <stdio.h>

/* A descriptor open for reading on a regular file, or -1 with "PATH: cannot open: reason"
 * or "PATH: not a regular file (a FIFO)" in err. */
int gc_open_regular(const char *path, char *err, size_t err_len);

/* The same as a stdio stream ("rb"); NULL with the message in err. */
FILE *gc_fopen_regular(const char *path, char *err, size_t err_len);

#endif
