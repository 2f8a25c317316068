/*
 * sim/stack/stack_allgather.c: "allgather", the transport of a stack's all-gather
 * (stack_allgather.h, docs/formats.md "Stack files").
 */
#include "stack_allgather.h"

/* The transports a stack may name, and the collectives they run as. */
static const char *const transports[] = {"nccl", "mpi-host-staged", NULL};
static const gcsim_collective collectives[] = {COLLECTIVE_ALLGATHER,
                                               COLLECTIVE_MPI_HOST_ALLGATHER};

int stack_allgather_parse(const cJSON *v, gcsim_stack *s, json_ctx *ctx)
{
    static const char *const keys[] = {"transport", "source", NULL};
    const char *path = "$.allgather";
    char source[4096];
    int which = 0;
    s->allgather = COLLECTIVE_ALLGATHER;
    if (!v)
        return 0;
    if (json_expect_object(v, path, keys, ctx) ||
        json_choice(v, path, "transport", true, transports, &which, ctx) ||
        json_string(v, path, "source", true, source, sizeof source, ctx))
        return -1;
    if (!source[0])
        return gcsim_fail(ctx->err, "%s: %s.source: must say where the transport comes from",
                          ctx->origin, path);
    s->allgather = collectives[which];
    return 0;
}
