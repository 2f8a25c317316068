/*
 * sim/planning/breakeven.h: the inter-node bandwidth below which a compressor beats fp32
 * (docs/codec.md, "Break-even"), by bisection on the platform's NIC bandwidth with the
 * analytic engine, codec cost and exchange included. A search over platforms above the
 * engines (it was sim/analytic/breakeven.h until the engines took steps, issue 44).
 */
#ifndef GCSIM_ANALYTIC_BREAKEVEN_H
#define GCSIM_ANALYTIC_BREAKEVEN_H

#include "scenario.h"

typedef enum {
    BREAKEVEN_FOUND,       /* beats fp32 below breakeven_Bps, loses above */
    BREAKEVEN_NEVER,       /* loses at every bandwidth searched: reason says why */
    BREAKEVEN_ALWAYS,      /* wins at every bandwidth searched */
    BREAKEVEN_SINGLE_NODE, /* the GPUs fit one node: the NIC carries nothing */
    BREAKEVEN_REFUSED      /* not searched: the training stack cannot run the compressor
                              (set by the caller, which knows the stack; reason says why) */
} gcsim_breakeven_status;

/* The search spans the platform's NIC bandwidth / and x GCSIM_BREAKEVEN_SPAN. */
#define GCSIM_BREAKEVEN_SPAN 1e4

typedef struct {
    gcsim_breakeven_status status;
    double breakeven_Bps;       /* per NIC, one direction (BREAKEVEN_FOUND) */
    double own_Bps;             /* the platform's */
    double none_tput, comp_tput; /* samples/s at the platform's own bandwidth */
    double codec_s;             /* encode + decode per iteration, at its own bandwidth */
    char reason[512];
} gcsim_breakeven;

/* fp32 is `dense` (compressor none, its own exchange), the compressor `comp`; both with
 * the same platform, model, placement and batch. Neither scenario is modified. */
int gcsim_breakeven_find(const gcsim_scenario *dense, const gcsim_scenario *comp,
                         gcsim_breakeven *out, gcsim_error *err);

/* The same on time to accuracy (issue 26): the compressor wins where its throughput divided
 * by conv_factor (its iterations to fp32's accuracy over fp32's, docs/convergence.md) beats
 * fp32's. conv_factor 1 is gcsim_breakeven_find; comp_tput stays the raw throughput. */
int gcsim_breakeven_find_factor(const gcsim_scenario *dense, const gcsim_scenario *comp,
                                double conv_factor, gcsim_breakeven *out, gcsim_error *err);

const char *gcsim_breakeven_status_name(gcsim_breakeven_status s);

#endif
