/* Parsing of quantities with units; see units.h for the accepted forms. */
#include "units.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Reads the leading number; returns the rest of the text, or NULL when there is no
 * number or it is not finite and positive. Only a plain decimal is a number here: strtod
 * also reads leading spaces, a sign, hexadecimal ("0x10") and "inf", none of which a
 * quantity in a configuration file should be. */
static const char *leading_positive_number(const char *text, double *value)
{
    if (!text || !((*text >= '0' && *text <= '9') || *text == '.'))
        return NULL;
    char *end = NULL;
    double v = strtod(text, &end);
    if (end == text || !isfinite(v) || v <= 0.0)
        return NULL;
    for (const char *p = text; p < end; p++)
        if (!strchr("0123456789.eE+-", *p))
            return NULL;
    *value = v;
    return end;
}

/* Consumes an SI or binary prefix. Only "k" is lower case, as in the SI, so "1gbps"
 * is rejected rather than guessed. */
static const char *prefix_multiplier(const char *s, double *mult)
{
    static const struct {
        const char *prefix;
        double multiplier;
    } prefixes[] = {
        {"Ki", 1024.0}, {"Mi", 1048576.0}, {"Gi", 1073741824.0}, {"Ti", 1099511627776.0},
        {"k", 1e3},     {"K", 1e3},        {"M", 1e6},           {"G", 1e9},
        {"T", 1e12},    {"P", 1e15},
    };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t len = strlen(prefixes[i].prefix);
        if (strncmp(s, prefixes[i].prefix, len) == 0) {
            *mult = prefixes[i].multiplier;
            return s + len;
        }
    }
    *mult = 1.0;
    return s;
}

static bool finish(double v, double *out)
{
    if (!isfinite(v) || v <= 0.0)
        return false;
    *out = v;
    return true;
}

bool gcsim_parse_rate_Bps(const char *text, double *bytes_per_s)
{
    double v, mult;
    const char *s = leading_positive_number(text, &v);
    if (!s)
        return false;
    s = prefix_multiplier(s, &mult);
    if (strcmp(s, "bps") == 0 || strcmp(s, "b/s") == 0)
        return finish(v * mult / 8.0, bytes_per_s);
    if (strcmp(s, "Bps") == 0 || strcmp(s, "B/s") == 0)
        return finish(v * mult, bytes_per_s);
    return false;
}

bool gcsim_parse_time_s(const char *text, double *seconds)
{
    /* Divide rather than multiply by 1e-6: "50us" then gives exactly the double 50e-6. */
    static const struct {
        const char *unit;
        double per_second;
    } units[] = {{"s", 1.0}, {"ms", 1e3}, {"us", 1e6}, {"ns", 1e9}};
    double v;
    const char *s = leading_positive_number(text, &v);
    if (!s)
        return false;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(s, units[i].unit) == 0)
            return finish(v / units[i].per_second, seconds);
    return false;
}

bool gcsim_parse_flops(const char *text, double *flop_per_s)
{
    double v, mult;
    const char *s = leading_positive_number(text, &v);
    if (!s)
        return false;
    s = prefix_multiplier(s, &mult);
    if (strcmp(s, "flops") == 0 || strcmp(s, "FLOPS") == 0)
        return finish(v * mult, flop_per_s);
    return false;
}

bool gcsim_parse_size_bytes(const char *text, double *bytes)
{
    double v, mult;
    const char *s = leading_positive_number(text, &v);
    if (!s)
        return false;
    s = prefix_multiplier(s, &mult);
    if (strcmp(s, "B") == 0)
        return finish(v * mult, bytes);
    return false;
}

bool gcsim_whole_bytes(double *bytes)
{
    /* "1.001kB" is 1.001 x 1000 = 1000.9999999999999 in doubles: a few ulps from a whole
     * number is that number; "1.5B" (0.5 away) and "0.7GiB" (0.2 away) are fractions. */
    double whole = nearbyint(*bytes);
    if (fabs(*bytes - whole) > 4 * DBL_EPSILON * fmax(1.0, fabs(*bytes)))
        return false;
    *bytes = whole;
    return true;
}

bool gcsim_parse_whole_bytes(const char *text, double *bytes)
{
    double v;
    if (!gcsim_parse_size_bytes(text, &v) || !gcsim_whole_bytes(&v) || v > GCSIM_MAX_SIZE_BYTES)
        return false;
    *bytes = v;
    return true;
}
