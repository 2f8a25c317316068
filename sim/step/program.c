/* sim/step/program.c: appending steps and calls to an iteration, and the program of
 * a bucket when no training stack shapes it (program.h). */
#include <stdbool.h>
#include <stdlib.h>

#include "program.h"

/* Step and call arrays hold 64, 128, 256, ... elements: an array of `used` elements is
 * full exactly when used is 0, or 64 or a larger power of two. The room is also kept in
 * the iteration (steps_room, calls_room), so that arrays a case memo lends, whatever they
 * held before, are not grown again. */
/* Room for this many steps and calls at first: a case's program usually fits, so it is
 * allocated once instead of grown 8, 16, 32 (issue 47: the reallocations were 4% of a
 * sweep's cases). Then doubled whenever full (used a power of two). */
enum { RESERVE_FIRST = 64 };

/* An array whose room is known (*room > 0: one a case memo lent, or grown here) is full
 * when it holds that many; one of unknown room follows the rule above. */
static int reserve(void **array, int used, int *room, size_t elem)
{
    bool full = *room > 0 ? used >= *room
                          : used == 0 || (used >= RESERVE_FIRST && (used & (used - 1)) == 0);
    if (!full)
        return 0;
    size_t want = used ? 2 * (size_t)used : RESERVE_FIRST;
    void *bigger = realloc(*array, want * elem);
    if (!bigger)
        return -1;
    *array = bigger;
    *room = (int)want;
    return 0;
}

static gcsim_step *new_step(gcsim_iteration *it)
{
    if (reserve((void **)&it->steps, it->n_steps, &it->steps_room, sizeof *it->steps))
        return NULL;
    gcsim_step *st = &it->steps[it->n_steps++];
    *st = (gcsim_step){.call = -1};
    return st;
}

int program_codec_tensors(gcsim_iteration *it, const char *name, gcsim_codec_class cls,
                          double s, int tensors, double factor)
{
    if (!(s > 0))
        return 0;
    gcsim_step *st = new_step(it);
    if (!st)
        return -1;
    st->kind = GCSIM_STEP_CODEC;
    st->name = name;
    st->cls = cls;
    st->codec_s = s;
    st->tensors = tensors;
    st->tensor_factor = factor;
    return 0;
}

int program_codec(gcsim_iteration *it, const char *name, gcsim_codec_class cls, double s)
{
    return program_codec_tensors(it, name, cls, s, 0, 0);
}

int program_call(gcsim_iteration *it, int bucket, const char *name, gcsim_collective c,
                 const gcsim_bucket_bytes *bytes, double overhead_s)
{
    if (reserve((void **)&it->calls, it->n_calls, &it->calls_room, sizeof *it->calls))
        return -1;
    int k = it->n_calls;
    it->calls[k] = (gcsim_call){.collective = c, .bytes = *bytes, .overhead_s = overhead_s,
                                .name = name, .bucket = bucket};
    gcsim_step *st = new_step(it);
    if (!st)
        return -1;
    it->n_calls++;
    st->kind = GCSIM_STEP_CALL;
    st->name = name;
    st->call = k;
    return 0;
}

int program_fused(gcsim_iteration *it, const gcsim_scenario *s, int b)
{
    gcsim_bucket *bk = &it->buckets[b];
    const gcsim_bucket_bytes *bb = &bk->bytes;
    bk->first_step = it->n_steps;
    int decodes = gcsim_collective_decodes(s->collective, s->placement.gpus);
    double enc = gcsim_bucket_encode_s(bb);
    double dec = bb->compressed ? decodes * bb->decode_s : 0;
    if (program_codec_tensors(it, "encode", GCSIM_CODEC_ENCODE, enc, 1, 1.0) ||
        program_call(it, b, gcsim_collective_name(s->collective), s->collective, bb, 0.0) ||
        program_codec_tensors(it, "decode", GCSIM_CODEC_DECODE, dec, 2, (double)decodes))
        return -1;
    bk->n_steps = it->n_steps - bk->first_step;
    bk->n_deferred = 0;
    return 0;
}

gcsim_call *program_last_call(gcsim_iteration *it) { return &it->calls[it->n_calls - 1]; }
