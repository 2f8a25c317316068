/*
 * sim/des/des_shard_direct.c: an iteration whose rings are solved per flow (des_shard.c:
 * ZeRO-3 / FSDP / HSDP, and since step 25 of docs/des.md data parallelism's ring and
 * hierarchical all-reduces and ZeRO-1/2) run with no actor per GPU (issue 47; des_shard.h).
 * Where identical GPUs share one compute (DES_COMPUTE_SHARED: des_sim.c runs one compute
 * actor on GPU 0's host, slowed only by GPU 0's calls, and releases every GPU's buckets
 * from it), GPU 0's compute is swept and every GPU takes its times; a bare collective
 * (DES_COMPUTE_NONE) has every bucket ready at 0, as its full semaphores are.
 *
 * With every flow solved per flow, what SimGrid still did at 16,384 GPUs was actor work:
 * two actors per GPU, each call's overhead sleep, the rendezvous of each phase (a
 * semaphore and a sleep per GPU), each compute block's execution and gate, 25-35 us of it
 * per GPU and call (126 CPU s for Llama-2-7B). None of it decides a time once nothing but
 * the GPU's own compute runs on its host (des_direct.c says when): every time is a max and
 * a sum of times already known. This file computes them for all GPUs at once, in the
 * order every GPU runs its program (bucket by bucket, call by call, phase by phase), each
 * GPU's compute advanced only as far as the next bucket needs. That order is enough:
 * backward fills a bucket before its calls start, so the compute that fills it overlaps
 * only calls of earlier buckets, already swept.
 *   - a block starts when the previous one ends and, if gated, when its gate's bucket is
 *     exchanged on that GPU (des_sim.c's gates: one release per bucket, in order), and
 *     does its seconds of work (times the iteration's common scale) at full speed, or at
 *     1 - min(s, 1/2) of it while one of the GPU's calls is in flight (des_sim.c's
 *     interference: an execution bounded at s of the host beside it, max-min shared);
 *   - a bucket's program starts when the GPU's previous program has ended and backward has
 *     filled the bucket (or at 0 for the buckets ready at the start); each call adds its
 *     overhead; each phase ends, on an endpoint, at the latest of its arrival and its
 *     flows' ends, a flow starting at the later of its two endpoints' arrivals
 *     (des_shard_flow_end: the rule des_shard_phase applies);
 *   - the iteration ends when the last GPU's compute or program does.
 * Bucket marks, compute ends, transfers and the codec sums come out as the actors leave
 * them. The differences from the actors' run are rounding only: SimGrid's clock adds each
 * sleep's and execution's delta where this adds the times themselves (tests/des/
 * test_des_shard.c holds the three paths, replay, actors and this, to 1e-9).
 */
#include <stdlib.h>

#include <xbt/asserts.h>

#include "des_collectives.h"
#include "des_shard.h"

static double max2(double a, double b)
{
    return a > b ? a : b;
}

typedef struct {
    des_sim *sim;
    int n;             /* GPUs */
    int computing;     /* GPUs whose compute is simulated: n, or 1 where GPU 0's stands for
                        * every GPU's (DES_COMPUTE_SHARED, des_sim.c's one compute actor) */
    double *compute_s; /* per GPU: where its compute actor is (the end of block k - 1) */
    double *comm_s;    /* per GPU: where its comm actor is */
    double *phase_s;   /* per GPU: a phase's exits, being built */
    double *gate_s;    /* per gate slot and GPU: when the slot's bucket was exchanged */
    int *gate_slot;    /* per bucket: its slot in gate_s, -1 if no block waits for it */
    int block;         /* the next block every GPU's compute runs */
    int released;      /* buckets made ready so far (the leading ready ones included) */
    /* Calls in flight, with interference (share > 0): per call issued (q, in the order
     * every GPU issues them) and GPU, its start and end; per GPU, the first call its
     * compute has not passed. */
    double share;      /* of the GPU a call's kernels hold: min(s, 1/2) */
    double *call_start_s, *call_end_s;
    int issued;
    int *next_call;
} direct_state;

/* Work seconds (at full speed) done from t on GPU g: the instant they are done, slower
 * where the GPU's calls already swept are in flight (the later ones start after it). */
static double work_until(direct_state *d, int g, double t, double work)
{
    if (!(d->share > 0))
        return t + work;
    double rate = 1.0 - d->share;
    int q = d->next_call[g];
    size_t n = (size_t)d->n;
    while (work > 0) {
        while (q < d->issued && d->call_end_s[(size_t)q * n + g] <= t)
            q++;
        if (q >= d->issued)
            return t + work;
        double a = d->call_start_s[(size_t)q * n + g], b = d->call_end_s[(size_t)q * n + g];
        if (t < a) { /* full speed up to the call's start */
            if (work <= a - t) {
                t += work;
                break;
            }
            work -= a - t;
            t = a;
        }
        if (work <= (b - t) * rate) { /* slowed within the call */
            t += work / rate;
            break;
        }
        work -= (b - t) * rate;
        t = b;
    }
    d->next_call[g] = q;
    return t;
}

/* Runs block k on every GPU and makes the buckets it fills ready. */
static void run_block(direct_state *d)
{
    const des_plan *pl = d->sim->plan;
    const gcsim_block *bl = &pl->iteration.blocks[d->block];
    double seconds = bl->seconds;
    if (pl->compute_scale > 0)
        seconds *= pl->compute_scale;
    const double *gate = bl->gate >= 0 ? d->gate_s + (size_t)d->gate_slot[bl->gate] * d->n : NULL;
    for (int g = 0; g < d->computing; g++) {
        double t = d->compute_s[g];
        if (gate)
            t = max2(t, gate[g]);
        if (seconds > 0) /* des_sim.c's compute: nothing executed for an empty block */
            t = work_until(d, g, t, seconds);
        d->compute_s[g] = t;
    }
    for (int g = d->computing; g < d->n; g++) /* slowed, if at all, by GPU 0's calls */
        d->compute_s[g] = d->compute_s[0];
    for (; d->released < pl->n_buckets &&
           pl->iteration.buckets[d->released].ready_block <= d->block;
         d->released++) {
        gcsim_des_bucket *bk = &d->sim->buckets[d->released];
        for (int g = 0; g < d->n; g++)
            bk->ready_s = max2(bk->ready_s, d->compute_s[g]);
    }
    d->block++;
}

/* Every GPU's part of call c: its overhead, then each phase's flows. */
static void run_call(direct_state *d, int c)
{
    des_sim *sim = d->sim;
    const des_plan *pl = sim->plan;
    const gcsim_call *call = &pl->iteration.calls[c];
    const gcsim_schedule *s = &pl->schedules[pl->call_schedule[c]];
    size_t q = (size_t)d->issued * (size_t)d->n;
    if (d->share > 0)
        for (int g = 0; g < d->n; g++)
            d->call_start_s[q + g] = d->comm_s[g];
    if (call->overhead_s > 0)
        for (int g = 0; g < d->n; g++)
            d->comm_s[g] += call->overhead_s;
    for (int p = 0; p < s->n_phases; p++) {
        const gcsim_phase *ph = &s->phases[p];
        if (ph->n_flows == 0)
            continue;
        for (int g = 0; g < d->n; g++)
            d->phase_s[g] = d->comm_s[g];
        for (int x = 0; x < ph->n_flows; x++) {
            const gcsim_flow *f = &ph->flows[x];
            double start = max2(d->comm_s[f->src], d->comm_s[f->dst]);
            double end = des_shard_flow_end(sim, c, ph, f, start);
            d->phase_s[f->src] = max2(d->phase_s[f->src], end);
            d->phase_s[f->dst] = max2(d->phase_s[f->dst], end);
        }
        double *t = d->comm_s;
        d->comm_s = d->phase_s;
        d->phase_s = t;
    }
    if (d->share > 0) {
        for (int g = 0; g < d->n; g++)
            d->call_end_s[q + g] = d->comm_s[g];
        d->issued++;
    }
}

bool des_shard_direct(des_sim *sim, double *end_s)
{
    const des_plan *pl = sim->plan;
    if (sim->compute == DES_COMPUTE_DELAY || sim->timeline || !des_shard_plan_solves(pl) ||
        !des_shard_direct_iteration(pl) || !des_shard_routes(sim))
        return false;
    const gcsim_iteration *it = &pl->iteration;
    int n = pl->gpus, nb = pl->n_buckets;
    direct_state d = {.sim = sim, .n = n, .computing = sim->compute == DES_COMPUTE_SHARED ? 1 : n};
    d.gate_slot = malloc(sizeof(int) * (size_t)nb);
    if (!d.gate_slot)
        xbt_die("des: out of memory");
    int slots = 0;
    for (int b = 0; b < nb; b++)
        d.gate_slot[b] = -1;
    for (int k = 0; k < it->n_blocks; k++)
        if (it->blocks[k].gate >= 0 && d.gate_slot[it->blocks[k].gate] < 0)
            d.gate_slot[it->blocks[k].gate] = slots++;
    d.compute_s = calloc((size_t)n, sizeof(double));
    d.comm_s = calloc((size_t)n, sizeof(double));
    d.phase_s = calloc((size_t)n, sizeof(double));
    d.gate_s = calloc((size_t)(slots > 0 ? slots : 1) * (size_t)n, sizeof(double));
    if (!d.compute_s || !d.comm_s || !d.phase_s || !d.gate_s)
        xbt_die("des: out of memory");
    double s_share = it->comm_interference; /* des_sim.c's interference_start */
    d.share = s_share > 0.5 ? 0.5 : s_share;
    if (d.share > 0) {
        size_t calls = 0;
        for (int b = 0; b < nb; b++)
            for (int k = 0; k < it->buckets[b].n_steps; k++)
                calls += it->steps[it->buckets[b].first_step + k].kind == GCSIM_STEP_CALL;
        d.call_start_s = malloc(sizeof(double) * (calls ? calls : 1) * (size_t)n);
        d.call_end_s = malloc(sizeof(double) * (calls ? calls : 1) * (size_t)n);
        d.next_call = calloc((size_t)n, sizeof(int));
        if (!d.call_start_s || !d.call_end_s || !d.next_call)
            xbt_die("des: out of memory");
    }
    while (d.released < nb && it->buckets[d.released].ready_block < 0)
        d.released++; /* des_sim.c's ready semaphores start with these */
    for (int b = 0; b < nb; b++) {
        /* backward fills the bucket (it was ready at 0 if among the leading ones) */
        while (d.released <= b && d.block < it->n_blocks) /* des_direct.c: it does */
            run_block(&d);
        bool leading = it->buckets[b].ready_block < 0;
        for (int g = 0; g < n; g++)
            d.comm_s[g] = max2(d.comm_s[g], leading ? 0 : d.compute_s[g]);
        const gcsim_bucket *ib = &it->buckets[b];
        gcsim_des_bucket *bk = &sim->buckets[b];
        bool started = false;
        for (int k = 0; k < ib->n_steps; k++) {
            const gcsim_step *st = &it->steps[ib->first_step + k];
            if (st->kind == GCSIM_STEP_CODEC) /* none with seconds here (des_direct.c) */
                continue;
            if (!started)
                for (int g = 0; g < n; g++)
                    if (d.comm_s[g] < bk->exchange_start_s)
                        bk->exchange_start_s = d.comm_s[g];
            started = true;
            run_call(&d, st->call);
        }
        /* GPU 0's decode seconds: none charged here, less the bucket's encode (des_sim.c) */
        bk->decode_s += 0.0 - pl->buckets[b].encode_s;
        for (int g = 0; g < n; g++)
            bk->exchange_end_s = max2(bk->exchange_end_s, d.comm_s[g]);
        if (d.gate_slot[b] >= 0)
            for (int g = 0; g < n; g++)
                d.gate_s[(size_t)d.gate_slot[b] * n + g] = d.comm_s[g];
    }
    while (d.block < it->n_blocks)
        run_block(&d);
    double end = 0;
    for (int g = 0; g < n; g++) {
        sim->gpu_compute_end_s[g] = d.compute_s[g];
        sim->compute_end_s = max2(sim->compute_end_s, d.compute_s[g]);
        end = max2(end, max2(d.compute_s[g], d.comm_s[g]));
    }
    *end_s = end;
    free(d.compute_s);
    free(d.comm_s);
    free(d.phase_s);
    free(d.gate_s);
    free(d.gate_slot);
    free(d.call_start_s);
    free(d.call_end_s);
    free(d.next_call);
    return true;
}
