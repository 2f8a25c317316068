/*
 * sim/des/des_shard.h: rings solved per flow outside SimGrid, where no two flows in
 * progress can share a link (issue 47): sharded data parallelism's (ZeRO-3 / FSDP, HSDP:
 * gated compute blocks) and, since docs/des.md's step 24, data parallelism's all-reduces
 * and ZeRO-1/2's reduce-scatters and all-gathers.
 *
 * FSDP's iteration is a sequence of ring all-gathers and reduce-scatters over all GPUs,
 * one coalesced phase each (des_collectives.c: a flow moves all its steps' bytes in one
 * message and is charged the other steps' route latencies). Replayed, every GPU posts two
 * SimGrid communications per call: at 16,384 GPUs and Llama-2-7B's 102 units, 3.3 million
 * messages and 112-132 CPU-s, nearly all of it per-message overhead (allocations, actor
 * switches), not the solver. When every flow of every call crosses links that only flows of
 * the same (source, destination) pair cross, a flow is alone on its links while in
 * progress (the pair's flow of a later phase starts only after its source has finished the
 * earlier one, which waits for that flow), so SimGrid gives it each link's full capacity:
 * it ends at its start + its route latency + bytes / the smallest capacity of its route,
 * and it starts when the later of its two endpoints reaches the phase (the mailbox
 * rendezvous). That is what this file computes; each endpoint then sleeps until the latest
 * of its flows' ends plus their extra latencies, as wait_lane would return it.
 *
 * Where nothing else than its compute runs on a GPU's host, the actors go too
 * (des_shard_direct.c): the same rule applied in one sweep over the calls for all GPUs,
 * compute blocks included; at 16,384 GPUs 2.6 CPU s where the actors took 112-132.
 */
#ifndef GCSIM_DES_SHARD_H
#define GCSIM_DES_SHARD_H

#include <stdbool.h>

#include "des_internal.h"

typedef struct des_actor des_actor;
typedef struct des_sim des_sim;

/* Whether the plan qualifies before any route is known: only GPU endpoints, every phase of
 * every call coalesced (des_phase_coalesces) or, in a gated iteration, single-step, without
 * decode-sum-encode; no blocking call, alpha-beta, no timeline, jitter, deferred steps,
 * GCSIM_DES_FULL or GCSIM_DES_REPLAY. */
bool des_shard_plan_solves(const des_plan *pl);

/* Endpoint a's part of call c's phase p solved per flow; false: replay it (the plan does
 * not qualify, or some link is crossed by two pairs' flows: decided once, on SimGrid's
 * routes, for the whole simulation). */
bool des_shard_phase(des_actor *a, int c, const gcsim_schedule *s, int p);

/* Whether SimGrid's routes let every phase of the plan be solved per flow (the rule of
 * des_shard_phase, decided once per simulation, after the platform is built). */
bool des_shard_routes(des_sim *sim);

/* Flow f of call c's phase p started at start_s (the later of its endpoints' arrivals) on
 * routes des_shard_routes accepted: its end plus the extra latencies of the phase's other
 * steps (as post_lane charges both endpoints); counted as a solved transfer. */
double des_shard_flow_end(des_sim *sim, int c, const gcsim_phase *ph, const gcsim_flow *f,
                          double start_s);

/* Whether the plan's iteration can run with no actor per GPU once its rings are solved
 * per flow (des_direct.c: nothing else on a GPU's host, no per-GPU compute factor, no
 * timeline, no wait that depends on the order actors run in; GCSIM_DES_ACTORS=1 keeps
 * the actors). Asks nothing of the routes; des_shard_plan_solves is asked separately. */
bool des_shard_direct_iteration(const des_plan *pl);

/* The whole iteration without actors (des_shard_direct.c), where the plan qualifies
 * (des_shard_plan_solves, des_shard_direct_iteration) and so do the routes
 * (des_shard_routes): fills what the actors fill (buckets' times, compute ends, transfers)
 * and sets *end_s to the instant the last actor would have ended. False: nothing filled,
 * run the actors. Call after the platform is built and before simgrid_run. */
bool des_shard_direct(des_sim *sim, double *end_s);

/* Frees the state (its semaphores too), after the simulation. */
void des_shard_free(des_sim *sim);

#endif
