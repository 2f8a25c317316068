/*
 * sim/stack/stack_host.c: the host model of a stack (stack_host.h).
 *
 * The laws' host parts were measured with PyTorch eager (Python and one launch per kernel,
 * back to back). A framework that runs a prebuilt graph (TensorFlow graphs, as Horovod-TF
 * and GRACE's TensorFlow compressors run) pays neither per op: "host": {"framework":
 * "graph", "op_us": X} charges X per op as the host's part instead (the larger of it and
 * the GPU's part is charged, as for every law). X comes from a measurement of the same
 * ops captured once in a CUDA graph and replayed (a stand-in for a graph executor, not
 * TensorFlow itself: platforms/stacks/horovod-tf.json says where its figure comes from).
 */
#include <string.h>

#include "stack_host.h"

int stack_host_parse(const cJSON *root, gcsim_stack *s, json_ctx *ctx)
{
    static const char *const keys[] = {"framework", "op_us", "source", NULL};
    static const char *const frameworks[] = {"eager", "graph", NULL};
    static const char *const decodes[] = {"looped", "batched", NULL};
    const char *path = "$.host";
    const cJSON *h = json_member(root, "host");
    int framework = 0, decode = 0;
    char source[1024];
    if (json_choice(root, "$", "gathered_decode", false, decodes, &decode, ctx))
        return -1;
    s->batched_decode = decode == 1;
    if (!h)
        return 0;
    if (json_expect_object(h, path, keys, ctx) ||
        json_choice(h, path, "framework", true, frameworks, &framework, ctx) ||
        json_string(h, path, "source", true, source, sizeof source, ctx))
        return -1;
    s->graph_host = framework == 1;
    if (!s->graph_host) {
        if (json_member(h, "op_us"))
            return gcsim_fail(ctx->err, "%s: %s.op_us: an \"eager\" framework's host time per op "
                                        "is the laws' measured host part, not a figure of its own",
                              ctx->origin, path);
        return 0;
    }
    /* one op's host time: at most a second, as a collective call's (stack_file.c) */
    double op_us = 0;
    if (!json_member(h, "op_us"))
        return gcsim_fail(ctx->err, "%s: %s.op_us: missing (a \"graph\" framework's host time "
                                    "per op, microseconds)",
                          ctx->origin, path);
    if (json_number(h, path, "op_us", true, 0, 1e6, &op_us, ctx))
        return -1;
    s->graph_op_host_s = op_us * 1e-6;
    return 0;
}

void stack_host_finish(gcsim_stack *s)
{
    if (!s->graph_host)
        return;
    for (int k = 0; k < s->n_laws; k++)
        for (int j = 0; j < s->laws[k].n_settings; j++)
            for (int i = 0; i < s->laws[k].n_points; i++)
                s->laws[k].host_s[j][i] = s->graph_op_host_s;
}
