/*
 * sim/analytic/collectives.h: alpha-beta cost models of gradient exchanges, with the
 * compressed payload sized hop by hop.
 *
 * A hop moving a piece of the gradient costs alpha + bytes / bandwidth. GPUs are placed
 * node-major (machine 0 holds ranks 0..i-1), so a ring crosses each NIC with one flow per
 * direction, while in halving-doubling all i GPUs of a node exchange with other nodes at
 * once and share the node's NIC. Each formula is written out in collectives.c and in
 * docs/analytic.md.
 *
 * Compression: a piece that holds the partial sum of k workers' gradients weighs
 * ab_hop_bytes(): unchanged for dense summable payloads; log2(2k+1)-bit levels for
 * shared-scale ternary payloads; for sparse payloads and payloads with per-worker scales,
 * k payloads (density growth, or forwarding what cannot be summed), capped at the dense
 * fp32 size, since a worker can always decode and send the dense sum.
 */
#ifndef GCSIM_ANALYTIC_COLLECTIVES_H
#define GCSIM_ANALYTIC_COLLECTIVES_H

#include "payload.h"
#include "scenario.h"

typedef struct {
    int gpus;                /* N */
    int gpus_per_machine;    /* i */
    int machines;            /* j */
    double intra_alpha_s, intra_Bps;   /* GPU to GPU inside a machine (C_gwd) */
    double host_Bps;                   /* GPU to host memory (C_cwd) */
    double inter_alpha_s, inter_Bps;   /* one machine's network (C_ncost, C_nwd) */
    double dense_bytes;      /* fp32 gradient |g| */
    double payload_bytes;    /* one worker's compressed gradient */
    gcsim_payload_aggregation aggregation;
    int ps_shards;           /* parameter-server shards; 0 = one per machine */
} ab_problem;

/* Bytes of a piece that is 1/parts of the gradient and holds the sum of k workers. */
double ab_hop_bytes(const ab_problem *p, double parts, int k);

double ab_ring_allreduce_s(const ab_problem *p);
double ab_halving_doubling_s(const ab_problem *p);
double ab_binary_tree_s(const ab_problem *p);
double ab_double_binary_tree_s(const ab_problem *p);
double ab_hierarchical_s(const ab_problem *p);
double ab_parameter_server_s(const ab_problem *p);
double ab_allgather_s(const ab_problem *p);

/* How many compressed payloads a worker decodes per iteration under this collective. */
int ab_payloads_decoded(gcsim_collective c, const ab_problem *p);

#endif
