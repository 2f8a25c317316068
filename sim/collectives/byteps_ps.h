/*
 * sim/collectives/byteps_ps.h: BytePS's exchange of a compressed gradient
 * (COLLECTIVE_BYTEPS_PS): an uncompressed reduce-scatter inside each machine, each GPU's
 * reduced share copied to host memory, a compressed push of each machine's reduced
 * partition to the servers and a compressed pull of the server's sum, the shares copied
 * back, an uncompressed all-gather inside the machine (byteps_ps.c says from which
 * of BytePS's sources). Run by the `byteps` stack (platforms/stacks/byteps.json,
 * "compressed_allreduce").
 */
#ifndef GCSIM_COLLECTIVES_BYTEPS_PS_H
#define GCSIM_COLLECTIVES_BYTEPS_PS_H

#include "collectives.h"

#define GCSIM_BYTEPS_PS_PHASES 6
typedef struct {
    const char *name;
    bool reduce, uncompressed;
} gcsim_byteps_phase;

/* Phase k (0 .. GCSIM_BYTEPS_PS_PHASES - 1) on t: *ph, its steps and its flows (malloc'd,
 * in sender order; *flows NULL and *n 0 when the phase moves nothing: push, pull and the
 * host copies on one machine, the machine rings with one GPU per machine; endpoints N + m
 * are the machines' host memories). -1 when out of memory. */
int gcsim_byteps_ps_phase(const gcsim_topology *t, int k, gcsim_byteps_phase *ph, int *steps,
                          gcsim_flow **flows, int *n);
/* Flows it lists on t (schedule_size.c). */
double gcsim_byteps_ps_flows(const gcsim_topology *t);

#endif
