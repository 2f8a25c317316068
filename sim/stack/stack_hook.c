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

/* Horovod up to v0.22 waits for a fused group's tensors on its background thread
 * (PerformOperation polls each entry's ready event, horovod/common/operations.cc:290-321
 * @v0.21.3), and the hook records that event and enqueues the tensor when it runs on the
 * host (horovod/torch/mpi_ops_v2.cc:71-80, ready_event.cc:73 @v0.21.3), ahead of the GPU
 * (the premise of "queued" hooks above). While the thread waits, the host enqueues the
 * tensors behind: its next cycle finds them all and fuses them up to the threshold
 * (Controller::FuseResponses, controller.cc:818 @v0.21.3), each fused response again
 * waited for in turn. So the groups are threshold-sized runs of tensors in backward order,
 * each enqueued when its last tensor is ready. A hook that waits for the GPU (a blocking
 * size exchange, an encode marked "host_sync", GRACE's blocking PowerSGD all-reduces) keeps
 * the host in step with it:
 * then a group is what the GPU produced in one cycle, as with "stream". */
bool gcsim_stack_fuses_ahead(const gcsim_stack *s, const gcsim_stack_entry *e, bool compressed,
                             bool allgather)
{
    if (s->unit != STACK_UNIT_TENSOR || !s->wait_on_thread)
        return false;
    bool syncs = compressed && e && ((e->size_exchange && allgather) || e->host_sync ||
                                     e->exchange == STACK_EXCHANGE_POWERSGD_BLOCKING);
    return !syncs;
}
