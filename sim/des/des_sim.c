/*
 * sim/des/des_sim.c: the simulation itself, run inside the forked child (des_fork.c).
 *
 * Endpoints: GPUs 0..N-1 (hosts g<k>) and, when a schedule uses them (parameter server,
 * TernGrad pattern), node CPUs N..N+j-1 (hosts c<n>). Every GPU runs two actors sharing its
 * host: the compute actor replays forward and backward and releases a semaphore when a
 * bucket is full (one compute actor releases every GPU's where all compute alike:
 * des_plan_compute_mode); the comm actor encodes, exchanges (des_exchange: the bucket's schedule)
 * and decodes buckets in order. A CPU runs one actor that takes its part of every bucket's
 * schedule. Codec work is an execution on the same host, so it shares the GPU with
 * backward compute (fair share), as the analytic timeline shares it; a call in flight holds a
 * bounded share of the host (interference_start), the SMs and HBM its kernels take.
 * Messages carry only their simulated size (sg_mailbox_put_async with a dummy payload).
 */
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/exec.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <simgrid/semaphore.h>

#include "des_collectives.h"
#include "des_internal.h"
#include "des_platform.h"
#include "des_shard.h"
#include "des_timeline.h"

void des_mark_start(des_actor *a, int b)
{
    double now = simgrid_get_clock();
    gcsim_des_bucket *bk = &a->sim->buckets[b];
    if (now < bk->exchange_start_s)
        bk->exchange_start_s = now;
}

void des_mark_end(des_actor *a, int b)
{
    double now = simgrid_get_clock();
    gcsim_des_bucket *bk = &a->sim->buckets[b];
    if (now > bk->exchange_end_s)
        bk->exchange_end_s = now;
}

static void compute(des_actor *a, double seconds, const char *name, const des_event_args *args)
{
    if (seconds <= 0)
        return;
    double t0 = simgrid_get_clock();
    sg_actor_execute(seconds * sg_host_get_speed(sg_host_self()));
    if (!a->sim->timeline)
        return;
    double t1 = simgrid_get_clock();
    if (a->sim->compute == DES_COMPUTE_SHARED) /* the same slice on every GPU */
        for (int g = 0; g < a->sim->plan->gpus; g++)
            des_timeline_add(a->sim->timeline, g, DES_TRACK_COMPUTE, name, t0, t1, args);
    else
        des_timeline_add(a->sim->timeline, a->ep, DES_TRACK_COMPUTE, name, t0, t1, args);
}

static void actor_end(des_sim *sim);

static void gpu_compute_main(int argc, char **argv)
{
    (void)argc, (void)argv;
    des_actor *a = sg_actor_self_get_data();
    des_sim *sim = a->sim;
    const des_plan *plan = sim->plan;
    char name[64] = "";

    const gcsim_iteration *it = &plan->iteration;
    int next_bucket = 0; /* buckets are ready in order (ready_block non-decreasing) */
    while (next_bucket < it->n_buckets && it->buckets[next_bucket].ready_block < 0)
        next_bucket++;
    for (int k = 0; k < it->n_blocks; k++) {
        const gcsim_block *bl = &it->blocks[k];
        /* A gated block waits until the comm actor has exchanged its bucket; buckets are
         * exchanged in order, so the k-th release is bucket k - 1's. */
        while (bl->gate >= 0 && sim->gates_taken[a->ep] <= bl->gate) {
            sg_sem_acquire(sim->gates[a->ep]);
            sim->gates_taken[a->ep]++;
        }
        const char *kind = bl->kind == GCSIM_BLOCK_FORWARD    ? "forward"
                           : bl->kind == GCSIM_BLOCK_BACKWARD ? "backward"
                                                              : "recompute";
        bool whole = bl->first_layer == 0 && bl->last_layer == it->n_layers - 1;
        if (sim->timeline) { /* the slice's name: formatted only when there is a timeline */
            if (bl->kind == GCSIM_BLOCK_FORWARD && whole)
                snprintf(name, sizeof name, "forward");
            else
                snprintf(name, sizeof name, "%s layers %d-%d", kind, bl->first_layer,
                         bl->last_layer);
        }
        des_event_args ev = des_event_args_of(kind);
        /* variable compute (issue 41): this GPU's factor in this iteration */
        double seconds = bl->seconds;
        if (plan->compute_factor && sim->compute == DES_COMPUTE_PER_GPU)
            seconds *= plan->compute_factor[a->ep];
        else if (plan->compute_scale > 0)
            seconds *= plan->compute_scale;
        /* the bucket a backward block fills */
        if (bl->kind == GCSIM_BLOCK_BACKWARD && next_bucket < it->n_buckets &&
            it->buckets[next_bucket].ready_block == k)
            ev.bucket = next_bucket;
        compute(a, seconds, name, &ev);
        for (; next_bucket < it->n_buckets && it->buckets[next_bucket].ready_block <= k;
             next_bucket++) {
            double now = simgrid_get_clock();
            if (now > sim->buckets[next_bucket].ready_s)
                sim->buckets[next_bucket].ready_s = now;
            if (sim->compute == DES_COMPUTE_SHARED)
                for (int g = 0; g < plan->gpus; g++)
                    sg_sem_release(sim->ready[g]);
            else
                sg_sem_release(sim->ready[a->ep]);
        }
    }
    double now = simgrid_get_clock();
    if (now > sim->compute_end_s)
        sim->compute_end_s = now;
    if (sim->compute == DES_COMPUTE_SHARED)
        for (int g = 0; g < plan->gpus; g++)
            sim->gpu_compute_end_s[g] = now;
    else
        sim->gpu_compute_end_s[a->ep] = now;
    if (plan->deferred)
        sg_sem_release(sim->backward_done[a->ep]);
    sim->computing[a->ep] = NULL;
    actor_end(sim);
}

/* Waits, if the call has a release (Horovod's next cycle after the group was produced,
 * program_stack.c), until that moment: a wait, not the call's cost. */
static void wait_release(des_sim *sim, const gcsim_call *call)
{
    if (!(call->release_s > 0) || call->bucket < 0 || call->bucket >= sim->plan->n_buckets)
        return;
    double until = sim->buckets[call->bucket].ready_s + call->release_s;
    double now = simgrid_get_clock();
    if (until > now)
        sg_actor_sleep_for(until - now);
}

/* While a call is in flight its kernels hold a share s of the GPU (step.h,
 * comm_interference): an execution on the GPU's host bounded at s of its speed, which
 * max-min sharing leaves min(s, 1/(k+1)) of the host beside k other executions (compute,
 * codec), as the analytic timeline charges it. Only on a host whose compute is simulated
 * (GPU 0's where one compute actor stands for every GPU); NULL: none started. */
static sg_exec_t interference_start(des_actor *a)
{
    des_sim *sim = a->sim;
    double share = sim->plan->iteration.comm_interference;
    if (!(share > 0) || a->ep >= sim->plan->gpus ||
        !(sim->compute == DES_COMPUTE_PER_GPU || (sim->compute == DES_COMPUTE_SHARED && a->ep == 0)))
        return NULL;
    double speed = sg_host_get_speed(sg_host_self());
    sg_exec_t x = sg_actor_exec_init(1e300); /* never done: cancelled when the call is */
    sg_exec_set_bound(x, share * speed);
    sg_exec_start(x);
    return x;
}

/* One call of bucket b's program: the library's overhead, then the schedule; one slice
 * on the collective track. */
static void run_call(des_actor *a, int b, int c)
{
    des_sim *sim = a->sim;
    const gcsim_call *call = &sim->plan->iteration.calls[c];
    double t0 = simgrid_get_clock();
    /* Inside the gradient hook: backward waits for the call (a suspended actor's
     * execution is suspended with it). */
    sg_actor_t held = call->blocking && a->ep < sim->plan->gpus ? sim->computing[a->ep] : NULL;
    if (held)
        sg_actor_suspend(held);
    wait_release(sim, call);
    sg_exec_t interference = interference_start(a);
    if (call->overhead_s > 0)
        sg_actor_sleep_for(call->overhead_s);
    des_exchange(a, c);
    if (interference)
        sg_exec_cancel(interference);
    if (held)
        sg_actor_resume(held);
    if (!sim->timeline)
        return;
    char name[96];
    snprintf(name, sizeof name, "bucket %d %s", b, call->name);
    des_event_args ex = des_event_args_of("exchange");
    ex.bucket = b;
    ex.bytes = call->bytes.payload_bytes;
    des_timeline_add(sim->timeline, a->ep, DES_TRACK_COMM, name, t0, simgrid_get_clock(), &ex);
}

/* A GPU's exchanges: each bucket's program, once backward has produced the bucket, up to
 * its deferred steps (the step actor's). */
static void gpu_comm_main(int argc, char **argv)
{
    (void)argc, (void)argv;
    des_actor *a = sg_actor_self_get_data();
    des_sim *sim = a->sim;
    const des_plan *plan = sim->plan;
    const gcsim_iteration *it = &plan->iteration;
    /* DES_COMPUTE_DELAY: this GPU's compute, f x the nominal blocks, alone on its host */
    bool delay = sim->compute == DES_COMPUTE_DELAY;
    double f = delay ? plan->compute_factor[a->ep] : 1.0, nominal_s = 0;
    int blocks_done = 0;

    for (int b = 0; b < plan->n_buckets; b++) {
        if (delay) {
            for (; blocks_done <= it->buckets[b].ready_block; blocks_done++)
                nominal_s += it->blocks[blocks_done].seconds;
            sg_actor_sleep_until(f * nominal_s);
            double now = simgrid_get_clock();
            if (now > sim->buckets[b].ready_s)
                sim->buckets[b].ready_s = now;
        } else {
            sg_sem_acquire(sim->ready[a->ep]);
        }
        const gcsim_bucket *ib = &it->buckets[b];
        double codec0 = a->codec_s;
        bool started = false;
        for (int k = 0; k < ib->n_steps - ib->n_deferred; k++) {
            const gcsim_step *st = &it->steps[ib->first_step + k];
            if (st->kind == GCSIM_STEP_CODEC) {
                des_codec_step(a, b, st);
                continue;
            }
            if (!started)
                des_mark_start(a, b);
            started = true;
            run_call(a, b, st->call);
        }
        if (a->ep == 0) /* every codec second after encoding: decodes and reducing hops */
            sim->buckets[b].decode_s += a->codec_s - codec0 - plan->buckets[b].encode_s;
        des_mark_end(a, b);
        if (plan->deferred)
            sg_sem_release(sim->exchanged[a->ep]);
        if (sim->gates)
            sg_sem_release(sim->gates[a->ep]);
    }
    if (delay) { /* the rest of backward, after the last bucket */
        for (; blocks_done < it->n_blocks; blocks_done++)
            nominal_s += it->blocks[blocks_done].seconds;
        double end = f * nominal_s;
        if (end > simgrid_get_clock())
            sg_actor_sleep_until(end);
        if (end > sim->compute_end_s)
            sim->compute_end_s = end;
        sim->gpu_compute_end_s[a->ep] = end;
    }
    actor_end(sim);
}

/* A GPU's optimizer step (plans with deferred steps): once backward is done, each
 * bucket's deferred codec steps as soon as its calls are. */
static void gpu_step_main(int argc, char **argv)
{
    (void)argc, (void)argv;
    des_actor *a = sg_actor_self_get_data();
    des_sim *sim = a->sim;
    const gcsim_iteration *it = &sim->plan->iteration;
    sg_sem_acquire(sim->backward_done[a->ep]);
    for (int b = 0; b < sim->plan->n_buckets; b++) {
        sg_sem_acquire(sim->exchanged[a->ep]);
        const gcsim_bucket *ib = &it->buckets[b];
        double codec0 = a->codec_s;
        for (int k = ib->n_steps - ib->n_deferred; k < ib->n_steps; k++)
            des_codec_step(a, b, &it->steps[ib->first_step + k]);
        if (a->ep == 0)
            sim->buckets[b].decode_s += a->codec_s - codec0;
        if (ib->n_deferred > 0)
            des_mark_end(a, b);
    }
    actor_end(sim);
}

/* A node CPU: its part of every call whose schedule has it (shards, the TernGrad host
 * steps), in the order the GPUs issue them. */
static void cpu_main(int argc, char **argv)
{
    (void)argc, (void)argv;
    des_actor *a = sg_actor_self_get_data();
    const des_plan *plan = a->sim->plan;
    char name[96] = "";
    for (int c = 0; c < plan->iteration.n_calls; c++) {
        const gcsim_call *call = &plan->iteration.calls[c];
        if (plan->schedules[plan->call_schedule[c]].endpoints <= a->ep)
            continue;
        double t0 = simgrid_get_clock();
        wait_release(a->sim, call);
        if (call->overhead_s > 0)
            sg_actor_sleep_for(call->overhead_s);
        des_exchange(a, c);
        if (a->sim->timeline)
            snprintf(name, sizeof name, "bucket %d %s", call->bucket, call->name);
        des_event_args ex = des_event_args_of("exchange");
        ex.bucket = call->bucket;
        des_timeline_add(a->sim->timeline, a->ep, DES_TRACK_COMM, name, t0, simgrid_get_clock(),
                         &ex);
        des_mark_end(a, call->bucket);
    }
    actor_end(a->sim);
}

/* The iteration computed without actors (des_shard_direct.c): one actor advances the clock
 * to its end, so that collect and done see the clock the GPUs' actors would leave. */
typedef struct {
    des_sim *sim;
    double end_s;
} direct_run;

static void direct_main(int argc, char **argv)
{
    (void)argc, (void)argv;
    direct_run *r = sg_actor_self_get_data();
    if (r->end_s > 0)
        sg_actor_sleep_until(r->end_s);
    actor_end(r->sim);
}

static void fail(des_result_header *hdr, const char *what, const char *detail)
{
    hdr->status = -1;
    snprintf(hdr->message, sizeof hdr->message, "%s%s", what, detail);
}

/* The GPU whose forward and backward ended last (the lowest rank on a tie) and the longest
 * any GPU waited for it (des_straggler); under variable compute, its marks on the timeline:
 * a "straggler wait" slice on every other GPU from its own compute's end to the
 * straggler's, one on the straggler over its compute, and the iterations' stragglers. */
static void find_straggler(des_sim *sim)
{
    const des_plan *plan = sim->plan;
    des_result_header *hdr = sim->hdr;
    hdr->straggler = -1;
    if (sim->compute == DES_COMPUTE_NONE)
        return;
    int r = 0;
    double first = sim->gpu_compute_end_s[0];
    for (int g = 1; g < plan->gpus; g++) {
        double e = sim->gpu_compute_end_s[g];
        if (e > sim->gpu_compute_end_s[r])
            r = g;
        if (e < first)
            first = e;
    }
    double end = sim->gpu_compute_end_s[r];
    hdr->straggler = r;
    hdr->straggler_end_s = end;
    hdr->straggler_max_wait_s = end - first;
    bool variable = plan->compute_factor || plan->compute_scale > 0;
    if (!sim->timeline || !variable)
        return;
    double factor = plan->compute_factor ? plan->compute_factor[r] : plan->compute_scale;
    des_event_args a = des_event_args_of("straggler");
    a.factor = factor;
    a.iteration = plan->timeline_iteration;
    char name[64];
    for (int g = 0; g < plan->gpus; g++) {
        double e = sim->gpu_compute_end_s[g];
        if (g == r) {
            des_timeline_add(sim->timeline, g, DES_TRACK_STRAGGLER, "straggler: sets the pace",
                             0, end, &a);
        } else if (e < end) {
            des_event_args w = des_event_args_of("straggler_wait");
            w.peer = r;
            w.wait_s = end - e;
            w.iteration = plan->timeline_iteration;
            snprintf(name, sizeof name, "waiting for GPU %d", r);
            des_timeline_add(sim->timeline, g, DES_TRACK_STRAGGLER, name, e, end, &w);
        }
    }
    des_straggler me = {plan->timeline_iteration, r, factor, end, end - first};
    des_timeline_stragglers(sim->timeline, &me, plan->stragglers, plan->n_stragglers);
}

/* The results, once every actor is done: the header from the clock and the actors'
 * records, the buckets' missing starts, the timeline file. */
static void collect(des_sim *sim)
{
    const des_plan *plan = sim->plan;
    des_result_header *hdr = sim->hdr;
    gcsim_des_bucket *buckets = sim->buckets;
    des_progress_end();
    hdr->iteration_s = simgrid_get_clock();
    hdr->compute_end_s = sim->compute_end_s;
    hdr->transfers = sim->transfers;
    hdr->solved_transfers = sim->solved_transfers;
    hdr->gpu_codec_s = sim->actors[0].codec_s;
    for (int e = 0; e < sim->n_endpoints; e++) {
        double codec_s = sim->actors[e].codec_s;
        if (sim->step_actors && e < plan->gpus)
            codec_s += sim->step_actors[e].codec_s;
        if (e == 0)
            hdr->gpu_codec_s = codec_s;
        if (codec_s > hdr->max_codec_s)
            hdr->max_codec_s = codec_s;
    }
    for (int b = 0; b < plan->n_buckets; b++)
        if (!isfinite(buckets[b].exchange_start_s))
            buckets[b].exchange_start_s = buckets[b].ready_s;
    find_straggler(sim);
    if (sim->timeline) {
        char msg[512];
        if (des_timeline_write(sim->timeline, plan->timeline_path, msg, sizeof msg) != 0)
            fail(hdr, msg, "");
        des_timeline_free(sim->timeline);
        sim->timeline = NULL;
    }
}

/* An actor whose work is done. The last one collects the results and hands them to done,
 * which ends the process; the others wait on a semaphore nobody releases. SimGrid thus
 * never destroys their contexts (an munmap of each stack: about 4 ms of a 256-GPU
 * all-reduce's 48 on this machine, 0.5 s at 16,384 GPUs); the exit reclaims everything at
 * once. The clock is the same: every actor waits for each activity it starts, so nothing
 * is left to simulate after the last actor's end. */
static void actor_end(des_sim *sim)
{
    if (!sim->done)
        return;
    if (--sim->live > 0) {
        sg_sem_acquire(sim->parked);
        return;
    }
    collect(sim);
    sim->done(sim->done_ctx, sim->hdr, sim->buckets, sim->plan->n_buckets);
}

void des_simulate(const des_plan *plan, des_result_header *hdr, gcsim_des_bucket *buckets,
                  des_done_fn done, void *done_ctx)
{
    memset(hdr, 0, sizeof *hdr);
    char model[80], cross[64];
    bool exact = strcmp(plan->network_model, "alpha-beta") == 0;
    /* alpha-beta: CM02's max-min sharing without its TCP window bound (TCP-gamma 0) and
     * without acknowledgement cross-traffic, so that a message takes exactly the route's
     * latency plus size over its bandwidth (tests/des/test_des_network.c). */
    snprintf(model, sizeof model, "--cfg=network/model:%s", exact ? "CM02" : plan->network_model);
    snprintf(cross, sizeof cross, "--cfg=network/crosstraffic:%d",
             exact ? 0 : plan->crosstraffic > 0);
    /* Small stacks: thousands of actors, each with a shallow call depth. No guard page:
     * each one splits the stack's mapping in two, and 2 x 16,384 GPUs x 2 actors pass the
     * kernel's default limit of 65,530 mappings per process (vm.max_map_count). */
    char *argv[10] = {"gcsim-des", model, "--log=root.thres:critical",
                      "--cfg=contexts/stack-size:512", "--cfg=contexts/guard-size:0",
                      NULL, NULL, NULL, NULL, NULL};
    int argc = 5;
    if (exact) {
        argv[argc++] = "--cfg=network/TCP-gamma:0";
        argv[argc++] = cross;
        /* SimGrid 3.32's lazy max-min update mis-shares links when flows of different route
         * latencies start together (two 8 MiB flows crossing one 10 GbE NIC: one finishes
         * 16% faster than the link allows, another late); the full update is exact
         * (tests/des/test_des_alphabeta.c, "mixed latencies"). */
        argv[argc++] = "--cfg=network/optim:Full";
    } else if (plan->crosstraffic != 0) {
        argv[argc++] = cross;
    }
    /* Without guard pages SimGrid callocs the stacks: a fixed mmap threshold keeps each
     * one a fresh mapping whose pages are touched only when used, instead of a heap chunk
     * that calloc clears (6x the peak memory at 1,024 GPUs: 307 MiB against 51). */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    /* glibc serves at most M_MMAP_MAX (65,536) chunks by mmap at once; past it, beyond
     * 32,768 GPUs of two actors each, stacks came from the heap and calloc cleared them:
     * 65,536 GPUs took 93-114 CPU s and 10.5 GiB instead of 45 s and 2.5 GiB (issue 28).
     * The kernel merges adjacent anonymous mappings of the same protection into one
     * (vm.max_map_count counts those merged areas), so a million stacks stay well under
     * its 65,530 (a 100,000-GPU run: docs/des.md, "Scale"). */
    mallopt(M_MMAP_MAX, 1 << 24);
    simgrid_init(&argc, argv);
    des_sim sim;
    memset(&sim, 0, sizeof sim);
    sim.plan = plan;
    for (int k = 0; k < plan->iteration.n_calls; k++)
        sim.blocking_calls |= plan->iteration.calls[k].blocking;
    sim.buckets = buckets;
    sim.hdr = hdr;
    sim.done = done;
    sim.done_ctx = done_ctx;
    for (int b = 0; b < plan->n_buckets; b++) {
        buckets[b] = plan->buckets[b];
        buckets[b].ready_s = 0;
        buckets[b].exchange_start_s = INFINITY;
        buckets[b].exchange_end_s = 0;
    }
    int n = plan->gpus;
    sim.n_endpoints = plan->endpoints;
    sim.actors = calloc((size_t)sim.n_endpoints, sizeof(des_actor));
    sim.ready = calloc((size_t)n, sizeof(sg_sem_t));
    sim.hosts = calloc((size_t)sim.n_endpoints, sizeof(sg_host_t));
    sim.computing = calloc((size_t)n, sizeof(sg_actor_t));
    sim.gpu_compute_end_s = calloc((size_t)n, sizeof(double));
    if (plan->deferred) {
        sim.step_actors = calloc((size_t)n, sizeof(des_actor));
        sim.exchanged = calloc((size_t)n, sizeof(sg_sem_t));
        sim.backward_done = calloc((size_t)n, sizeof(sg_sem_t));
    }
    if (!sim.actors || !sim.ready || !sim.hosts || !sim.computing || !sim.gpu_compute_end_s ||
        (plan->deferred && (!sim.step_actors || !sim.exchanged || !sim.backward_done))) {
        fail(hdr, "out of memory", "");
        return;
    }
    /* The platform, built in memory (des_platform_sg.cpp), hands back the endpoints' hosts:
     * looking 16,384 hosts up by name searches every zone for each. */
    char msg[400];
    if (des_platform_build(&plan->topology, sim.hosts, sim.n_endpoints, msg, sizeof msg) != 0) {
        fail(hdr, msg, "");
        return;
    }
    sim.timeline = plan->timeline_path ? des_timeline_new(plan) : NULL;

    for (int e = 0; e < sim.n_endpoints; e++) {
        if (!sim.hosts[e]) {
            fail(hdr, "generated platform lacks the host of endpoint ", e < n ? "(GPU)" : "(CPU)");
            return;
        }
        sim.actors[e].sim = &sim;
        sim.actors[e].ep = e;
        for (int k = 0; k < DES_MAILBOX_CACHE; k++)
            sim.actors[e].boxes[k].peer = -1;
    }
    /* Without compute (a bare collective) every bucket is ready at time 0: the semaphores
     * start full and no compute actor runs (half the actors, whose stacks dominate the
     * cost of a small run); where every GPU computes alike, one compute actor releases
     * them all (des_plan_compute_mode). */
    const gcsim_iteration *it = &plan->iteration;
    sim.compute = des_plan_compute_mode(plan);
    bool computes = sim.compute != DES_COMPUTE_NONE, gated = false;
    for (int k = 0; k < it->n_blocks; k++)
        gated = gated || it->blocks[k].gate >= 0;
    /* Buckets ready at the start (a bare collective's, a parameter all-gather's) */
    int ready0 = 0;
    for (int b = 0; b < plan->n_buckets; b++)
        ready0 += !computes || it->buckets[b].ready_block < 0;
    if (gated) {
        sim.gates = calloc((size_t)n, sizeof(sg_sem_t));
        sim.gates_taken = calloc((size_t)n, sizeof(int));
        if (!sim.gates || !sim.gates_taken) {
            fail(hdr, "out of memory", "");
            return;
        }
    }
    if (done)
        sim.parked = sg_sem_init(0);
    /* Rings solved per flow on GPUs with nothing else on their hosts: no actor per
     * GPU (des_shard_direct.c). GCSIM_DES_DIRECT=require fails a run that cannot (tests). */
    direct_run direct = {&sim, 0};
    bool direct_ok = des_shard_direct(&sim, &direct.end_s);
    const char *require = getenv("GCSIM_DES_DIRECT");
    if (!direct_ok && require && strcmp(require, "require") == 0) {
        fail(hdr, "des: GCSIM_DES_DIRECT=require and this run needs its actors", "");
        return;
    }
    if (direct_ok) {
        sg_actor_t d = sg_actor_init("direct", sim.hosts[0]);
        sg_actor_set_data(d, &direct);
        sg_actor_start(d, direct_main, 0, NULL);
        sim.live++;
    }
    for (int g = 0; !direct_ok && g < n; g++) {
        sim.ready[g] = sg_sem_init(ready0);
        if (gated)
            sim.gates[g] = sg_sem_init(0);
        if (sim.compute == DES_COMPUTE_PER_GPU || (sim.compute == DES_COMPUTE_SHARED && g == 0)) {
            sg_actor_t c = sg_actor_init("compute", sim.hosts[g]);
            sim.computing[g] = c;
            sg_actor_set_data(c, &sim.actors[g]);
            sg_actor_start(c, gpu_compute_main, 0, NULL);
            sim.live++;
        }
        /* The comm actor has its own record (codec time) but the same endpoint id. */
        sg_actor_t m = sg_actor_init("comm", sim.hosts[g]);
        sg_actor_set_data(m, &sim.actors[g]);
        sg_actor_start(m, gpu_comm_main, 0, NULL);
        sim.live++;
        if (plan->deferred) {
            /* deferred steps exist only in iterations with compute */
            sim.exchanged[g] = sg_sem_init(0);
            sim.backward_done[g] = sg_sem_init(0);
            sim.step_actors[g] = (des_actor){.sim = &sim, .ep = g};
            for (int k = 0; k < DES_MAILBOX_CACHE; k++)
                sim.step_actors[g].boxes[k].peer = -1;
            sg_actor_t st = sg_actor_init("step", sim.hosts[g]);
            sg_actor_set_data(st, &sim.step_actors[g]);
            sg_actor_start(st, gpu_step_main, 0, NULL);
            sim.live++;
        }
    }
    /* Lane helpers (des_collectives.c) where an endpoint has more flows in a phase than one
     * actor should wait for; not counted in live: they never finish. */
    int *lanes = des_plan_lanes(plan);
    if (!lanes) {
        fail(hdr, "out of memory", "");
        return;
    }
    for (int e = 0; !direct_ok && e < sim.n_endpoints; e++) {
        des_actor *o = &sim.actors[e];
        o->n_lanes = lanes[e];
        if (o->n_lanes <= 1)
            continue;
        o->done = sg_sem_init(0);
        o->lanes = calloc((size_t)o->n_lanes - 1, sizeof(des_actor));
        if (!o->lanes) {
            free(lanes);
            fail(hdr, "out of memory", "");
            return;
        }
        for (int l = 1; l < o->n_lanes; l++) {
            des_actor *h = &o->lanes[l - 1];
            h->sim = &sim;
            h->ep = e;
            h->lane = l;
            h->owner = o;
            h->go = sg_sem_init(0);
            for (int k = 0; k < DES_MAILBOX_CACHE; k++)
                h->boxes[k].peer = -1;
            sg_actor_t la = sg_actor_init("lane", sim.hosts[e]);
            sg_actor_set_data(la, h);
            sg_actor_start(la, des_lane_main, 0, NULL);
        }
    }
    free(lanes);
    for (int e = n; !direct_ok && e < sim.n_endpoints; e++) {
        sg_actor_t c = sg_actor_init("cpu", sim.hosts[e]);
        sg_actor_set_data(c, &sim.actors[e]);
        sg_actor_start(c, cpu_main, 0, NULL);
        sim.live++;
    }

    simgrid_run();
    collect(&sim);
    /* The child exits right after this; SimGrid's own objects are not torn down, ours are,
     * so valgrind and LeakSanitizer see a clean child. */
    for (int g = 0; g < n; g++) {
        if (sim.ready[g])
            sg_sem_destroy(sim.ready[g]);
        if (sim.exchanged && sim.exchanged[g])
            sg_sem_destroy(sim.exchanged[g]);
        if (sim.backward_done && sim.backward_done[g])
            sg_sem_destroy(sim.backward_done[g]);
        if (sim.gates && sim.gates[g])
            sg_sem_destroy(sim.gates[g]);
    }
    for (int e = 0; e < sim.n_endpoints; e++) {
        des_actor *o = &sim.actors[e];
        for (int l = 1; o->lanes && l < o->n_lanes; l++) {
            sg_sem_destroy(o->lanes[l - 1].go);
            free(o->lanes[l - 1].comms);
            free(o->lanes[l - 1].extra);
        }
        if (o->lanes)
            sg_sem_destroy(o->done);
        free(o->lanes);
    }
    free(sim.gates);
    free(sim.gates_taken);
    if (sim.parked)
        sg_sem_destroy(sim.parked);
    free(sim.actors);
    free(sim.step_actors);
    free(sim.computing);
    free(sim.gpu_compute_end_s);
    free(sim.exchanged);
    free(sim.backward_done);
    free(sim.coalesce);
    free(sim.step_barriers);
    free(sim.end_barriers);
    for (size_t k = 0; sim.blocks && k < (size_t)plan->iteration.n_calls * (size_t)sim.barrier_phases; k++)
        free(sim.blocks[k]);
    free(sim.blocks);
    free(sim.n_blocks);
    free(sim.blocks_known);
    des_shard_free(&sim);
    des_ps_free(&sim);
    free(sim.ready);
    free(sim.hosts);
}
