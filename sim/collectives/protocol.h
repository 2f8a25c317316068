/*
 * sim/collectives/protocol.h: NCCL's protocols and its tuner, as gcsim models them.
 *
 * Offers:
 *   - gcsim_protocol: NCCL's three protocols. Simple moves data in large chunks behind a
 *     memory fence and a flag (full bandwidth, the highest latency per hop); LL128 sends
 *     128-byte lines of which 120 are data, with a flag in each (NVLink only by default);
 *     LL sends 8-byte words of 4 data bytes and a 4-byte flag (half the bandwidth or less,
 *     the lowest latency). A protocol is a change of the platform's link figures: the
 *     intra-node latency scaled by NCCL's own ratio of that protocol's hop latency to
 *     Simple's for the link class (NVLink, PCIe) and algorithm (network latencies are the
 *     wire's and stay), and every bandwidth by NCCL's
 *     efficiency of the protocol for the algorithm. Simple leaves the platform as it is,
 *     so a platform's figures stay what a user measured with large messages. Both engines
 *     run a protocol the same way: on the changed platform (gcsim_protocol_platform).
 *   - gcsim_tuner_choose: what NCCL's tuner does for one operation and size: the
 *     algorithm (ring or double binary tree for an all-reduce) and protocol with the lowest
 *     closed-form time, among those the caller allows.
 * docs/collectives.md ("Protocols and the tuner") gives the figures and their sources.
 */
#ifndef GCSIM_PROTOCOL_H
#define GCSIM_PROTOCOL_H

#include <stdbool.h>

#include "collectives.h"

typedef enum { GCSIM_PROTO_SIMPLE, GCSIM_PROTO_LL128, GCSIM_PROTO_LL, GCSIM_PROTO_COUNT } gcsim_protocol;

const char *gcsim_protocol_name(gcsim_protocol p);
/* "simple", "ll128", "ll" (any case); -1 when unknown. */
int gcsim_protocol_parse(const char *text, gcsim_protocol *out);

/* Whether NCCL enables protocol p on this platform by default: LL128 only where the GPUs
 * of a node are joined by NVLink (NVLink mesh or NVSwitch); Simple and LL everywhere. */
bool gcsim_protocol_available(const gcsim_platform *p, gcsim_protocol pr);

/* The platform as protocol pr sees it when collective c runs over `nodes` nodes. */
void gcsim_protocol_platform(const gcsim_platform *in, gcsim_collective c, int nodes,
                             gcsim_protocol pr, gcsim_platform *out);

typedef struct {
    gcsim_collective collective;
    gcsim_protocol protocol;
    double time_s;             /* the closed form's, on the protocol's platform */
    double rank_s;             /* what the tuner ranked it by (gcsim_tuner_rank_s) */
    gcsim_platform platform;   /* the protocol's platform: both engines run on it */
} gcsim_tuned;

/* How NCCL's tuner ranks an all-reduce algorithm, from gcsim's times for it and for the
 * ring (same protocol): NCCL's own model gives a tree 0.92 of the ring's bus bandwidth and
 * converts it to algorithm bandwidth at 0.5 against the ring's N/(2(N-1)), so without
 * NVLS it never ranks a tree above the ring on bandwidth, whatever gcsim's tree achieves;
 * with NVLS across nodes (NVLS-tree, which the railed double tree stands for) it counts
 * the network twice over and ranks by time. A tree ranks at the larger of its own time and
 * its latency (its time at 8 bytes) plus the ring's bandwidth time x N/(2(N-1)) / 0.46;
 * every other algorithm at its time. Both tuners (gcsim_tuner_choose, the stacks' per-call
 * choice) rank with it and then cost the pick with gcsim's own schedule. */
double gcsim_tuner_rank_s(gcsim_collective c, int gpus, bool nvls_tree, double time_s,
                          double latency_s, double ring_time_s, double ring_latency_s);

/* The tuner's choice for operation op of `bytes` on `gpus` GPUs: the candidate of lowest
 * rank (gcsim_tuner_rank_s). collective: the one to use, or COLLECTIVE_COUNT to let the
 * tuner choose (all-reduce: ring or double-tree, and nvls on one node of a platform with
 * NVLS, Simple only as NCCL's; the other operations have one schedule each); protocol: the
 * one to use, or GCSIM_PROTO_COUNT to choose among those available. Ties go to the
 * earlier candidate (ring before double-tree, Simple before LL128 before LL). */
int gcsim_tuner_choose(const gcsim_platform *p, int gpus, gcsim_op op, double bytes,
                       gcsim_collective collective, gcsim_protocol protocol,
                       gcsim_tuned *out, gcsim_error *err);

#endif
