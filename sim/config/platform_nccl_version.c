/*
 * sim/config/platform_nccl_version.c: "nccl_version" (platform_nccl_version.h).
 *
 * The code is NCCL's NCCL_VERSION(X,Y,Z) = X*10000 + Y*100 + Z (src/nccl.h.in, NVIDIA/nccl
 * v2.26.2-1: "NCCL_VERSION_CODE", used from 2.9 on), so a release compares as a number.
 */
#include "platform_nccl_version.h"

#include <ctype.h>
#include <stdlib.h>

/* one run of 1-4 digits at *s into *out; the position after it, or NULL */
static const char *number(const char *s, long *out)
{
    int n = 0;
    long v = 0;
    while (isdigit((unsigned char)s[n]) && n < 4) {
        v = v * 10 + (s[n] - '0');
        n++;
    }
    if (n == 0 || isdigit((unsigned char)s[n]))
        return NULL;
    *out = v;
    return s + n;
}

int gcsim_nccl_version_code(const char *text)
{
    long major, minor, patch;
    const char *s = text;
    if (!s || !(s = number(s, &major)) || *s++ != '.' || !(s = number(s, &minor)) ||
        *s++ != '.' || !(s = number(s, &patch)))
        return -1;
    if (*s != '\0' && *s != '+' && *s != '-')
        return -1;
    if (major < 1 || minor > 99 || patch > 99)
        return -1;
    return (int)(major * 10000 + minor * 100 + patch);
}

int gcsim_platform_parse_nccl_version(const cJSON *root, gcsim_platform *p, json_ctx *ctx)
{
    char text[64] = "";
    p->nccl_version = 0;
    if (!json_member(root, "nccl_version"))
        return 0;
    if (json_string(root, "$", "nccl_version", false, text, sizeof text, ctx))
        return -1;
    int code = gcsim_nccl_version_code(text);
    if (code < 0)
        return gcsim_fail(ctx->err, "%s: $.nccl_version: \"%s\" is not an NCCL release "
                                    "MAJOR.MINOR.PATCH (e.g. \"2.26.2\")",
                          ctx->origin, text);
    p->nccl_version = code;
    return 0;
}
