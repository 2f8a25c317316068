/*
 * sim/collectives/mpi_host_allgather.c: Horovod's all-gather of GPU tensors staged through
 * host memory and run by OpenMPI, as the schedule both engines run (mpi_host_allgather.h).
 *
 * What Horovod runs (horovod/horovod @6b77884daf92649ecf031fcc8ff29697bbea0132, the commit
 * the DGC reference implementation patches; read, not copied):
 *   - horovod/common/operations.cc:169-175, 188-191, 215-223: without HOROVOD_GPU_ALLGATHER
 *     set to MPI or NCCL at build time, no GPU all-gather op exists; the CPU MPIAllgather
 *     runs it;
 *   - horovod/torch/mpi_ops_v2.cc:300-326: then a CUDA tensor's allgather_async is
 *     DoAllgatherCudaOnCPU (:136-168): in the framework's thread, tensor.to(CPU,
 *     non_blocking) (a device-to-host copy of the local payload on the current stream) and
 *     a ready event; the request is enqueued as a CPU tensor; its callback, run by the
 *     background thread after the operation (operations.cc:305-312, one entry after the
 *     other), copies the whole gathered CPU buffer to the GPU (output.copy_(cpu_output),
 *     :161-162: a host-to-device copy of N payloads, synchronous from pageable memory:
 *     empty_like does not pin);
 *   - operations.cc:271-296: the background thread waits for the ready events (the D2H
 *     copies) before it runs the fused group;
 *   - horovod/common/ops/mpi_operations.cc:83-158: MPIAllgather copies the group's entries
 *     into the host fusion buffer, calls MPI_Allgatherv on it, and copies every rank's part
 *     out to the entries' CPU outputs (memcpy on the host).
 * What OpenMPI runs (open-mpi/ompi @v4.0.7, 2cd8864b723a; the implementation asks for
 * OpenMPI >= 4.0 and runs `-mca pml ob1 -mca btl ^openib`: TCP between machines, shared
 * memory inside one): ompi/mca/coll/tuned/coll_tuned_decision_fixed.c:639-693 runs
 * allgatherv among 2 ranks as one exchange, below 50,000 B in all by Bruck's algorithm,
 * else by neighbor exchange on an even rank count and a ring on an odd one;
 * ompi/mca/coll/base/coll_base_allgatherv.c:403-468, neighbor exchange: rank r (even)
 * pairs with r + 1 at even steps and r - 1 at odd ones (odd ranks the other way); step 0
 * swaps one block, each of the N / 2 - 1 later steps two.
 * Phases (GPUs machine-major, endpoints N .. N + j - 1 the machines' host memories), run one
 * after another as Horovod's background thread waits for each (the ready events of the
 * copies, then MPI_Allgatherv, then the callbacks' copies, one entry after the other):
 *   1. "copy to host": every GPU's payload to its machine's host memory (one payload);
 *   2. "mpi all-gather": OpenMPI's exchange among the N ranks' host buffers, step by step;
 *      a rank's block to a rank of another machine crosses the NICs between the machines'
 *      host endpoints (no NCCL proxy or connection link: MPI's TCP BTL is driven by the
 *      rank's own thread); blocks between ranks of one machine go through shared memory
 *      and are not charged (host memcpy), nor are steps with no block between machines;
 *   3. "copy to device": the gathered buffer, N payloads, from host memory to every GPU.
 * The copies are also ordered with backward's kernels: the device-to-host copy is issued
 * on the hook thread's current stream and the host-to-device copy on the background
 * thread's, both the default stream, so each holds back the kernels queued after it; the
 * stack's program charges that as GPU time too (sim/step/program_stack.c,
 * staged_stream_s).
 * Not modelled: pageable memory's lower copy rate (the platform's gpu_to_host rate is a
 * pinned one); the host fusion buffer's memcpy in and out; Bruck's algorithm below
 * 50,000 B (the schedule does not depend on the size); OpenMPI's own per-call costs.
 */
#include "mpi_host_allgather.h"

#include <stdlib.h>

int gcsim_mpi_host_allgather_steps(int gpus)
{
    if (gpus < 2)
        return 0;
    if (gpus == 2)
        return 1;
    return gpus % 2 ? gpus - 1 : gpus / 2;
}

/* The rank that rank r exchanges with at step s of OpenMPI's algorithm, and the blocks it sends
 * (coll_base_allgatherv.c: neighbor exchange for an even N, the ring for an odd one). */
static int partner(int n, int r, int s, double *blocks)
{
    if (n % 2) { /* ring: to r + 1, one block a step */
        *blocks = 1;
        return (r + 1) % n;
    }
    bool even = r % 2 == 0;
    int parity = s % 2; /* step 0 is neighbor[0]; later steps alternate */
    int right = (r + 1) % n, left = (r - 1 + n) % n;
    *blocks = s == 0 ? 1 : 2;
    return (even == (parity == 0)) ? right : left;
}

static int grow(gcsim_flow **v, int *cap, int n)
{
    if (n < *cap)
        return 0;
    int c = *cap ? 2 * *cap : 64;
    gcsim_flow *w = realloc(*v, sizeof *w * (size_t)c);
    if (!w)
        return -1;
    *v = w;
    *cap = c;
    return 0;
}

static int copies(const gcsim_topology *t, bool to_host, gcsim_flow **out, int *n)
{
    int N = t->gpus;
    gcsim_flow *v = malloc(sizeof *v * (size_t)(N > 0 ? N : 1));
    if (!v)
        return -1;
    for (int g = 0; g < N; g++) {
        int host = N + gcsim_topology_node_of(t, g);
        v[g] = to_host ? (gcsim_flow){g, host, 1.0, 1, 0, 0}
                       : (gcsim_flow){host, g, (double)N, 1, 0, 0};
    }
    *out = v;
    *n = N;
    return 0;
}

static int exchange(const gcsim_topology *t, gcsim_flow **out, int *n)
{
    int N = t->gpus, steps = gcsim_mpi_host_allgather_steps(N), c = 0, cap = 0;
    gcsim_flow *v = NULL;
    for (int s = 0; s < steps; s++)
        for (int r = 0; r < N; r++) {
            double blocks;
            int q = partner(N, r, s, &blocks);
            int a = gcsim_topology_node_of(t, r), b = gcsim_topology_node_of(t, q);
            if (a == b)
                continue; /* shared memory inside the machine: not charged */
            if (grow(&v, &cap, c)) {
                free(v);
                return -1;
            }
            v[c++] = (gcsim_flow){N + a, N + b, blocks, 1, s, s};
        }
    *out = v;
    *n = c;
    return 0;
}

int gcsim_mpi_host_allgather_phase(const gcsim_topology *t, int k, const char **name,
                                   int *steps, gcsim_flow **flows, int *n)
{
    static const char *const names[GCSIM_MPI_HOST_ALLGATHER_PHASES] = {
        "copy to host", "mpi all-gather", "copy to device"};
    *flows = NULL;
    *n = 0;
    *steps = 1;
    if (k < 0 || k >= GCSIM_MPI_HOST_ALLGATHER_PHASES || t->gpus < 2)
        return 0;
    *name = names[k];
    if (k == 1) {
        *steps = gcsim_mpi_host_allgather_steps(t->gpus);
        return t->nodes > 1 ? exchange(t, flows, n) : 0;
    }
    return copies(t, k == 0, flows, n);
}

double gcsim_mpi_host_allgather_flows(const gcsim_topology *t)
{
    double n = t->gpus;
    /* the copies, and at most every rank's block to another machine at every step */
    return 2 * n + (t->nodes > 1 ? n * gcsim_mpi_host_allgather_steps(t->gpus) : 0);
}
