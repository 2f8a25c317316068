/*
 * sim/des/des_shard.c: rings solved per flow (des_shard.h), sharded or not.
 *
 * Decided once per simulation, by the first endpoint to reach a phase: the plan must
 * qualify (des_shard_plan_solves) and, on SimGrid's own routes (lean routes, background
 * load, oversubscription and ECMP's links as the replay sees them), every SHARED link must
 * be crossed by the flows of one (source, destination) pair only, over all phases of all
 * calls, with at most one flow of that pair per phase. Then no two flows are ever in
 * progress on one link together (a pair's flows of two phases are ordered by its source,
 * which leaves a phase only once its flows there are done), and a flow's rate is its
 * route's smallest capacity (a FATPIPE link bounds each flow at its capacity, a SHARED one
 * alone gives it all). Otherwise every phase is replayed, as before.
 *
 * The rendezvous: an endpoint reaching a phase marks itself there; each of its flows whose
 * peer is already there starts now and is resolved by this endpoint (its end computed,
 * both endpoints' ends raised to it plus its extra latency); the others stay pending until
 * the peer arrives and resolves them. An endpoint with flows pending waits on its own
 * semaphore, released by the peer resolving the last of them, then sleeps until its end:
 * the instant wait_lane would have returned after the replay's communications.
 *
 * What differs from the replay: rounding only. SimGrid's clock is the sum of every event's
 * delta (compute executions of other GPUs included) and a flow's remaining bytes are
 * decremented at each of them, and what is left of its latency is dropped once under
 * SimGrid's 1 ns timing precision; here a flow's end is start + latency + bytes / capacity.
 * tests/des/test_des_shard.c compares both on FSDP, HSDP, ZeRO-2 and data-parallel
 * iterations.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/link.h>
#include <simgrid/semaphore.h>
#include <xbt/asserts.h>
#include <xbt/dynar.h>

#include "des_collectives.h"
#include "des_shard.h"

/* One (source, destination) pair's route as SimGrid holds it. */
typedef struct {
    int src, dst;         /* src -1: empty slot */
    double latency_s;     /* SimGrid's route latency */
    double capacity_Bps;  /* the smallest capacity on the route */
    double gcsim_lat_s;   /* gcsim's route latency: the extra of a coalesced phase's steps */
} shard_route;

typedef struct {
    long long key;   /* call * phases + phase it is in; -1: none */
    int pending;     /* its flows whose peer has not arrived */
    bool blocked;    /* waiting on sem for them (set just before acquiring) */
    double end_s;    /* the latest of its resolved flows' ends plus extras */
    sg_sem_t sem;
} shard_ep;

typedef struct des_shard {
    int state;                /* 1 solves, -1 replays */
    bool sems;                /* the endpoints' semaphores made (des_shard_phase) */
    int phases;               /* row length of the keys */
    shard_route *routes;
    size_t route_cap;
    shard_ep *eps;
} des_shard;

static shard_route *route_slot(des_shard *sh, int src, int dst)
{
    size_t h = des_pair_hash(src, dst, sh->route_cap);
    while (sh->routes[h].src >= 0 && (sh->routes[h].src != src || sh->routes[h].dst != dst))
        h = (h + 1) % sh->route_cap;
    return &sh->routes[h];
}

/* The links met while deciding: SimGrid's handle, capacity, the first pair crossing it and
 * whether another one does, and the sum of the rates its pairs could reach elsewhere. */
typedef struct {
    sg_link_t link;
    double capacity_Bps;
    long long owner;   /* the first pair crossing it (src * endpoints + dst) */
    bool shared_by_pairs;
    double demand_Bps; /* its pairs' smallest capacities on their other links, summed */
} shard_link;

typedef struct {
    shard_link *links;
    size_t n, cap;
    int *route_links;  /* per route (in the order first met): its links' indices */
    size_t rl_n, rl_cap;
} link_table;

/* The index of link l in the table (its data holds index + 1 while deciding). */
static long link_index(link_table *lt, sg_link_t l)
{
    intptr_t d = (intptr_t)sg_link_get_data(l);
    if (d > 0)
        return (long)(d - 1);
    if (lt->n == lt->cap) {
        size_t c = lt->cap ? 2 * lt->cap : 1024;
        shard_link *t = realloc(lt->links, c * sizeof *t);
        if (!t)
            return -1;
        lt->links = t;
        lt->cap = c;
    }
    shard_link *k = &lt->links[lt->n];
    k->link = l;
    k->capacity_Bps = sg_link_get_bandwidth(l);
    k->owner = -1;
    k->shared_by_pairs = false;
    k->demand_Bps = 0;
    sg_link_set_data(l, (void *)(intptr_t)(lt->n + 1));
    return (long)lt->n++;
}

/* Whether a SHARED link can limit a flow: crossed by one pair only (whose flows are never
 * in progress together), or by several whose rates, each at most its route's smallest
 * capacity elsewhere, cannot add up to its capacity even all at once (a100-hdr's leaf
 * uplinks, carrying the rails' rings between two leaves, sized for every NIC below them).
 * FATPIPE links bound each flow alone; gcsim's helpers (1e18 B/s) bind nothing. */
static bool links_disjoint(const size_t *order, size_t n_routes, const int *first,
                           const int *count, link_table *lt)
{
    for (size_t o = 0; o < n_routes; o++) {
        size_t r = order[o];
        /* the route's smallest and second smallest capacities */
        double m1 = INFINITY, m2 = INFINITY;
        long arg = -1;
        for (int j = 0; j < count[r]; j++) {
            long k = lt->route_links[first[r] + j];
            double c = lt->links[k].capacity_Bps;
            if (c < m1) {
                m2 = m1;
                m1 = c;
                arg = k;
            } else if (c < m2) {
                m2 = c;
            }
        }
        for (int j = 0; j < count[r]; j++) {
            long k = lt->route_links[first[r] + j];
            lt->links[k].demand_Bps += k == arg ? m2 : m1;
        }
    }
    for (size_t k = 0; k < lt->n; k++) {
        const shard_link *l = &lt->links[k];
        if (!sg_link_is_shared(l->link) || l->capacity_Bps >= 1e15 || !l->shared_by_pairs)
            continue;
        if (!(l->demand_Bps <= l->capacity_Bps))
            return false;
    }
    return true;
}

/* Resolves every pair's route and checks its links (see the top of the file and
 * links_disjoint); links' data hold their table index + 1 while deciding and are cleared
 * after it (the trees' solved blocks use them too: des_collectives.c). */
static bool decide(des_sim *sim, des_shard *sh)
{
    const des_plan *pl = sim->plan;
    size_t flows = 0;
    int most = 1;
    for (int k = 0; k < pl->n_schedules; k++) {
        const gcsim_schedule *s = &pl->schedules[k];
        if (s->n_phases > most)
            most = s->n_phases;
        for (int p = 0; p < s->n_phases; p++)
            flows += (size_t)s->phases[p].n_flows;
    }
    sh->phases = most;
    sh->route_cap = 2 * flows + 16;
    sh->routes = malloc(sh->route_cap * sizeof *sh->routes);
    sh->eps = calloc((size_t)pl->endpoints, sizeof *sh->eps);
    int *first = malloc(sh->route_cap * sizeof *first);
    int *count = calloc(sh->route_cap, sizeof *count);
    int *last_phase_of = malloc(sh->route_cap * sizeof *last_phase_of);
    /* the routes' slots in the order the flows first meet them: links_disjoint sums each
     * link's demands in that order, whatever the table's layout */
    size_t *order = malloc(sh->route_cap * sizeof *order), n_routes = 0;
    bool *seen = calloc((size_t)pl->n_schedules, sizeof *seen);
    xbt_dynar_t d = xbt_dynar_new(sizeof(sg_link_t), NULL);
    if (!sh->routes || !sh->eps || !first || !count || !last_phase_of || !seen || !d || !order)
        xbt_die("des: out of memory");
    for (size_t k = 0; k < sh->route_cap; k++)
        sh->routes[k].src = -1;
    link_table lt = {0};
    bool ok = true;
    for (int c = 0; ok && c < pl->iteration.n_calls; c++) {
        int k = pl->call_schedule[c];
        if (seen[k])
            continue;
        seen[k] = true;
        const gcsim_schedule *s = &pl->schedules[k];
        for (int p = 0; ok && p < s->n_phases; p++) {
            const gcsim_phase *ph = &s->phases[p];
            for (int x = 0; ok && x < ph->n_flows; x++) {
                int src = ph->flows[x].src, dst = ph->flows[x].dst;
                shard_route *r = route_slot(sh, src, dst);
                size_t slot = (size_t)(r - sh->routes);
                if (r->src >= 0) {
                    /* two flows of one pair in one phase share every link of the route */
                    if (last_phase_of[slot] == k * most + p)
                        ok = false;
                    last_phase_of[slot] = k * most + p;
                    continue;
                }
                last_phase_of[slot] = k * most + p;
                order[n_routes++] = slot;
                long long pair = (long long)src * pl->endpoints + dst;
                r->src = src;
                r->dst = dst;
                r->latency_s = sg_host_get_route_latency(sim->hosts[src], sim->hosts[dst]);
                r->gcsim_lat_s = des_plan_route_latency_s(pl, src, dst);
                r->capacity_Bps = INFINITY;
                xbt_dynar_reset(d);
                sg_host_get_route(sim->hosts[src], sim->hosts[dst], d);
                unsigned n = xbt_dynar_length(d);
                if (lt.rl_n + n > lt.rl_cap) {
                    size_t cap = lt.rl_cap ? 2 * lt.rl_cap : 4096;
                    while (cap < lt.rl_n + n)
                        cap *= 2;
                    int *t = realloc(lt.route_links, cap * sizeof *t);
                    if (!t)
                        xbt_die("des: out of memory");
                    lt.route_links = t;
                    lt.rl_cap = cap;
                }
                first[slot] = (int)lt.rl_n;
                count[slot] = (int)n;
                for (unsigned j = 0; j < n; j++) {
                    long li = link_index(&lt, xbt_dynar_get_as(d, j, sg_link_t));
                    if (li < 0)
                        xbt_die("des: out of memory");
                    shard_link *l = &lt.links[li];
                    lt.route_links[lt.rl_n++] = (int)li;
                    if (l->capacity_Bps < r->capacity_Bps)
                        r->capacity_Bps = l->capacity_Bps;
                    if (l->owner < 0)
                        l->owner = pair;
                    else if (l->owner != pair)
                        l->shared_by_pairs = true;
                }
                if (!(r->capacity_Bps > 0) || isinf(r->capacity_Bps))
                    ok = false;
            }
        }
    }
    if (ok)
        ok = links_disjoint(order, n_routes, first, count, &lt);
    for (size_t k = 0; k < lt.n; k++)
        sg_link_set_data(lt.links[k].link, NULL);
    free(lt.links);
    free(lt.route_links);
    free(first);
    free(count);
    free(order);
    free(seen);
    free(last_phase_of);
    xbt_dynar_free(&d);
    return ok;
}

/* The decision, made once (without the endpoints' semaphores: the direct path,
 * des_shard_direct.c, needs none). */
static des_shard *shard_decided(des_sim *sim)
{
    if (sim->shard)
        return sim->shard;
    des_shard *sh = calloc(1, sizeof *sh);
    if (!sh)
        xbt_die("des: out of memory");
    sim->shard = sh;
    sh->state = des_shard_plan_solves(sim->plan) && decide(sim, sh) ? 1 : -1;
    return sh;
}

bool des_shard_routes(des_sim *sim)
{
    return shard_decided(sim)->state > 0;
}

/* The decision, with the semaphores the rendezvous of des_shard_phase uses. */
static des_shard *shard_state(des_sim *sim)
{
    des_shard *sh = shard_decided(sim);
    if (sh->state > 0 && !sh->sems) {
        for (int e = 0; e < sim->plan->endpoints; e++) {
            sh->eps[e].key = -1;
            sh->eps[e].sem = sg_sem_init(0);
        }
        sh->sems = true;
    }
    return sh;
}

double des_shard_flow_end(des_sim *sim, int c, const gcsim_phase *ph, const gcsim_flow *f,
                          double start_s)
{
    des_shard *sh = sim->shard;
    const gcsim_bucket_bytes *bb = &sim->plan->iteration.calls[c].bytes;
    const shard_route *r = route_slot(sh, f->src, f->dst);
    /* the replay's message: all steps' bytes (task_bytes), whole bytes */
    double b = ph->steps > 1 ? ph->steps * gcsim_flow_bytes(ph, f, 0, bb)
                             : gcsim_flow_bytes(ph, f, 0, bb);
    if (ph->steps > 1 && ph->pipelined && b != ph->steps * gcsim_flow_bytes(ph, f, ph->steps - 1, bb)) {
        b = 0; /* a pipelined ring's bytes growing with the sums (des_collectives.c) */
        for (int k = 0; k < ph->steps; k++)
            b += gcsim_flow_bytes(ph, f, k, bb);
    }
    double bytes = (double)(b > 0 ? (long)ceil(b) : 0);
    double t = start_s;
    if (r->latency_s > 0)
        t += r->latency_s;
    if (bytes > 0)
        t += bytes / r->capacity_Bps;
    sim->transfers++;
    sim->solved_transfers++;
    /* the phase's other latencies (des_phase_other_latency_s, from the cached route's) */
    if (ph->steps > 1 && ph->pipelined && gcsim_hop_codec_s(ph, bb, 1.0) <= 0)
        return t + fmax(0, ph->route_latency_s - r->gcsim_lat_s);
    return t + (ph->steps - 1) * r->gcsim_lat_s;
}

/* Flow f between this endpoint `me` and `peer`: resolved now if the peer is in the phase,
 * else left pending for it. Makes no simcall: an endpoint counts all its flows without
 * yielding, so no other endpoint resolves one of them meanwhile (each flow is resolved
 * once); the releases wait in *release (n of them) until it is done. */
static void meet(des_sim *sim, des_shard *sh, int c, const gcsim_phase *ph, const gcsim_flow *f,
                 int me, int peer, long long key, int *release, int *n)
{
    shard_ep *m = &sh->eps[me], *o = &sh->eps[peer];
    if (o->key != key) {
        m->pending++;
        return;
    }
    double done = des_shard_flow_end(sim, c, ph, f, simgrid_get_clock());
    if (done > m->end_s)
        m->end_s = done;
    if (done > o->end_s)
        o->end_s = done;
    /* A release only to a blocked endpoint: one still counting its flows (it yields at
     * each release it makes) sees pending 0 itself and does not wait. */
    if (--o->pending == 0 && o->blocked)
        release[(*n)++] = peer;
}

bool des_shard_phase(des_actor *a, int c, const gcsim_schedule *s, int p)
{
    des_sim *sim = a->sim;
    des_shard *sh = shard_state(sim);
    if (sh->state < 0)
        return false;
    const gcsim_phase *ph = &s->phases[p];
    int me = a->ep;
    shard_ep *m = &sh->eps[me];
    long long key = (long long)c * sh->phases + p;
    m->key = key;
    m->pending = 0;
    m->end_s = simgrid_get_clock();
    int o0 = s->out_index[p][me], o1 = s->out_index[p][me + 1];
    int i0 = s->in_index[p][me], i1 = s->in_index[p][me + 1];
    int small[16], n_release = 0, most = o1 - o0 + i1 - i0;
    int *release = most <= 16 ? small : malloc(sizeof(int) * (size_t)most);
    if (!release)
        xbt_die("des: out of memory");
    for (int x = o0; x < o1; x++) {
        const gcsim_flow *f = &ph->flows[s->out_flows[p][x]];
        meet(sim, sh, c, ph, f, me, f->dst, key, release, &n_release);
    }
    for (int x = i0; x < i1; x++) {
        const gcsim_flow *f = &ph->flows[s->in_flows[p][x]];
        meet(sim, sh, c, ph, f, me, f->src, key, release, &n_release);
    }
    for (int k = 0; k < n_release; k++)
        sg_sem_release(sh->eps[release[k]].sem);
    if (release != small)
        free(release);
    if (m->pending > 0) {
        m->blocked = true;
        sg_sem_acquire(m->sem);
        m->blocked = false;
    }
    double now = simgrid_get_clock();
    if (m->end_s > now)
        sg_actor_sleep_for(m->end_s - now);
    m->key = -1;
    return true;
}

void des_shard_free(des_sim *sim)
{
    des_shard *sh = sim->shard;
    if (!sh)
        return;
    for (int e = 0; sh->sems && e < sim->plan->endpoints; e++)
        sg_sem_destroy(sh->eps[e].sem);
    free(sh->routes);
    free(sh->eps);
    free(sh);
    sim->shard = NULL;
}
