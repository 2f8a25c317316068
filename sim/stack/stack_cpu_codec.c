/*
 * sim/stack/stack_cpu_codec.c: "cpu_codec", the host-CPU codec of a codec-model stack
 * (stack_cpu_codec.h). Time of one tensor of n elements = n x bytes per element (read +
 * written by the CPU code's passes, counted from its source, listed in the stack file) /
 * the host's DRAM bandwidth (in the file, with its source): a memory-bound lower bound
 * (each pass streams, and all the host's channels serve the codec threads).
 */
#include <stdio.h>
#include <string.h>

#include "gcsim_error.h"
#include "stack_cpu_codec.h"
#include "stack_pass_bytes.h"

int stack_cpu_codec_parse(const cJSON *v, gcsim_stack *s, json_ctx *ctx)
{
    static const char *const keys[] = {"dram_bandwidth", "source", "threads",
                                       "thread_bandwidth", "threads_source", "compressors",
                                       NULL};
    static const char *const entry_keys[] = {
        "encode_bytes_per_element", "decode_bytes_per_element",
        "serial_encode_bytes_per_element", "serial_decode_bytes_per_element", "source", NULL};
    const char *path = "$.cpu_codec";
    char source[1024] = "";
    s->cpu_codec = false;
    s->n_cpu_codecs = 0;
    s->cpu_threads = 0;
    s->cpu_thread_Bps = 0;
    if (!v)
        return 0;
    if (json_expect_object(v, path, keys, ctx) ||
        json_rate_Bps(v, path, "dram_bandwidth", true, &s->cpu_dram_Bps, ctx) ||
        json_string(v, path, "source", true, source, sizeof source, ctx))
        return -1;
    if (!source[0])
        return gcsim_fail(ctx->err, "%s: %s.source: must say where the bandwidth comes from",
                          ctx->origin, path);
    if (!(s->cpu_dram_Bps > 0))
        return gcsim_fail(ctx->err, "%s: %s.dram_bandwidth: must be positive", ctx->origin,
                          path);
    /* the thread pool: all three keys or none */
    long long threads = 0;
    char threads_source[4096] = "";
    if (json_integer(v, path, "threads", false, 1, 4096, &threads, ctx) ||
        json_rate_Bps(v, path, "thread_bandwidth", false, &s->cpu_thread_Bps, ctx) ||
        json_string(v, path, "threads_source", false, threads_source, sizeof threads_source,
                    ctx))
        return -1;
    bool any = threads > 0 || s->cpu_thread_Bps != 0 || threads_source[0];
    if (any && !(threads > 0 && s->cpu_thread_Bps > 0 && threads_source[0]))
        return gcsim_fail(ctx->err, "%s: %s: threads, thread_bandwidth (positive) and "
                                    "threads_source go together (the codec's thread pool and "
                                    "where its figures come from)",
                          ctx->origin, path);
    s->cpu_threads = (int)threads;
    const cJSON *list = json_member(v, "compressors");
    if (!cJSON_IsObject(list) || !list->child)
        return gcsim_fail(ctx->err, "%s: %s.compressors: expected an object of compressor "
                                    "names, each with its CPU passes",
                          ctx->origin, path);
    for (const cJSON *c = list->child; c; c = c->next) {
        char at[160];
        snprintf(at, sizeof at, "%s.compressors.%s", path, c->string);
        if (s->n_cpu_codecs == GCSIM_STACK_MAX_CPU_CODECS)
            return gcsim_fail(ctx->err, "%s: %s: more than %d compressors", ctx->origin, at,
                              GCSIM_STACK_MAX_CPU_CODECS);
        gcsim_stack_cpu_codec *e = &s->cpu_codecs[s->n_cpu_codecs];
        if (strlen(c->string) >= sizeof e->compressor)
            return gcsim_fail(ctx->err, "%s: %s: name too long", ctx->origin, at);
        e->serial_encode_bytes_per_elem = 0;
        e->serial_decode_bytes_per_elem = 0;
        if (stack_pass_bytes_parse(c, at, entry_keys, "CPU's", &e->encode_bytes_per_elem,
                                   &e->decode_bytes_per_elem, ctx) ||
            json_number(c, at, "serial_encode_bytes_per_element", false, 0, 1e4,
                        &e->serial_encode_bytes_per_elem, ctx) ||
            json_number(c, at, "serial_decode_bytes_per_element", false, 0, 1e4,
                        &e->serial_decode_bytes_per_elem, ctx))
            return -1;
        /* the serial bytes are some of the passes' bytes, streamed by one thread each */
        if (e->serial_encode_bytes_per_elem > e->encode_bytes_per_elem ||
            e->serial_decode_bytes_per_elem > e->decode_bytes_per_elem)
            return gcsim_fail(ctx->err, "%s: %s: serial_encode_bytes_per_element and "
                                        "serial_decode_bytes_per_element are part of "
                                        "encode_bytes_per_element and "
                                        "decode_bytes_per_element: at most those",
                              ctx->origin, at);
        if ((e->serial_encode_bytes_per_elem > 0 || e->serial_decode_bytes_per_elem > 0) &&
            s->cpu_threads == 0)
            return gcsim_fail(ctx->err, "%s: %s: serial bytes need %s.threads and "
                                        "%s.thread_bandwidth (how many threads stream them, "
                                        "and how fast)",
                              ctx->origin, at, path, path);
        snprintf(e->compressor, sizeof e->compressor, "%s", c->string);
        s->n_cpu_codecs++;
    }
    s->cpu_codec = true;
    return 0;
}

double stack_cpu_codec_seconds_per_element(const gcsim_stack *st, double bytes,
                                           double serial_bytes)
{
    double serial_Bps = st->cpu_dram_Bps;
    if (st->cpu_threads > 0 && st->cpu_threads * st->cpu_thread_Bps < serial_Bps)
        serial_Bps = st->cpu_threads * st->cpu_thread_Bps;
    return (bytes - serial_bytes) / st->cpu_dram_Bps + serial_bytes / serial_Bps;
}

int stack_cpu_codec_apply(const gcsim_stack *st, const char *spec, gcsim_codec *codec,
                          gcsim_error *err)
{
    if (!st->cpu_codec || codec->source == CODEC_COST_NONE)
        return 0;
    size_t name_len = strcspn(spec, ":");
    const gcsim_stack_cpu_codec *e = NULL;
    for (int i = 0; i < st->n_cpu_codecs && !e; i++)
        if (strlen(st->cpu_codecs[i].compressor) == name_len &&
            strncmp(st->cpu_codecs[i].compressor, spec, name_len) == 0)
            e = &st->cpu_codecs[i];
    if (!e) {
        char names[256] = "";
        for (int i = 0; i < st->n_cpu_codecs; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                     i ? ", " : "", st->cpu_codecs[i].compressor);
        return gcsim_fail(err, "%s: $.cpu_codec.compressors: stack %s has no CPU codec for "
                               "\"%.*s\" (it has: %s)",
                          st->path, st->name, (int)name_len, spec, names);
    }
    /* one point at one element: the profile is linear in elements from there */
    codec->source = CODEC_COST_PROFILE;
    codec->n_points = 1;
    codec->elements[0] = 1;
    codec->encode_s[0] = stack_cpu_codec_seconds_per_element(st, e->encode_bytes_per_elem,
                                                             e->serial_encode_bytes_per_elem);
    codec->decode_s[0] = stack_cpu_codec_seconds_per_element(st, e->decode_bytes_per_elem,
                                                             e->serial_decode_bytes_per_elem);
    codec->on_host = true;
    int n = snprintf(codec->description, sizeof codec->description,
                     "stack %s (%s): %s encoded and decoded on the host's CPU, %.4g and %.4g "
                     "bytes per element over the host's DRAM at %.4g GB/s",
                     st->name, st->path, e->compressor, e->encode_bytes_per_elem,
                     e->decode_bytes_per_elem, st->cpu_dram_Bps / 1e9);
    if (n > 0 && (size_t)n < sizeof codec->description &&
        (e->serial_encode_bytes_per_elem > 0 || e->serial_decode_bytes_per_elem > 0))
        n += snprintf(codec->description + n, sizeof codec->description - (size_t)n,
                      ", of which %.4g and %.4g by one thread per partition, %d partitions "
                      "at once at %.4g GB/s a thread",
                      e->serial_encode_bytes_per_elem, e->serial_decode_bytes_per_elem,
                      st->cpu_threads, st->cpu_thread_Bps / 1e9);
    if (n > 0 && (size_t)n < sizeof codec->description)
        snprintf(codec->description + n, sizeof codec->description - (size_t)n,
                 " ($.cpu_codec)");
    return 0;
}
