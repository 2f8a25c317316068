/*
 * sim/stack/stack_hook.c: the host time of the ops a stack runs in its gradient hook,
 * before the exchange (stack_hook.h, docs/stacks.md "Host time of the hook's ops").
 *
 * Every law is charged the larger of its host and GPU parts (stack_law.c): right for an op
 * whose launch the GPU waits for. An op issued in an autograd hook during a GPU-bound
 * backward is not such an op: PyTorch launches kernels asynchronously, so when the hook
 * runs, the GPU still has the backward kernels of the hook's own layers (launched just
 * before it) queued, and the hook's Python and launch time passes while the GPU works
 * through them. "hook_host": {"runs": "queued"} says a stack's encode runs so: its GPU part
 * is charged on the stream, and its host part only where it exceeds the backward GPU work
 * queued ahead of it (the unit's own layers' backward: a lower bound of what is queued, as
 * the host may be further ahead). Not for an encode that waits for the GPU: an entry with a
 * blocking size exchange (DGC's, threshold's) or marked "host_sync" (GRACE's and
 * MergeComp's 1-bit: `tensor[mask0]` and `if num0 > 0`; GRACE's TernGrad: two .item())
 * reads the GPU on the host, which drains the queue, keeps the serial charge; nor for the
 * decode, which in Horovod's synchronize() follows a wait on the collective, and in DDP's
 * callbacks follows the exchange.
 */
#include <math.h>
#include <string.h>

#include "stack_hook.h"

int stack_hook_parse(const cJSON *root, gcsim_stack *s, json_ctx *ctx)
{
    static const char *const keys[] = {"runs", "source", NULL};
    static const char *const runs[] = {"serial", "queued", NULL};
    const char *path = "$.hook_host";
    const cJSON *h = json_member(root, "hook_host");
    int how = 0;
    char source[1024];
    s->hook_host_queued = false;
    if (!h)
        return 0;
    if (json_expect_object(h, path, keys, ctx) ||
        json_choice(h, path, "runs", true, runs, &how, ctx) ||
        json_string(h, path, "source", true, source, sizeof source, ctx))
        return -1;
    s->hook_host_queued = how == 1;
    return 0;
}

double gcsim_stack_hook_encode_s(const gcsim_stack *s, const gcsim_stack_entry *e,
                                 double priced_s, double gpu_s, double queued_s)
{
    if (!s->hook_host_queued || e->size_exchange || e->host_sync || !(priced_s > gpu_s))
        return priced_s;
    /* the stream waits only for host time the queued backward does not cover */
    return fmax(gpu_s, priced_s - fmax(queued_s, 0));
}
