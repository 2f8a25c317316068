/*
 * sim/des/des_direct.c: whether a sharded iteration whose rings are solved per flow
 * (des_shard.c) can run with no actor per GPU at all (des_shard_direct.c, issue 47).
 *
 * Its own file, calling nothing: the size guard (des_plan.c) asks it before any route is
 * known, and the simulation (des_shard_direct.c) asks it again, so that neither of those
 * two calls the other.
 *
 * Per flow solving already makes every flow's end a function of its endpoints' arrival
 * times. What the actors still do is the rest of the GPU's dataflow: the compute actor's
 * blocks, each starting once its gate's bucket is exchanged and slowed while a call is in
 * flight (the share its kernels take), and the comm actor's buckets, each starting once
 * backward has filled it, call after call, phase after phase. With nothing else on a GPU's
 * host (no codec work, no blocking call suspending compute, no per-GPU compute factor) and
 * no wait whose length depends on the order actors run in (Horovod's release, read from a
 * maximum other GPUs update as they go), each of those times follows from times already
 * known: the iteration is a sweep over the calls in the order every GPU issues them.
 * Anything else keeps the actors.
 */
#include <stdlib.h>
#include <string.h>

#include "des_shard.h"

bool des_shard_direct_iteration(const des_plan *pl)
{
    const char *actors = getenv("GCSIM_DES_ACTORS");
    if (actors && strcmp(actors, "0") != 0 && actors[0] != '\0')
        return false;
    const gcsim_iteration *it = &pl->iteration;
    if (pl->compute_factor || pl->deferred || pl->timeline_path || !(it->comm_interference >= 0) ||
        pl->endpoints != pl->gpus || it->n_buckets != pl->n_buckets || it->n_buckets < 1)
        return false;
    for (int c = 0; c < it->n_calls; c++)
        if (it->calls[c].blocking || it->calls[c].release_s > 0 || it->calls[c].release_s < 0)
            return false;
    for (int x = 0; x < it->n_steps; x++)
        if (it->steps[x].kind == GCSIM_STEP_CODEC && !(it->steps[x].codec_s <= 0))
            return false;
    /* buckets ready at the start (ready_block -1) come first: des_sim.c's semaphores hand
     * them out before any backward block's */
    bool started = false;
    for (int b = 0; b < it->n_buckets; b++) {
        if (it->buckets[b].ready_block >= 0)
            started = true;
        else if (started)
            return false;
        if (it->buckets[b].n_deferred > 0)
            return false;
    }
    /* backward fills every bucket it makes ready (else the actors would wait forever) */
    for (int b = 0; b < it->n_buckets; b++)
        if (it->buckets[b].ready_block >= it->n_blocks)
            return false;
    /* a gated block waits for a bucket made ready before it (else the actors deadlock) */
    int ready_before = 0; /* buckets made ready by blocks before k */
    while (ready_before < it->n_buckets && it->buckets[ready_before].ready_block < 0)
        ready_before++;
    for (int k = 0; k < it->n_blocks; k++) {
        if (it->blocks[k].gate >= ready_before)
            return false;
        while (ready_before < it->n_buckets && it->buckets[ready_before].ready_block <= k)
            ready_before++;
    }
    return true;
}
