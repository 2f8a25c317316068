/*
 * sim/des/des_shard.h: the rings of sharded data parallelism (ZeRO-3 / FSDP: gated
 * compute blocks) solved per flow outside SimGrid, where no two flows in progress can share
 * a link (issue 47).
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
 */
#ifndef GCSIM_DES_SHARD_H
#define GCSIM_DES_SHARD_H

#include <stdbool.h>

#include "des_internal.h"

typedef struct des_actor des_actor;
typedef struct des_sim des_sim;

/* Whether the plan qualifies before any route is known: gated blocks (ZeRO-3 / FSDP), only
 * GPU endpoints, every phase of every call single-step or coalesced (des_phase_coalesces),
 * alpha-beta, no timeline, jitter, deferred steps, GCSIM_DES_FULL or GCSIM_DES_REPLAY. */
bool des_shard_plan_solves(const des_plan *pl);

/* Endpoint a's part of call c's phase p solved per flow; false: replay it (the plan does
 * not qualify, or some link is crossed by two pairs' flows: decided once, on SimGrid's
 * routes, for the whole simulation). */
bool des_shard_phase(des_actor *a, int c, const gcsim_schedule *s, int p);

/* Frees the state (its semaphores too), after the simulation. */
void des_shard_free(des_sim *sim);

#endif
