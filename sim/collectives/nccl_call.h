/*
 * sim/collectives/nccl_call.h: NCCL's latency that a training stack's collective call pays
 * on top of gcsim's schedule (its per-call base and its network hops' per-hop overheads),
 * the same charge `gcsim collective` makes (protocol.c, gcsim_protocol_overhead_s).
 *
 * `gcsim collective` spreads that charge over the steps of the schedule it runs (a 1 ms
 * probe counts them) so that the whole is paid once per call; a training iteration's calls
 * all run on the platform as written in both engines, so the same whole is charged once
 * per call instead, in the call's fixed cost (gcsim_call.overhead_s), which both engines
 * pay before the call's first flow (analytic.c call_durations, des_sim.c run_call). The
 * two give the same time for a call alone; a training call runs alone on its GPU's
 * communication stream (one call after another), so nothing is lost by lumping it.
 * docs/collectives.md ("NCCL's overheads in training") says what is and is not charged.
 */
#ifndef GCSIM_NCCL_CALL_H
#define GCSIM_NCCL_CALL_H

#include "collectives.h"

/* The NCCL algorithm (gcsim_nccl_algo) a training call by gcsim collective c runs when no
 * tuner picked one: ring, tree (single or double) and NVLS all-reduces as themselves; an
 * all-gather or reduce-scatter as NCCL's ring; -1 for what NCCL does not run (gcsim's
 * patterns: halving-doubling, hierarchical, parameter server, the papers' patterns). */
int gcsim_nccl_call_algo(gcsim_collective c);

/* NCCL's latency not carried by gcsim's links for one call by collective c run as NCCL
 * algorithm algo (gcsim_nccl_algo; -1: gcsim_nccl_call_algo(c)) on `gpus` GPUs of
 * platform p, with the Simple protocol (the one the stacks cost): base + network hops x
 * per-hop overhead (tuner_model.c). 0 for what NCCL does not run, for NVLS on one node
 * (its figures hold its latency) and for one GPU. */
double gcsim_nccl_call_overhead_s(const gcsim_platform *p, int gpus, gcsim_collective c,
                                  int algo);

/* The same for a call whose `ranks` GPUs lie on `nodes` nodes in a shape the GPU count does
 * not give: a sharded job's replica all-reduce (HSDP), one GPU of each shard group, spans
 * as many nodes as there are groups when a group is whole nodes (sharding.c). c: an
 * all-reduce, all-gather or reduce-scatter run as algo (-1: gcsim_nccl_call_algo). */
double gcsim_nccl_ranks_overhead_s(const gcsim_platform *p, int ranks, int nodes,
                                   gcsim_collective c, int algo);

/* One NCCL all-to-all among `ranks` GPUs on `nodes` nodes (torch all_to_all_single: a
 * group of ncclSend / ncclRecv, one pair per peer). NCCL's tuning model has no figure for
 * point-to-point operations; gcsim charges the ring's per-call base (Simple) and, across
 * nodes, one network hop's overhead: the sends to all peers are posted together, so a byte
 * crosses one hop. A lower bound: NCCL runs its peers in rounds over a bounded number of
 * channels (docs/collectives.md). 0 for one rank. */
double gcsim_nccl_alltoall_overhead_s(const gcsim_platform *p, int ranks, int nodes);

/* A training call's all-reduce with the algorithm and protocol NCCL's tuner would pick
 * (issue 42), costed by NCCL's closed-form model on top of the schedule the engines run
 * (nccl_call.c): every candidate (ring, the double tree as tree, NVLS on one node and
 * NVLS-tree across nodes where the platform has NVLS; Simple, LL128 where a node is
 * NVLink, LL) takes its algorithm's schedule on the platform as written (the schedule
 * memo: one per collective and size, shared by all protocols) plus `extra`: NCCL's Simple
 * charge (gcsim_nccl_call_overhead_s), the protocol's latency less Simple's (NCCL's base
 * and network hops; the platform's intra-node hop scaled by NCCL's ratio), and the
 * schedule's bandwidth time x (Simple's bandwidth over the protocol's - 1).
 * Ranked as gcsim_tuner_rank_s ranks; the pick's fixed cost is max(0, extra), which both
 * engines pay before the call's first flow. A Simple pick is charged exactly what the
 * stacks charged before (NCCL's Simple overheads). Where the pick's extra is negative (a
 * protocol's shorter hop, which the engines cannot run), the candidate of least
 * schedule + max(0, extra) is returned instead: the tightest upper bound of the model the
 * engines can charge. No schedule is built on a protocol's platform: `gcsim collective`
 * (gcsim_tuner_choose) does that per candidate and size, which at 65,536 GPUs took
 * seconds per call (docs/collectives.md, "The tuner's protocol in training calls"). */
typedef struct {
    gcsim_collective collective; /* the schedule both engines run */
    int algo;                    /* gcsim_nccl_algo */
    int protocol;                /* gcsim_protocol */
    double time_s;               /* the model's time: schedule_s + extra (may be below it) */
    double schedule_s;           /* the schedule's time on the platform as written */
    double fixed_s;              /* max(0, extra): what the call is charged on top */
} gcsim_nccl_tuned_call;

int gcsim_nccl_call_tune(const gcsim_platform *p, int gpus, double bytes,
                         gcsim_nccl_tuned_call *out, gcsim_error *err);

/* The same for a sharded job's all-gather or reduce-scatter (c: COLLECTIVE_ALLGATHER or
 * COLLECTIVE_REDUCE_SCATTER) of `b` per GPU over groups of `group` of its `gpus` GPUs (0:
 * all): NCCL's ring on `group` GPUs with the protocol of least time in the same model,
 * over the schedule both engines run (the groups' schedule on all GPUs); its bandwidth
 * time is that schedule less the schedule of 8 bytes of payload. out->collective is c. */
int gcsim_nccl_group_call_tune(const gcsim_platform *p, int gpus, int group, gcsim_collective c,
                               const gcsim_bucket_bytes *b, gcsim_nccl_tuned_call *out,
                               gcsim_error *err);

#endif
