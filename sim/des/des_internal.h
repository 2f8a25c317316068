/*
 * sim/des/des_internal.h: what the files of the DES share: the plan of one simulated
 * iteration (the shared iteration and topology of sim/collectives, a schedule per bucket)
 * built before the fork, and the simulation that runs in the child.
 */
#ifndef GCSIM_DES_INTERNAL_H
#define GCSIM_DES_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "step.h"
#include "des.h"

typedef struct {
    /* What to simulate. */
    const gcsim_platform *platform;
    int gpus;                      /* N */
    int gpus_per_node;             /* i (the platform's) */
    int nodes;                     /* j = ceil(N / i) */
    gcsim_collective collective;
    int ps_shards;                 /* S >= 1 */
    bool overlap;

    gcsim_topology topology;
    gcsim_iteration iteration;     /* compute and buckets, as the analytic engine has them */
    bool iteration_borrowed;       /* a resolved step's (des_plan_build): not freed here */
    int n_schedules;
    gcsim_schedule *schedules;     /* one per distinct collective and pipeline chunk count */
    int *call_schedule;            /* per call of the iteration: index into schedules */
    int endpoints;                 /* GPUs, plus node CPUs if a schedule uses them */
    int op;                        /* a bare gcsim_op (gcsim collective), or -1 */

    int n_buckets;
    gcsim_des_bucket *buckets;     /* static part filled: layers, bytes, codec times */
    bool compressed;               /* payload smaller than dense: codec charged */
    bool deferred;                 /* some bucket has deferred steps: a step actor per GPU */

    /* Network model configuration. */
    char network_model[32];
    int crosstraffic;              /* 0 default, 1 on, -1 off */
    const char *timeline_path;     /* or NULL */
    /* Every step of every phase as its own messages (GCSIM_DES_FULL=1), instead of the
     * contention-identical steps of a flow coalesced into one (des_collectives.c). */
    bool full_simulation;
    /* Blocks of a pipelined phase that start together behind its barrier and have the
     * network to themselves are solved outside SimGrid (des_maxmin.h) unless this is set
     * (GCSIM_DES_REPLAY=1): every block then sends its messages (docs/des.md, step 16). */
    bool replay;
    long long max_messages;        /* size guard (des_plan_check_size) */
    /* Variable compute (issue 41): each GPU's compute factor in this iteration, or NULL
     * (every GPU the nominal time). Set by des_run_variable for each simulated iteration. */
    const double *compute_factor;
    /* One factor for every GPU (the iteration's largest, above GCSIM_VAR_DES_PER_GPU_MAX
     * GPUs: des_variability.c), or 0: none. Leaves the compute mode as it is. */
    double compute_scale;
    /* Variable compute with a timeline (des_variability.c): the iteration the timeline shows
     * and every simulated iteration's straggler, written into the timeline's "stragglers"
     * (des_timeline.c); NULL / 0: none. */
    const struct des_straggler_s *stragglers;
    int n_stragglers;
    int timeline_iteration;
    /* The simulated iteration (des_variability.c sets it; 0 otherwise): network jitter's
     * draws differ between iterations (des_fabric.h). */
    int iteration_index;
    /* des_phase_blocks' answers per call and phase, kept by des_run_plan (des_blocks.c:
     * des_plan_keep_blocks), or NULL: each asks des_blocks_of again. */
    struct des_block_memo *block_memo;
} des_plan;

/* The GPU that set an iteration's pace under variable compute: the last to finish its
 * forward and backward (lowest rank on a tie), its compute factor, and the longest any other
 * GPU waited for it, from its own compute's end to the straggler's (the final synchronous
 * exchange needs the straggler's last bucket); max_wait_s < 0: not simulated (above
 * GCSIM_VAR_DES_PER_GPU_MAX GPUs every GPU computes at the largest factor). */
typedef struct des_straggler_s {
    int iteration, rank;
    double factor, compute_end_s, max_wait_s;
} des_straggler;

/* The result the child sends back: a fixed header then n_buckets gcsim_des_bucket. */
typedef struct {
    int status;                    /* 0 ok, -1 failed: message */
    char message[512];
    double iteration_s;
    double compute_end_s;
    double max_codec_s;            /* largest nominal codec time charged to one actor */
    double gpu_codec_s;            /* nominal codec time charged to GPU 0 */
    long long transfers;
    long long solved_transfers;    /* of transfers, those solved outside SimGrid */
    /* The slowest GPU's compute (des_straggler's rank, compute_end_s and max_wait_s; rank
     * -1 without compute). */
    int straggler;
    double straggler_end_s, straggler_max_wait_s;
} des_result_header;

/* Builds the plan of a resolved step (des_plan.c), borrowing its iteration;
 * des_plan_free releases the plan (not the step's iteration). */
int des_plan_build(des_plan *plan, const gcsim_resolved_step *st, const gcsim_topology *topo,
                   const gcsim_des_options *opts, gcsim_error *err);
/* What a bare collective's plan refuses (des_plan_collective checks it first): the GPU
 * count, the collective and size, the network model. */
int des_plan_check_collective(const gcsim_platform *p, int gpus, gcsim_collective c,
                              double bytes, const gcsim_des_options *opts, gcsim_error *err);
/* The plan of one bare collective of a dense buffer over the GPUs of topology topo (the
 * first topo->gpus of its platform). */
int des_plan_collective(des_plan *plan, const gcsim_topology *topo, int op, gcsim_collective c,
                        double bytes, int ps_shards, const gcsim_des_options *opts,
                        gcsim_error *err);
void des_plan_free(des_plan *plan);
/* Chooses the network model: option, else GCSIM_DES_NETWORK_MODEL, else alpha-beta. */
int des_plan_network(des_plan *plan, const gcsim_platform *p, const gcsim_des_options *opts,
                     gcsim_error *err);

/* A (src, dst) pair's slot in an open-addressing table of cap slots (des_shard.c's and
 * des_collectives.c's route caches): both ends mixed into every bit (MurmurHash3's 64-bit
 * finalizer) before the modulo. Multiplying each end by a constant and xoring the two, as
 * they did before, put a ring's or a tree's pairs (g, g + 1) into long runs of neighbouring
 * slots: at 65,536 GPUs under FSDP two thirds of des_shard_flow_end's time went to probing
 * them. */
static inline size_t des_pair_hash(int src, int dst, size_t cap)
{
    uint64_t k = (uint64_t)(uint32_t)src << 32 | (uint32_t)dst;
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return (size_t)(k % cap);
}

/* Whether call c's phase p of schedule s runs coalesced (des_collectives.c): more than
 * one step, every flow active in every step with the same bytes, no decode-sum-encode
 * between steps, and not GCSIM_DES_FULL. */
bool des_phase_coalesces(const des_plan *plan, int c, const gcsim_schedule *s, int p);

/* Call c's pipelined phase p (the trees) run in blocks of steps (des_blocks.c): the
 * number of blocks, and in *bounds (malloc'd, n + 1 entries) block k's steps
 * [bounds[k], bounds[k + 1] - 1]; 0 (*bounds NULL) where the phase runs step by step (not a
 * pipeline, GCSIM_DES_FULL, jitter, decode-sum-encode, bytes that change between steps,
 * or no fewer blocks than steps); -1 when out of memory. */
int des_phase_blocks(const des_plan *plan, int c, const gcsim_schedule *s, int p, int **bounds);
/* Decides every pipelined phase's blocks once and keeps them in the plan (block_memo, in
 * des_plan.c), so that the size guard's count, its estimate, the lanes and the simulation,
 * in the parent and in the forked child, ask des_blocks_of once per call and phase instead
 * of four times (its pricing walks every flow of the phase). Answers depend on the plan's
 * full_simulation flag, which des_run_plan sets first; calling it again after that flag
 * changed decides them anew. Returns -1 when out of memory (the plan keeps none then). */
int des_plan_keep_blocks(des_plan *plan);
/* The memo's parts (des_blocks.c): whether the plan's memo was decided under its current
 * flags; a fresh one, every cell "no blocks" (the answer for a phase of one step or a
 * coalesced one); call c's phase p decided and kept. -1 when out of memory. */
bool des_block_memo_current(const des_plan *plan);
int des_block_memo_open(des_plan *plan);
int des_block_memo_decide(des_plan *plan, int c, int p);
void des_plan_drop_blocks(des_plan *plan);
/* What des_blocks_of prices a phase's steps with (the closed form's rule): the topology
 * its flows run on and the call's bytes. */
typedef struct {
    const gcsim_topology *topology;
    const gcsim_bucket_bytes *bytes;
} des_block_pricing;
/* The blocks of a phase for a slack (des_blocks.c), and the slack used (DES_BLOCK_SLACK);
 * with pr (non-NULL) a block also grows only while one message per run keeps the time
 * its steps take as pr prices them (DES_BLOCK_TIME_SLACK). */
int des_blocks_of(const gcsim_phase *ph, double slack, const des_block_pricing *pr,
                  int **bounds);
/* Whether flow next continues flow prev's run (des_blocks.c): the same pair, from the step
 * after prev's last; a phase in blocks sends one message per run and block. */
bool des_same_run(const gcsim_flow *prev, const gcsim_flow *next);
/* The last position of the run that starts at idx[x], among idx[x .. end) (flow indices of
 * phase ph in order, e.g. an endpoint's out_flows: a run's flows are adjacent there). */
int des_run_end(const gcsim_phase *ph, const int *idx, int x, int end);
double des_block_slack(void);
/* Whether the blocks after the first of call c's pipelined phase p are solved outside
 * SimGrid (des_maxmin.h, des_collectives.c's solo_block; des_blocks.c): every endpoint of
 * the simulation has flows in the phase (no other actor has a flow in progress while its
 * blocks run), no step actors, the alpha-beta network model, no timeline, not
 * GCSIM_DES_REPLAY=1. Only where the phase runs in blocks (des_phase_blocks). */
bool des_phase_solves(const des_plan *plan, const gcsim_schedule *s, int p);
/* Whether phase p of a parameter-server schedule is solved outside SimGrid as one max-min
 * system between an entry and an exit barrier (des_ps.c, des_collectives.c's ps_phase):
 * a single step, every node full and holding as many shards, des_phase_solves, no per-GPU
 * compute factors, no network jitter. */
bool des_ps_phase_solves(const des_plan *plan, const gcsim_schedule *s, int p);
/* An endpoint's communications of one step are spread over lanes of at most this many
 * flows each: SimGrid 3.32 keeps an actor's pending communications in a std::list that it
 * walks to the end each time one of them is waited for (ActorImpl::activities_.remove in
 * CommImpl::finish), so an actor with n of them pays n^2/2 list steps. A parameter-server
 * shard sends to and receives from every GPU in a phase (2,048 communications at 1,024
 * GPUs: 61% of that run's CPU time was this walk). Lane 0 is the endpoint's own actor,
 * the others helper actors on its host (des_collectives.c). */
#define DES_LANE_COMMS 32
/* The lanes of every endpoint (malloc'd, plan->endpoints entries; NULL: out of memory): 1
 * for an endpoint that never has more than DES_LANE_COMMS flows in progress together (in
 * one step, or in a coalesced phase), else that most / DES_LANE_COMMS rounded up. */
int *des_plan_lanes(const des_plan *plan);

/* How forward and backward are simulated (des_sim.c). NONE: no compute (a bare collective,
 * every bucket ready at time 0). PER_GPU: a compute actor on every GPU's host. SHARED: one
 * compute actor, on GPU 0's host, releases every GPU's buckets: only where nothing else
 * executes on a GPU's host (no codec second, no re-encoding hop), no call blocks backward
 * and no block waits for an exchange (gates) or deferred step, so that every GPU's compute
 * is the same sequence of executions alone on its host and ends at the same instants.
 * Half the actors of a data-parallel run without compression (docs/des.md, step 11). A call
 * in flight slowing compute (comm_interference, step.h) is simulated on GPU 0's host only:
 * its compute stands for every GPU's, each slowed by its own calls alike. */
typedef enum { DES_COMPUTE_NONE, DES_COMPUTE_PER_GPU, DES_COMPUTE_SHARED, DES_COMPUTE_DELAY } des_compute_mode;
/* DELAY: where SHARED applies but the GPUs' compute factors differ (plan->compute_factor) and
 * there is no timeline and no interference (a call in flight slowing compute needs compute
 * executing): no compute actor; GPU g's comm actor waits until f_g x bucket b's
 * nominal ready time (what its compute alone on its host would take) before exchanging it,
 * and until f_g x the whole compute before ending: the same instants as PER_GPU compute
 * actors, without their actors (des_sim.c). */
des_compute_mode des_plan_compute_mode(const des_plan *plan);

/* SimGrid messages the plan's simulation will send (the transfers it reports). */
long long des_plan_messages(const des_plan *plan);

/* The latency of the route from endpoint src to dst, as gcsim's topology sums it (the
 * latency SimGrid's route carries too): what a flow's later steps add per step. */
double des_plan_route_latency_s(const des_plan *plan, int src, int dst);
/* The latency a message of phase ph (of call c) between src and dst carrying `span` of its
 * steps is charged beyond its own route's (which SimGrid charges): the other steps' route
 * latencies, or for a whole pipelined ring's phase (gcsim_phase.pipelined, no hop codec)
 * what the phase's route_latency_s adds to its own route's, so that the phase lasts its
 * bytes plus one chunk's route latency, as the closed form prices it. */
double des_phase_other_latency_s(const des_plan *plan, int c, const gcsim_phase *ph, int span,
                                 int src, int dst);

/* What a plan's simulation is expected to cost (des_plan.c's fitted model): the messages
 * it sends exactly, the child's CPU seconds and peak resident bytes within a factor 2, and
 * the whole gcsim process's that runs this one simulation (its start-up floor added: what
 * the size guard reports and bench/des measures with /usr/bin/time). */
typedef struct {
    long long messages;
    double cpu_s;
    double peak_bytes;
    double process_cpu_s;      /* cpu_s + DES_CPU_S_PROCESS */
    double process_peak_bytes; /* the larger of peak_bytes and DES_BYTES_PROCESS */
} des_estimate;
void des_plan_estimate(const des_plan *plan, des_estimate *est);

/* Refuses (an input error, exit 2) a plan whose estimated cost exceeds max_messages
 * messages (0: DES_DEFAULT_MAX_MESSAGES; < 0: no limit), with the estimate. */
#define DES_DEFAULT_MAX_MESSAGES 20000000LL
int des_plan_check_size(const des_plan *plan, long long max_messages, gcsim_error *err);

/* What the child does with its results: write them out and end the process; it does not
 * return. */
typedef void (*des_done_fn)(void *ctx, const des_result_header *hdr,
                            const gcsim_des_bucket *buckets, int n_buckets);

/* Runs the plan in this process (call only in a fresh child: SimGrid state is global).
 * Fills hdr and buckets (n_buckets entries, dynamic fields) and calls done from the last
 * actor to finish, without tearing SimGrid down (des_sim.c); returns (done not called)
 * only when the run ends otherwise, e.g. when no actor ran or done is NULL. */
void des_simulate(const des_plan *plan, des_result_header *hdr, gcsim_des_bucket *buckets,
                  des_done_fn done, void *done_ctx);

/* Progress of the exchanges on stderr for long runs (des_progress.c): fd is a descriptor of the
 * caller's stderr (the child's own stderr is captured), or -1 for none; tty: overwrite one
 * line with carriage returns, else one line per report. */
void des_progress_init(int fd, bool tty);
/* GPU 0 finished `done` of the n phases of call c (of n_calls). */
void des_progress(int c, int done, int n, int n_calls);
/* Ends the progress line (a tty) and closes the descriptor (des_progress.c). */
void des_progress_end(void);

/* des_fork.c's run of one plan: size guard, fork, results and costs into details. */
struct gcsim_var_stats_s;
int des_run_plan(des_plan *plan, des_result_header *hdr, gcsim_des_details *details,
                 gcsim_error *err);
/* Variable compute v (des_variability.c): the plan simulated for v's iterations,
 * each with its own draw of the GPUs' compute factors; st gets the iteration times'
 * statistics and the largest factors' sample mean and p99; hdr and details are the last
 * iteration's, with CPU time summed and peak memory the largest over the iterations. */
struct gcsim_variability_s;
int des_run_variable(des_plan *plan, const struct gcsim_variability_s *v, des_result_header *hdr,
                     gcsim_des_details *details, struct gcsim_var_stats_s *st,
                     gcsim_error *err);

/* Forks, simulates, reads the result back. */
typedef struct {
    double wall_s, cpu_s;
    long peak_rss_kib;
} des_run_cost;
int des_run_forked(const des_plan *plan, des_result_header *hdr, gcsim_des_bucket *buckets,
                   des_run_cost *cost, gcsim_error *err);

#endif
