/*
 * sim/stack/stack_gpu_passes.c: "gpu_passes", the unfused GPU codec of a codec-model stack
 * (stack_gpu_passes.h). Time of one tensor of n elements = n x bytes per element (read +
 * written by the ops' passes, counted from the stack's source, listed in the stack file
 * with that source) / the GPU's memory bandwidth: a memory-bound lower bound (each op is
 * an elementwise kernel or a reduction that streams its operands once; launches are not
 * counted, a few tens per call against tens of milliseconds of streaming on the buffers
 * these stacks pass).
 */
#include <stdio.h>
#include <string.h>

#include "gcsim_error.h"
#include "stack_gpu_passes.h"
#include "stack_pass_bytes.h"

int stack_gpu_passes_parse(const cJSON *v, gcsim_stack *s, json_ctx *ctx)
{
    static const char *const keys[] = {"source", "compressors", NULL};
    static const char *const entry_keys[] = {"encode_bytes_per_element",
                                             "decode_bytes_per_element", "source", NULL};
    const char *path = "$.gpu_passes";
    char source[1024] = "";
    s->n_gpu_passes = 0;
    if (!v)
        return 0;
    if (json_expect_object(v, path, keys, ctx) ||
        json_string(v, path, "source", true, source, sizeof source, ctx))
        return -1;
    if (!source[0])
        return gcsim_fail(ctx->err, "%s: %s.source: must say where the passes come from",
                          ctx->origin, path);
    const cJSON *list = json_member(v, "compressors");
    if (!cJSON_IsObject(list) || !list->child)
        return gcsim_fail(ctx->err, "%s: %s.compressors: expected an object of compressor "
                                    "names, each with its GPU passes",
                          ctx->origin, path);
    for (const cJSON *c = list->child; c; c = c->next) {
        char at[160];
        snprintf(at, sizeof at, "%s.compressors.%s", path, c->string);
        if (s->n_gpu_passes == GCSIM_STACK_MAX_GPU_PASSES)
            return gcsim_fail(ctx->err, "%s: %s: more than %d compressors", ctx->origin, at,
                              GCSIM_STACK_MAX_GPU_PASSES);
        gcsim_stack_gpu_pass *e = &s->gpu_passes[s->n_gpu_passes];
        if (strlen(c->string) >= sizeof e->compressor)
            return gcsim_fail(ctx->err, "%s: %s: name too long", ctx->origin, at);
        if (stack_pass_bytes_parse(c, at, entry_keys, "GPU's", &e->encode_bytes_per_elem,
                                   &e->decode_bytes_per_elem, ctx))
            return -1;
        for (int i = 0; i < s->n_gpu_passes; i++)
            if (strcmp(s->gpu_passes[i].compressor, c->string) == 0)
                return gcsim_fail(ctx->err, "%s: %s: listed twice", ctx->origin, at);
        snprintf(e->compressor, sizeof e->compressor, "%s", c->string);
        s->n_gpu_passes++;
    }
    return 0;
}

int stack_gpu_passes_apply(const gcsim_stack *st, const char *spec, double mem_Bps,
                           gcsim_codec *codec, gcsim_error *err)
{
    if (st->n_gpu_passes == 0 || codec->source == CODEC_COST_NONE)
        return 0;
    size_t name_len = strcspn(spec, ":");
    const gcsim_stack_gpu_pass *e = NULL;
    for (int i = 0; i < st->n_gpu_passes && !e; i++)
        if (strlen(st->gpu_passes[i].compressor) == name_len &&
            strncmp(st->gpu_passes[i].compressor, spec, name_len) == 0)
            e = &st->gpu_passes[i];
    if (!e)
        return 0; /* not one of the stack's own op chains: the codec model prices it */
    if (!(mem_Bps > 0))
        return gcsim_fail(err, "%s: $.gpu_passes: stack %s prices %s at the GPU's memory "
                               "bandwidth, which the platform's GPU does not give "
                               "(gpu.memory_bandwidth)",
                          st->path, st->name, e->compressor);
    /* one point at one element: the profile is linear in elements from there */
    codec->source = CODEC_COST_PROFILE;
    codec->n_points = 1;
    codec->elements[0] = 1;
    codec->encode_s[0] = e->encode_bytes_per_elem / mem_Bps;
    codec->decode_s[0] = e->decode_bytes_per_elem / mem_Bps;
    codec->on_host = false;
    if (snprintf(codec->description, sizeof codec->description,
                 "stack %s (%s): %s as unfused GPU ops, %.4g and %.4g bytes per element "
                 "(encode, decode) over the GPU's memory at %.4g GB/s ($.gpu_passes)",
                 st->name, st->path, e->compressor, e->encode_bytes_per_elem,
                 e->decode_bytes_per_elem, mem_Bps / 1e9) < 0)
        codec->description[0] = '\0';
    return 0;
}
