/*
 * sim/collectives/byteps_ps.c: BytePS's exchange of a compressed gradient, as the schedule
 * both engines run (byteps_ps.h).
 *
 * What BytePS runs per partition (bytedance/byteps @a7db8f3187998473cc2d60aa71db451bfb1723f7,
 * read, not copied):
 *   - byteps/common/global.cc: without BYTEPS_REDUCE_ROOTS the machine's GPUs run an NCCL
 *     reduce-scatter of each partition (each GPU owns 1/local_size of it) and an NCCL
 *     all-gather after the pull; tensors are cut into partitions of BYTEPS_PARTITION_BYTES
 *     (4096000 by default), each pushed and pulled on its own (the stack's bucket);
 *   - byteps/common/core_loops.cc: COPYD2H of the reduced partition to host memory, the
 *     CPU's COMPRESS, PUSH to the partition's server, PULL, DECOMPRESS on the CPU,
 *     COPYH2D, then the all-gather; partitions go through these loops one after another,
 *     so one partition's push overlaps the next one's reduce and compression;
 *   - byteps/server/server.cc: the server decompresses each worker's push, sums, and
 *     compresses the sum once for the pulls; docs/gradient-compression.md: servers on CPU
 *     machines, one per worker machine in the measured runs (colocated).
 * Phases (GPUs machine-major; machine m's GPUs m i .. m i + i - 1, its first the one whose
 * host pushes; endpoints N .. N + j - 1 the machines' host memories):
 *   1. "machine reduce-scatter" (uncompressed): a ring in the machine, i - 1 steps, each
 *      GPU passes 1/i of the fp32 partition to the next one each step;
 *   2. "copy to host" (uncompressed): every GPU copies its reduced 1/i of the fp32
 *      partition to its machine's host memory (core_loops.cc RunCopyDevice2HostLoopOnce:
 *      copy_len = len / nccl_size for each local rank, cudaMemcpyAsync D2H, then
 *      cudaStreamSynchronize before the task moves on), all GPUs at once over their own
 *      PCIe paths (and a shared switch uplink where the platform has one);
 *   3. "push" (compressed, reducing): each machine sends every other machine's server the
 *      1/j of the partition that server holds; the server decodes, sums and re-encodes
 *      (the hop codec rule: 1/j of the partition's decode and encode);
 *   4. "pull" (compressed): each server sends its encoded sum to every other machine;
 *   5. "copy to device" (uncompressed): the decoded sum back, 1/i to every GPU
 *      (RunCopyHost2DeviceLoopOnce, the same shares, cudaMemcpyAsync H2D);
 *   6. "machine all-gather" (uncompressed): the same ring, the decoded sum.
 * A machine's NIC carries (j - 1) / j of one payload each way per phase, the same bytes as
 * Bagua's leader exchange (bagua_leader.c); what differs is the fp32 reduce-scatter and
 * all-gather in the machine, the fp32 copies through PCIe, and where the codec runs (the
 * stack prices it on the host's CPU: sim/stack/stack_cpu_codec.c). The copies are BytePS's
 * whatever the payload: its uncompressed partitions take the same path (COPYD2H, push,
 * pull, COPYH2D; the stack's "compressed_allreduce" says which payloads run it).
 * Not modelled: the server's decode of all j pushes (the hop rule charges one 1/j share,
 * as for Bagua); a server's own partition travels no wire here (the colocated server's
 * loopback); the push still leaves from the machine's first GPU (its PCIe link carries the
 * payload once more).
 */
#include "byteps_ps.h"
#include "leader_flows.h"

#include <stdbool.h>
#include <stdlib.h>

/* GPUs of machine m on t (the last machine may hold fewer). */
static int machine_gpus(const gcsim_topology *t, int m)
{
    int first = m * t->gpus_per_node, left = t->gpus - first;
    return left < t->gpus_per_node ? left : t->gpus_per_node;
}

/* The ring in every machine: GPU l hands 1/i of the partition to l + 1 (mod i), active in
 * the ring's i - 1 steps; in sender order. */
static int rings(const gcsim_topology *t, gcsim_flow **out, int *n)
{
    gcsim_flow *v = malloc(sizeof *v * (size_t)(t->gpus > 0 ? t->gpus : 1));
    if (!v)
        return -1;
    int c = 0;
    for (int m = 0; m < t->nodes; m++) {
        int first = m * t->gpus_per_node, i = machine_gpus(t, m);
        if (i < 2)
            continue;
        for (int l = 0; l < i; l++)
            v[c++] = (gcsim_flow){first + l, first + (l + 1) % i, 1.0 / i, 1, 0, i - 2};
    }
    *out = v;
    *n = c;
    return 0;
}

/* Every GPU of every machine and its machine's host memory (endpoint N + m): 1/i of the
 * fp32 partition one way (to_host) or the other, in one step; in sender order (grouped by
 * machine, whose host is the one sender of the copies back). */
static int host_copies(const gcsim_topology *t, bool to_host, gcsim_flow **out, int *n)
{
    gcsim_flow *v = malloc(sizeof *v * (size_t)(t->gpus > 0 ? t->gpus : 1));
    if (!v)
        return -1;
    int c = 0;
    for (int m = 0; m < t->nodes; m++) {
        int first = m * t->gpus_per_node, i = machine_gpus(t, m), host = t->gpus + m;
        for (int l = 0; l < i; l++)
            v[c++] = to_host ? (gcsim_flow){first + l, host, 1.0 / i, 1, 0, 0}
                             : (gcsim_flow){host, first + l, 1.0 / i, 1, 0, 0};
    }
    *out = v;
    *n = c;
    return 0;
}

int gcsim_byteps_ps_phase(const gcsim_topology *t, int k, gcsim_byteps_phase *ph, int *steps,
                          gcsim_flow **flows, int *n)
{
    static const gcsim_byteps_phase phases[GCSIM_BYTEPS_PS_PHASES] = {
        {"machine reduce-scatter", true, true},
        {"copy to host", false, true},
        {"push", true, false},
        {"pull", false, false},
        {"copy to device", false, true},
        {"machine all-gather", false, true}};
    *flows = NULL;
    *n = 0;
    *steps = 1;
    if (k < 0 || k >= GCSIM_BYTEPS_PS_PHASES)
        return 0;
    *ph = phases[k];
    if (k == 2 || k == 3) /* one machine: no server exchange */
        return t->nodes > 1 ? gcsim_leader_all_to_all_flows(t, flows, n) : 0;
    if (k == 1 || k == 4) /* one machine: BytePS pushes nothing, so copies nothing */
        return t->nodes > 1 ? host_copies(t, k == 1, flows, n) : 0;
    *steps = t->gpus_per_node > 1 ? t->gpus_per_node - 1 : 1;
    return rings(t, flows, n);
}

double gcsim_byteps_ps_flows(const gcsim_topology *t)
{
    double j = t->nodes;
    return (j > 1 ? 4.0 : 2.0) * t->gpus + 2.0 * j * (j - 1);
}
