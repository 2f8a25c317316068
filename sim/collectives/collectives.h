/*
 * sim/collectives/collectives.h: the one definition of every gradient exchange, shared by
 * both engines.
 *
 * Offers:
 *   - gcsim_topology: the cluster as a set of directed links with capacities and the route
 *     (links, latency) between any two endpoints (GPUs 0..N-1, node CPUs N..N+j-1). The DES
 *     generates its SimGrid platform with exactly these links (sim/des/des_platform.c).
 *   - gcsim_schedule: a collective as phases of point-to-point flows (who sends what share
 *     of a bucket to whom, in which steps, holding the sum of how many workers). The
 *     analytic engine costs it in closed form (gcsim_schedule_time_s), the DES executes it
 *     flow by flow on SimGrid.
 *   - gcsim_hop_bytes: the payload-aggregation rule per compressor class, written once.
 *   - the tuner (protocol.h, tuner_model.h, tuner_memo.h), NCCL's per-call latency
 *     (nccl_call.h) and the process-wide memo of prepared schedules (schedule_memo.h).
 * One training step (compute blocks, buckets, their programs of codec steps and calls) is
 * sim/step's (step.h), built on this room; nothing here includes it.
 * docs/collectives.md describes every schedule and the closed form.
 */
#ifndef GCSIM_COLLECTIVES_H
#define GCSIM_COLLECTIVES_H

#include <stdbool.h>

#include "gcsim_error.h"
#include "payload.h"
#include "platform.h"
#include "scenario.h"

/* ---- topology ---- */

/* Between nodes: PCIe, host memory (twice over sockets), connection, proxy thread, NIC and
 * leaf up, then the same down. */
#define GCSIM_ROUTE_MAX_LINKS 14

typedef struct {
    const gcsim_platform *platform;
    int gpus;            /* N: endpoints 0..N-1 */
    int gpus_per_node;   /* i */
    int nodes;           /* j = ceil(N / i): endpoints N..N+j-1 are the nodes' CPUs */
    int nics_per_node;   /* R: NICs (rails) a node uses; GPU l of a node uses NIC l*R/i */
    int net_channels;    /* C <= R: NCCL's channels across nodes, one NIC each (topology.c,
                            gcsim_topology_net_channels); R is the smallest divisor of i
                            >= C, each NIC link carrying C/R of nic.bandwidth */
    int leaves;          /* fat tree: leaf switches; 0 on a star */
    int n_links;         /* directed links, ids 0 .. n_links-1 */
    /* Links of transports and PCIe topology (topology.c), after the leaves' and only when
     * the platform has them (-1 otherwise), so the ids of the others never move: */
    int conn_base;       /* per GPU, its socket connections up and down */
    int host_base;       /* per node, host memory for staged copies (both directions) */
    int socket_base;     /* per node, sockets x sockets directed socket links */
    int proxy_base;      /* per GPU, its proxy thread's socket I/O (both directions) */
    int sockets;         /* CPU sockets of a node (>= 1) */
    int switch_base;     /* per node and PCIe switch, its uplink up and down (-1: none) */
    int switches;        /* PCIe switches per node with a shared uplink (0: none) */
} gcsim_topology;

int gcsim_topology_init(gcsim_topology *t, const gcsim_platform *p, int gpus, gcsim_error *err);
void gcsim_topology_free(gcsim_topology *t);
/* The capacity of directed link l (bytes per second). */
double gcsim_topology_capacity_Bps(const gcsim_topology *t, int l);
/* NCCL's channels across nodes per node (its channel search: one NIC per channel, as many
 * channels as fill a GPU's NVLink at the GPU-to-NIC rate), at most nic.per_node; and the
 * rails gcsim gives them: the smallest divisor of gpus_per_node >= channels (topology.c). */
int gcsim_topology_net_channels(const gcsim_platform *p);
int gcsim_topology_channel_rails(int gpus_per_node, int channels);
/* nic.bandwidth as one of the topology's rails carries it: x C/R (1 unless the channels
 * are fewer than the NICs and do not divide the node's GPUs). */
double gcsim_topology_nic_Bps(const gcsim_topology *t);
/* Which of gcsim_topology_capacity_Bps's formulas gives link l's capacity (0, 1, ...): two
 * links of one type have the same capacity on every platform of the same shape, whatever
 * its bandwidths (the tree templates' link kinds, shared across such platforms). */
int gcsim_topology_link_type(const gcsim_topology *t, int l);

int gcsim_topology_endpoints(const gcsim_topology *t);
int gcsim_topology_node_of(const gcsim_topology *t, int endpoint);
/* The NIC (rail) of a node that a GPU's inter-node traffic uses; a CPU uses NIC 0. */
int gcsim_topology_nic_of(const gcsim_topology *t, int endpoint);
/* Links a message from src to dst crosses (at most GCSIM_ROUTE_MAX_LINKS) and the
 * end-to-end latency: inside a node intra_node.latency; between nodes nic.latency plus two
 * switch latencies per switch level crossed. Returns the number of links. */
int gcsim_topology_route(const gcsim_topology *t, int src, int dst, int *links,
                         double *latency_s);
/* Whether GPUs src and dst (of one node) copy through host memory, NCCL's SHM transport
 * (pcie.p2p false, or pcie.p2p_level "pxb" across switches or root ports). */
bool gcsim_topology_staged_pair(const gcsim_topology *t, int src, int dst);
/* Fat tree: the leaf (0 .. leaves-1) of an endpoint's NIC; 0 on a star. Node placement:
 * node / nodes_per_leaf; rail-optimized: (node / nodes_per_leaf) R + its NIC (topology.c). */
int gcsim_topology_leaf_of(const gcsim_topology *t, int endpoint);
/* Leaf l's uplink (dir 0) or downlink (dir 1) id. */
int gcsim_topology_leaf_link(const gcsim_topology *t, int leaf, int dir);
/* NIC ports under one leaf: nodes_per_leaf x R (node placement) or nodes_per_leaf (a rail
 * leaf); its uplink carries that many NICs' rate / oversubscription. */
int gcsim_topology_leaf_nics(const gcsim_topology *t);
/* Whether the fat tree is rail-optimized (fabric.placement). */
bool gcsim_topology_rail_placed(const gcsim_topology *t);
/* Whether link l is a NIC link (either direction). */
bool gcsim_topology_is_nic_link(const gcsim_topology *t, int l);
/* The transport and PCIe-topology links that belong to node k (conn_base .. above): ids
 * into `ids` (at most max), their number returned. */
int gcsim_topology_node_extra_links(const gcsim_topology *t, int k, int *ids, int max);
/* A readable name of a link id, for messages and the DES platform. */
void gcsim_topology_link_name(const gcsim_topology *t, int link, char *buf, int len);

/* ---- payload aggregation ---- */

typedef struct {
    double dense_bytes;     /* fp32 gradient bytes of the bucket */
    double payload_bytes;   /* one worker's encoded bucket */
    double fixed_bytes;     /* part of the payload sent uncompressed (summed in fp32) */
    gcsim_payload_aggregation aggregation;
    bool compressed;
    /* Codec seconds on one GPU (0 unless compressed and the scenario has a codec): encoding
     * the bucket's tensors, and decoding one received payload of them and adding it into
     * the fp32 sum. Summed over the bucket's tensors (gcsim_iteration_build). */
    double encode_s;
    double decode_s;
} gcsim_bucket_bytes;

/* Bytes of a whole bucket holding the sum of k workers' gradients:
 *   dense summable: the payload, whatever k;
 *   shared scale (TernGrad): 2-bit values become sums with 2k+1 levels, log2(2k+1) bits;
 *   sparse: supports may not overlap, k payloads (the worst case the DGC paper names);
 *   per-worker scale: decoded, summed and re-encoded at every reducing hop: the payload;
 * never more than the dense fp32 bucket (a worker can always send the dense sum). */
double gcsim_hop_bytes(const gcsim_bucket_bytes *b, double k);

/* ---- schedules ---- */

typedef struct {
    int src, dst;           /* endpoints */
    double share;           /* fraction of the bucket this flow carries in each active step */
    double k0;              /* workers summed in that data at the flow's first step */
    int first_step, last_step; /* active steps of its phase, inclusive */
} gcsim_flow;

/* Flows of a phase that cost the same in every step: same route latency, bottleneck
 * share, data share, sums and window (filled by gcsim_schedule_prepare). */
typedef struct {
    double latency_s, Bps, share, k0;
    int first, last;
} gcsim_flow_class;

typedef struct {
    char name[32];
    int steps;
    double dk;              /* workers summed grow by dk per step (ring reduce-scatter) */
    bool reduce;            /* receivers add what arrives into their own data */
    bool fixed_k;           /* payload never grows (TernGrad's Appendix B model) */
    bool uncompressed;      /* moves the fp32 gradient whatever the payload, no hop codec
                               (Bagua's in-node reduce and broadcast around the compressed
                               leader exchange, bagua_leader.c) */
    int n_flows;
    gcsim_flow *flows;
    int n_classes;          /* 0 until prepared */
    gcsim_flow_class *classes;
    /* Prepared phases whose flows start and stop at different steps (pipelines): the
     * intervals of steps with the same active flows, [interval_from[k], interval_to[k]],
     * whose classes are classes[interval_class[k] .. interval_class[k + 1]). 0: not
     * windowed, or not prepared. */
    int n_intervals;
    int *interval_from, *interval_to, *interval_class;
    /* Every class of interval k has the window [interval_from[k], interval_to[k]] (the
     * trees' prepared phases, tree_schedule_fill): active in all its steps, which the
     * closed form then need not check class by class. */
    bool intervals_exact;
    /* A pipelined ring's phase (NCCL's ring: NCCL_STEPS slots in flight per connection, so
     * a rank never waits for its previous send's latency): its steps cost their bytes at
     * their bottleneck rate only, and the phase pays once route_latency_s, the latency of
     * one chunk's route through its steps (gcsim_ring_route_s; docs/collectives.md, "A
     * ring's latency"). Set by the ring builders (schedule.c, closed_ring.c). Not where a
     * step's receivers decode, sum and re-encode (gcsim_hop_codec_s > 0): each hop then
     * waits for the whole step, and the phase stays lock-step. */
    bool pipelined;
    double route_latency_s;
} gcsim_phase;

typedef struct {
    gcsim_collective collective;
    int chunks;             /* pipeline chunks (trees); 1 otherwise */
    int group;              /* GPUs per group of a grouped collective; 0: all of them */
    int n_phases;
    gcsim_phase *phases;
    int endpoints;          /* endpoints that take part: N, or N + j with CPUs */
    int decodes;            /* payloads a GPU decodes after the exchange: all-gather N-1
                               (its own is already known), 1 otherwise (0 on one GPU) */
    /* Per phase and endpoint, the flows it sends and receives (CSR: out_index[p][e] ..
     * out_index[p][e+1] into out_flows[p]), for executing the schedule. */
    int **out_index, **out_flows, **in_index, **in_flows;
} gcsim_schedule;

/* Pipeline granularity of the tree collectives: NCCL moves a channel's data in slices of
 * NCCL_BUFFSIZE / NCCL_STEPS = 4 MiB / 8 = 512 KiB (NCCL defaults, docs/collectives.md). */
#define GCSIM_PIPELINE_CHUNK_BYTES (512.0 * 1024)
#define GCSIM_PIPELINE_MAX_CHUNKS 64
/* NVLS's latency in the platform's intra-node hops: NCCL's 25 us over 3.4 us (schedule.c). */
#define GCSIM_NVLS_STEPS 7
int gcsim_pipeline_chunks(gcsim_collective c, double payload_bytes);
/* gcsim_pipeline_chunks on a platform: NVLS-tree's own chunk count where it
 * runs, the default above otherwise. */
int gcsim_pipeline_chunks_on(const gcsim_platform *p, int gpus, gcsim_collective c, double bytes);


int gcsim_schedule_build(gcsim_schedule *s, gcsim_collective c, const gcsim_topology *t,
                         int ps_shards, int chunks, gcsim_error *err);
/* A collective over groups of `group` consecutive GPUs (0: all GPUs as one group), the
 * pieces of sharded data parallelism: all-gather (each GPU's payload to the others of its
 * group), reduce-scatter and hierarchical reduce-scatter (each GPU ends with its group's
 * sum of 1/group of the bucket), or cross-group-ring (the GPUs of the same rank in every
 * group all-reduce the bucket: each holds its own slice, a bucket of that slice's size). A group lies inside one node (group divides
 * gpus_per_node) or is whole nodes (a multiple of it), and divides the GPU count. */
int gcsim_schedule_build_group(gcsim_schedule *s, gcsim_collective c, const gcsim_topology *t,
                               int group, gcsim_error *err);
/* Whether `group` GPUs per group fit these rules on t (the reason in err when not). */
int gcsim_group_check(const gcsim_topology *t, int group, gcsim_error *err);
/* The broadcast operation: the downward half of the railed trees (one per rail), from the
 * root of each, pipelined in `chunks`. */
int gcsim_schedule_build_broadcast(gcsim_schedule *s, const gcsim_topology *t, int chunks,
                                   gcsim_error *err);
void gcsim_schedule_free(gcsim_schedule *s);

/* Flows the builder of collective c lists on t (an upper estimate; schedule_size.c), and
 * whether this process can hold them while building: -1 with err naming the estimate and
 * the limit when not. The builders check it before allocating. */
double gcsim_schedule_listed_flows(gcsim_collective c, const gcsim_topology *t, int ps_shards,
                                   int group);
int gcsim_schedule_size_check(gcsim_collective c, const gcsim_topology *t, int ps_shards,
                              int group, gcsim_error *err);

/* The bytes a phase moves: b itself, or for an uncompressed phase *tmp, b's fp32 bucket
 * as an uncompressed payload (no hop codec, no growth). */
const gcsim_bucket_bytes *gcsim_phase_bucket(const gcsim_phase *ph, const gcsim_bucket_bytes *b,
                                             gcsim_bucket_bytes *tmp);

/* Bytes a flow carries in step `step` of its phase. */
double gcsim_flow_bytes(const gcsim_phase *ph, const gcsim_flow *f, int step,
                        const gcsim_bucket_bytes *b);

/* A flow in one step, as the closed form prices it: the one definition both engines use (the
 * closed form's classes, schedule_cost.c; the DES's pipelined blocks, sim/des/des_blocks.c).
 * Its rate (step_price.c) is its part of its most loaded link: over the links of its route,
 * the smallest of capacity x share / load[link], load being the shares of the step's active
 * flows that cross the link, summed in flow order. */
double gcsim_flow_rate_Bps(const gcsim_topology *t, const int *links, int n_links,
                           const double *load, double share);
/* Its time in the step: its route latency, then its bytes at that rate. Inline: the closed
 * form's inner loop (a step by class) calls it. */
static inline double gcsim_flow_step_s(double latency_s, double bytes, double rate_Bps)
{
    return latency_s + bytes / rate_Bps;
}

/* A ring's latency (ring_route.c): the route of one chunk through a ring phase of N - 1
 * steps on a cycle of N hops is N - 1 consecutive hops, the cycle less one hop; the worst
 * start leaves out the shortest. The cycle's hop latencies are given as their distinct
 * values (value_s[k], each count[k] >= 1 times, any order; n <= GCSIM_RING_ROUTE_VALUES)
 * and summed in ascending order of value, value by value (gcsim_add_repeated), so that the
 * closed form's count of the hops (closed_ring.c) and the walk over a listed ring's hops
 * (schedule.c) give the same number bit for bit. Returns the cycle's sum less its smallest
 * value; 0 for an empty cycle. */
#define GCSIM_RING_ROUTE_VALUES 16
/* Whether the ring builders mark their phases pipelined on t: not under network jitter
 * (platform jitter.mean > 0), where both engines keep the lock-step ring (ring_route.c). */
bool gcsim_ring_pipelined(const gcsim_topology *t);
double gcsim_ring_route_s(const double *value_s, const long long *count, int n);
/* Adds `times` hops of latency x to a table of distinct values (as above); -1 when the
 * table is full (more than GCSIM_RING_ROUTE_VALUES distinct latencies on one ring). */
int gcsim_ring_route_add(double *value_s, long long *count, int *n, double x, long long times);

/* The closed form: every phase's steps one after the other, a step lasting as long as its
 * slowest flow, a flow moving at its part of its most loaded link (capacity x its share
 * over the shares of the step's flows that cross it) after its route latency; in a
 * pipelined ring's phase without hop codec (gcsim_phase.pipelined) no step takes a route
 * latency and the phase takes its route_latency_s once. Receivers of reducing
 * phases with per-worker-scale payloads decode, sum and re-encode what they received
 * (per step, the largest share a flow of that step brings x (encode_s + decode_s) of the
 * bucket; gcsim_hop_codec_s). */
double gcsim_schedule_time_s(const gcsim_schedule *s, const gcsim_topology *t,
                             const gcsim_bucket_bytes *b);

/* total + x + x + ... (n times), added one by one in floating point: the same result as
 * that loop, bit for bit, in O(log) steps (add_repeated.c). */
double gcsim_add_repeated(double total, double x, long long n);

/* Codec seconds of one reducing step that receives `share` of a bucket: decode, sum and
 * re-encode for per-worker-scale payloads, 0 otherwise. Both engines charge this. */
double gcsim_hop_codec_s(const gcsim_phase *ph, const gcsim_bucket_bytes *b, double share);
/* Codec seconds of a bucket on one GPU around its exchange: one encode before, and the
 * schedule's decodes after. */
double gcsim_bucket_encode_s(const gcsim_bucket_bytes *b);
double gcsim_bucket_decode_s(const gcsim_bucket_bytes *b, const gcsim_schedule *s);

/* Computes, once for a topology, what the closed form of every phase needs regardless of
 * the bytes (routes, link loads, classes; per interval of steps for pipelined phases), so
 * that costing the many buckets of an iteration repeats none of it. Optional: an
 * unprepared schedule costs the same. Returns -1 when out of memory. */
int gcsim_schedule_prepare(gcsim_schedule *s, const gcsim_topology *t);

/* The closed form of a schedule gcsim_schedule_prepare has prepared, from its classes
 * alone: the same number as gcsim_schedule_time_s, with no topology, no flows (a memo may
 * drop them, gcsim_schedule_drop_flows) and no allocation. */
double gcsim_schedule_prepared_time_s(const gcsim_schedule *s, const gcsim_bucket_bytes *b);
/* gcsim_schedule_build (group 0 and an all-reduce collective) or
 * gcsim_schedule_build_group, without the per-endpoint flow lists (out_index ...: NULL)
 * that only executing the schedule needs: for the closed form. */
int gcsim_schedule_build_for_cost(gcsim_schedule *s, gcsim_collective c,
                                  const gcsim_topology *t, int ps_shards, int chunks, int group,
                                  gcsim_error *err);
/* Frees a prepared schedule's flows and per-endpoint lists, keeping what
 * gcsim_schedule_prepared_time_s needs; gcsim_schedule_free still frees the rest. */
void gcsim_schedule_drop_flows(gcsim_schedule *s);

/* ---- collective operations as nccl-tests measures them ---- */

typedef enum { GCSIM_OP_ALLREDUCE, GCSIM_OP_ALLGATHER, GCSIM_OP_REDUCESCATTER,
               GCSIM_OP_BROADCAST, GCSIM_OP_COUNT } gcsim_op;

const char *gcsim_op_name(gcsim_op op);
int gcsim_op_parse(const char *text, gcsim_op *out);
/* nccl-tests' bus bandwidth over algorithm bandwidth (doc/PERFORMANCE.md): all-reduce
 * 2(n-1)/n, all-gather and reduce-scatter (n-1)/n, broadcast 1. */
double gcsim_op_busbw_factor(gcsim_op op, int n);
/* The schedule of one operation on a buffer of `bytes` (nccl-tests' size: the whole
 * result for all-gather, the input for reduce-scatter): all-reduce with collective c;
 * all-gather by ring (each GPU contributes bytes/N: *payload_bytes); reduce-scatter by the
 * ring's first phase; broadcast by the pipelined chain and tree's broadcast phase. */
int gcsim_op_schedule_build(gcsim_schedule *s, gcsim_op op, gcsim_collective c,
                            const gcsim_topology *t, double bytes, double *payload_bytes,
                            gcsim_error *err);

/* Payloads a GPU decodes after a collective: every other worker's for an all-gather (its
 * own is known), else the one result (none on one GPU is never asked: nothing is
 * compressed there). */
int gcsim_collective_decodes(gcsim_collective c, int gpus);

#endif
