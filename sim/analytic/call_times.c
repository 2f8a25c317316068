/*
 * sim/analytic/call_times.c: every collective call of a step in closed form on the topology
 * handed in (gcsim_analytic_call_times, analytic.h), network jitter's
 * expectation included, for the expected iteration (predict_one.c) and for variable
 * compute (variable_compute.c) and for the reports that list a step's calls; its own file so that neither calls the other back.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analytic.h"
#include "analytic_internal.h"
#include "fabric_expect.h"
#include "schedule_memo.h"

/* Whether two calls cost the same schedule for the same bytes: every input of
 * gcsim_schedule_memo_time_s but the scenario's, which all calls share (numbers compared
 * bit for bit, so that a reused cost is the one the call would get). */
static bool same_cost_inputs(const gcsim_call *a, int a_chunks, const gcsim_call *b,
                             int b_chunks)
{
    const gcsim_bucket_bytes *x = &a->bytes, *y = &b->bytes;
    double vx[5] = {x->dense_bytes, x->payload_bytes, x->fixed_bytes, x->encode_s, x->decode_s};
    double vy[5] = {y->dense_bytes, y->payload_bytes, y->fixed_bytes, y->encode_s, y->decode_s};
    return a->collective == b->collective && a_chunks == b_chunks && a->group == b->group &&
           x->aggregation == y->aggregation && x->compressed == y->compressed &&
           memcmp(vx, vy, sizeof vx) == 0;
}

/* Network jitter (fabric_expect.h): each call's schedule waits, step by step, for the
 * largest of its messages' Exp(M) delays, M H(messages) expected per step. The schedule
 * of each distinct (collective, chunks, group) is built once, with its flows. */
enum { JITTER_KINDS = 16 };
static int add_jitter(const gcsim_platform *p, int ps_shards, const gcsim_iteration *it,
                      const gcsim_topology *topo, double *call_s, gcsim_error *err)
{
    int kind_c[JITTER_KINDS], kind_chunks[JITTER_KINDS], kind_group[JITTER_KINDS], nk = 0;
    double kind_h[JITTER_KINDS];
    double mean_s = p->jitter.mean_s;
    for (int k = 0; k < it->n_calls; k++) {
        const gcsim_call *c = &it->calls[k];
        int chunks = gcsim_call_pipeline_chunks(c, topo->platform, topo->gpus);
        int j = 0;
        while (j < nk && !(kind_c[j] == (int)c->collective && kind_chunks[j] == chunks &&
                           kind_group[j] == c->group))
            j++;
        double h;
        if (j < nk) {
            h = kind_h[j];
        } else {
            gcsim_schedule sch;
            if (gcsim_schedule_build_for_cost(&sch, c->collective, topo, ps_shards, chunks,
                                              c->group, err) != 0)
                return -1;
            h = gcsim_jitter_harmonic_steps(&sch);
            gcsim_schedule_free(&sch);
            if (!isfinite(h))
                return gcsim_fail(err, "out of memory counting the messages of a schedule");
            if (nk < JITTER_KINDS) {
                kind_c[nk] = (int)c->collective;
                kind_chunks[nk] = chunks;
                kind_group[nk] = c->group;
                kind_h[nk++] = h;
            }
        }
        call_s[k] += mean_s * h;
    }
    return 0;
}

/* Whether a call's schedule may charge codec work in its reducing steps: a compressed
 * payload whose receivers decode, sum and re-encode (gcsim_hop_codec_s), the only case
 * in which its time has a part that is GPU work rather than communication. */
static bool may_charge_hop_codec(const gcsim_bucket_bytes *b)
{
    return b->compressed && b->aggregation == PAYLOAD_PER_WORKER_SCALE &&
           b->encode_s + b->decode_s > 0;
}

/* Whether a collective's reducing receivers are GPUs: a parameter server's shards, and
 * BytePS's servers, are the machines' CPUs (their endpoints past the GPUs, schedule.c),
 * whose codec takes nothing from the GPU, in the DES as here. */
static bool gpus_reduce(gcsim_collective c)
{
    return c != COLLECTIVE_PARAMETER_SERVER && c != COLLECTIVE_BYTEPS_PS;
}

/* Every call's duration in closed form: its overhead, then its schedule, built and
 * prepared once per process for its platform, GPU count, collective, chunks and group
 * (schedule_memo.h): a sweep's cases share them. Buckets of one size follow each other
 * (every full bucket of a model), so a call takes the time of an equal call among the last
 * few distinct ones before it; the distinct ones are looked up together, and the errors
 * come in call order as they did one call at a time.
 *
 * hop_s (when not NULL): how much of each duration is codec work on the GPU: the schedule's
 * time for the same bytes with no codec seconds, taken from its time with them (a second
 * query of the same prepared schedule: the steps' other terms are the same operations, so
 * the difference is what its reducing steps' codec adds, exactly 0 where no step charges
 * it). The timeline runs that part as GPU work beside compute, as the DES runs each
 * endpoint's codec on its GPU. It is each step's largest receiver share, the step's
 * length: every GPU's own work on a ring, where all receive alike; more than a tree's
 * leaves and inner nodes each do (the DES charges each its own share), so there the
 * analytic engine slows compute a little more than the DES (docs/analytic.md). */
enum { RECENT_CALLS = 8, CALLS_ON_STACK = 64 };

static int call_durations(const gcsim_platform *p, int ps_shards, const gcsim_iteration *it,
                          const gcsim_topology *topo, double *call_s, double *hop_s,
                          gcsim_error *err)
{
    int nc = it->n_calls;
    /* room for a second query per call (its bytes without codec seconds) when hop_s */
    int room = hop_s ? 2 * nc : nc;
    gcsim_schedule_memo_query q_stack[2 * CALLS_ON_STACK];
    gcsim_bucket_bytes wire_stack[CALLS_ON_STACK];
    int from_stack[CALLS_ON_STACK], wire_from_stack[CALLS_ON_STACK];
    bool heap = nc > CALLS_ON_STACK;
    gcsim_schedule_memo_query *q = heap ? malloc(sizeof *q * (size_t)room) : q_stack;
    int *from = heap ? malloc(sizeof(int) * (size_t)nc) : from_stack; /* each call's query */
    int *wire_from = heap && hop_s ? malloc(sizeof(int) * (size_t)nc) : wire_from_stack;
    gcsim_bucket_bytes *wire = heap && hop_s ? malloc(sizeof *wire * (size_t)nc) : wire_stack;
    if (!q || !from || !wire_from || !wire) {
        if (heap) {
            free(q);
            free(from);
            if (hop_s) {
                free(wire_from);
                free(wire);
            }
        }
        return gcsim_fail(err, "out of memory for %d collective calls", nc);
    }
    int recent[RECENT_CALLS], recent_chunks[RECENT_CALLS], n_recent = 0, next_recent = 0;
    int nq = 0;
    for (int k = 0; k < nc; k++) {
        const gcsim_call *c = &it->calls[k];
        int chunks = gcsim_call_pipeline_chunks(c, topo->platform, topo->gpus);
        int r = 0;
        while (r < n_recent &&
               !same_cost_inputs(c, chunks, &it->calls[recent[r]], recent_chunks[r]))
            r++;
        if (r < n_recent) {
            from[k] = from[recent[r]];
            if (hop_s)
                wire_from[k] = wire_from[recent[r]];
            continue;
        }
        q[nq] = (gcsim_schedule_memo_query){c->collective, chunks, c->group, &c->bytes, 0};
        from[k] = nq++;
        if (hop_s) {
            wire_from[k] = -1;
            if (may_charge_hop_codec(&c->bytes) && gpus_reduce(c->collective)) {
                wire[k] = c->bytes;
                wire[k].encode_s = wire[k].decode_s = 0;
                q[nq] = (gcsim_schedule_memo_query){c->collective, chunks, c->group, &wire[k], 0};
                wire_from[k] = nq++;
            }
        }
        recent[next_recent] = k;
        recent_chunks[next_recent] = chunks;
        next_recent = (next_recent + 1) % RECENT_CALLS;
        if (n_recent < RECENT_CALLS)
            n_recent++;
    }
    int done = gcsim_schedule_memo_times(p, topo->gpus, ps_shards, q, nq, err);
    int rc = 0;
    for (int k = 0; k < nc && rc == 0; k++) {
        const gcsim_call *c = &it->calls[k];
        int w = hop_s ? wire_from[k] : -1;
        if (from[k] >= done || w >= done) {
            rc = -1; /* its schedule could not be built: err says why */
        } else if (!isfinite(q[from[k]].time_s) || (w >= 0 && !isfinite(q[w].time_s))) {
            rc = gcsim_fail(err, "collective %s: no closed-form cost for %d GPUs",
                            gcsim_collective_name(c->collective), topo->gpus);
        } else {
            call_s[k] = c->overhead_s + q[from[k]].time_s;
            if (hop_s) /* at least 0, at most the schedule's whole time */
                hop_s[k] = w < 0 ? 0
                                 : fmin(q[from[k]].time_s,
                                        fmax(0.0, q[from[k]].time_s - q[w].time_s));
        }
    }
    if (rc == 0 && p->jitter.mean_s > 0) /* the expected jitter (analytic_fabric.c) */
        rc = add_jitter(p, ps_shards, it, topo, call_s, err);
    if (heap) {
        free(q);
        free(from);
        if (hop_s) {
            free(wire_from);
            free(wire);
        }
    }
    return rc;
}

int gcsim_analytic_call_times(const gcsim_topology *topo, int ps_shards,
                              const gcsim_iteration *it, double *call_s, double *hop_s,
                              gcsim_error *err)
{
    return call_durations(topo->platform, ps_shards, it, topo, call_s, hop_s, err);
}
