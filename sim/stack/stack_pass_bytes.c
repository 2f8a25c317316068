/*
 * sim/stack/stack_pass_bytes.c: one compressor's pass bytes in a stack file
 * (stack_pass_bytes.h).
 */
#include "gcsim_error.h"
#include "stack_pass_bytes.h"

int stack_pass_bytes_parse(const cJSON *c, const char *at, const char *const *keys,
                           const char *memory, double *encode_bytes_per_elem,
                           double *decode_bytes_per_elem, json_ctx *ctx)
{
    char source[4096] = "";
    if (json_expect_object(c, at, keys, ctx) ||
        json_number(c, at, "encode_bytes_per_element", true, 0, 1e4, encode_bytes_per_elem,
                    ctx) ||
        json_number(c, at, "decode_bytes_per_element", true, 0, 1e4, decode_bytes_per_elem,
                    ctx) ||
        json_string(c, at, "source", true, source, sizeof source, ctx))
        return -1;
    if (!source[0])
        return gcsim_fail(ctx->err, "%s: %s.source: must say where the passes come from",
                          ctx->origin, at);
    /* a codec streams at least its input once: zero bytes would make it free */
    if (!(*encode_bytes_per_elem > 0) || !(*decode_bytes_per_elem > 0))
        return gcsim_fail(ctx->err, "%s: %s: encode_bytes_per_element and "
                                    "decode_bytes_per_element must be positive (bytes the "
                                    "%s passes stream per element)",
                          ctx->origin, at, memory);
    return 0;
}
