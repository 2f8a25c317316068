/*
 * sim/step/step.h: what one training step is, built once from a scenario and costed by
 * both engines (sim/analytic, sim/des).
 *
 * Offers:
 *   - gcsim_iteration: the resolved step: per-GPU compute blocks (forward, backward,
 *     recompute, per micro-batch; gated on a unit's parameter all-gather under ZeRO-3 /
 *     FSDP), the buckets or sharded units with their fp32 and payload bytes, each one's
 *     program (codec steps and collective calls, gcsim_step / gcsim_call) and the per-layer
 *     payloads and codec seconds. gcsim_iteration_build makes it from a gcsim_scenario
 *     (plain data parallelism, ZeRO-1/2/3, FSDP, HSDP, accumulation, checkpointing, the
 *     training stacks' programs, the papers' patterns); gcsim_iteration_free frees it.
 *   - gcsim_resolved_step: what an engine is handed: the iteration, the machine it runs
 *     on (platform, placement, shards), whether it compresses, its samples, how the
 *     analytic engine costs it (its programs, or the TernGrad paper's closed form from
 *     gcsim_terngrad_inputs) and the run's options (variability, timeline, DES guard).
 *     gcsim_step_resolve builds it once from a scenario (with ECMP collisions, the step on
 *     each fabric of the expectation too); the engines read no scenario. gcsim_step_topology
 *     builds the topology it is handed with.
 *   - the papers' patterns (gcsim_collective_is_paper_pattern, gcsim_scenario_compresses,
 *     gcsim_scenario_training_check): decided here and nowhere else; they leave the step
 *     as data (overlap, one bucket, the fused program, the costing).
 *   - gcsim_case_memo: what a group of cases differing only in GPU count shares (op prices,
 *     weak-scaling buckets), for sweeps.
 * Builds on sim/collectives (collectives.h: topology, schedules, the closed form, the
 * tuner), which never includes this room. docs/architecture.md places it among the others.
 */
#ifndef GCSIM_STEP_H
#define GCSIM_STEP_H

#include "collectives.h"

/* ---- what a group of cases shares (case_memo.c) ---- */

/* A caller that runs many cases differing only in their GPU count (a sweep's group: one
 * platform, model, compressor, stack, collective, scaling, batch and bucket size) keeps in
 * one of these, across them, what does not depend on the count: the prices of the stack's
 * op lists per bucket, and under weak scaling an iteration's layers and buckets before
 * their programs. It goes in the scenario's case_memo (NULL: none); only what varies
 * inside such a group is keyed, and the buckets are kept with the scenario fields they
 * come from and reused only when those match. */
typedef struct gcsim_case_memo gcsim_case_memo;
gcsim_case_memo *gcsim_case_memo_new(void); /* NULL: out of memory (then use none) */
void gcsim_case_memo_free(gcsim_case_memo *m);

typedef struct {
    const void *ops; /* the op list */
    int first, last, rank, op_rank, min_rate;
    double elements, payloads;
} gcsim_op_price_key;
bool gcsim_case_memo_price(const gcsim_case_memo *m, const gcsim_op_price_key *key,
                           double *seconds);
void gcsim_case_memo_keep_price(gcsim_case_memo *m, const gcsim_op_price_key *key,
                                double seconds);

/* ---- one iteration ---- */

/* One collective call of an iteration: the schedule both engines run, the bytes one worker
 * puts in and how they aggregate, and what issuing it costs before its first flow (a
 * library's or framework's per-call overhead, with NCCL's per-call latency for a call NCCL
 * runs: nccl_call.h; 0 for an ideal stack). */
typedef struct {
    gcsim_collective collective;
    gcsim_bucket_bytes bytes;
    double overhead_s;
    const char *name;            /* static label for timelines: "allreduce P", ... */
    int bucket;                  /* the exchange unit (bucket) whose program issues it */
    int group;                   /* grouped collectives: GPUs per group (0: all) */
    /* Issued and waited for inside the gradient hook: backward stops on every GPU until it
     * is done (GRACE's PowerSGD, a size exchange before a variable all-gather). */
    bool blocking;
    /* It may not start before its bucket was produced + release_s: Horovod's background
     * thread picks a fused group up at its next cycle and agrees on readiness there
     * (program_stack.c). A wait for a moment, not a cost: it overlaps with the calls before
     * it on the stream, where overhead_s adds to them. 0: none. */
    double release_s;
    /* The NCCL protocol the tuner picked for it ("simple", "ll128", "ll"; gcsim_nccl_call_tune,
     * nccl_call.h), for reports; NULL where no tuner chose (the call's fixed cost then holds
     * NCCL's Simple overheads). */
    const char *protocol;
} gcsim_call;

/* Pipeline chunks of a call on `gpus` GPUs: by its largest message, the bucket holding all
 * workers' sum (a sparse payload's grows towards the dense bucket), so that a smaller
 * one-worker payload never means coarser chunks for the same bytes. */
int gcsim_call_pipeline_chunks(const gcsim_call *c, const gcsim_platform *p, int gpus);

typedef enum { GCSIM_STEP_CODEC, GCSIM_STEP_CALL } gcsim_step_kind;

/* Which total a codec step counts in (gcsim_prediction encode_s / decode_s). */
typedef enum { GCSIM_CODEC_ENCODE, GCSIM_CODEC_DECODE } gcsim_codec_class;

/* One step of a bucket's program: codec work on every GPU (sharing the GPU with backward
 * compute in both engines), or a collective call. A step's codec seconds are nominal: at
 * full GPU speed, longer when backward runs beside it. */
typedef struct {
    gcsim_step_kind kind;
    const char *name;            /* static label: "encode", "decode", "orthogonalize P", ... */
    gcsim_codec_class cls;       /* CODEC */
    double codec_s;              /* CODEC: nominal seconds on each GPU */
    int call;                    /* CALL: index into the iteration's calls */
    /* CODEC steps that are the per-tensor codec of the bucket's layers (timeline's
     * per-tensor track): 1 encode (layer_encode_s), 2 decode (layer_decode_s), 0 none;
     * codec_s = tensor_factor x the sum over the bucket's layers. */
    int tensors;
    double tensor_factor;
    /* CODEC on the host's CPU (gcsim_codec on_host: BytePS compresses in host memory): it
     * takes its seconds on the exchange's path but shares no GPU with backward, and no
     * collective's GPU share (interference) applies to it. */
    bool on_host;
} gcsim_step;

typedef struct {
    int first_layer, last_layer; /* forward indices, inclusive */
    gcsim_bucket_bytes bytes;    /* the whole bucket: its fp32 gradient and payload */
    double backward_s;           /* backward time of its layers on one GPU (0 for a bucket
                                    no backward block produces: a parameter all-gather) */
    /* Its program may start once compute blocks 0 .. ready_block are done (-1: at the
     * start of the iteration). Non-decreasing from bucket to bucket: one comm stream runs
     * the programs in bucket order. */
    int ready_block;
    int first_step, n_steps;     /* its program: steps[first_step .. first_step + n_steps) */
    /* The last n_deferred steps (codec only) run in the optimizer step, after backward has
     * finished and after the bucket's calls (Horovod decodes in synchronize()); 0: all of
     * the program runs as the bucket's exchange proceeds (DDP's hook callbacks). */
    int n_deferred;
} gcsim_bucket;

/* A piece of compute every GPU runs, in order: a forward or backward pass over some
 * layers (or their recomputation under activation checkpointing). A gated block starts
 * only once bucket `gate`'s program (up to its deferred steps) is done: under ZeRO-3 /
 * FSDP a unit's forward waits for the all-gather of its parameters. */
typedef enum { GCSIM_BLOCK_FORWARD, GCSIM_BLOCK_BACKWARD, GCSIM_BLOCK_RECOMPUTE } gcsim_block_kind;

typedef struct {
    gcsim_block_kind kind;
    double seconds;              /* on one GPU at full speed */
    int first_layer, last_layer; /* forward indices, inclusive */
    int gate;                    /* a bucket index, or -1; non-decreasing over gated blocks */
    int micro_batch;             /* 0 .. micro_batches - 1 (gradient accumulation) */
} gcsim_block;

typedef struct {
    double compute_s;            /* forward + backward on one GPU (all micro-batches, with
                                    any recomputation) */
    double forward_s;            /* of which forward passes */
    /* Compute blocks in the order every GPU runs them. For plain data parallelism: the
     * forward pass, then one backward block per bucket (block b + 1 fills bucket b). */
    int n_blocks;
    gcsim_block *blocks;
    int n_buckets;
    gcsim_bucket *buckets;       /* exchange units, in the order backward fills them */
    bool overlap;                /* buckets exchanged while backward goes on */
    /* The share s of the GPU a collective call in flight takes from compute (its kernels'
     * SMs; interference.c): while a call runs, the codec and compute work beside it share
     * what is left (both engines: the call holds min(s, 1/(k+1)) of the GPU beside k
     * such pieces of work, as a SimGrid execution bounded at s does). 0: none. */
    double comm_interference;
    /* The programs of every bucket, and the collective calls they issue, in the order a
     * worker runs them (bucket by bucket, step by step). */
    int n_steps, n_calls;
    gcsim_step *steps;
    gcsim_call *calls;
    /* Per layer (forward index; NULL for a bare collective's iteration): the bucket that
     * holds it, its payload bytes on the wire, and its codec seconds on one GPU (encode;
     * decode and add of one received payload; 0 unless compressed with a codec). A
     * bucket's encode_s and decode_s are these summed from its last layer to its first,
     * so per-tensor views (gcsim predict --tensors, the DES timeline) add up to them. */
    int n_layers;
    int *layer_bucket;
    double *layer_payload_bytes;
    double *layer_encode_s;
    double *layer_decode_s;
    /* Per layer, what per-tensor views label it with (the DES timeline's slices): the
     * model's layer (its name) and its parameter count; NULL for a bare collective's
     * iteration. Set by gcsim_iteration_build, so an engine reads no model itself. */
    const gcsim_layer *layers;
    double *layer_elements;
    /* Elements the steps and calls arrays hold (program.c grows them; 0: not known, sized
     * by program.c's rule for a fresh array). */
    int steps_room, calls_room;
    /* The case memo whose arrays this iteration holds (NULL: its own): the memo lent them
     * to gcsim_iteration_build and takes them back in gcsim_iteration_free, for the next
     * case of its group, so that a sweep's case allocates none (issue 47). The memo must
     * outlive the iteration. */
    gcsim_case_memo *lender;
} gcsim_iteration;

#define GCSIM_DEFAULT_BUCKET_BYTES (25.0 * 1024 * 1024) /* PyTorch DDP bucket_cap_mb = 25 */
#define GCSIM_DEFAULT_BACKWARD_FRACTION (2.0 / 3.0)      /* docs/formats.md */

/* Compute from the profile (T(1,1,K): strong scaling T/N, weak T; the TernGrad pattern
 * moves its host copy |g|/C_cwd out of it), split into forward and backward by the
 * profile's backward fraction and over layers by forward FLOPs; buckets close at
 * s->bucket_bytes of fp32 gradient, as PyTorch DDP's do. */
int gcsim_iteration_build(gcsim_iteration *it, const gcsim_scenario *s, gcsim_error *err);
void gcsim_iteration_free(gcsim_iteration *it);

/* Whether buckets overlap backward: the scenario's choice, except for the TernGrad
 * pattern, whose model (Appendix B) has none. */
bool gcsim_scenario_overlaps(const gcsim_scenario *s);
/* The same from the collective and the overlap asked for, for a report that has no
 * scenario at hand (predict's notes and meta say what the step does). */
bool gcsim_step_overlaps(gcsim_collective c, bool overlap);

/* The share of a GPU a collective in flight takes from compute (interference.c): the
 * platform's gpu.comm_interference where stated (0: off), else CTAs / SMs derived from its
 * GPU type and NICs (0 for a GPU type without a known SM count). */
double gcsim_platform_interference(const gcsim_platform *p);
/* The same for a scenario's calls: 0 for a parameter server's and the papers' patterns'
 * exchanges (host copies) and for one GPU. */
double gcsim_step_interference(const gcsim_scenario *s);

/* ---- the TernGrad paper's model ---- */

/* What its closed form (sim/analytic/terngrad_model.h) takes from the scenario: T(1,1,K),
 * one GPU's profiled iteration for the batch (its compute profile, or the roofline's when
 * it has none); |g| in fp32 bytes; the bytes it sends (the payload when compressed, else
 * the gradient at the model's gradient precision); the scaling. Fails, naming the model
 * file, where T(1,1,K) is shorter than the host copy |g|/C_cwd it includes. */
typedef struct {
    double T1_s;
    double g_dense_bytes;
    double g_wire_bytes;
    bool compressed;
    bool strong_scaling;
} gcsim_terngrad_inputs;
int gcsim_terngrad_inputs_build(const gcsim_scenario *s, gcsim_terngrad_inputs *in,
                                gcsim_error *err);

/* ---- the papers' patterns and what they change in a step (step_rules.c) ---- */

/* The papers' own performance models (TernGrad Appendix B and DGC's use of it, the
 * collectives whose exchange is GCSIM_EXCHANGE_PATTERN): gradients aggregate on the nodes'
 * CPUs, nothing overlaps backward, the whole gradient is one bucket, no stack's program
 * runs, and the profile's T(1,1,K) includes one host copy of the gradient. Only the step
 * builder (this room) asks; what it decides is data in the step it hands the engines
 * (gcsim_resolved_step: overlap, buckets, calls, costing). Never a default outside the
 * papers' figures. */
bool gcsim_collective_is_paper_pattern(gcsim_collective c);

/* Whether the scenario's gradients are compressed (and encode/decode time charged): a
 * compressor other than "none" and something to exchange. One GPU exchanges nothing,
 * except in the TernGrad paper's pattern, where even one GPU copies its gradient to the
 * host for the update. The step records it (gcsim_resolved_step.compressed) for both
 * engines. */
bool gcsim_scenario_compresses(const gcsim_scenario *s);

/* Fails where the scenario's training settings cannot apply to its collective: the
 * papers' patterns (terngrad, dgc-paper) are the papers' own model of one plain
 * data-parallel step, which neither shards, accumulates micro-batches nor recomputes. */
int gcsim_scenario_training_check(const gcsim_scenario *s, gcsim_error *err);

/* ---- the resolved step: what an engine is handed (step_resolve.c) ---- */

/* How the analytic engine costs a step: its programs laid on the timeline, every call by
 * its schedule; or, for the collective terngrad, the TernGrad paper's closed form
 * (eq. 27-30, sim/analytic/terngrad_model.h) as published, from `terngrad`. The DES runs
 * the programs whatever the costing. */
typedef enum { GCSIM_COST_PROGRAMS, GCSIM_COST_TERNGRAD_FORM } gcsim_step_costing;

struct gcsim_variability_s; /* sim/config/variability.h */
struct gcsim_var_stats_s;

/* The same step on one fabric of an ECMP expectation (below). */
typedef struct gcsim_step_fabric gcsim_step_fabric;

/* One question for an engine, resolved: the step (blocks, buckets, programs, calls) and
 * the machine it runs on, with everything an engine would otherwise read from a scenario.
 * Built once by gcsim_step_resolve; both engines take it with its topology (analytic.h,
 * des.h). It holds no scenario. */
typedef struct {
    gcsim_iteration it;
    const gcsim_platform *platform;
    gcsim_placement placement;     /* N GPUs as j machines of i */
    gcsim_collective collective;   /* the one named (messages, the DES's size guard) */
    int ps_shards;                 /* parameter server shards (0: one per machine) */
    bool compressed;               /* gcsim_scenario_compresses */
    double samples_per_iteration;  /* the batch over all GPUs and micro-batches */
    gcsim_step_costing costing;
    gcsim_terngrad_inputs terngrad; /* costing GCSIM_COST_TERNGRAD_FORM only */
    /* Variable per-GPU compute (or NULL / off) and where its statistics go (or NULL). */
    const struct gcsim_variability_s *variability;
    struct gcsim_var_stats_s *variability_stats;
    const char *timeline_path;     /* DES: Chrome trace output, or NULL */
    long long des_max_messages;    /* DES: the scenario's size guard (0: default) */
    /* With ECMP collisions on the platform (ecmp.spines > 1) and costing
     * GCSIM_COST_PROGRAMS: the step rebuilt on each fabric of the analytic engine's
     * expectation (a step depends on the fabric: NCCL's tuner picks each call's algorithm
     * by its cost there), with their weights (gcsim_ecmp_law); 0 / NULL otherwise. The
     * DES hashes flows onto spines itself and reads none of them. */
    int n_fabrics;
    gcsim_step_fabric *fabrics;
    /* Why the fabrics could not be resolved (e.g. more spines than a leaf has uplink
     * ports), or NULL: kept for the analytic engine to report when it needs them, so that
     * the DES, which needs none, refuses such a step with its own message as before. */
    gcsim_error *fabrics_error;
} gcsim_resolved_step;

/* One fabric of the expectation over ECMP collisions: the platform with its ECMP cleared
 * and its oversubscription scaled to the most loaded spine link's share, its topology for
 * the step's GPUs, the step resolved on it (its variability_stats NULL) and its weight
 * P(K = k) (the weights sum to 1). */
struct gcsim_step_fabric {
    double weight;
    gcsim_platform platform;
    gcsim_topology topology;
    gcsim_resolved_step step;
};

/* Builds the step of scenario s (gcsim_iteration_build, and for the collective terngrad
 * the closed form's inputs first, whose refusals come first as they always did; then, with
 * ECMP collisions, the step on each fabric of the expectation, step_fabrics.c, whose
 * failure is kept in fabrics_error rather than returned);
 * gcsim_step_release frees it. The step points into what s points to (platform, model,
 * variability), not into s itself. */
int gcsim_step_resolve(gcsim_resolved_step *st, const gcsim_scenario *s, gcsim_error *err);
void gcsim_step_release(gcsim_resolved_step *st);

/* The topology a step runs on: its platform's links for its GPUs (gcsim_topology_init).
 * Built once, where the step is handed to an engine (sim/planning/engine.c), and handed
 * in with it; the engines build none. */
int gcsim_step_topology(const gcsim_resolved_step *st, gcsim_topology *t, gcsim_error *err);

/* ---- the law of ECMP collisions (ecmp_law.c; sim/analytic/fabric_expect.h explains it) ---- */

/* P(the most loaded of `bins` bins holds <= c balls) when `balls` balls fall uniformly and
 * independently into them. */
double gcsim_ecmp_max_load_cdf(int balls, int bins, int c);
/* E[the largest bin's load] = sum over c >= 0 of (1 - P(max <= c)). */
double gcsim_ecmp_expected_max_load(int balls, int bins);

/* Counts flows between leaves of each leaf link (up and down, distinct senders resp.
 * receivers, as the DES hashes per endpoint) in the phase of s with the most such flows:
 * counts[2 * leaf + dir], `leaves` entries pairs (t->leaves). Returns the largest count
 * (0: nothing crosses a spine), or -1 when out of memory. */
int gcsim_ecmp_leaf_counts(const gcsim_schedule *s, const gcsim_topology *t, int *counts);

/* One fabric of the expectation: evaluate on p with its ECMP cleared and its fabric's
 * oversubscription set to this (p's own where unscaled), weighted by this weight. */
typedef struct {
    double weight;
    double oversubscription;
} gcsim_ecmp_case;

/* The law of K, the most loaded spine link's flows, for schedule s on topology t (of p,
 * p->ecmp.spines > 1): the cases k with P(K = k) > 1e-15, each on a copy of p whose
 * oversubscription is scaled by S k / n, into *cases (malloc'ed, *n_cases of them; free
 * it). Without flows between leaves (or S = 1, or one leaf) one case, unscaled. Fails where
 * S exceeds a leaf's uplink ports. */
int gcsim_ecmp_law(const gcsim_platform *p, const gcsim_schedule *s, const gcsim_topology *t,
                   gcsim_ecmp_case **cases, int *n_cases, gcsim_error *err);

#endif
