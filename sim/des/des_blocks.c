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
 * Blocks are built from the intervals of steps with the same active runs, greedily: a
 * block grows by the next interval while the runs active in some but not all of its
 * steps are at most DES_BLOCK_SLACK of the runs active in any of them. With slack 0 a
 * block is an interval of steps with the same busy pairs.
 *
 * And while the block's time stays what its steps take (issue 42), as the closed form
 * prices them, with its functions (a flow: route latency plus its bytes at capacity x share
 * / load on its most loaded link; collectives.h, gcsim_flow_rate_Bps and gcsim_flow_step_s,
 * sim/collectives/step_price.c): step by step a block lasts the sum over its
 * steps of each step's slowest flow; in one message per run, about the largest of the
 * runs' own sums. The two part where the slowest flow changes from step to step and a run's
 * stretches differ in size (the step that carried the larger stretch no longer outlasts
 * the others): NVLS-tree, whose chains inside a node run at the switch's rate against the
 * NICs, came out 3.0% under the analytic engine and the step-by-step DES (GB200 NVL72,
 * 8 GiB on 144 GPUs at 29 chunks), a 4 MiB LL128 double tree on 16 A100s 1.34%. The
 * intervals then also end where a pair's stretch changes (an interval's steps are alike),
 * and a block grows only while (sum - largest) / sum is at most DES_BLOCK_TIME_SLACK. After:
 * 0.455% (GB200; 0.27% at 64 chunks before: identical steps in one message take their
 * route latencies after the bytes, not before each step's) and 0. Cutting every
 * run where its stretch changes did as well but made the double tree's blocks nearly its
 * steps (46 blocks of 52 at 1,024 GPUs, 3-8x the CPU): its NIC pairs' stretches change
 * (one tree's reduce, both, the other's broadcast) without moving the block's time.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "des_internal.h"
#include "hop_rule.h"

/* Fraction of a block's runs that may be active in only part of it. Chosen on
 * tests/des/test_des_fastpath.c's comparison with the step-by-step simulation: with the
 * heap-ordered trees 0.05 kept the 64-GPU double tree on the stars within its 0.5%
 * (0.1 and 0.25 gave 0.73-0.91% under it); with NCCL's btree shape (tree_nodes.c) 0.05 gave
 * 0.68-0.74% under it and 0.02 agrees to 1e-6, with 22% more messages (2,742 against
 * 2,246). ResNet-50 on 1,024 A100s: 2.9 CPU s at 0.02 (28 Nov 2026, load 1.8), against 17
 * step by step. */
#define DES_BLOCK_SLACK 0.02
/* The share of a block's step-by-step time (as the closed form prices it) that its runs'
 * one message each may lose (above). Chosen on the comparison with the step-by-step
 * simulation (GCSIM_DES_FULL=1; docs/des.md, step 14). */
#define DES_BLOCK_TIME_SLACK 1e-4

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

/* A phase's flows priced step by step as the closed form prices them (collectives.h,
 * gcsim_flow_rate_Bps and gcsim_flow_step_s): each flow's route (links at link_at[x] ..
 * link_at[x + 1]) and latency; per interval the links' loads (the active flows' shares)
 * and each active flow's rate, per step each one's time. */
typedef struct {
    const gcsim_phase *ph;
    const des_block_pricing *pr;
    int *link_at, *links;
    double *lat, *load;
    const int *run_of;
    /* an interval's active flows (ascending) and their rates; the interval's first step
     * they are for (-1: none yet). Intervals are priced in order, so the next list is the
     * previous one less the flows that stopped, merged with those that started since
     * (by_first: the flows by first step, ascending within a step; first_at: each step's
     * start in it), not a scan of every flow. */
    int *active, n_active, active_from;
    int *by_first, *first_at, *starters, *merged;
    double *rate_Bps;
    /* the runs' summed times in the block so far, the runs touched, the largest sum */
    double *run_s, largest, sum_s;
    int *touched, n_touched;
    /* each flow's first and last step and share, apart from the flows (the scan for an
     * interval's active flows reads only these); each route entry's link capacity (B/s)
     * beside its link, whose id is local to the phase (numbered in the order the flows
     * first use them, so that a node's flows load nearby entries of load) */
    int *first, *last;
    double *share, *cap_Bps;
    /* each flow's bytes, where they are the same in every step (same_steps), else NULL */
    bool same_steps;
    double *bytes;
    /* an interval priced: (run, time) of each active flow of each of its steps, the
     * whole list buf_repeat times over (a phase whose flows carry the same bytes in every
     * step lists one step's, repeated for each step of the interval) */
    int *buf_run, n_buf, cap_buf, buf_iv, buf_repeat;
    double *buf_s, buf_sum;
} pricer;

static void pricer_free(pricer *q)
{
    free(q->link_at), free(q->links), free(q->lat), free(q->load), free(q->run_s);
    free(q->touched), free(q->buf_run), free(q->buf_s), free(q->active), free(q->rate_Bps);
    free(q->first), free(q->last), free(q->share), free(q->cap_Bps), free(q->bytes);
    free(q->by_first), free(q->first_at), free(q->starters), free(q->merged);
}

static int pricer_init(pricer *q, const gcsim_phase *ph, const des_block_pricing *pr,
                       const int *run_of, int n_runs)
{
    int nf = ph->n_flows, route[GCSIM_ROUTE_MAX_LINKS];
    memset(q, 0, sizeof *q);
    q->ph = ph, q->pr = pr, q->run_of = run_of, q->buf_iv = -1;
    q->link_at = malloc(sizeof(int) * ((size_t)nf + 1));
    q->lat = malloc(sizeof(double) * ((size_t)nf + 1));
    q->run_s = calloc((size_t)n_runs + 1, sizeof(double));
    q->touched = malloc(sizeof(int) * ((size_t)n_runs + 1));
    q->active = malloc(sizeof(int) * ((size_t)nf + 1));
    q->rate_Bps = malloc(sizeof(double) * ((size_t)nf + 1));
    q->first = malloc(sizeof(int) * ((size_t)nf + 1));
    q->last = malloc(sizeof(int) * ((size_t)nf + 1));
    q->share = malloc(sizeof(double) * ((size_t)nf + 1));
    if (!q->link_at || !q->lat || !q->run_s || !q->touched || !q->active || !q->rate_Bps ||
        !q->first || !q->last || !q->share)
        return -1;
    for (int x = 0; x < nf; x++) {
        q->first[x] = ph->flows[x].first_step;
        q->last[x] = ph->flows[x].last_step;
        q->share[x] = ph->flows[x].share;
    }
    q->active_from = -1;
    q->by_first = malloc(sizeof(int) * ((size_t)nf + 1));
    q->first_at = calloc((size_t)ph->steps + 2, sizeof(int));
    q->starters = malloc(sizeof(int) * ((size_t)nf + 1));
    q->merged = malloc(sizeof(int) * ((size_t)nf + 1));
    if (!q->by_first || !q->first_at || !q->starters || !q->merged)
        return -1;
    for (int x = 0; x < nf; x++) /* counting sort by first step, stable */
        q->first_at[q->first[x] + 1]++;
    for (int st = 0; st <= ph->steps; st++)
        q->first_at[st + 1] += q->first_at[st];
    for (int x = 0; x < nf; x++)
        q->by_first[q->first_at[q->first[x]]++] = x;
    for (int st = ph->steps; st > 0; st--) /* back to each step's start */
        q->first_at[st] = q->first_at[st - 1];
    q->first_at[0] = 0;
    /* Where every step carries the same bytes (hop_rule.h, gcsim_hop_steps_alike: dense
     * fp32 among them) so does a flow's time at an interval's rates, and an interval prices
     * one step and repeats it (price_steps). */
    gcsim_bucket_bytes tmp;
    gcsim_hop_rule rule;
    gcsim_hop_rule_of(gcsim_phase_bucket(ph, pr->bytes, &tmp), &rule);
    q->same_steps = gcsim_hop_steps_alike(ph, &rule);
    if (q->same_steps) {
        q->bytes = malloc(sizeof(double) * ((size_t)nf + 1));
        if (!q->bytes)
            return -1;
        for (int x = 0; x < nf; x++)
            q->bytes[x] = gcsim_flow_bytes(ph, &ph->flows[x], ph->flows[x].first_step, pr->bytes);
    }
    q->link_at[0] = 0;
    for (int x = 0; x < nf; x++)
        q->link_at[x + 1] = q->link_at[x] + gcsim_topology_route(pr->topology, ph->flows[x].src,
                                                                  ph->flows[x].dst, route,
                                                                  &q->lat[x]);
    size_t entries = (size_t)q->link_at[nf] + 1, n_links = (size_t)pr->topology->n_links + 1;
    q->links = malloc(sizeof(int) * entries);
    q->cap_Bps = malloc(sizeof(double) * entries);
    int *local = malloc(sizeof(int) * n_links);
    if (!q->links || !q->cap_Bps || !local) {
        free(local);
        return -1;
    }
    for (size_t l = 0; l < n_links; l++)
        local[l] = -1;
    int n_local = 0;
    for (int x = 0; x < nf; x++) {
        int *at = q->links + q->link_at[x];
        gcsim_topology_route(pr->topology, ph->flows[x].src, ph->flows[x].dst, at, &q->lat[x]);
        for (int k = 0; k < q->link_at[x + 1] - q->link_at[x]; k++) {
            q->cap_Bps[q->link_at[x] + k] = gcsim_topology_capacity_Bps(pr->topology, at[k]);
            if (local[at[k]] < 0)
                local[at[k]] = n_local++;
            at[k] = local[at[k]];
        }
    }
    free(local);
    q->load = calloc((size_t)n_local + 1, sizeof(double));
    return q->load ? 0 : -1;
}

static int int_ascending(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Room in the buffer for n (run, time) pairs; -1 when out of memory. */
static int buf_reserve(pricer *q, size_t n)
{
    if (n <= (size_t)q->cap_buf)
        return 0;
    size_t cap = 2 * n + 1024;
    int *r = realloc(q->buf_run, sizeof(int) * cap);
    if (r)
        q->buf_run = r;
    double *d = r ? realloc(q->buf_s, sizeof(double) * cap) : NULL;
    if (!r || !d)
        return -1;
    q->buf_s = d;
    q->cap_buf = (int)cap;
    return 0;
}

/* Prices steps [from, to) into the buffer (buf_iv = iv); -1 when out of memory. The steps
 * are one interval of des_blocks_of's, which with pricing end wherever a flow starts or
 * stops: every step has the same active flows, hence the same loads and rates. */
static int price_steps(pricer *q, int iv, int from, int to)
{
    const gcsim_phase *ph = q->ph;
    int n_active = 0;
    q->n_buf = 0;
    q->buf_sum = 0;
    q->buf_iv = iv;
    if (q->active_from >= 0 && from > q->active_from) {
        /* the flows that started since, ascending (one step's are; several steps' sorted) */
        int ns = 0;
        for (int st = q->active_from + 1; st <= from; st++) {
            int before = ns;
            for (int i = q->first_at[st]; i < q->first_at[st + 1]; i++)
                if (q->last[q->by_first[i]] >= from)
                    q->starters[ns++] = q->by_first[i];
            if (before > 0 && ns > before)
                qsort(q->starters, (size_t)ns, sizeof(int), int_ascending);
        }
        int i = 0, j = 0;
        while (i < q->n_active || j < ns) {
            if (i < q->n_active && q->last[q->active[i]] < from) {
                i++; /* stopped */
                continue;
            }
            if (j >= ns || (i < q->n_active && q->active[i] < q->starters[j]))
                q->merged[n_active++] = q->active[i++];
            else
                q->merged[n_active++] = q->starters[j++];
        }
        int *t = q->active;
        q->active = q->merged;
        q->merged = t;
    } else {
        for (int x = 0; x < ph->n_flows; x++)
            if (q->first[x] <= from && q->last[x] >= from)
                q->active[n_active++] = x;
    }
    q->n_active = n_active;
    q->active_from = from;
    for (int a = 0; a < n_active; a++) {
        int x = q->active[a];
        for (int k = q->link_at[x]; k < q->link_at[x + 1]; k++)
            q->load[q->links[k]] += q->share[x];
    }
    /* each active flow's rate as gcsim_flow_rate_Bps gives it (the same operations on the
     * same values: its links' capacities and loads) */
    for (int a = 0; a < n_active; a++) {
        int x = q->active[a];
        double rate_Bps = INFINITY, share = q->share[x];
        for (int k = q->link_at[x]; k < q->link_at[x + 1]; k++)
            rate_Bps = fmin(rate_Bps, q->cap_Bps[k] * (share / q->load[q->links[k]]));
        q->rate_Bps[a] = rate_Bps;
    }
    for (int a = 0; a < n_active; a++)
        for (int k = q->link_at[q->active[a]]; k < q->link_at[q->active[a] + 1]; k++)
            q->load[q->links[k]] = 0;
    /* one step listed and repeated where every step is alike (pricer_init; block_add then
     * adds the same values in the same order as for every step listed) */
    bool same_steps = q->same_steps;
    int listed = same_steps ? 1 : to - from;
    q->buf_repeat = same_steps ? to - from : 1;
    if (buf_reserve(q, (size_t)n_active * (size_t)listed))
        return -1;
    double slowest = 0;
    for (int step = from; step < from + listed; step++) {
        slowest = 0;
        for (int a = 0; a < n_active; a++) {
            int x = q->active[a];
            double bytes = same_steps ? q->bytes[x]
                                      : gcsim_flow_bytes(ph, &ph->flows[x], step, q->pr->bytes);
            double flow_s = gcsim_flow_step_s(q->lat[x], bytes, q->rate_Bps[a]);
            if (flow_s > slowest)
                slowest = flow_s;
            q->buf_run[q->n_buf] = q->run_of[x];
            q->buf_s[q->n_buf++] = flow_s;
        }
        if (!same_steps)
            q->buf_sum += slowest;
    }
    for (int step = from; same_steps && step < to; step++)
        q->buf_sum += slowest;
    return 0;
}

/* Adds the buffer to the block's runs: their sums, the largest, the steps' sum. */
static void block_add(pricer *q)
{
    for (int rep = 0; rep < q->buf_repeat; rep++)
        for (int k = 0; k < q->n_buf; k++) {
            int r = q->buf_run[k];
            if (q->run_s[r] == 0)
                q->touched[q->n_touched++] = r;
            q->run_s[r] += q->buf_s[k];
            if (q->run_s[r] > q->largest)
                q->largest = q->run_s[r];
        }
    q->sum_s += q->buf_sum;
}

static void block_reset(pricer *q)
{
    for (int k = 0; k < q->n_touched; k++)
        q->run_s[q->touched[k]] = 0;
    q->n_touched = 0;
    q->largest = 0;
    q->sum_s = 0;
}

int des_blocks_of(const gcsim_phase *ph, double slack, const des_block_pricing *pr,
                  int **bounds_out)
{
    int steps = ph->steps;
    *bounds_out = NULL;
    if (steps < 1 || ph->n_flows < 1)
        return 0;
    /* the runs' windows (des_same_run): a pair's consecutive stretches are one run */
    int *run_first = malloc(sizeof(int) * (size_t)ph->n_flows);
    int *run_last = malloc(sizeof(int) * (size_t)ph->n_flows);
    int *mark = calloc((size_t)steps + 1, sizeof *mark);
    int *iv_of = malloc(sizeof *iv_of * ((size_t)steps + 1));
    if (!run_first || !run_last || !mark || !iv_of) {
        free(run_first), free(run_last), free(mark), free(iv_of);
        return -1;
    }
    int n_runs = 0;
    int *run_of = pr ? malloc(sizeof(int) * ((size_t)ph->n_flows + 1)) : NULL;
    if (pr && !run_of) {
        free(run_first), free(run_last), free(mark), free(iv_of);
        return -1;
    }
    for (int x = 0; x < ph->n_flows; x++) {
        if (run_of)
            run_of[x] = x > 0 && des_same_run(&ph->flows[x - 1], &ph->flows[x]) ? n_runs - 1
                                                                                : n_runs;
        if (x > 0 && des_same_run(&ph->flows[x - 1], &ph->flows[x])) {
            run_last[n_runs - 1] = ph->flows[x].last_step;
            continue;
        }
        run_first[n_runs] = ph->flows[x].first_step;
        run_last[n_runs++] = ph->flows[x].last_step;
    }
    /* the intervals: change points of the active runs, and with pr of the active stretches
     * (an interval's steps then all alike, each priced as one) */
    mark[0] = 1;
    for (int x = 0; x < n_runs; x++) {
        mark[run_first[x]] = 1;
        if (run_last[x] + 1 < steps)
            mark[run_last[x] + 1] = 1;
    }
    for (int x = 0; pr && x < ph->n_flows; x++) {
        mark[ph->flows[x].first_step] = 1;
        if (ph->flows[x].last_step + 1 < steps)
            mark[ph->flows[x].last_step + 1] = 1;
    }
    int n_iv = 0;
    for (int s = 0; s < steps; s++) {
        n_iv += mark[s];
        iv_of[s] = n_iv - 1;
    }
    /* cum: runs by (first interval, last interval), as 2-D prefix sums */
    size_t side = (size_t)n_iv + 1;
    long long *cum = calloc(side * side, sizeof *cum);
    int *start = malloc(sizeof *start * side), *bounds = malloc(sizeof *bounds * side);
    pricer q = {0};
    if (!cum || !start || !bounds || (pr && pricer_init(&q, ph, pr, run_of, n_runs))) {
        free(run_first), free(run_last), free(mark), free(iv_of), free(cum), free(start),
            free(bounds), free(run_of);
        pricer_free(&q);
        return -1;
    }
    for (int s = 0, k = 0; s < steps; s++)
        if (mark[s])
            start[k++] = s;
    start[n_iv] = steps;
    for (int x = 0; x < n_runs; x++)
        cum[(size_t)(iv_of[run_first[x]] + 1) * side + (size_t)(iv_of[run_last[x]] + 1)]++;
    /* cum[a][b] (1-based) = runs with first interval < a and last interval < b */
    for (size_t a = 1; a < side; a++)
        for (size_t b = 1; b < side; b++)
            cum[a * side + b] += cum[(a - 1) * side + b] + cum[a * side + b - 1] -
                                 cum[(a - 1) * side + b - 1];
#define RUNS(a0, a1, b0, b1) /* first interval in [a0, a1], last in [b0, b1] */              \
    (cum[(size_t)((a1) + 1) * side + (size_t)((b1) + 1)] -                                   \
     cum[(size_t)(a0)*side + (size_t)((b1) + 1)] - cum[(size_t)((a1) + 1) * side + (size_t)(b0)] + \
     cum[(size_t)(a0)*side + (size_t)(b0)])
    int n = 0, rc = 0;
    for (int a = 0; a < n_iv && rc == 0;) {
        int b = a;
        if (pr) {
            block_reset(&q);
            if (q.buf_iv != a)
                rc = price_steps(&q, a, start[a], start[a + 1]);
            block_add(&q);
        }
        while (b + 1 < n_iv && rc == 0) {
            int z = b + 1;
            long long any = RUNS(0, z, a, n_iv - 1); /* active in some interval of [a, z] */
            long long all = RUNS(0, a, z, n_iv - 1); /* active in every one */
            if ((double)(any - all) > slack * (double)any)
                break;
            if (pr) { /* the block's time as its steps take it, and in one message per run */
                if ((rc = price_steps(&q, z, start[z], start[z + 1])) != 0)
                    break;
                block_add(&q);
                if (q.sum_s - q.largest > DES_BLOCK_TIME_SLACK * q.sum_s)
                    break;
            }
            b = z;
        }
        bounds[n++] = start[a];
        a = b + 1;
    }
#undef RUNS
    bounds[n] = steps;
    free(run_first), free(run_last), free(mark), free(iv_of), free(cum), free(start);
    free(run_of);
    pricer_free(&q);
    if (rc != 0) {
        free(bounds);
        return -1;
    }
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

/* des_phase_blocks' answers (des_plan_keep_blocks): per call, the index of its schedule's
 * phase 0 in the arrays; per call and phase, the number of blocks (or 0) and the bounds. */
struct des_block_memo {
    bool full_simulation; /* the plan's flag they were decided under */
    int *first;           /* per call */
    int *n;
    int **bounds;
};

static int decide_blocks(const des_plan *plan, int c, const gcsim_schedule *s, int p, int **bounds)
{
    *bounds = NULL;
    if (!blockable(plan, c, s, p))
        return 0;
    des_block_pricing pr = {&plan->topology, &plan->iteration.calls[c].bytes};
    int n = des_blocks_of(&s->phases[p], des_block_slack(), &pr, bounds);
    if (n <= 0 || n >= s->phases[p].steps) {
        free(*bounds);
        *bounds = NULL;
        return n < 0 ? -1 : 0;
    }
    return n;
}

int des_phase_blocks(const des_plan *plan, int c, const gcsim_schedule *s, int p, int **bounds)
{
    const struct des_block_memo *m = plan->block_memo;
    if (!m || m->full_simulation != plan->full_simulation ||
        s != &plan->schedules[plan->call_schedule[c]])
        return decide_blocks(plan, c, s, p, bounds);
    int k = m->first[c] + p, n = m->n[k];
    *bounds = NULL;
    if (n <= 0)
        return n;
    *bounds = malloc(sizeof(int) * ((size_t)n + 1));
    if (!*bounds)
        return -1;
    memcpy(*bounds, m->bounds[k], sizeof(int) * ((size_t)n + 1));
    return n;
}

void des_plan_drop_blocks(des_plan *plan)
{
    struct des_block_memo *m = plan->block_memo;
    if (!m)
        return;
    int cells = plan->iteration.n_calls > 0 ? m->first[plan->iteration.n_calls] : 0;
    for (int k = 0; m->bounds && k < cells; k++)
        free(m->bounds[k]);
    free(m->first), free(m->n), free(m->bounds), free(m);
    plan->block_memo = NULL;
}

bool des_block_memo_current(const des_plan *plan)
{
    return plan->block_memo && plan->block_memo->full_simulation == plan->full_simulation;
}

int des_block_memo_open(des_plan *plan)
{
    des_plan_drop_blocks(plan);
    int calls = plan->iteration.n_calls;
    struct des_block_memo *m = calloc(1, sizeof *m);
    if (!m)
        return -1;
    m->full_simulation = plan->full_simulation;
    m->first = malloc(sizeof(int) * ((size_t)calls + 1));
    if (!m->first) {
        free(m);
        return -1;
    }
    m->first[0] = 0;
    for (int c = 0; c < calls; c++)
        m->first[c + 1] = m->first[c] + plan->schedules[plan->call_schedule[c]].n_phases;
    size_t cells = (size_t)m->first[calls];
    m->n = calloc(cells + 1, sizeof *m->n);
    m->bounds = calloc(cells + 1, sizeof *m->bounds);
    plan->block_memo = m;
    if (!m->n || !m->bounds) {
        des_plan_drop_blocks(plan);
        return -1;
    }
    return 0;
}

int des_block_memo_decide(des_plan *plan, int c, int p)
{
    struct des_block_memo *m = plan->block_memo;
    const gcsim_schedule *s = &plan->schedules[plan->call_schedule[c]];
    int k = m->first[c] + p;
    free(m->bounds[k]);
    m->bounds[k] = NULL;
    m->n[k] = decide_blocks(plan, c, s, p, &m->bounds[k]);
    return m->n[k] < 0 ? -1 : 0;
}
