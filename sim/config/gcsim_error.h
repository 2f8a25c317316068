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
    /* 1: a limit of this machine or process (memory, the schedule size guard) kept gcsim
     * from costing something the input asks for: not a property of the input, so a search
     * must not skip that candidate as it skips a bad one, or its answer would depend on the
     * machine (issue 45). Exit 2 all the same: the message names the limit. */
    int limit;
} gcsim_error;

/* Formats into err->message and returns -1, so callers can `return gcsim_fail(...)`. */
int gcsim_fail(gcsim_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The same for a limit of the machine (err->limit). gcsim_fail also marks a limit every
 * message whose format says "out of memory" (the format, never the data in it): whether
 * an allocation succeeds depends on the machine, never on the input. */
int gcsim_fail_limit(gcsim_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Whether a search may skip the candidate that failed with err and go on with the others:
 * only when the input made it fail (not gcsim itself, not a limit of the machine). The one
 * rule every search (--exchange best, plan, sweep, breakeven) follows. */
int gcsim_error_skippable(const gcsim_error *err);

/* The same for a failure of gcsim itself rather than of its input. */
int gcsim_fail_internal(gcsim_error *err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif
