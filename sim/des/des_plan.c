/*
 * sim/des/des_plan.c: from a resolved step to the plan of one simulated iteration. Compute,
 * buckets and payloads come from the step (gcsim_step_resolve) and the exchange of every bucket
 * from gcsim_schedule_build (sim/collectives), the same definitions the analytic engine
 * costs; this file only adds what the simulation needs (codec times, the network model).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "des_internal.h"
#include "des_shard.h"

void des_plan_free(des_plan *plan)
{
    des_plan_drop_blocks(plan); /* before the iteration: its calls index the memo */
    for (int k = 0; k < plan->n_schedules; k++)
        gcsim_schedule_free(&plan->schedules[k]);
    free(plan->schedules);
    free(plan->call_schedule);
    free(plan->buckets);
    if (!plan->iteration_borrowed)
        gcsim_iteration_free(&plan->iteration);
    memset(&plan->iteration, 0, sizeof plan->iteration);
    plan->iteration_borrowed = false;
    /* plan->topology is a copy of the caller's (des_plan_build, des_plan_collective): the
     * caller frees its own */
    plan->schedules = NULL;
    plan->call_schedule = NULL;
    plan->buckets = NULL;
    plan->n_schedules = 0;
}

int des_plan_network(des_plan *plan, const gcsim_platform *p, const gcsim_des_options *opts,
                     gcsim_error *err)
{
    const char *model = opts && opts->network_model ? opts->network_model : NULL;
    if (!model) {
        const char *env = getenv("GCSIM_DES_NETWORK_MODEL");
        model = env && *env ? env : gcsim_des_default_network_model(p);
    }
    static const char *known[] = {"alpha-beta", "LV08", "CM02", "IB", "SMPI", "Constant"};
    bool ok = false;
    for (size_t k = 0; k < sizeof known / sizeof *known; k++)
        ok = ok || strcmp(model, known[k]) == 0;
    if (!ok)
        return gcsim_fail(err, "network model \"%s\" (option or GCSIM_DES_NETWORK_MODEL) is not one of "
                               "alpha-beta, LV08, CM02, IB, SMPI, Constant", model);
    snprintf(plan->network_model, sizeof plan->network_model, "%s", model);
    plan->crosstraffic = opts ? opts->crosstraffic : 0;
    plan->max_messages = opts ? opts->max_messages : 0;
    return 0;
}

/* The collectives the plan's calls run, named once each ("double-tree, ring"): a tuned
 * stack picks per call, so the step's nominal collective can be a ring while the messages
 * are a double tree's. The nominal one where no call names one. */
static void call_collectives(const des_plan *plan, char *out, size_t size)
{
    enum { KINDS = COLLECTIVE_MPI_HOST_ALLGATHER + 1 }; /* the last of gcsim_collective */
    bool seen[KINDS] = {false};
    out[0] = '\0';
    for (int c = 0; c < plan->iteration.n_calls; c++) {
        gcsim_collective k = plan->iteration.calls[c].collective;
        if ((int)k < 0 || (int)k >= KINDS || seen[k])
            continue;
        seen[k] = true;
        size_t used = strlen(out);
        snprintf(out + used, size - used, "%s%s", used ? ", " : "", gcsim_collective_name(k));
    }
    if (!out[0])
        snprintf(out, size, "%s", gcsim_collective_name(plan->collective));
}

/* Refuses, before any flow is listed, a run that would send more messages than the limit
 * whatever its schedules: every call of a collective over all N GPUs sends at least N - 1
 * messages (each GPU's data leaves it at least once; the root of a tree sends down only).
 * At millions of GPUs the schedules alone take gigabytes, and des_plan_check_size would
 * refuse the run once they were built. */
static int plan_check_lower_bound(const des_plan *plan, gcsim_error *err)
{
    long long limit = plan->max_messages > 0 ? plan->max_messages : DES_DEFAULT_MAX_MESSAGES;
    if (plan->max_messages < 0 || plan->gpus < 2)
        return 0;
    long long lower = 0;
    for (int c = 0; c < plan->iteration.n_calls; c++)
        if (plan->iteration.calls[c].group == 0)
            lower += plan->gpus - 1;
    if (lower <= limit)
        return 0;
    char names[160];
    call_collectives(plan, names, sizeof names);
    return gcsim_fail(err,
                      "des: this simulation would send at least %lld SimGrid messages (%d GPUs, "
                      "%d collective calls of %s), more than the limit of %lld. Pass "
                      "--des-max-messages N (or -1 for no limit) to run it anyway",
                      lower, plan->gpus, plan->iteration.n_calls, names, limit);
}

/* One schedule per distinct collective and pipeline chunk count among the calls. */
static int plan_schedules(des_plan *plan, gcsim_error *err)
{
    int nc = plan->iteration.n_calls;
    if (plan->op < 0 && plan_check_lower_bound(plan, err) != 0)
        return -1;
    plan->schedules = calloc((size_t)(nc > 0 ? nc : 1), sizeof *plan->schedules);
    plan->call_schedule = calloc((size_t)(nc > 0 ? nc : 1), sizeof *plan->call_schedule);
    if (!plan->schedules || !plan->call_schedule)
        return gcsim_fail(err, "des: out of memory");
    plan->endpoints = plan->gpus;
    if (plan->op >= 0) {
        /* A bare operation: one schedule, its own per-GPU payload (all-gather: S/N). */
        gcsim_bucket_bytes *bb = &plan->iteration.calls[0].bytes;
        if (gcsim_op_schedule_build(&plan->schedules[0], (gcsim_op)plan->op,
                                    plan->iteration.calls[0].collective, &plan->topology,
                                    bb->dense_bytes, &bb->payload_bytes, err))
            return -1;
        bb->dense_bytes = bb->payload_bytes;
        plan->n_schedules = 1;
        if (plan->schedules[0].endpoints > plan->endpoints)
            plan->endpoints = plan->schedules[0].endpoints;
        return 0;
    }
    for (int c = 0; c < nc; c++) {
        const gcsim_call *call = &plan->iteration.calls[c];
        int chunks = gcsim_call_pipeline_chunks(call, plan->topology.platform, plan->topology.gpus);
        int k = 0;
        while (k < plan->n_schedules && (plan->schedules[k].chunks != chunks ||
                                         plan->schedules[k].collective != call->collective ||
                                         plan->schedules[k].group != call->group))
            k++;
        if (k == plan->n_schedules) {
            gcsim_schedule *sk = &plan->schedules[k];
            int rc = call->group > 0 || !gcsim_collective_runs_bare(call->collective)
                         ? gcsim_schedule_build_group(sk, call->collective, &plan->topology,
                                                      call->group, err)
                         : gcsim_schedule_build(sk, call->collective, &plan->topology,
                                                plan->ps_shards, chunks, err);
            if (rc != 0)
                return -1;
            plan->n_schedules++;
            if (plan->schedules[k].endpoints > plan->endpoints)
                plan->endpoints = plan->schedules[k].endpoints;
        }
        plan->call_schedule[c] = k;
    }
    return 0;
}

static int plan_buckets(des_plan *plan, gcsim_error *err)
{
    const gcsim_iteration *it = &plan->iteration;
    plan->n_buckets = it->n_buckets;
    plan->buckets = calloc((size_t)it->n_buckets, sizeof *plan->buckets);
    if (!plan->buckets)
        return gcsim_fail(err, "des: out of memory");
    for (int b = 0; b < it->n_buckets; b++) {
        const gcsim_bucket *ib = &it->buckets[b];
        gcsim_des_bucket *bk = &plan->buckets[b];
        bk->first_layer = ib->first_layer;
        bk->last_layer = ib->last_layer;
        bk->dense_bytes = ib->bytes.dense_bytes;
        bk->payload_bytes = ib->bytes.payload_bytes;
        for (int k = 0; k < ib->n_steps; k++) {
            const gcsim_step *st = &it->steps[ib->first_step + k];
            if (st->kind == GCSIM_STEP_CODEC && st->cls == GCSIM_CODEC_ENCODE)
                bk->encode_s += st->codec_s;
        }
        plan->deferred = plan->deferred || ib->n_deferred > 0;
    }
    return plan_schedules(plan, err);
}

int des_plan_build(des_plan *plan, const gcsim_resolved_step *st, const gcsim_topology *topo,
                   const gcsim_des_options *opts, gcsim_error *err)
{
    memset(plan, 0, sizeof *plan);
    plan->op = -1;
    const gcsim_platform *p = st->platform;
    if (!p)
        return gcsim_fail(err, "des: step lacks a platform");
    int n = st->placement.gpus;
    if (n < 1 || n > p->nodes * p->gpus_per_node)
        return gcsim_fail(err, "%s: %d GPUs requested, platform has %d x %d", p->source_path, n,
                          p->nodes, p->gpus_per_node);
    if (!topo || topo->platform != p || topo->gpus != n)
        return gcsim_fail(err, "des: the topology handed in is not the step's (its platform and "
                               "GPU count; gcsim_step_topology builds it)");
    if (des_plan_network(plan, p, opts, err) != 0)
        return -1;
    plan->platform = p;
    plan->gpus = n;
    plan->gpus_per_node = p->gpus_per_node;
    plan->nodes = (n + p->gpus_per_node - 1) / p->gpus_per_node;
    plan->collective = st->collective;
    plan->ps_shards = st->ps_shards > 0 ? st->ps_shards : plan->nodes;
    plan->compressed = st->compressed;
    plan->timeline_path = st->timeline_path;
    if (plan->max_messages == 0)
        plan->max_messages = st->des_max_messages;
    plan->iteration = st->it; /* read only: the child's changes stay in the child */
    plan->iteration_borrowed = true;
    plan->topology = *topo; /* a copy of the caller's (its links are computed, not stored) */
    plan->overlap = plan->iteration.overlap;
    if (plan_buckets(plan, err) != 0) {
        des_plan_free(plan);
        return -1;
    }
    return 0;
}

int des_plan_check_collective(const gcsim_platform *p, int gpus, gcsim_collective c,
                              double bytes_total, const gcsim_des_options *opts, gcsim_error *err)
{
    if (gpus < 1 || gpus > p->nodes * p->gpus_per_node)
        return gcsim_fail(err, "%s: %d GPUs requested, platform has %d x %d", p->source_path, gpus,
                          p->nodes, p->gpus_per_node);
    if (!(bytes_total >= 0) || !gcsim_collective_runs_bare(c))
        return gcsim_fail(err, "des: invalid collective or size");
    des_plan scratch = {0};
    return des_plan_network(&scratch, p, opts, err);
}

int des_plan_collective(des_plan *plan, const gcsim_topology *topo, int op, gcsim_collective c,
                        double bytes_total, int ps_shards, const gcsim_des_options *opts,
                        gcsim_error *err)
{
    memset(plan, 0, sizeof *plan);
    plan->op = op;
    const gcsim_platform *p = topo->platform;
    int gpus = topo->gpus;
    if (des_plan_check_collective(p, gpus, c, bytes_total, opts, err) != 0 ||
        des_plan_network(plan, p, opts, err) != 0)
        return -1;
    plan->platform = p;
    plan->gpus = gpus;
    plan->gpus_per_node = p->gpus_per_node;
    plan->nodes = (gpus + p->gpus_per_node - 1) / p->gpus_per_node;
    plan->collective = c;
    plan->ps_shards = ps_shards > 0 ? ps_shards : plan->nodes;
    plan->overlap = true;
    gcsim_iteration *it = &plan->iteration;
    it->overlap = true;
    it->n_buckets = 1;
    it->buckets = calloc(1, sizeof *it->buckets);
    it->steps = calloc(1, sizeof *it->steps);
    it->calls = calloc(1, sizeof *it->calls);
    if (!it->buckets || !it->steps || !it->calls) {
        des_plan_free(plan);
        return gcsim_fail(err, "des: out of memory");
    }
    gcsim_bucket_bytes bytes = {.dense_bytes = bytes_total, .payload_bytes = bytes_total,
                                .aggregation = PAYLOAD_DENSE_SUMMABLE};
    it->buckets[0].bytes = bytes;
    it->buckets[0].n_steps = 1;
    it->buckets[0].ready_block = -1;
    it->calls[0] = (gcsim_call){.collective = c, .bytes = bytes, .name = gcsim_collective_name(c)};
    it->steps[0] = (gcsim_step){.kind = GCSIM_STEP_CALL, .name = it->calls[0].name, .call = 0};
    it->n_calls = it->n_steps = 1;
    plan->topology = *topo;
    if (plan_buckets(plan, err) != 0) {
        des_plan_free(plan);
        return -1;
    }
    return 0;
}

/* Whether phase p of call c is a pipelined ring's as both engines run it: flagged by its
 * builder (gcsim_phase.pipelined) and without hop codec (each hop would wait for its step's
 * decode-sum-encode; schedule_cost.c's phase_price). */
static bool pipelined(const des_plan *plan, int c, const gcsim_phase *ph)
{
    return ph->pipelined && gcsim_hop_codec_s(ph, &plan->iteration.calls[c].bytes, 1.0) <= 0;
}

bool des_phase_coalesces(const des_plan *plan, int c, const gcsim_schedule *s, int p)
{
    const gcsim_phase *ph = &s->phases[p];
    const gcsim_bucket_bytes *bb = &plan->iteration.calls[c].bytes;
    if (ph->steps < 2 || gcsim_hop_codec_s(ph, bb, 1.0) > 0)
        return false;
    if (plan->platform->jitter.mean_s > 0) /* each step draws its own delays (des_fabric.h) */
        return false;
    /* A pipelined ring's phase is one message per flow with its bytes of every step and the
     * phase's route latency (des_phase_other_latency_s), even in the full simulation: step
     * by step, each step would pay its slowest hop's latency, the lock-step ring that
     * both engines no longer model (docs/des.md). All its flows run in every step with
     * the same sums, so its steps' bytes may grow (des_collectives.c's task_bytes). */
    bool ring = pipelined(plan, c, ph);
    if (plan->full_simulation && !ring)
        return false;
    /* Bytes grow monotonically with the sums: equal at the first and last step means equal
     * throughout. */
    for (int x = 0; x < ph->n_flows; x++) {
        const gcsim_flow *f = &ph->flows[x];
        if (f->first_step != 0 || f->last_step != ph->steps - 1 ||
            (!ring && gcsim_flow_bytes(ph, f, 0, bb) != gcsim_flow_bytes(ph, f, ph->steps - 1, bb)))
            return false;
    }
    return true;
}

double des_phase_other_latency_s(const des_plan *plan, int c, const gcsim_phase *ph, int span,
                                 int src, int dst)
{
    double own_s = des_plan_route_latency_s(plan, src, dst);
    if (span == ph->steps && pipelined(plan, c, ph))
        return fmax(0, ph->route_latency_s - own_s);
    return (span - 1) * own_s;
}

/* Whether a plan's rings are solved per flow (des_shard.c; defined here, beside the
 * coalescing rule it asks, so that the two files do not call each other): every phase one
 * message per flow. A gated iteration (ZeRO-3, FSDP, HSDP) may have single-step phases
 * too; one without gates (data parallelism's all-reduces, ZeRO-1/2: docs/des.md step 24)
 * only rings, coalesced phases of several steps: halving-doubling's single-step phases send
 * each GPU's flows to a new peer at every step, over links other pairs crossed before,
 * which des_shard.c's routes then refuse, and its replay is what the size guard must
 * count, which cannot see the routes. */
/* Whether some compute block of the iteration waits for a bucket's exchange (ZeRO-3, FSDP,
 * HSDP). */
static bool iteration_gated(const gcsim_iteration *it)
{
    for (int k = 0; k < it->n_blocks; k++)
        if (it->blocks[k].gate >= 0)
            return true;
    return false;
}

bool des_shard_plan_solves(const des_plan *pl)
{
    if (pl->replay || pl->full_simulation || pl->timeline_path || pl->deferred ||
        strcmp(pl->network_model, "alpha-beta") != 0 || pl->platform->jitter.mean_s > 0 ||
        pl->endpoints != pl->gpus || pl->op >= 0)
        return false;
    bool gated = iteration_gated(&pl->iteration);
    for (int c = 0; c < pl->iteration.n_calls; c++) {
        const gcsim_schedule *s = &pl->schedules[pl->call_schedule[c]];
        /* an iteration with blocking calls makes every GPU leave a coalesced phase together
         * (des_collectives.c, phase_end_barrier), which the per-flow rendezvous does not */
        if (!s->out_index || pl->iteration.calls[c].blocking)
            return false;
        for (int p = 0; p < s->n_phases; p++) {
            const gcsim_phase *ph = &s->phases[p];
            if (ph->n_flows == 0)
                continue;
            if (gcsim_hop_codec_s(ph, &pl->iteration.calls[c].bytes, 1.0) > 0)
                return false;
            if (ph->steps > 1 ? !des_phase_coalesces(pl, c, s, p) : !gated)
                return false;
        }
    }
    return true;
}

/* The most flows endpoint ep has in progress together in phase p of schedule s: all of
 * them in a single-step or coalesced phase, else the most active in one step, or in one
 * block of a phase run in blocks (n_blocks > 0: des_phase_blocks; block_of: each step's
 * block; count: n_blocks + 1 zeros, left zero) (a pipelined tree's endpoint has a flow
 * per chunk and peer, two or three at a time). */
static int phase_concurrent_flows(const gcsim_schedule *s, int p, bool coalesced, int ep,
                                  const int *block_of, int n_blocks, int *count)
{
    int o0 = s->out_index[p][ep], o1 = s->out_index[p][ep + 1];
    int i0 = s->in_index[p][ep], i1 = s->in_index[p][ep + 1];
    int all = o1 - o0 + i1 - i0;
    const gcsim_phase *ph = &s->phases[p];
    if (all <= DES_LANE_COMMS || ph->steps <= 1 || coalesced)
        return all;
    if (n_blocks > 0) { /* one message per run active in the block (des_collectives.c) */
        /* a run is active in the blocks from its first step's to its last step's: counted
         * as differences over the blocks */
        for (int side = 0; side < 2; side++) {
            const int *idx = side ? s->in_flows[p] : s->out_flows[p];
            int from = side ? i0 : o0, end = side ? i1 : o1;
            for (int x = from, y; x < end; x = y + 1) {
                y = des_run_end(ph, idx, x, end);
                count[block_of[ph->flows[idx[x]].first_step]]++;
                count[block_of[ph->flows[idx[y]].last_step] + 1]--;
            }
        }
        int most = 0, now = 0;
        for (int k = 0; k < n_blocks; k++) {
            now += count[k];
            count[k] = 0;
            if (now > most)
                most = now;
        }
        count[n_blocks] = 0;
        return most;
    }
    int *delta = calloc((size_t)ph->steps + 1, sizeof *delta);
    if (!delta)
        return all;
    for (int x = o0; x < o1; x++) {
        const gcsim_flow *f = &ph->flows[s->out_flows[p][x]];
        delta[f->first_step]++;
        delta[f->last_step + 1]--;
    }
    for (int x = i0; x < i1; x++) {
        const gcsim_flow *f = &ph->flows[s->in_flows[p][x]];
        delta[f->first_step]++;
        delta[f->last_step + 1]--;
    }
    int most = 0, now = 0;
    for (int k = 0; k < ph->steps; k++)
        if ((now += delta[k]) > most)
            most = now;
    free(delta);
    return most;
}

/* Messages of call c's phase p: one per flow in a coalesced phase, one per run and block
 * it is active in for a phase in blocks, else one per flow and active step. *rounds: the
 * rounds of messages (1, the blocks, or the steps); *most: the most messages of one round
 * (in progress together). */
static long long phase_messages(const des_plan *plan, int c, const gcsim_schedule *s, int p,
                                bool coalesced, int *rounds, long long *most, bool *blocked,
                                long long *solved)
{
    const gcsim_phase *ph = &s->phases[p];
    long long m = 0;
    *blocked = false;
    *solved = 0;
    *rounds = ph->steps > 0 ? ph->steps : 1;
    *most = ph->n_flows;
    if (coalesced || ph->steps <= 1) {
        *rounds = 1;
        return ph->n_flows;
    }
    int *bounds = NULL;
    int n = des_phase_blocks(plan, c, s, p, &bounds);
    long long *per = calloc((size_t)(n > 0 ? n : ph->steps) + 1, sizeof *per);
    if (!per) {
        free(bounds);
        n = 0;
    }
    if (n > 0) {
        *rounds = n;
        *blocked = true;
        for (int x = 0, y; x < ph->n_flows; x = y + 1) { /* a message per run and block */
            for (y = x; y + 1 < ph->n_flows && des_same_run(&ph->flows[y], &ph->flows[y + 1]);)
                y++;
            for (int k = 0; k < n; k++)
                if (ph->flows[x].first_step < bounds[k + 1] && ph->flows[y].last_step >= bounds[k]) {
                    m++;
                    per[k]++;
                }
        }
        free(bounds);
        if (des_phase_solves(plan, s, p)) /* blocks after the first: des_maxmin.c */
            *solved = m - per[0];
    } else {
        for (int x = 0; x < ph->n_flows; x++) {
            m += ph->flows[x].last_step - ph->flows[x].first_step + 1;
            if (per) { /* active flows per step, as differences */
                per[ph->flows[x].first_step]++;
                per[ph->flows[x].last_step + 1]--;
            }
        }
        for (int k = 1; per && k < ph->steps; k++)
            per[k] += per[k - 1];
    }
    if (per) {
        *most = 0;
        for (int k = 0; k < *rounds; k++)
            if (per[k] > *most)
                *most = per[k];
    }
    free(per);
    return m;
}

int *des_plan_lanes(const des_plan *plan)
{
    int *lanes = malloc(sizeof *lanes * (size_t)(plan->endpoints > 0 ? plan->endpoints : 1));
    if (!lanes)
        return NULL;
    for (int e = 0; e < plan->endpoints; e++)
        lanes[e] = 0; /* the most flows in progress together, until the end */
    for (int c = 0; c < plan->iteration.n_calls; c++) {
        const gcsim_schedule *s = &plan->schedules[plan->call_schedule[c]];
        if (!s->out_index)
            continue;
        for (int p = 0; p < s->n_phases; p++) {
            if (des_ps_phase_solves(plan, s, p)) /* no messages: solved (des_ps.c) */
                continue;
            bool coalesced = des_phase_coalesces(plan, c, s, p);
            int *bounds = NULL, *block_of = NULL, *count = NULL;
            int n_blocks = coalesced ? 0 : des_phase_blocks(plan, c, s, p, &bounds);
            if (n_blocks > 0) {
                block_of = malloc(sizeof(int) * (size_t)s->phases[p].steps);
                count = calloc((size_t)n_blocks + 1, sizeof(int));
                if (!block_of || !count) {
                    free(bounds), free(block_of), free(count), free(lanes);
                    return NULL;
                }
                for (int k = 0; k < n_blocks; k++)
                    for (int st = bounds[k]; st < bounds[k + 1]; st++)
                        block_of[st] = k;
            }
            for (int e = 0; e < s->endpoints && e < plan->endpoints; e++) {
                int n = phase_concurrent_flows(s, p, coalesced, e, block_of, n_blocks, count);
                if (n > lanes[e])
                    lanes[e] = n;
            }
            free(bounds), free(block_of), free(count);
        }
    }
    for (int e = 0; e < plan->endpoints; e++)
        lanes[e] = lanes[e] > DES_LANE_COMMS ? (lanes[e] + DES_LANE_COMMS - 1) / DES_LANE_COMMS : 1;
    return lanes;
}

int des_plan_keep_blocks(des_plan *plan)
{
    if (des_block_memo_current(plan))
        return 0;
    if (des_block_memo_open(plan) != 0)
        return -1;
    for (int c = 0; c < plan->iteration.n_calls; c++) {
        const gcsim_schedule *s = &plan->schedules[plan->call_schedule[c]];
        for (int p = 0; p < s->n_phases; p++) {
            /* what the guard, the lanes and the simulation ask for (phase_messages) */
            if (s->phases[p].steps <= 1 || des_phase_coalesces(plan, c, s, p))
                continue;
            if (des_block_memo_decide(plan, c, p) != 0) {
                des_plan_drop_blocks(plan);
                return -1;
            }
        }
    }
    return 0;
}

double des_plan_route_latency_s(const des_plan *plan, int src, int dst)
{
    int links[GCSIM_ROUTE_MAX_LINKS];
    double lat = 0;
    gcsim_topology_route(&plan->topology, src, dst, links, &lat);
    return lat;
}

long long des_plan_messages(const des_plan *plan)
{
    long long total = 0;
    for (int c = 0; c < plan->iteration.n_calls; c++) {
        const gcsim_schedule *s = &plan->schedules[plan->call_schedule[c]];
        for (int p = 0; p < s->n_phases; p++) {
            int rounds;
            long long most;
            bool blocked;
            long long solved;
            total += phase_messages(plan, c, s, p, des_phase_coalesces(plan, c, s, p), &rounds,
                                    &most, &blocked, &solved);
        }
    }
    return total;
}

/* Cost model of a run: the simulation child's CPU time and peak memory, fork to exit.
 *  - CPU: a fixed part (fork, SimGrid's initialisation), a part per actor (its context and
 *    stack pages, its host and links in the platform) and a part per message, whose form
 *    depends on how the DES runs the phase (below). A message of a phase run by SimGrid
 *    costs more as the F flows in progress with it grow: a stepped phase's because
 *    SimGrid's max-min solver re-solves its flows at each event, a coalesced phase's
 *    because past a few hundred senders the per-GPU state each message touches no longer
 *    stays in the caches; in a coalesced phase F is the number of its senders (FSDP's
 *    phases of 2 flows per GPU cost per message what the all-reduce's of one flow per GPU
 *    cost, docs/des.md step 12).
 *  - Memory: a base (the parent's pages the child inherits, SimGrid), 14 KiB per actor
 *    (touched stack pages, context), 8 KiB per endpoint (host, links, routes) and 3 KiB per
 *    flow of the largest phase (a SimGrid communication and solver variable each, plus our
 *    records): the hierarchical all-reduce costs 39.3 KiB per GPU from 1,024 to 65,536
 *    GPUs; the parameter server's 131,072 flows a phase at 1,024 GPUs 378 MiB more. The
 *    flows counted are those in progress together: a phase's, or the most of one step or
 *    block of a pipelined phase (a 1,024-GPU double tree: 6,112 of its 59,376 flows).
 *    Fitted by hand in issues 14, 28 and 47 (docs/des.md); a page is a page at any load.
 *
 * The CPU constants were fitted together (1 Dec 2026, issue 47) to 37 runs on this
 * project's 2-core virtual machine with nothing else running (load 0.9-1.4, SimGrid 3.32):
 * ResNet-50 on platforms/a100-hdr.json widened to 12,500 nodes with the ring (--bucket
 * 100, 25, 5 and 2 MiB at 256, 1,024 and 4,096 GPUs: only the messages change),
 * hierarchical (256-16,384), the tree and double tree (256-16,384), the tuned default,
 * halving-doubling and the parameter server (64-2,048), Llama-2-7B under ZeRO-2 (256-4,096)
 * and FSDP with and without an actor per GPU (1,024-16,384); whole-process CPU s (user +
 * system), the least of three runs; the fit minimised the squared log of estimate /
 * measured over them (runs under 0.2 s weighted 0.3: the clock's 10 ms steps), and the
 * constants were rounded to two digits. Estimate / measured over the 37: 0.72-1.63, and
 * 0.72-1.30 from 0.2 s (bench/des/guard_grid.sh prints it). Held out, measured the same
 * day and not fitted: 0.59-1.95 over 9 runs of 4,096-65,536 GPUs (the old constants:
 * 0.83-2.46; docs/des.md step 23). The constants before were fitted at load 8-20 on the
 * same machine, where the same runs took 1.0-3.3x the CPU time, the small ones the most:
 * on a quiet machine that guard said 0.95-6.3x the measurement (3.9x for FSDP at 16,384
 * GPUs). Under such load this guard is low by as much (the refusal says "on the machine
 * the estimate was fitted on"). */
#define DES_CPU_S_BASE 0.002
#define DES_CPU_S_PER_ACTOR 1e-5
#define DES_CPU_S_PER_MESSAGE 2.5e-6
/* A message of a stepped phase (its flows in SimGrid's solver together, re-solved at each
 * event) costs this much more per flow in progress with it: fitted to halving-doubling at
 * 1,024 and 4,096 GPUs. */
#define DES_CPU_S_STEPPED_MESSAGE_FLOW 1.8e-9
/* A coalesced message pays instead for the per-GPU state it touches (the actors' stacks,
 * SimGrid's activities and routes) leaving the caches as its phase's senders F grow: this
 * much more per doubling of F past DES_CACHE_FROM_SENDERS. Measured by changing only the
 * message count (the ring's bucket runs above; 16,384 GPUs from its held-out 25 MiB run,
 * less the fixed parts): 2.6, 6.9, 15 and 21.7 us a message at 256, 1,024, 4,096 and
 * 16,384 GPUs (one sender each), which the two terms give as 2.5, 8.1, 13.7 and 19.3; not
 * linear in F (the fit at load took it as a ramp to 1,024 senders and flat after it, and a
 * term linear in F put hierarchical at 65,536 GPUs at 3.8x its measurement). */
#define DES_CPU_S_PER_MESSAGE_CACHE 2.8e-6
#define DES_CACHE_FROM_SENDERS 256.0
/* A message of a pipelined phase run in blocks (the trees, des_blocks.c) costs its share of
 * the block's solves, which grows with the flows of its block F more slowly than F (a
 * block's flows end at as many instants as they have distinct rates, each re-solving the
 * block's flows): the fit took its fixed part to 0, leaving the square-root term. */
#define DES_CPU_S_BLOCK_MESSAGE 0.0
#define DES_CPU_S_BLOCK_SQRT 1.0e-7
/* A message of a block solved outside SimGrid (des_maxmin.c): its flow's route looked up
 * and its share of the block's max-min solves. Since step 21 (independent parts, identical
 * parts solved once) the cost no longer grows with the block's F flows. Both refitted after
 * step 25 (blocks decided once, their pricing incremental, routes kept per run; 2.6e-7 and
 * 6e-7 before) to the tree, the double tree and the default at 256-16,384 GPUs (12 quiet
 * runs, perf stat, least of three): 0.71-1.32 of them; held out at 65,536: 0.76-1.11. */
#define DES_CPU_S_SOLVED_MESSAGE 6.8e-7
#define DES_CPU_S_SOLVED_SQRT 0.0
/* A message of a parameter-server phase solved outside SimGrid (des_ps.c): its route looked
 * up once (each (GPU, shard) pair is a route of its own), its flow built and its share of
 * the phase's max-min solves, which stay few (the push's and the pull's flows take a few
 * distinct rates: local and remote shards) so the cost per message stays flat as the flows
 * grow. And its memory: per flow of the largest solved phase, des_maxmin.c's state (rates,
 * remains, the per-link flow lists), the flow's links and its memoized route: 600 B, from
 * 512- and 1,024-GPU runs' 38 and 99 MiB peaks (docs/des.md step 17). */
#define DES_CPU_S_PS_SOLVED_MESSAGE 8.7e-7
#define DES_BYTES_PER_PS_SOLVED_FLOW 600.0
/* Sharded rings solved per flow with an actor per GPU (des_shard.c): per message (a GPU's
 * part of one call) the call's actor work around it (its overhead sleep, the sleep to the
 * phase's end, the compute actor's gate and execution), growing with the square root of the
 * GPUs in the phase as the measured cost per message does (the actors' stacks and
 * SimGrid's activity sets outgrow the caches; the fit took the fixed part to 0). */
#define DES_CPU_S_SHARD_MESSAGE 0.0
#define DES_CPU_S_SHARD_SQRT 2.1e-7
/* Those of an iteration without gates (data parallelism's all-reduces, ZeRO-1/2: docs/des.md
 * step 24) cost a quarter as much: no gate to open per call, one compute actor for all
 * GPUs. Fitted the same way to 16 quiet runs (ResNet-50 ring with --bucket 25, 5 and 2 MiB
 * at 256-4,096 GPUs and 25 MiB at 16,384, hierarchical 256-16,384, Llama-2-7B ZeRO-2
 * 256-4,096): 0.74-1.89 of them; held out, ring and hierarchical at 65,536 GPUs: 1.89 and
 * 1.36. The fixed part fitted to 0. Such a plan's flows are never SimGrid communications,
 * so its memory counts none (0.97 of the ring's 100 and 375 MiB at 4,096 and 16,384 GPUs,
 * where the flows' 3 KiB each made it 1.21-1.23). */
#define DES_CPU_S_SHARD_OPEN_SQRT 5.3e-8
/* Those rings where no actor per GPU runs either (des_shard_direct.c): one actor, and per
 * message a flow's end computed in a sweep; per GPU and call issued, its start and end
 * while calls slow compute (interference), no SimGrid flow. What is left grows with the
 * endpoints, not the messages: SimGrid's platform (each GPU's host, links and zone, built
 * by des_platform.c, about half of it) and each ring pair's route looked up in it
 * (des_shard_routes). Fitted to 21 quiet runs (docs/des.md step 25: ResNet-50 ring at
 * 256-16,384 GPUs and with 5 and 2 MiB buckets at 1,024 and 4,096, hierarchical 256-16,384,
 * Llama-2-7B ZeRO-2 256-4,096 and FSDP 256-16,384, ResNet-50 FSDP 1,024 and 4,096; the
 * least of two sets of three perf stat runs): 0.81-1.17 of them. Its memory is the
 * endpoints' and the interference's: a child of 64-4,096 data-parallel GPUs peaks at
 * 8.7-40.5 MiB, the base and the endpoints' terms alone (the 12 MiB extra fitted before on
 * whole-process peaks, at or under the parent's 33.5 MiB there, put it at 2.4x). */
#define DES_CPU_S_DIRECT_MESSAGE 3e-8
#define DES_CPU_S_DIRECT_ENDPOINT 3.4e-5
#define DES_CPU_S_DIRECT_BASE 0.002
#define DES_BYTES_PER_DIRECT_CALL 16.0
/* The gcsim process around the simulation child: its own start (loading SimGrid's and the
 * other shared libraries, their static initialisers), reading the model and platform,
 * resolving the step and the fork, none of which the child's rusage counts. Measured:
 * `gcsim --version` (which does only the start), `perf stat -r 20`, 22.3 ms task-clock,
 * 1 Dec 2026 on the quiet machine (0.08-0.10 CPU s at load 18 on 29 Nov), 33.5 MiB peak
 * resident. */
#define DES_CPU_S_PROCESS 0.02
#define DES_BYTES_PROCESS (33.5 * 1024 * 1024)
#define DES_BYTES_BASE (8.2 * 1024 * 1024)
#define DES_BYTES_PER_ACTOR (14.0 * 1024)
#define DES_BYTES_PER_ENDPOINT (8.3 * 1024)
#define DES_BYTES_PER_FLOW (3.0 * 1024)

des_compute_mode des_plan_compute_mode(const des_plan *plan)
{
    const gcsim_iteration *it = &plan->iteration;
    bool computes = false, gated = false;
    for (int k = 0; k < it->n_blocks; k++) {
        computes = computes || it->blocks[k].seconds > 0;
        gated = gated || it->blocks[k].gate >= 0;
    }
    if (!computes && !gated)
        return DES_COMPUTE_NONE;
    if (gated || plan->deferred)
        return DES_COMPUTE_PER_GPU;
    for (int c = 0; c < it->n_calls; c++) {
        const gcsim_call *call = &it->calls[c];
        if (call->blocking)
            return DES_COMPUTE_PER_GPU;
        const gcsim_schedule *s = &plan->schedules[plan->call_schedule[c]];
        for (int p = 0; p < s->n_phases; p++)
            if (gcsim_hop_codec_s(&s->phases[p], &call->bytes, 1.0) > 0)
                return DES_COMPUTE_PER_GPU;
    }
    for (int x = 0; x < it->n_steps; x++)
        if (it->steps[x].kind == GCSIM_STEP_CODEC && it->steps[x].codec_s > 0)
            return DES_COMPUTE_PER_GPU;
    /* DELAY has no compute executing for a call in flight to slow (interference) */
    if (plan->compute_factor)
        return plan->timeline_path || it->comm_interference > 0 ? DES_COMPUTE_PER_GPU
                                                                : DES_COMPUTE_DELAY;
    return DES_COMPUTE_SHARED;
}

/* Actors the simulation starts (des_sim.c): a comm actor per GPU, the compute actors
 * (des_plan_compute_mode), a step actor per GPU with deferred steps, one per node CPU
 * endpoint. */
static int plan_actors(const des_plan *plan)
{
    des_compute_mode compute = des_plan_compute_mode(plan);
    int per_gpu = 1 + (compute == DES_COMPUTE_PER_GPU) + plan->deferred;
    int actors = per_gpu * plan->gpus + (plan->endpoints - plan->gpus) +
                 (compute == DES_COMPUTE_SHARED);
    int *lanes = des_plan_lanes(plan); /* lane helpers: lanes - 1 per endpoint */
    for (int e = 0; lanes && e < plan->endpoints; e++)
        actors += lanes[e] - 1;
    free(lanes);
    return actors;
}

/* Endpoints that send in a phase (stamp: an array of endpoints entries, -1 or earlier
 * marks; mark: this phase's). */
static int senders_of(const gcsim_phase *ph, int *stamp, int mark)
{
    int n = 0;
    for (int x = 0; x < ph->n_flows; x++)
        if (stamp[ph->flows[x].src] != mark) {
            stamp[ph->flows[x].src] = mark;
            n++;
        }
    return n;
}

/* The doublings past DES_CACHE_FROM_SENDERS of a coalesced phase's f senders, each of which
 * adds DES_CPU_S_PER_MESSAGE_CACHE to its messages. */
static double cache_doublings(double f)
{
    return f > DES_CACHE_FROM_SENDERS ? log2(f / DES_CACHE_FROM_SENDERS) : 0;
}

void des_plan_estimate(const des_plan *plan, des_estimate *est)
{
    memset(est, 0, sizeof *est);
    double weighted = 0; /* CPU s of the messages */
    long long max_flows = 0, max_ps_solved = 0;
    int mark = 0;
    int *stamp = malloc(sizeof(int) * (size_t)(plan->endpoints > 0 ? plan->endpoints : 1));
    for (int e = 0; stamp && e < plan->endpoints; e++)
        stamp[e] = -1;
    /* every phase per flow (des_shard.c) where the plan allows it; the routes, which could
     * still send it to the replay, are not known here */
    bool shard = des_shard_plan_solves(plan);
    /* no actor per GPU: as des_shard_direct decides it (compute as a delay, per-GPU
     * factors, keeps them) */
    bool direct = shard && des_shard_direct_iteration(plan) &&
                  des_plan_compute_mode(plan) != DES_COMPUTE_DELAY;
    bool gated = iteration_gated(&plan->iteration);
    for (int c = 0; c < plan->iteration.n_calls; c++) {
        const gcsim_schedule *s = &plan->schedules[plan->call_schedule[c]];
        for (int p = 0; p < s->n_phases; p++) {
            const gcsim_phase *ph = &s->phases[p];
            if (des_ps_phase_solves(plan, s, p)) { /* see DES_CPU_S_PS_SOLVED_MESSAGE */
                est->messages += ph->n_flows;
                weighted += (double)ph->n_flows * DES_CPU_S_PS_SOLVED_MESSAGE;
                if (ph->n_flows > max_ps_solved)
                    max_ps_solved = ph->n_flows;
                continue;
            }
            bool coalesced = des_phase_coalesces(plan, c, s, p);
            int rounds;
            long long most;
            bool blocked;
            long long solved;
            long long m = phase_messages(plan, c, s, p, coalesced, &rounds, &most, &blocked,
                                         &solved);
            est->messages += m;
            /* Flows in progress together: a step's share of a stepped phase's. A coalesced
             * phase counts its senders, not its flows: FSDP's phases over N GPUs (2N
             * flows a phase) cost what the all-reduce's phases of N flows cost per message
             * (ResNet-50 on a100-hdr with 12,500 nodes, 2026-11-25: 39 against 37 us at
             * 65,536 GPUs, 36 against 43 us at 100,000; docs/des.md step 12). */
            double f = coalesced && stamp ? senders_of(ph, stamp, mark++) : (double)m / rounds;
            if (f < 1)
                f = 1;
            if (direct)
                weighted += (double)m * DES_CPU_S_DIRECT_MESSAGE;
            else if (shard && !gated)
                weighted += (double)m * DES_CPU_S_SHARD_OPEN_SQRT * sqrt(f);
            else if (shard)
                weighted += (double)m * (DES_CPU_S_SHARD_MESSAGE + DES_CPU_S_SHARD_SQRT * sqrt(f));
            else if (blocked) /* a pipelined phase in blocks (des_blocks.c): see DES_CPU_S_BLOCK_* */
                weighted += (double)(m - solved) *
                                (DES_CPU_S_BLOCK_MESSAGE + DES_CPU_S_BLOCK_SQRT * sqrt(f)) +
                            (double)solved * (DES_CPU_S_SOLVED_MESSAGE +
                                              DES_CPU_S_SOLVED_SQRT * sqrt(f));
            else
                weighted += (double)m * (DES_CPU_S_PER_MESSAGE +
                                         (coalesced ? DES_CPU_S_PER_MESSAGE_CACHE *
                                                          cache_doublings(f)
                                                    : DES_CPU_S_STEPPED_MESSAGE_FLOW * f));
            if (most > max_flows && !direct && !(shard && !gated)) /* messages in progress together */
                max_flows = most;
        }
    }
    free(stamp);
    double actors = direct ? 1 : plan_actors(plan);
    est->cpu_s = DES_CPU_S_BASE + DES_CPU_S_PER_ACTOR * actors + weighted;
    if (direct) {
        est->cpu_s += DES_CPU_S_DIRECT_BASE + DES_CPU_S_DIRECT_ENDPOINT * (double)plan->endpoints;
        if (plan->iteration.comm_interference > 0)
            est->peak_bytes += DES_BYTES_PER_DIRECT_CALL * plan->iteration.n_calls * (double)plan->gpus;
    }
    est->peak_bytes += DES_BYTES_BASE + DES_BYTES_PER_ACTOR * actors +
                      DES_BYTES_PER_ENDPOINT * (double)plan->endpoints +
                      DES_BYTES_PER_FLOW * (double)max_flows +
                      DES_BYTES_PER_PS_SOLVED_FLOW * (double)max_ps_solved;
    /* the child's pages past the fork are its own; the process's peak (its largest
     * member's, as /usr/bin/time and wait4 report it) is the larger of the two */
    est->process_cpu_s = est->cpu_s + DES_CPU_S_PROCESS;
    est->process_peak_bytes = est->peak_bytes > DES_BYTES_PROCESS ? est->peak_bytes
                                                                   : DES_BYTES_PROCESS;
}

int des_plan_check_size(const des_plan *plan, long long max_messages, gcsim_error *err)
{
    if (max_messages < 0)
        return 0;
    long long limit = max_messages > 0 ? max_messages : DES_DEFAULT_MAX_MESSAGES;
    long long messages = des_plan_messages(plan);
    if (messages <= limit)
        return 0;
    des_estimate est;
    des_plan_estimate(plan, &est);
    char names[160];
    call_collectives(plan, names, sizeof names);
    return gcsim_fail(err,
                      "des: this simulation would send %lld SimGrid messages (%d GPUs, %d buckets, "
                      "%s%s), more than the limit of %lld: an estimated %.*f CPU s and %.0f MiB "
                      "for the gcsim process running it (within a factor 2 on the machine the "
                      "estimate was fitted on). Pass "
                      "--des-max-messages %lld (or -1 for no limit) to run it anyway",
                      messages, plan->gpus, plan->n_buckets,
                      names,
                      plan->full_simulation ? ", GCSIM_DES_FULL=1: every step" : "", limit,
                      /* three significant digits below 100 s, whole seconds above */
                      est.process_cpu_s < 1     ? 3
                      : est.process_cpu_s < 10  ? 2
                      : est.process_cpu_s < 100 ? 1
                                                : 0,
                      est.process_cpu_s, est.process_peak_bytes / (1024.0 * 1024), messages);
}
