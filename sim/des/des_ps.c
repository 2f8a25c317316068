/*
 * sim/des/des_ps.c: whether a parameter-server phase is solved outside SimGrid as one
 * max-min system (issue 47; des_collectives.c's ps_phase runs it, des_maxmin.h the model).
 *
 * The parameter server's push (every GPU sends 1/S of its payload to each of S shards on
 * the nodes' CPUs) and pull (each shard sends the sum back to every GPU) are single steps of
 * N x S flows. Replayed, each is its own SimGrid communication and SimGrid 3.32's full
 * max-min update re-solves all of them at every event: at 1,024 GPUs 131,072 flows a phase,
 * the run's CPU grew as N^3.5 (64 CPU s). Their links are exactly where the contention is
 * (each shard's NIC and PCIe take N flows), so the phase is not coalesced per pair: all its
 * flows are solved together by des_mm_solve, SimGrid's own rules on the links SimGrid
 * holds, from one start instant to the last flow's end.
 *
 * What makes that the replay's answer: the phase starts on every endpoint at one instant
 * and nothing else crosses its links while it runs. Every endpoint of the simulation has
 * flows in it (des_phase_solves: the default one shard per machine, so every node CPU is a
 * shard), so no other actor's flow is in progress; the GPUs reach it together when their
 * compute is identical (no per-GPU compute factors: variability's stragglers are
 * replayed), and no network jitter draws per-message delays. And the shards must be alike:
 * every node full (a last node of fewer GPUs, e.g. 12 on 8-GPU nodes, makes one shard's
 * pushes end long after another's: the replay then starts the early shard's pulls while
 * the late shard still receives, on the same NICs, and the solved iteration came out 6%
 * shorter than the replay's) and as many shards on every node CPU (shards a multiple of
 * the nodes). Each phase then starts on an
 * entry barrier and ends on an exit barrier: the push at the last GPU's arrival (the
 * replay's start too, the shards having posted first), the pull when the last push flow
 * is done. The replay starts a (shard, GPU) pull flow as soon as both ends are done with
 * their pushes, a little earlier where shards finish at different instants: that is the
 * difference, bounded and measured in docs/des.md (step 17) and tests/des/test_des_ps.c.
 */
#include "des_internal.h"

bool des_ps_phase_solves(const des_plan *plan, const gcsim_schedule *s, int p)
{
    return s->collective == COLLECTIVE_PARAMETER_SERVER && s->phases[p].steps == 1 &&
           plan->gpus == plan->nodes * plan->gpus_per_node && plan->nodes > 0 &&
           plan->ps_shards % plan->nodes == 0 && !plan->compute_factor &&
           !(plan->platform->jitter.mean_s > 0) && des_phase_solves(plan, s, p);
}
