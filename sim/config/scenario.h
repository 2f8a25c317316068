/*
 * sim/config/scenario.h: one question put to an engine (platform, model, compressor,
 * GPU count, scaling, collective) and the answer both engines give.
 */
#ifndef GCSIM_CONFIG_SCENARIO_H
#define GCSIM_CONFIG_SCENARIO_H

#include <stdbool.h>

#include "act_ckpt.h"
#include "model.h"
#include "payload.h"
#include "platform.h"
#include "sharding.h"

typedef enum { SCALING_STRONG, SCALING_WEAK } gcsim_scaling;

typedef enum {
    COLLECTIVE_TERNGRAD,      /* the TernGrad paper's Appendix B pattern (eq. 27-30) */
    COLLECTIVE_RING,          /* ring all-reduce: reduce-scatter then all-gather */
    COLLECTIVE_HALVING_DOUBLING,
    COLLECTIVE_TREE,          /* binary tree reduce then broadcast */
    COLLECTIVE_DOUBLE_TREE,   /* two complementary binary trees, half the data each */
    COLLECTIVE_HIERARCHICAL,  /* intra-node reduce, inter-node ring, intra-node broadcast */
    COLLECTIVE_PARAMETER_SERVER,
    COLLECTIVE_ALLGATHER,
    COLLECTIVE_DGC_PAPER,     /* DGC Sec. 5's model: the TernGrad pattern, sparse density
                                 doubling at every aggregation step */
    COLLECTIVE_NVLS,          /* NVLink SHARP: reduced in the NVSwitch, one node */
    COLLECTIVE_COUNT,         /* the collectives a user names; the ones below are the
                                 pieces of sharded data parallelism (sim/collectives/
                                 sharding.c), over groups of GPUs, and the tuner's
                                 NVLS-tree, never parsed */
    COLLECTIVE_REDUCE_SCATTER,      /* ring reduce-scatter inside each group */
    COLLECTIVE_HIER_REDUCE_SCATTER, /* reduce-scatter inside each node, then across nodes
                                       per rail (ZeRO++'s hierarchical qgZ) */
    COLLECTIVE_CROSS_GROUP_RING,    /* ring all-reduce among the GPUs of the same rank in
                                       every group (HSDP's replicas) */
    COLLECTIVE_NVLS_TREE,           /* NCCL's NVLS-tree across NVSwitch nodes, as the tuner
                                       picks it: the double tree with each node's part at
                                       the switch's rate (sim/collectives/tree_nvls.c) */
    COLLECTIVE_BAGUA_LEADER,        /* Bagua's hierarchical low-precision all-reduce: fp32
                                       reduce to a leader per node, compressed all-to-all and
                                       all-gather among leaders, fp32 broadcast; run by the
                                       bagua stack (sim/collectives/bagua_leader.c) */
    COLLECTIVE_BYTEPS_PS,           /* BytePS's compressed push/pull: fp32 reduce-scatter in
                                       the machine, compressed push to and pull from the
                                       servers, fp32 all-gather; run by the byteps stack
                                       (sim/collectives/byteps_ps.c) */
    COLLECTIVE_ONEBIT_ALLTOALL,     /* DeepSpeed's compressed all-reduce (1-bit Adam): flat
                                       all-to-all of packed sign chunks among all GPUs,
                                       then all-gather of the servers' chunks; run by the
                                       deepspeed stack (sim/collectives/onebit_alltoall.c) */
    COLLECTIVE_MPI_HOST_ALLGATHER   /* Horovod's all-gather of GPU tensors without a GPU
                                       all-gather op: copied to host memory, OpenMPI's
                                       MPI_Allgatherv among the hosts, the gathered buffer
                                       copied back; run by a stack whose "allgather" is
                                       mpi-host-staged (sim/collectives/mpi_host_allgather.c) */
} gcsim_collective;

const char *gcsim_collective_name(gcsim_collective c);
/* Whether an engine's bare-collective entry runs c: the named collectives and the tuner's
 * NVLS-tree pick (the sharded pieces need their groups). */
static inline bool gcsim_collective_runs_bare(gcsim_collective c)
{
    return (unsigned)c < COLLECTIVE_COUNT || c == COLLECTIVE_NVLS_TREE;
}
int gcsim_collective_parse(const char *text, gcsim_collective *out);
const char *gcsim_scaling_name(gcsim_scaling s);

/* The platform's default exchange: its "collective" key, else ring all-reduce (what NCCL,
 * Horovod and PyTorch DDP run for large gradient buckets). The TernGrad Appendix B pattern
 * is the default only on the platforms of the paper's own figures, which name it. */
gcsim_collective gcsim_platform_default_collective(const gcsim_platform *p);

struct gcsim_codec; /* sim/codec/codec.h */
struct gcsim_stack; /* sim/stack/stack.h */

/* How workers exchange a compressor's payloads (sim/codec/codec.h resolves it). */
typedef enum {
    GCSIM_EXCHANGE_AUTO,       /* what the payload needs (gcsim_exchange_resolve) */
    GCSIM_EXCHANGE_ALLREDUCE,  /* the selected all-reduce collective, hop rule per class */
    GCSIM_EXCHANGE_ALLGATHER,  /* every worker receives N-1 payloads, decodes and sums */
    GCSIM_EXCHANGE_PS,         /* parameter server */
    GCSIM_EXCHANGE_PATTERN     /* the TernGrad paper's Appendix B pattern */
} gcsim_exchange;

/* The exchange collective c performs, from a table (scenario.c): ps, all-gather, a paper's
 * pattern (terngrad, dgc-paper: the TernGrad paper's Appendix B model of a whole step,
 * gradients summed on the nodes' CPUs), else all-reduce (every other collective is an
 * all-reduce algorithm or a piece of one). What a pattern means for a step (no overlap,
 * one bucket, the host copy in the profile) is decided in sim/step only. */
gcsim_exchange gcsim_collective_exchange(gcsim_collective c);

/* Parses the name of a collective algorithm, what one collective operation runs
 * (`gcsim collective`, nccl-tests logs): every name gcsim_collective_parse knows but the
 * papers' patterns, which model a whole training step and run no bare operation. -1 (and
 * *out unchanged) otherwise. */
int gcsim_collective_parse_algorithm(const char *text, gcsim_collective *out);

/* *out = the platform's default collective (gcsim_platform_default_collective); whether
 * it is a collective algorithm (not a paper's pattern), which a bare operation may be
 * forced to run. */
bool gcsim_platform_default_algorithm(const gcsim_platform *p, gcsim_collective *out);


typedef struct {
    const gcsim_platform *platform;
    const gcsim_model *model;
    const gcsim_payload_plan *payload;   /* bytes on the wire per layer, from compressors/ */
    gcsim_placement placement;           /* N GPUs as j machines of i */
    gcsim_scaling scaling;
    gcsim_collective collective;
    int batch;                /* strong: global mini-batch K; weak: K per GPU */
    int ps_shards;            /* parameter server shards S (0: one per machine) */
    double bucket_bytes;      /* gradient bucket size (fp32 bytes); 0: the stack's, else
                                 25 MiB (PyTorch DDP's bucket_cap_mb) */
    bool overlap;             /* DES: exchange buckets while backward goes on */
    const char *timeline_path;/* DES: Chrome trace output, or NULL */
    /* DES: refuse a run whose schedule implies more SimGrid messages than this (0: the
     * engine's default limit; < 0: no limit). See docs/des.md, "Size guard". */
    long long des_max_messages;
    /* Encode/decode cost of the compressor on the platform's GPU (gcsim_codec_init), or
     * NULL: codec work is free, as before codec costs existed. */
    const struct gcsim_codec *codec;
    /* The payloads of one bucket have the same support on every worker (random-k with a
     * seed the workers share), so they sum in place whatever the hop: resolved with the
     * exchange (gcsim_exchange_resolve). */
    bool shared_support;
    /* The training stack that runs the exchange (sim/stack/stack.h): its granularity, op
     * sequences and their costs. NULL, or a stack whose codec is the model: the fused
     * stack (the codec model above, buckets as they fill, nothing else charged). */
    const struct gcsim_stack *stack;
    /* The stack's collective library picks each all-reduce's algorithm as NCCL's tuner
     * does (the faster of ring and double binary tree for the call's size), because neither
     * the command line nor the platform named one (gcsim_stack_setup_apply). */
    bool tune_allreduce;
    /* How workers share the training state (sharding.h; zeroed: ddp), micro-batches per
     * optimizer step (gradient accumulation; 0 or 1: one), and whether activations are
     * checkpointed (forward work recomputed before backward), with which policy (zeroed:
     * full, each unit's whole forward). */
    gcsim_sharding sharding;
    int grad_accum;
    bool act_ckpt;
    gcsim_act_ckpt act_ckpt_policy;
    /* What cases that differ only in their GPU count share: the prices of the stack's ops,
     * the iteration's layers and buckets (sim/collectives/collectives.h, gcsim_case_memo);
     * NULL: everything computed for each case. */
    struct gcsim_case_memo *case_memo;
    /* Variable per-GPU compute and stragglers (sim/config/variability.h), or NULL (or off):
     * every GPU computes the nominal time, as before issue 41. */
    const struct gcsim_variability_s *variability;
    /* With variability on: where an engine writes the iteration's distribution (mean,
     * p50, p99, interval, largest factor), or NULL. */
    struct gcsim_var_stats_s *variability_stats;
} gcsim_scenario;

typedef struct {
    double iteration_s;
    double compute_s;          /* forward + backward on one GPU */
    double comm_s;             /* communication time (sum over the critical path) */
    double exposed_comm_s;     /* communication not hidden behind compute */
    double compress_s;         /* encode + decode charged on the GPU */
    double encode_s;           /* of which encoding, per iteration */
    double decode_s;           /* of which decoding received payloads (and the decode-sum-
                                  encode of reducing hops, which the DES counts here) */
    double samples_per_iteration;
    double throughput_samples_per_s;
} gcsim_prediction;

#endif
