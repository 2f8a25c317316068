#include "gcsim_error.h"

#include <stdio.h>
#include <string.h>

int gcsim_fail(gcsim_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->internal = 0;
        err->limit = strstr(fmt, "out of memory") != NULL;
    }
    return -1;
}

int gcsim_fail_limit(gcsim_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->internal = 0;
        err->limit = 1;
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
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->internal = 1;
        err->limit = 0;
    }
    return -1;
}
