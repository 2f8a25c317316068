/*
 * sim/des/des.h: the SimGrid discrete-event engine.
 *
 * Offers:
 *   - gcsim_des_predict: one training iteration of a resolved step simulated on SimGrid
 *     (forward and backward replay, gradient buckets, the chosen collective hop by hop with
 *     compressed payload sizes, encode/decode time), with the same outputs as the analytic
 *     engine plus per-bucket timings and an optional Chrome trace (st->timeline_path);
 *   - gcsim_des_collective_time: one bare collective of a dense buffer, for validation
 *     against closed forms and SimGrid's own MPI;
 *   - gcsim_des_write_topology: the SimGrid platform XML generated from a topology.
 *
 * SimGrid keeps one engine per process with global state, so every simulation runs in a
 * forked child that pipes its result back; these functions can be called any number of
 * times from one process, and SimGrid never writes to the caller's stdout or stderr.
 * See docs/des.md for the platform mapping, the network models and their factors.
 */
#ifndef GCSIM_DES_H
#define GCSIM_DES_H

#include "collectives.h"
#include "gcsim_error.h"
#include "platform.h"
#include "scenario.h"
#include "step.h"

/* One gradient bucket, in the order buckets are filled (backward order). Times are
 * simulated seconds from the start of the iteration. */
typedef struct {
    int first_layer, last_layer; /* forward indices of the layers it holds, inclusive */
    double dense_bytes;          /* fp32 gradient bytes */
    double payload_bytes;        /* compressed bytes one worker puts on the wire */
    double ready_s;              /* its last gradient was produced by backward */
    double exchange_start_s;     /* first GPU began its exchange (after encoding) */
    double exchange_end_s;       /* last participant finished the exchange and decoding */
    double encode_s;             /* nominal encode time charged per GPU */
    double decode_s;             /* nominal decode time charged per GPU (all hops) */
} gcsim_des_bucket;

typedef struct {
    int n_buckets;
    gcsim_des_bucket *buckets;   /* malloc'ed; gcsim_des_details_free releases it */
    double compute_end_s;        /* backward finished on the GPUs */
    double encode_s, decode_s;   /* totals per GPU, nominal (at full GPU speed) */
    double exposed_comm_s;       /* iteration time not covered by compute or codec work */
    long long transfers;         /* simulated point-to-point messages */
    /* Of transfers, those of blocks solved outside SimGrid (docs/des.md, step 16): counted
     * as the replay (GCSIM_DES_REPLAY=1) sends them, not sent. */
    long long solved_transfers;
    char network_model[32];      /* SimGrid network/model used */
    double wall_s;               /* wall-clock time of the simulation (fork to result) */
    double cpu_s;                /* CPU time (user + system) of the simulation child, fork to exit */
    long peak_rss_kib;           /* peak resident memory of the simulation child */
    /* The size guard's estimate of cpu_s and peak_rss_kib, made before the fork (a model
     * fitted on one machine: docs/des.md, "Size guard") */
    double estimated_cpu_s;
    double estimated_peak_mib;
} gcsim_des_details;

void gcsim_des_details_free(gcsim_des_details *d);

/* Overrides of the network model; zero-initialize for the defaults. */
typedef struct {
    /* SimGrid network model: "alpha-beta" (the default: SimGrid's CM02 max-min sharing with
     * no TCP window bound and no cross-traffic, so that one message of S bytes over a route
     * takes exactly its latency + S / bandwidth, as the platform's figures mean), or one of
     * SimGrid's protocol models "LV08", "CM02", "IB", "SMPI", "Constant", which apply their
     * own correction factors to the platform's figures. NULL: the environment variable
     * GCSIM_DES_NETWORK_MODEL if set, else "alpha-beta". */
    const char *network_model;
    int crosstraffic;            /* 0: the model's default, 1: force on, -1: force off */
    /* Refuse a run that would send more SimGrid messages than this (an input error with the
     * estimated CPU time and memory): 0: the scenario's des_max_messages, else the default
     * limit (20 million, minutes of CPU); < 0: no limit. */
    long long max_messages;
} gcsim_des_options;

/* Simulates one training iteration of a resolved step (step.h, gcsim_step_resolve: the
   engine reads no scenario) on its topology (gcsim_step_topology: built once where the
   step is handed over, sim/planning/engine.c; the engine builds none for a step); fills out
   (same meaning as the analytic engine) and, if details != NULL, per-bucket timings. The
   step and the topology are only read. */
int gcsim_des_predict(const gcsim_resolved_step *st, const gcsim_topology *topo,
                      gcsim_prediction *out, gcsim_des_details *details, gcsim_error *err);

/* The same with explicit network-model options (opts may be NULL). */
int gcsim_des_predict_opts(const gcsim_resolved_step *st, const gcsim_topology *topo,
                           const gcsim_des_options *opts, gcsim_prediction *out,
                           gcsim_des_details *details, gcsim_error *err);

/* Variable per-GPU compute (st->variability on, sim/config/variability.h): the iteration
 * simulated for the variability's iterations, each with its own seeded draw of the GPUs'
 * compute factors; vs: mean, p50, p99 and the 95% interval of the mean, and the largest
 * factor's sample mean and p99 (des_variability.c). gcsim_des_predict reports the mean. */
struct gcsim_var_stats_s;
int gcsim_des_variable(const gcsim_resolved_step *st, const gcsim_topology *topo,
                       const gcsim_des_options *opts, struct gcsim_var_stats_s *vs,
                       gcsim_des_details *details, gcsim_error *err);

/* Questions without a step (des_bare.c), each handed the topology it runs on (built by the
 * caller, gcsim_topology_init: the first topo->gpus GPUs of topo->platform).
 * One all-reduce (or the chosen collective) of `bytes` dense fp32 bytes over the GPUs of
 * topo, starting at time 0 on every GPU, with no compute and no codec: *time_s is when the
 * last participant finishes. */
int gcsim_des_collective_time(const gcsim_topology *topo, gcsim_collective c, double bytes,
                              int ps_shards, const gcsim_des_options *opts, double *time_s,
                              gcsim_des_details *details, gcsim_error *err);

/* One operation as nccl-tests runs it (collectives.h, gcsim_op_schedule_build): `bytes` is
 * nccl-tests' size; *time_s is when the last GPU finishes. */
int gcsim_des_op_time(const gcsim_topology *topo, gcsim_op op, gcsim_collective c,
                      double bytes, const gcsim_des_options *opts, double *time_s,
                      gcsim_des_details *details, gcsim_error *err);

/* Writes the SimGrid platform of topology t (the nodes of its GPUs, all GPUs of each node
 * described) to path. Host names: GPU g is "g<g>" (g = node * gpus_per_node + local
 * index), node n's host memory/CPU is "c<n>". */
int gcsim_des_write_topology(const gcsim_topology *t, const char *path, gcsim_error *err);

/* The network model used for p when nothing overrides it. */
const char *gcsim_des_default_network_model(const gcsim_platform *p);

#endif
