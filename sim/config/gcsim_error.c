#include "gcsim_error.h"

#include <stdio.h>
#include <string.h>

/* The one place a message is written: its kind decides whether a search may skip it. */
static void set_message(gcsim_error *err, int internal, int limit, const char *fmt, va_list ap)
{
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    err->internal = internal;
    err->limit = limit;
}

int gcsim_fail(gcsim_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        /* running out of memory is the machine's limit, not the input's (issue 45) */
        set_message(err, 0, strstr(fmt, "out of memory") != NULL, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int gcsim_fail_limit(gcsim_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        set_message(err, 0, 1, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int gcsim_error_skippable(const gcsim_error *err)
{
    return !err->internal && !err->limit;
}

int gcsim_fail_internal(gcsim_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        set_message(err, 1, 0, fmt, ap);
        va_end(ap);
    }
    return -1;
}
