/* Strict plain decimal numbers (plain_number.h). */
#include "plain_number.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool plain_decimal(const char *text, bool real)
{
    const char *p = text[0] == '-' ? text + 1 : text;
    if (!((*p >= '0' && *p <= '9') || (real && *p == '.')))
        return false;
    for (; *p; p++)
        if (!strchr(real ? "0123456789.eE+-" : "0123456789", *p))
            return false;
    return true;
}

bool gcsim_plain_int(const char *text, long long min, long long max, long long *out)
{
    if (!text || !*text || !plain_decimal(text, false))
        return false;
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno || *end || v < min || v > max)
        return false;
    *out = v;
    return true;
}

bool gcsim_plain_double(const char *text, double min, double max, double *out)
{
    if (!text || !*text || !plain_decimal(text, true))
        return false;
    char *end;
    double v = strtod(text, &end);
    if (*end || !isfinite(v) || v < min || v > max)
        return false;
    *out = v;
    return true;
}
