/*
 * sim/config/size_list.c: message sizes as `gcsim collective --sizes` takes them
 * (size_list.h).
 */
#include "size_list.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"


/* One size of the list or range: a whole number of bytes in [1, GCSIM_SIZE_LIST_MAX_BYTES]
 * (nccl-tests sizes are byte counts; "1.5B" is no size). */
static bool parse_one_size(const char *text, double *bytes, char *msg, size_t len)
{
    if (!gcsim_parse_size_bytes(text, bytes) || !(*bytes >= 1)) {
        snprintf(msg, len, "--sizes: \"%s\" is not a size of at least 1 byte (e.g. 16MiB)", text);
        return false;
    }
    if (!gcsim_whole_bytes(bytes)) {
        snprintf(msg, len, "--sizes: \"%s\" is %g bytes, not a whole number of bytes", text,
                 *bytes);
        return false;
    }
    if (*bytes > GCSIM_SIZE_LIST_MAX_BYTES) {
        snprintf(msg, len, "--sizes: \"%s\" is %g bytes, more than the %.0f (2^50, 1024TiB) gcsim "
                           "collective times", text, *bytes, GCSIM_SIZE_LIST_MAX_BYTES);
        return false;
    }
    return true;
}

static int parse_size_range(const char *text, const char *colon, double *sizes, int max,
                            char *msg, size_t len)
{
    char lo_text[64];
    size_t n = (size_t)(colon - text);
    double lo, hi;
    if (n >= sizeof lo_text) {
        snprintf(msg, len, "--sizes: \"%s\" is too long", text);
        return -1;
    }
    memcpy(lo_text, text, n);
    lo_text[n] = '\0';
    if (!parse_one_size(lo_text, &lo, msg, len) || !parse_one_size(colon + 1, &hi, msg, len))
        return -1;
    if (!(hi >= lo)) {
        snprintf(msg, len, "--sizes: expected MIN:MAX with 1 B <= MIN <= MAX (e.g. 8B:8GiB), "
                           "got \"%s\"", text);
        return -1;
    }
    int k = 0;
    for (double s = lo; s <= hi * (1 + 1e-12) && k < max; s *= 2)
        sizes[k++] = s;
    if (k == max && sizes[k - 1] * 2 <= hi) {
        snprintf(msg, len, "--sizes: more than %d sizes in \"%s\"", max, text);
        return -1;
    }
    return k;
}

/* A comma-separated list, copied whole (a fixed buffer cut lists over 1,023 characters
 * without a word); every item must be a size, none empty. */
static int parse_size_list(const char *text, double *sizes, int max, char *msg, size_t len)
{
    size_t chars = strlen(text);
    if (chars == 0 || text[0] == ',' || text[chars - 1] == ',' || strstr(text, ",,")) {
        snprintf(msg, len, "--sizes: \"%.200s\"%s has an empty item", text,
                 chars > 200 ? "..." : "");
        return -1;
    }
    char *buf = malloc(chars + 1);
    if (!buf) {
        snprintf(msg, len, "--sizes: out of memory for a list of %zu characters", chars);
        return -1;
    }
    memcpy(buf, text, chars + 1);
    int k = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (k == max) {
            snprintf(msg, len, "--sizes: more than %d sizes", max);
            k = -1;
            break;
        }
        if (!parse_one_size(tok, &sizes[k], msg, len)) {
            k = -1;
            break;
        }
        k++;
    }
    free(buf);
    return k;
}

int gcsim_parse_size_list(const char *text, double *sizes, int max, char *msg, size_t len)
{
    const char *colon = strchr(text, ':');
    return colon ? parse_size_range(text, colon, sizes, max, msg, len)
                 : parse_size_list(text, sizes, max, msg, len);
}
