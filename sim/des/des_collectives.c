/*
 * sim/des/des_collectives.c: collectives as point-to-point message schedules.
 *
 * Each function is what one participant does; every participant of a group runs the
 * matching function. Mailboxes are keyed by (receiver, sender), so messages between one
 * pair match in program order and nothing else can overtake them. Sizes come from
 * des_hop_bytes: the payload of a chunk that holds the sum of k workers' gradients.
 *
 * Aggregation per hop (DESIGN.md):
 *   dense summable: payload size at every hop;
 *   shared scale (TernGrad): sums of k ternary values need log2(2k+1) bits (des_payload.c);
 *   sparse: union of k supports, k x payload, capped at dense;
 *   per-worker scale: not summable as encoded: every reducing hop decodes, sums and
 *     re-encodes its chunk (codec time charged), so the size stays the payload's;
 *     all-gather moves N payloads and decodes all of them.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>

#include "des_collectives.h"
#include "des_timeline.h"

/* ---- point-to-point primitives ---- */

static sg_mailbox_t mbox(int dst, int src)
{
    char name[48];
    snprintf(name, sizeof name, "%d<%d", dst, src);
    return sg_mailbox_by_name(name);
}

static des_peer_boxes *boxes(des_actor *a, int peer)
{
    des_peer_boxes *b = &a->boxes[peer % DES_MAILBOX_CACHE];
    if (b->peer != peer) {
        /* Resolving a mailbox is a simcall: another actor of this endpoint (double tree)
         * may run meanwhile, so the entry is filled only once complete. */
        sg_mailbox_t in = mbox(a->ep, peer), out = mbox(peer, a->ep);
        b->in = in;
        b->out = out;
        b->peer = peer;
    }
    return b;
}

static sg_comm_t isend(des_actor *a, int dst, double bytes)
{
    a->sim->transfers++;
    long size = bytes > 0 ? (long)ceil(bytes) : 0;
    return sg_mailbox_put_async(boxes(a, dst)->out, a, size);
}

static sg_comm_t irecv(des_actor *a, int src, void **sink)
{
    return sg_mailbox_get_async(boxes(a, src)->in, sink);
}

static void send_to(des_actor *a, int dst, double bytes)
{
    sg_comm_wait(isend(a, dst, bytes));
}

static void recv_from(des_actor *a, int src)
{
    void *sink;
    sg_comm_wait(irecv(a, src, &sink));
}

static void sendrecv(des_actor *a, int to, double bytes, int from)
{
    void *sink;
    sg_comm_t c[2] = {isend(a, to, bytes), irecv(a, from, &sink)};
    sg_comm_wait_all(c, 2);
}

void des_codec(des_actor *a, double seconds, const char *name)
{
    if (seconds <= 0)
        return;
    double t0 = simgrid_get_clock();
    sg_actor_execute(seconds * sg_host_get_speed(sg_host_self()));
    a->codec_s += seconds;
    des_timeline_add(a->sim->timeline, a->ep, DES_TRACK_COMPRESS, name, t0, simgrid_get_clock());
}

static const des_plan *plan_of(const des_actor *a) { return a->sim->plan; }

static double dense_codec_s(const des_actor *a, int b, double fraction)
{
    const des_plan *p = plan_of(a);
    if (!p->compressed || p->codec_Bps <= 0)
        return 0;
    return fraction * p->buckets[b].dense_bytes / p->codec_Bps;
}

/* After receiving a chunk to add into: per-worker-scale payloads are decoded, summed and
 * re-encoded there. */
static void reduce_hop(des_actor *a, int b, double fraction)
{
    if (plan_of(a)->aggregation == PAYLOAD_PER_WORKER_SCALE)
        des_codec(a, 2 * dense_codec_s(a, b, fraction), "decode-sum-encode");
}

static void final_decode(des_actor *a, int b, double payloads)
{
    char name[48];
    snprintf(name, sizeof name, "decode bucket %d", b);
    des_codec(a, payloads * dense_codec_s(a, b, 1.0), name);
}

/* ---- ring: reduce-scatter then all-gather, g - 1 steps each of 1/g of the data ---- */

static void ring_allreduce(des_actor *a, int b, const int *m, int g, int p, double kscale)
{
    if (g < 2)
        return;
    int next = m[(p + 1) % g], prev = m[(p + g - 1) % g];
    double chunk = 1.0 / g;
    for (int t = 1; t < g; t++) {
        sendrecv(a, next, des_hop_bytes(plan_of(a), b, chunk, t * kscale), prev);
        reduce_hop(a, b, chunk);
    }
    for (int t = 1; t < g; t++)
        sendrecv(a, next, des_hop_bytes(plan_of(a), b, chunk, g * kscale), prev);
}

/* ---- recursive halving (reduce-scatter) then recursive doubling (all-gather) ----
 * Non-powers of two fold the first 2r ranks pairwise (r = g - 2^floor(log2 g)): even ranks
 * hand their data to the odd neighbour and get the result back at the end. */

static void hd_allreduce(des_actor *a, int b, const int *m, int g, int p)
{
    if (g < 2)
        return;
    const des_plan *pl = plan_of(a);
    int pow2 = 1;
    while (pow2 * 2 <= g)
        pow2 *= 2;
    int r = g - pow2, vr;
    if (p < 2 * r) {
        if (p % 2 == 0) {
            send_to(a, m[p + 1], des_hop_bytes(pl, b, 1.0, 1));
            recv_from(a, m[p + 1]);
            return;
        }
        recv_from(a, m[p - 1]);
        reduce_hop(a, b, 1.0);
        vr = p / 2;
    } else {
        vr = p - r;
    }
    double per_vrank = (double)g / pow2; /* workers summed in one virtual rank's data */
    int steps = 0;
    while ((1 << steps) < pow2)
        steps++;
    for (int s = 1; s <= steps; s++) {
        int pv = vr ^ (pow2 >> s);
        int partner = pv < r ? m[2 * pv + 1] : m[pv + r];
        double frac = 1.0 / (double)(1 << s);
        sendrecv(a, partner, des_hop_bytes(pl, b, frac, per_vrank * (1 << (s - 1))), partner);
        reduce_hop(a, b, frac);
    }
    for (int s = steps; s >= 1; s--) {
        int pv = vr ^ (pow2 >> s);
        int partner = pv < r ? m[2 * pv + 1] : m[pv + r];
        double frac = 1.0 / (double)(1 << s);
        sendrecv(a, partner, des_hop_bytes(pl, b, frac, g), partner);
    }
    if (p < 2 * r)
        send_to(a, m[p - 1], des_hop_bytes(pl, b, 1.0, g));
}

/* ---- binary trees (heap order over tree positions) ---- */

static int subtree_size(int q, int g)
{
    int count = 0;
    for (long lo = q, hi = q; lo < g; lo = 2 * lo + 1, hi = 2 * hi + 2)
        count += (int)((hi < g ? hi : g - 1) - lo + 1);
    return count;
}

/* Position of member index p in a tree; the mirrored tree (double binary tree) uses
 * g - 1 - p, so that a leaf of one tree is an inner node of the other. */
static int tree_pos(int p, int g, int mirrored) { return mirrored ? g - 1 - p : p; }
static int tree_member(int q, int g, int mirrored) { return mirrored ? g - 1 - q : q; }

/* Reduce `frac` of the data towards position 0: receive from the children, add, send the
 * subtree's sum to the parent. */
static void tree_reduce(des_actor *a, int b, const int *m, int g, int p, int mirrored,
                        double frac, double kscale)
{
    const des_plan *pl = plan_of(a);
    int q = tree_pos(p, g, mirrored), n = 0;
    sg_comm_t c[2];
    void *sink;
    for (int ch = 2 * q + 1; ch <= 2 * q + 2; ch++)
        if (ch < g)
            c[n++] = irecv(a, m[tree_member(ch, g, mirrored)], &sink);
    if (n)
        sg_comm_wait_all(c, (size_t)n);
    for (int k = 0; k < n; k++)
        reduce_hop(a, b, frac);
    if (q > 0)
        send_to(a, m[tree_member((q - 1) / 2, g, mirrored)],
                des_hop_bytes(pl, b, frac, subtree_size(q, g) * kscale));
}

static void tree_bcast(des_actor *a, int b, const int *m, int g, int p, int mirrored,
                       double frac, double ktotal)
{
    const des_plan *pl = plan_of(a);
    int q = tree_pos(p, g, mirrored), n = 0;
    sg_comm_t c[2];
    if (q > 0)
        recv_from(a, m[tree_member((q - 1) / 2, g, mirrored)]);
    for (int ch = 2 * q + 1; ch <= 2 * q + 2; ch++)
        if (ch < g)
            c[n++] = isend(a, m[tree_member(ch, g, mirrored)], des_hop_bytes(pl, b, frac, ktotal));
    if (n)
        sg_comm_wait_all(c, (size_t)n);
}

/* The second tree of a double binary tree runs in a helper actor on the same host, so
 * that the two trees progress independently (waiting on both in one actor deadlocks:
 * every rank is an inner node of one of the trees). */
typedef struct {
    des_actor *a;
    int b, g, p;
    const int *m;
} tree_job;

static void mirrored_tree_main(int argc, char **argv)
{
    (void)argc, (void)argv;
    tree_job *job = sg_actor_self_get_data();
    tree_reduce(job->a, job->b, job->m, job->g, job->p, 1, 0.5, 1);
    tree_bcast(job->a, job->b, job->m, job->g, job->p, 1, 0.5, job->g);
}

static void double_tree(des_actor *a, int b, const int *m, int g, int p)
{
    tree_job job = {a, b, g, p, m};
    sg_actor_t helper = sg_actor_init("tree2", sg_host_self());
    sg_actor_set_data(helper, &job);
    sg_actor_ref(helper);
    sg_actor_start(helper, mirrored_tree_main, 0, NULL);
    tree_reduce(a, b, m, g, p, 0, 0.5, 1);
    tree_bcast(a, b, m, g, p, 0, 0.5, g);
    sg_actor_join(helper, -1);
    sg_actor_unref(helper);
}

/* ---- ring all-gather of every worker's own payload ---- */

static void ring_allgather(des_actor *a, int b, const int *m, int g, int p)
{
    if (g < 2)
        return;
    int next = m[(p + 1) % g], prev = m[(p + g - 1) % g];
    for (int t = 1; t < g; t++)
        sendrecv(a, next, des_hop_bytes(plan_of(a), b, 1.0, 1), prev);
}

/* ---- recursive doubling with full payloads (TernGrad Appendix B pattern) ---- */

static void doubling_full(des_actor *a, int b, const int *m, int g, int p, double kscale)
{
    for (int mask = 1, s = 0; mask < g; mask <<= 1, s++) {
        int q = p ^ mask;
        if (q < g)
            sendrecv(a, m[q], des_hop_bytes(plan_of(a), b, 1.0, kscale * (1 << s)), m[q]);
    }
}

/* ---- the roles ---- */

static int *all_gpus(const des_plan *pl)
{
    int *m = malloc(sizeof(int) * (size_t)pl->gpus);
    for (int g = 0; m && g < pl->gpus; g++)
        m[g] = g;
    return m;
}

void des_gpu_exchange(des_actor *a, int b, const int *local, int local_n)
{
    const des_plan *pl = plan_of(a);
    des_sim *sim = a->sim;
    int n = pl->gpus, me = a->ep;
    int lp = me - local[0]; /* position inside the node */
    int *m = NULL;

    switch (pl->collective) {
    case COLLECTIVE_RING:
        m = all_gpus(pl);
        ring_allreduce(a, b, m, n, me, 1);
        final_decode(a, b, 1);
        break;
    case COLLECTIVE_HALVING_DOUBLING:
        m = all_gpus(pl);
        hd_allreduce(a, b, m, n, me);
        final_decode(a, b, 1);
        break;
    case COLLECTIVE_TREE:
        m = all_gpus(pl);
        tree_reduce(a, b, m, n, me, 0, 1.0, 1);
        tree_bcast(a, b, m, n, me, 0, 1.0, n);
        final_decode(a, b, 1);
        break;
    case COLLECTIVE_DOUBLE_TREE:
        m = all_gpus(pl);
        double_tree(a, b, m, n, me);
        final_decode(a, b, 1);
        break;
    case COLLECTIVE_HIERARCHICAL: {
        tree_reduce(a, b, local, local_n, lp, 0, 1.0, 1);
        if (lp == 0) {
            int j = pl->nodes;
            m = malloc(sizeof(int) * (size_t)j);
            for (int k = 0; k < j; k++)
                m[k] = k * pl->gpus_per_node;
            ring_allreduce(a, b, m, j, me / pl->gpus_per_node, pl->gpus_per_node);
        }
        tree_bcast(a, b, local, local_n, lp, 0, 1.0, n);
        final_decode(a, b, 1);
        break;
    }
    case COLLECTIVE_ALLGATHER:
        m = all_gpus(pl);
        ring_allgather(a, b, m, n, me);
        final_decode(a, b, pl->compressed ? n : 0);
        break;
    case COLLECTIVE_PARAMETER_SERVER: {
        int s_count = pl->ps_shards;
        sg_comm_t *c = malloc(sizeof(sg_comm_t) * (size_t)s_count);
        void *sink;
        if (pl->aggregation == PAYLOAD_SHARED_SCALE) {
            /* TernGrad scaler sharing: one fp32 scaler per layer, max-reduced by shard 0
             * before the ternary gradients can be pushed. */
            double scaler_bytes = 4.0 * (pl->buckets[b].last_layer - pl->buckets[b].first_layer + 1);
            send_to(a, sim->first_shard, scaler_bytes);
            recv_from(a, sim->first_shard);
        }
        for (int s = 0; s < s_count; s++)
            c[s] = isend(a, sim->first_shard + s, des_hop_bytes(pl, b, 1.0 / s_count, 1));
        sg_comm_wait_all(c, (size_t)s_count);
        for (int s = 0; s < s_count; s++)
            c[s] = irecv(a, sim->first_shard + s, &sink);
        sg_comm_wait_all(c, (size_t)s_count);
        free(c);
        final_decode(a, b, 1);
        break;
    }
    case COLLECTIVE_TERNGRAD:
        doubling_full(a, b, local, local_n, lp, 1);
        if (lp == 0)
            send_to(a, sim->first_cpu + me / pl->gpus_per_node,
                    des_hop_bytes(pl, b, 1.0, local_n));
        break;
    default:
        break;
    }
    free(m);
}

void des_cpu_exchange(des_actor *a, int b)
{
    const des_plan *pl = plan_of(a);
    des_sim *sim = a->sim;
    int node = a->ep - sim->first_cpu, j = pl->nodes;
    recv_from(a, node * pl->gpus_per_node);
    int *m = malloc(sizeof(int) * (size_t)j);
    for (int k = 0; k < j; k++)
        m[k] = sim->first_cpu + k;
    doubling_full(a, b, m, j, node, pl->gpus_per_node);
    free(m);
    final_decode(a, b, 1);
}

void des_shard_exchange(des_actor *a, int b)
{
    const des_plan *pl = plan_of(a);
    des_sim *sim = a->sim;
    int n = pl->gpus, shard = a->ep - sim->first_shard;
    double frac = 1.0 / pl->ps_shards;
    sg_comm_t *c = malloc(sizeof(sg_comm_t) * (size_t)n);
    void *sink;
    if (shard == 0 && pl->aggregation == PAYLOAD_SHARED_SCALE) {
        double scaler_bytes = 4.0 * (pl->buckets[b].last_layer - pl->buckets[b].first_layer + 1);
        for (int g = 0; g < n; g++)
            c[g] = irecv(a, g, &sink);
        sg_comm_wait_all(c, (size_t)n);
        for (int g = 0; g < n; g++)
            c[g] = isend(a, g, scaler_bytes);
        sg_comm_wait_all(c, (size_t)n);
    }
    for (int g = 0; g < n; g++)
        c[g] = irecv(a, g, &sink);
    sg_comm_wait_all(c, (size_t)n);
    if (pl->aggregation == PAYLOAD_PER_WORKER_SCALE) {
        /* decode N pushes, sum, re-encode the shard once */
        des_codec(a, (n + 1) * dense_codec_s(a, b, frac), "decode-sum-encode");
    }
    /* The pull carries the sum of N workers: 2N+1 levels for shared-scale ternary. */
    for (int g = 0; g < n; g++)
        c[g] = isend(a, g, des_hop_bytes(pl, b, frac, n));
    sg_comm_wait_all(c, (size_t)n);
    free(c);
}
