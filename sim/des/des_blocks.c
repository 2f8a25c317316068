/*
 * sim/des/des_blocks.c: the blocks of a pipelined phase (the trees' chunks) that the DES
 * runs as one round of messages each (des_internal.h, des_phase_blocks).
 *
 * A tree phase's flow is active over a window of consecutive steps and carries the same
 * bytes in each (dk = 0): step by step, an endpoint sends one message per active flow and
 * step and every step ends on the phase's barrier. Most steps differ from the next only
 * by the few flows of one tree level starting or stopping, and the messages, not the
 * arithmetic, are what the simulation pays for (a 25 MiB bucket on 1,024 A100s: 77 steps,
 * 356,336 messages, against 59,376 flows; issue 47). A block is a run of consecutive steps
 * whose active flows are nearly the same: each flow active in it sends one message with
 * the bytes of all its steps in the block and is charged the route latency of the block's
 * other steps (as the ring's coalesced phase is, des_collectives.c), and the block ends on
 * the barrier. Contention is kept where flows share links: the flows of a block are in
 * progress together as they are in each of its steps; what is approximated is only the
 * placement in time of the few flows that start or stop inside a block (their bytes still
 * cross the same links within the block), bounded by the slack below.
 *
 * A run is a pair's consecutive stretches (schedule.c's merge_pairs splits a pair's
 * messages where the trees' windows over it start or stop, into flows of different
 * shares): in a block an endpoint sends one message per run, with the bytes of every step
 * of its stretches there, since the pair is busy in every one of those steps either way.
 * Blocks are built from the intervals of steps with the same active stretches, greedily:
 * a block grows by the next interval while the stretches active in some but not all of
 * its steps are at most DES_BLOCK_SLACK of the stretches active in any of them. With
 * slack 0 a block is an interval of steps in which every pair carries the same bytes.
 *
 * Stretches, not runs (issue 42): a run whose stretches differ in size inside a block
 * loses the per-step maxima (step by step, the step that carries the larger stretch
 * lasts longer; in one message its bytes spread over the block), and where the slowest
 * flow of a step changes from step to step (NVLS-tree: its chains at the switch's rate
 * against the NICs) the DES came out faster than the model. Counted by runs, the GB200
 * NVL72 NVLS-tree all-reduce of 8 GiB on 144 GPUs at 29 chunks ran 3.0% under the
 * analytic engine and the step-by-step DES, a 4 MiB LL128 double tree on 16 A100s 1.34%;
 * by stretches both agree with them to 1.5e-6 and 2e-14. It costs CPU where pairs' stretches
 * change often (the double tree's fill and drain: 46 blocks of 52 steps for 25 MiB on
 * 1,024 A100s; ResNet-50 there 0.23 -> 1.9 CPU s, docs/des.md). Cutting only the runs that
 * may set a step's pace (within 50% .. 0% of the slowest flow as the closed form prices
 * it) was tried and saved nothing: the runs cut are the NICs' own (a pair between two
 * nodes' heads carries one tree's reduce and the other's broadcast).
 */
#include <stdlib.h>
#include <string.h>

#include "des_internal.h"

/* Fraction of a block's stretches that may be active in only part of it. Chosen on
 * tests/des/test_des_fastpath.c's comparison with the step-by-step simulation: with the
 * heap-ordered trees 0.05 kept the 64-GPU double tree on the stars within its 0.5%
 * (0.1 and 0.25 gave 0.73-0.91% under it); with NCCL's btree shape (tree_nodes.c) 0.05 gave
 * 0.68-0.74% under it and 0.02 agrees to 1e-6, with 22% more messages (2,742 against
 * 2,246). ResNet-50 on 1,024 A100s: 2.9 CPU s at 0.02 (28 Nov 2026, load 1.8), against 17
 * step by step. */
#define DES_BLOCK_SLACK 0.02

double des_block_slack(void)
{
    return DES_BLOCK_SLACK;
}

bool des_phase_solves(const des_plan *pl, const gcsim_schedule *s, int p)
{
    if (pl->replay || pl->timeline_path || pl->deferred ||
        strcmp(pl->network_model, "alpha-beta") != 0 || s->endpoints < pl->endpoints)
        return false;
    for (int e = 0; e < pl->endpoints; e++)
        if (s->out_index[p][e] == s->out_index[p][e + 1] &&
            s->in_index[p][e] == s->in_index[p][e + 1])
            return false;
    return true;
}

bool des_same_run(const gcsim_flow *prev, const gcsim_flow *next)
{
    return prev->src == next->src && prev->dst == next->dst &&
           next->first_step == prev->last_step + 1;
}

int des_run_end(const gcsim_phase *ph, const int *idx, int x, int end)
{
    while (x + 1 < end && des_same_run(&ph->flows[idx[x]], &ph->flows[idx[x + 1]]))
        x++;
    return x;
}

int des_blocks_of(const gcsim_phase *ph, double slack, int **bounds_out)
{
    int steps = ph->steps;
    *bounds_out = NULL;
    if (steps < 1 || ph->n_flows < 1)
        return 0;
    /* the stretches' windows: each flow (a pair's stretch) by itself, so that a block's
     * runs carry the same bytes in each of its steps (up to the slack) */
    int *win_first = malloc(sizeof(int) * (size_t)ph->n_flows);
    int *win_last = malloc(sizeof(int) * (size_t)ph->n_flows);
    int *mark = calloc((size_t)steps + 1, sizeof *mark);
    int *iv_of = malloc(sizeof *iv_of * ((size_t)steps + 1));
    if (!win_first || !win_last || !mark || !iv_of) {
        free(win_first), free(win_last), free(mark), free(iv_of);
        return -1;
    }
    int n_win = 0;
    for (int x = 0; x < ph->n_flows; x++) {
        win_first[n_win] = ph->flows[x].first_step;
        win_last[n_win++] = ph->flows[x].last_step;
    }
    /* the intervals: change points of the active stretches */
    mark[0] = 1;
    for (int x = 0; x < n_win; x++) {
        mark[win_first[x]] = 1;
        if (win_last[x] + 1 < steps)
            mark[win_last[x] + 1] = 1;
    }
    int n_iv = 0;
    for (int s = 0; s < steps; s++) {
        n_iv += mark[s];
        iv_of[s] = n_iv - 1;
    }
    /* cum: stretches by (first interval, last interval), as 2-D prefix sums */
    size_t side = (size_t)n_iv + 1;
    long long *cum = calloc(side * side, sizeof *cum);
    int *start = malloc(sizeof *start * side), *bounds = malloc(sizeof *bounds * side);
    if (!cum || !start || !bounds) {
        free(win_first), free(win_last), free(mark), free(iv_of), free(cum), free(start),
            free(bounds);
        return -1;
    }
    for (int s = 0, k = 0; s < steps; s++)
        if (mark[s])
            start[k++] = s;
    start[n_iv] = steps;
    for (int x = 0; x < n_win; x++)
        cum[(size_t)(iv_of[win_first[x]] + 1) * side + (size_t)(iv_of[win_last[x]] + 1)]++;
    /* cum[a][b] (1-based) = stretches with first interval < a and last interval < b */
    for (size_t a = 1; a < side; a++)
        for (size_t b = 1; b < side; b++)
            cum[a * side + b] += cum[(a - 1) * side + b] + cum[a * side + b - 1] -
                                 cum[(a - 1) * side + b - 1];
#define RUNS(a0, a1, b0, b1) /* stretches: first interval in [a0, a1], last in [b0, b1] */ \
    (cum[(size_t)((a1) + 1) * side + (size_t)((b1) + 1)] -                                   \
     cum[(size_t)(a0)*side + (size_t)((b1) + 1)] - cum[(size_t)((a1) + 1) * side + (size_t)(b0)] + \
     cum[(size_t)(a0)*side + (size_t)(b0)])
    int n = 0;
    for (int a = 0; a < n_iv;) {
        int b = a;
        while (b + 1 < n_iv) {
            int z = b + 1;
            long long any = RUNS(0, z, a, n_iv - 1); /* active in some interval of [a, z] */
            long long all = RUNS(0, a, z, n_iv - 1); /* active in every one */
            if ((double)(any - all) > slack * (double)any)
                break;
            b = z;
        }
        bounds[n++] = start[a];
        a = b + 1;
    }
#undef RUNS
    bounds[n] = steps;
    free(win_first), free(win_last), free(mark), free(iv_of), free(cum), free(start);
    *bounds_out = bounds;
    return n;
}

/* Whether call c's phase p is a pipeline the DES may run in blocks: not every step its
 * own messages (GCSIM_DES_FULL), no jitter (each step draws its own delays), no
 * decode-sum-encode between steps, and every flow the same bytes in each of its steps. */
static bool blockable(const des_plan *plan, int c, const gcsim_schedule *s, int p)
{
    const gcsim_phase *ph = &s->phases[p];
    const gcsim_bucket_bytes *bb = &plan->iteration.calls[c].bytes;
    if (plan->full_simulation || ph->steps < 2 || plan->platform->jitter.mean_s > 0 ||
        gcsim_hop_codec_s(ph, bb, 1.0) > 0)
        return false;
    bool pipelined = false;
    for (int x = 0; x < ph->n_flows; x++) {
        const gcsim_flow *f = &ph->flows[x];
        if (f->first_step != 0 || f->last_step != ph->steps - 1)
            pipelined = true;
        if (gcsim_flow_bytes(ph, f, f->first_step, bb) != gcsim_flow_bytes(ph, f, f->last_step, bb))
            return false;
    }
    return pipelined;
}

int des_phase_blocks(const des_plan *plan, int c, const gcsim_schedule *s, int p, int **bounds)
{
    *bounds = NULL;
    if (!blockable(plan, c, s, p))
        return 0;
    int n = des_blocks_of(&s->phases[p], des_block_slack(), bounds);
    if (n <= 0 || n >= s->phases[p].steps) {
        free(*bounds);
        *bounds = NULL;
        return n < 0 ? -1 : 0;
    }
    return n;
}
