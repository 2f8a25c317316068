/* Alpha-beta cost models of the exchanges; see collectives.h and docs/analytic.md. */
#include "collectives.h"

#include <math.h>

static int ilog2_floor(int n)
{
    int l = 0;
    while ((1 << (l + 1)) <= n)
        l++;
    return l;
}

static int ilog2_ceil(int n)
{
    int l = ilog2_floor(n);
    return (1 << l) < n ? l + 1 : l;
}

double ab_hop_bytes(const ab_problem *p, double parts, int k)
{
    double dense = p->dense_bytes / parts, packed = p->payload_bytes / parts;
    if (k < 1)
        k = 1;
    switch (p->aggregation) {
    case PAYLOAD_DENSE_SUMMABLE:
        return packed;
    case PAYLOAD_SHARED_SCALE: {
        /* A sum of k ternary vectors with a shared scale takes 2k+1 levels:
         * ceil(log2(2k+1)) bits where one vector took 2 bits. */
        double bits = ceil(log2(2.0 * k + 1.0));
        double b = packed * bits / 2.0;
        return b < dense ? b : dense;
    }
    case PAYLOAD_SPARSE:
    case PAYLOAD_PER_WORKER_SCALE:
        break;
    }
    double b = packed * k;
    return b < dense ? b : dense;
}

/* The link a flat collective's slowest hop uses: the network once it spans machines. */
static void flat_link(const ab_problem *p, double *alpha_s, double *Bps)
{
    if (p->machines > 1) {
        *alpha_s = p->inter_alpha_s;
        *Bps = p->inter_Bps;
    } else {
        *alpha_s = p->intra_alpha_s;
        *Bps = p->intra_Bps;
    }
}

/* Ring all-reduce over N ranks: N-1 reduce-scatter steps, in step s each rank sends a
 * 1/N piece holding the sum of s workers; then N-1 all-gather steps of the full sum.
 *   T = sum_{s=1}^{N-1} (a + hop(1/N, s)/B) + (N-1) (a + hop(1/N, N)/B)
 * Dense: T = 2(N-1) a + 2 (N-1)/N |g| / B, the classic cost. */
double ab_ring_allreduce_s(const ab_problem *p)
{
    int n = p->gpus;
    if (n <= 1)
        return 0.0;
    double a, B, t = 0.0;
    flat_link(p, &a, &B);
    for (int s = 1; s < n; s++)
        t += a + ab_hop_bytes(p, n, s) / B;
    t += (n - 1) * (a + ab_hop_bytes(p, n, n) / B);
    return t;
}

/* Recursive halving (reduce-scatter) then doubling (all-gather) over P = 2^floor(log2 N)
 * ranks; the N-P extra ranks first fold their gradient into a partner and get the result
 * back at the end (2 more full-size hops). Step d of the reduce-scatter exchanges a
 * 1/2^d piece holding the sum of 2^(d-1) workers with a partner at distance P/2^d; a
 * partner on another machine is reached through the NIC, shared by the machine's i GPUs
 * that all exchange at once:
 *   T = sum_{d=1}^{L} 2 (a_d + hop(2^d, 2^(d-1)) / B_d)   with the all-gather mirrored,
 *   B_d = C_gwd inside a machine, C_nwd / i across machines. */
double ab_halving_doubling_s(const ab_problem *p)
{
    int n = p->gpus;
    if (n <= 1)
        return 0.0;
    int levels = ilog2_floor(n), pow2 = 1 << levels;
    double t = 0.0;
    for (int d = 1; d <= levels; d++) {
        int distance = pow2 >> d;
        bool inter = distance >= p->gpus_per_machine && p->machines > 1;
        double a = inter ? p->inter_alpha_s : p->intra_alpha_s;
        double B = inter ? p->inter_Bps / p->gpus_per_machine : p->intra_Bps;
        double parts = (double)(1 << d);
        t += a + ab_hop_bytes(p, parts, 1 << (d - 1)) / B; /* reduce-scatter */
        t += a + ab_hop_bytes(p, parts, n) / B;            /* all-gather */
    }
    if (pow2 < n) {
        double a, B;
        flat_link(p, &a, &B);
        t += a + ab_hop_bytes(p, 1, 1) / B + a + ab_hop_bytes(p, 1, n) / B;
    }
    return t;
}

/* Binary tree, not pipelined: reduce up L = ceil(log2 N) levels, broadcast down. A parent
 * receives from (sends to) two children over one link, so a level costs a + 2 hop / B.
 * The lowest log2(i) levels stay inside a machine. At level l a child holds the sum of up
 * to 2^l - 1 workers.
 *   T = sum_{l=1}^{L} [a_l + 2 hop(1, 2^l - 1)/B_l] + sum_{l=1}^{L} [a_l + 2 hop(1, N)/B_l] */
double ab_binary_tree_s(const ab_problem *p)
{
    int n = p->gpus;
    if (n <= 1)
        return 0.0;
    int levels = ilog2_ceil(n), intra_levels = ilog2_ceil(p->gpus_per_machine);
    double t = 0.0;
    for (int l = 1; l <= levels; l++) {
        bool inter = l > intra_levels && p->machines > 1;
        double a = inter ? p->inter_alpha_s : p->intra_alpha_s;
        double B = inter ? p->inter_Bps : p->intra_Bps;
        int k = (1 << l) - 1 < n ? (1 << l) - 1 : n;
        t += a + 2.0 * ab_hop_bytes(p, 1, k) / B;
        t += a + 2.0 * ab_hop_bytes(p, 1, n) / B;
    }
    return t;
}

/* Double binary tree (as in NCCL), pipelined in small chunks: each tree carries half of
 * the gradient, and every rank is an inner node of one tree and a leaf of the other, so
 * in steady state each rank receives and sends |g| per phase. Latency: L levels per phase.
 *   T = 2 L a + hop(1, N/2)/B + hop(1, N)/B
 * (the reduce phase carries partial sums of about half the workers on average). */
double ab_double_binary_tree_s(const ab_problem *p)
{
    int n = p->gpus;
    if (n <= 1)
        return 0.0;
    double a, B;
    flat_link(p, &a, &B);
    int levels = ilog2_ceil(n);
    int half = n / 2 > 1 ? n / 2 : 1;
    return 2.0 * levels * a + ab_hop_bytes(p, 1, half) / B + ab_hop_bytes(p, 1, n) / B;
}

/* Hierarchical: ring reduce-scatter inside each machine (i-1 steps of |g|/i over C_gwd),
 * then for each of the i shards a ring all-reduce across the j machines (the i rings
 * share the NIC, C_nwd / i each; 2(j-1) steps of |g|/(i j)), then a ring all-gather
 * inside the machine.
 * Dense: T = 2(i-1)(a_g + |g|/(i C_gwd)) + 2(j-1)(a_n + |g|/(j C_nwd)). */
double ab_hierarchical_s(const ab_problem *p)
{
    int i = p->gpus_per_machine, j = p->machines, n = p->gpus;
    double t = 0.0;
    for (int s = 1; s < i; s++)
        t += p->intra_alpha_s + ab_hop_bytes(p, i, s) / p->intra_Bps;
    if (j > 1) {
        double B = p->inter_Bps / i;
        for (int s = 1; s < j; s++)
            t += p->inter_alpha_s + ab_hop_bytes(p, (double)i * j, i * s) / B;
        t += (j - 1) * (p->inter_alpha_s + ab_hop_bytes(p, (double)i * j, n) / B);
    }
    t += (i - 1) * (p->intra_alpha_s + ab_hop_bytes(p, i, n) / p->intra_Bps);
    return t;
}

/* Parameter server with S shards on S machines (default one per machine). Push: every
 * worker sends 1/S of its payload to each shard; a shard's machine receives N pieces,
 * a worker machine sends i payloads. Pull: each shard returns the aggregate of N workers
 * (TernGrad: 2N+1 levels; per-worker scales: decoded, summed, re-encoded to one payload).
 *   T = 2 a + max(N P/S, i P)/C_nwd + max(N A/S, i A)/C_nwd
 * On one machine the server is the host: T = 2 a_g + i P/C_cwd + i A/C_cwd. */
double ab_parameter_server_s(const ab_problem *p)
{
    int n = p->gpus, i = p->gpus_per_machine, j = p->machines;
    if (n <= 1)
        return 0.0;
    double push = p->payload_bytes;
    double pull = p->aggregation == PAYLOAD_PER_WORKER_SCALE ? p->payload_bytes
                                                               : ab_hop_bytes(p, 1, n);
    if (j == 1)
        return 2.0 * p->intra_alpha_s + i * push / p->host_Bps + i * pull / p->host_Bps;
    int shards = p->ps_shards > 0 ? p->ps_shards : j;
    double in_push = (double)n * push / shards, out_push = (double)i * push;
    double in_pull = (double)n * pull / shards, out_pull = (double)i * pull;
    return 2.0 * p->inter_alpha_s + fmax(in_push, out_push) / p->inter_Bps +
           fmax(in_pull, out_pull) / p->inter_Bps;
}

/* Ring all-gather of the N compressed payloads, each worker then decodes and sums them.
 *   T = (N-1)(a + P/B) */
double ab_allgather_s(const ab_problem *p)
{
    int n = p->gpus;
    if (n <= 1)
        return 0.0;
    double a, B;
    flat_link(p, &a, &B);
    return (n - 1) * (a + p->payload_bytes / B);
}

int ab_payloads_decoded(gcsim_collective c, const ab_problem *p)
{
    if (c == COLLECTIVE_ALLGATHER)
        return p->gpus;
    return 1;
}
