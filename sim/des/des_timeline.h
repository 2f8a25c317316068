/*
 * sim/des/des_timeline.h: the Chrome trace (Perfetto) of one simulated iteration:
 * traceEvents with ts/dur in microseconds, one process per endpoint (GPU, node CPU, PS
 * shard; pid = endpoint + 1, since Perfetto treats pid 0 specially), one thread (track)
 * each for compute, compression, the bucket's collective, its per-step transfers, and
 * compression split per tensor (des_codec_bucket).
 *
 * Times are rounded once to integer nanoseconds when an event is recorded, and ts and dur
 * are both derived from those integers, so a slice that starts when the previous one on
 * its track ends never overlaps it (rounding start and duration independently did, by
 * 1 ns). Every slice carries args (see des_event_args); each transfer has a flow arrow
 * (ph "s" at the sender's step slice, ph "f" at the receiver's); each endpoint has a
 * "transfer rate" counter (bytes/s sent and received); a fat tree's shared links (leaf
 * uplinks and downlinks, ECMP spine links, NICs under a background load) have a counter
 * each on a process "shared links" (des_link_rates.h). docs/des.md lists it all.
 */
#ifndef GCSIM_DES_TIMELINE_H
#define GCSIM_DES_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "des_internal.h"

typedef enum {
    DES_TRACK_COMPUTE = 1,
    DES_TRACK_COMPRESS = 2,
    DES_TRACK_COMM = 3,
    DES_TRACK_TRANSFER = 4,
    /* A bucket's encode and final decode split per tensor (des_codec_bucket): its own
     * track, since these slices lie under the bucket's slice on DES_TRACK_COMPRESS. */
    DES_TRACK_COMPRESS_TENSORS = 5,
    /* Variable compute only (issue 41): the straggler's slice over its compute and every
     * other GPU's wait for it (des_sim.c, find_straggler); absent otherwise, so that a
     * deterministic run's timeline is what it was. */
    DES_TRACK_STRAGGLER = 6
} des_track;

/* What a slice is about; -1 (or a negative byte count) leaves a field out of its args. */
typedef struct {
    const char *kind;      /* "forward", "backward", "encode", "exchange", "transfer", ... */
    int bucket, phase, step, peer, peers;
    double bytes;          /* the bucket's encoded payload (one worker's) */
    double bytes_sent, bytes_received; /* a transfer slice: this endpoint's, this step */
    /* Codec slices: the modelled (nominal) seconds under the key modelled_key ("encode_s",
     * "decode_s"); per-tensor slices also the layer's name and elements and how the
     * bucket's simulated interval was shared out ("apportioned"). NULL / < 0: absent. */
    const char *modelled_key;
    double modelled_s;
    const char *layer;
    double elements;
    const char *apportioned;
    /* Straggler slices: the straggler's compute factor, a GPU's wait for it, the simulated
     * iteration (< 0: absent). */
    double factor, wait_s;
    int iteration;
} des_event_args;

/* Only the kind set; every other field absent. */
des_event_args des_event_args_of(const char *kind);

typedef struct des_timeline des_timeline;

des_timeline *des_timeline_new(const des_plan *plan);
/* Adds one complete event; NULL timeline is a no-op. Times in simulated seconds. Returns
 * the event's index (for des_timeline_flow) or -1. */
long des_timeline_add(des_timeline *t, int endpoint, des_track track, const char *name,
                      double start_s, double end_s, const des_event_args *args);
/* Marks event `slice` as one end of a transfer; the sender's and receiver's calls name the
 * same key (des_flow_key), and the writer links each matched pair by a flow arrow. */
void des_timeline_flow(des_timeline *t, long slice, uint64_t key, int is_sender);
/* A message the DES sent (its sg_comm_t, the sender's, and its simulated bytes): what the
 * shared links' counter tracks are made of (des_link_rates.h). NULL timeline: a no-op. */
void des_timeline_message(des_timeline *t, const void *comm, double bytes);
/* A transfer's key: bucket, phase, step (-1: all steps, coalesced) and flow index. */
uint64_t des_flow_key(int bucket, int phase, int step, int flow);
/* The straggler of the iteration shown (an instant event on its GPU) and of every
 * simulated iteration (the top-level "stragglers" list; may be NULL). Copies them. */
void des_timeline_stragglers(des_timeline *t, const des_straggler *shown,
                             const des_straggler *all, int n_all);
/* Writes atomically (temporary file in the same directory, then rename), with mode
 * 0666 & ~umask like any file the user creates. */
int des_timeline_write(const des_timeline *t, const char *path, char *msg, size_t msg_len);
void des_timeline_free(des_timeline *t);

#endif
