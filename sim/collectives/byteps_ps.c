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
 * host pushes):
 *   1. "machine reduce-scatter" (uncompressed): a ring in the machine, i - 1 steps, each
 *      GPU passes 1/i of the fp32 partition to the next one each step;
 *   2. "push" (compressed, reducing): each machine sends every other machine's server the
 *      1/j of the partition that server holds; the server decodes, sums and re-encodes
 *      (the hop codec rule: 1/j of the partition's decode and encode);
 *   3. "pull" (compressed): each server sends its encoded sum to every other machine;
 *   4. "machine all-gather" (uncompressed): the same ring, the decoded sum.
 * A machine's NIC carries (j - 1) / j of one payload each way per phase, the same bytes as
 * Bagua's leader exchange (bagua_leader.c); what differs is the fp32 reduce-scatter and
 * all-gather in the machine and where the codec runs (the stack prices it on the host's
 * CPU: sim/stack/stack_cpu_codec.c).
 * Not modelled: the PCIe copies to and from host memory (COPYD2H, COPYH2D); the server's
 * decode of all j pushes (the hop rule charges one 1/j share, as for Bagua); a server's
 * own partition travels no wire here (the colocated server's loopback).
 */
#include "byteps_ps.h"
#include "leader_flows.h"

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

int gcsim_byteps_ps_phase(const gcsim_topology *t, int k, gcsim_byteps_phase *ph, int *steps,
                          gcsim_flow **flows, int *n)
{
    static const gcsim_byteps_phase phases[GCSIM_BYTEPS_PS_PHASES] = {
        {"machine reduce-scatter", true, true},
        {"push", true, false},
        {"pull", false, false},
        {"machine all-gather", false, true}};
    *flows = NULL;
    *n = 0;
    *steps = 1;
    if (k < 0 || k >= GCSIM_BYTEPS_PS_PHASES)
        return 0;
    *ph = phases[k];
    if (k == 1 || k == 2) /* one machine: no server exchange */
        return t->nodes > 1 ? gcsim_leader_all_to_all_flows(t, flows, n) : 0;
    *steps = t->gpus_per_node > 1 ? t->gpus_per_node - 1 : 1;
    return rings(t, flows, n);
}

double gcsim_byteps_ps_flows(const gcsim_topology *t)
{
    double j = t->nodes;
    return 2.0 * t->gpus + 2.0 * j * (j - 1);
}
