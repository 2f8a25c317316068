/*
 * sim/config/gcsim_error.h: errors as values. Every loader and engine function that can
 * fail takes a gcsim_error and returns 0 or -1; the message names the file and the JSON
 * path or byte offset, e.g.
 *   platforms/x.json: $.nic.bandwidth: expected a rate such as "10Gbps", got "fast"
 */
#ifndef GCSIM_CONFIG_ERROR_H
#define GCSIM_CONFIG_ERROR_H

#include <stdarg.h>

typedef struct {
    char message[1024];
    /* 0: the input was bad (exit 2); 1: gcsim itself failed (e.g. the SimGrid child
     * aborted), which the commands report with their own exit code. */
    int internal;
} gcsim_error;

/* Formats into err->message and returns -1, so callers can `return gcsim_fail(...)`. */
int gcsim_fail(gcsim_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The same for a failure of gcsim itself rather than of its input. */
int gcsim_fail_internal(gcsim_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
