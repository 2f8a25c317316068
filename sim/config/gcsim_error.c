#include "gcsim_error.h"

#include <stdio.h>

int gcsim_fail(gcsim_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->internal = 0;
    }
    return -1;
}

int gcsim_fail_internal(gcsim_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->message, sizeof err->message, fmt, ap);
        va_end(ap);
        err->internal = 1;
    }
    return -1;
}
