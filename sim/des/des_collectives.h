/*
 * sim/des/des_collectives.h: executing a bucket's schedule (sim/collectives) on SimGrid,
 * flow by flow, inside the simulation child; and the per-actor state it uses.
 */
#ifndef GCSIM_DES_COLLECTIVES_H
#define GCSIM_DES_COLLECTIVES_H

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

typedef struct {
    des_sim *sim;
    int ep;            /* endpoint id: GPU or node CPU */
    double codec_s;    /* nominal codec seconds charged to this endpoint */
    des_peer_boxes boxes[DES_MAILBOX_CACHE];
} des_actor;

struct des_sim {
    const des_plan *plan;
    gcsim_des_bucket *buckets;   /* results, shared by all actors (one process) */
    des_actor *actors;           /* one per endpoint */
    sg_host_t *hosts;            /* one per endpoint */
    sg_sem_t *ready;             /* per GPU: one release per full bucket */
    int n_endpoints;
    double compute_end_s;
    long long transfers;
    des_timeline *timeline;      /* or NULL */
    signed char *coalesce;       /* per bucket and phase: 0 undecided, 1 coalesced, -1 not */
    int coalesce_phases;         /* row length of coalesce */
    int live;                    /* actors started and not finished */
    sg_sem_t parked;             /* never released: where finished actors wait (des_sim.c) */
    des_result_header *hdr;      /* the results, filled by the last actor (or after the run) */
    des_done_fn done;            /* or NULL */
    void *done_ctx;
};

/* Charges `seconds` of encode/decode work on the actor's host (nominal, at full speed);
 * kind, bucket, phase and step (-1: none) label its timeline slice. */
void des_codec(des_actor *a, double seconds, const char *name, const char *kind, int bucket,
               int phase, int step);

/* A bucket's encode (before its exchange) or final decode (after it): `seconds` of work
 * charged as one execution, one slice on the compression track and, when the plan has the
 * model, one slice per tensor on the per-tensor track; tensor l's modelled seconds are
 * factor x the iteration's layer_encode_s[l] (or layer_decode_s[l]). */
void des_codec_bucket(des_actor *a, int b, bool encode, double seconds, double factor);

/* This endpoint's part of bucket b's schedule, then (GPUs) the final decode. */
void des_exchange(des_actor *a, int b);

void des_mark_start(des_actor *a, int b);
void des_mark_end(des_actor *a, int b);

#endif
