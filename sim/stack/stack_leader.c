/*
 * sim/stack/stack_leader.c: "compressed_allreduce", the schedule a stack runs a quantized
 * payload's all-reduce with (stack_leader.h, docs/stacks.md "Bagua").
 */
#include <string.h>

#include "stack_leader.h"

/* The schedules a stack may name, and the collectives they are. */
static const char *const schedules[] = {"bagua-leader", "byteps-ps", "onebit-alltoall", NULL};
static const gcsim_collective collectives[] = {COLLECTIVE_BAGUA_LEADER, COLLECTIVE_BYTEPS_PS,
                                               COLLECTIVE_ONEBIT_ALLTOALL};

int stack_leader_parse(const cJSON *v, gcsim_stack *s, json_ctx *ctx)
{
    static const char *const keys[] = {"schedule", "payloads", "source", NULL};
    const char *path = "$.compressed_allreduce";
    char source[1024];
    int which = 0;
    s->has_compressed_allreduce = false;
    s->compressed_allreduce_kinds = 0;
    if (!v)
        return 0;
    if (json_expect_object(v, path, keys, ctx) ||
        json_choice(v, path, "schedule", true, schedules, &which, ctx) ||
        json_string(v, path, "source", true, source, sizeof source, ctx))
        return -1;
    if (!source[0])
        return gcsim_fail(ctx->err, "%s: %s.source: must say where the schedule comes from",
                          ctx->origin, path);
    unsigned kinds = 1u << STACK_PAYLOAD_QUANTIZED; /* without "payloads": quantized only */
    const cJSON *list = json_member(v, "payloads");
    if (list) {
        if (!cJSON_IsArray(list) || !list->child)
            return gcsim_fail(ctx->err, "%s: %s.payloads: expected a non-empty array of payload "
                                        "kinds (summable, low-rank, sparse, quantized)",
                              ctx->origin, path);
        kinds = 0;
        int i = 0;
        for (const cJSON *x = list->child; x; x = x->next, i++) {
            int k = STACK_PAYLOAD_KINDS;
            for (int c = 0; c < STACK_PAYLOAD_KINDS && cJSON_IsString(x); c++)
                if (strcmp(x->valuestring, gcsim_stack_payload_name((gcsim_stack_payload)c)) == 0)
                    k = c;
            if (k == STACK_PAYLOAD_KINDS || (kinds & (1u << k)))
                return gcsim_fail(ctx->err, "%s: %s.payloads[%d]: expected a payload kind not "
                                            "listed before (summable, low-rank, sparse, "
                                            "quantized)",
                                  ctx->origin, path, i);
            kinds |= 1u << k;
        }
    }
    s->has_compressed_allreduce = true;
    s->compressed_allreduce = collectives[which];
    s->compressed_allreduce_kinds = kinds;
    return 0;
}

bool stack_leader_collective(const gcsim_stack *st, const char *spec, bool collective_named,
                             gcsim_collective *out)
{
    gcsim_stack_payload kind;
    gcsim_error ignored;
    if (!st || !st->has_compressed_allreduce || collective_named ||
        gcsim_stack_payload_of(spec, &kind, &ignored) ||
        !(st->compressed_allreduce_kinds & (1u << kind)))
        return false;
    *out = st->compressed_allreduce;
    return true;
}
