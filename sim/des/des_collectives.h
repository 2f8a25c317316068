/*
 * sim/des/des_collectives.h: executing a bucket's schedule (sim/collectives) on SimGrid,
 * flow by flow, inside the simulation child; and the per-actor state it uses.
 */
#ifndef GCSIM_DES_COLLECTIVES_H
#define GCSIM_DES_COLLECTIVES_H

#include <simgrid/barrier.h>
#include <simgrid/forward.h>

#include "des_internal.h"

typedef struct des_timeline des_timeline;
typedef struct des_sim des_sim;

/* Mailboxes to and from one peer, memoized in a small open-addressed table: resolving a
 * mailbox by name costs a formatted string and a map lookup otherwise. */
#define DES_MAILBOX_CACHE 32
typedef struct {
    int peer;          /* -1: empty */
    sg_mailbox_t in;   /* peer -> this endpoint */
    sg_mailbox_t out;  /* this endpoint -> peer */
} des_peer_boxes;

/* One step of a phase handed to a lane (des_collectives.c). */
typedef struct {
    int call, phase;
    int step;                    /* -1: the phase's steps coalesced */
    int to;                      /* step >= 0: the last step of the task (a block of a
                                    pipelined phase, des_blocks.c), else step */
    const gcsim_schedule *schedule;
} des_lane_task;

typedef struct des_actor des_actor;
struct des_actor {
    des_sim *sim;
    int ep;            /* endpoint id: GPU or node CPU */
    double codec_s;    /* nominal codec seconds charged to this endpoint */
    des_peer_boxes boxes[DES_MAILBOX_CACHE];
    /* Lanes. The endpoint's own actor is lane 0 and owns lanes 1..n_lanes-1, helper
     * actors on the same host that post and wait for the communications with the peers
     * p of p % n_lanes == lane; a helper reads its owner's task, then releases the
     * owner's done semaphore with its finish time in end_s. */
    int lane, n_lanes;
    long long received;      /* messages this actor received: network jitter's draw index */
    des_actor *lanes;        /* owner: its helpers, lanes 1..n_lanes-1 */
    des_actor *owner;        /* helper: lane 0's actor */
    sg_sem_t go, done;       /* helper: one release per task; owner: one per helper's end */
    des_lane_task task;      /* owner: the step its lanes run */
    double end_s;            /* helper: when its part of the task ends */
    sg_comm_t *comms;        /* helper: its communications of a step (capacity comms_cap) */
    double *extra;
    size_t comms_cap;
};

struct des_sim {
    const des_plan *plan;
    gcsim_des_bucket *buckets;   /* results, shared by all actors (one process) */
    des_actor *actors;           /* one per endpoint */
    sg_host_t *hosts;            /* one per endpoint */
    sg_sem_t *ready;             /* per GPU: one release per bucket ready to exchange */
    /* Per GPU, with gated blocks (ZeRO-3 / FSDP): one release per bucket exchanged, and
     * how many of them the compute actor has taken. */
    sg_sem_t *gates;
    int *gates_taken;
    /* With deferred steps (plan->deferred): a step actor per GPU, its own record (codec
     * time), a release per bucket whose calls are done, and one when backward is. */
    des_actor *step_actors;
    sg_sem_t *exchanged, *backward_done;
    /* Per GPU, its compute actor while backward runs (NULL once done): a blocking call
     * suspends it for the call's duration. */
    sg_actor_t *computing;
    int n_endpoints;
    double compute_end_s;
    double *gpu_compute_end_s;   /* per GPU: when its forward and backward ended */
    long long transfers;
    long long solved_transfers;  /* of transfers, those of blocks solved outside SimGrid */
    des_timeline *timeline;      /* or NULL */
    signed char *coalesce;       /* per call and phase: 0 undecided, 1 coalesced, -1 not */
    int coalesce_phases;         /* row length of coalesce */
    /* Per call and phase (row length barrier_phases): the blocks of a pipelined phase
     * (des_phase_blocks), NULL and 0 when it runs step by step; decided (blocks_known)
     * once for all endpoints. */
    int **blocks;
    int *n_blocks;
    bool *blocks_known;
    /* Per call and phase (row length coalesce_phases), for pipelined phases run step by
     * step: the barrier that ends each of their steps on every endpoint that has flows in
     * the phase (des_collectives.c, step_barrier); NULL: not created yet. */
    sg_bar_t *step_barriers;
    int barrier_phases;          /* row length of step_barriers */
    /* Per call and phase (row length barrier_phases), for coalesced phases: the barrier
     * every endpoint with flows in the phase leaves it by (des_collectives.c,
     * phase_end_barrier); NULL: not created yet. */
    sg_bar_t *end_barriers;
    /* The iteration has a call that holds backward (issued and waited for inside the
     * gradient hook): only there does leaving a coalesced phase early cost anything, so
     * only there do its endpoints leave it together (phase_end_barrier). */
    bool blocking_calls;
    /* Blocks solved outside SimGrid (des_collectives.c, solo_block): per call and phase
     * (row length barrier_phases) the last block solved and its end; the routes and links
     * met so far. NULL until the first one. */
    struct des_solo *solo;
    /* Parameter-server phases solved outside SimGrid (des_collectives.c, ps_phase): per
     * call and phase their barriers and end. NULL until the first one. */
    struct des_ps *ps;
    /* Sharded rings solved per flow (des_shard.c); NULL until the first phase. */
    struct des_shard *shard;
    int live;                    /* actors started and not finished */
    des_compute_mode compute;    /* how forward and backward run (des_plan_compute_mode) */
    sg_sem_t parked;             /* never released: where finished actors wait (des_sim.c) */
    des_result_header *hdr;      /* the results, filled by the last actor (or after the run) */
    des_done_fn done;            /* or NULL */
    void *done_ctx;
};

/* Charges `seconds` of encode/decode work on the actor's host (nominal, at full speed);
 * kind, call, phase and step (-1: none) label its timeline slice. */
void des_codec(des_actor *a, double seconds, const char *name, const char *kind, int call,
               int phase, int step);

/* A codec step of bucket b's program: its seconds charged as one execution, one slice on
 * the compression track and, for a step that is its tensors' encode or decode (and when
 * the plan has the model), one slice per tensor on the per-tensor track; tensor l's
 * modelled seconds are the step's tensor_factor x the iteration's layer_encode_s[l] (or
 * layer_decode_s[l]). */
void des_codec_step(des_actor *a, int b, const gcsim_step *st);

/* This endpoint's part of call c's schedule. */
void des_exchange(des_actor *a, int c);

/* Frees the parameter server's solved-phase state (its barriers and arrays), if any. */
void des_ps_free(des_sim *sim);

/* The main function of a lane helper actor (its data: its des_actor, owner set). */
void des_lane_main(int argc, char **argv);

void des_mark_start(des_actor *a, int b);
void des_mark_end(des_actor *a, int b);

#endif
