/*
 * sim/stack/stack_leader.h: a stack's own schedule for compressed all-reduces
 * ("compressed_allreduce", private to sim/stack): Bagua reduces inside each node before it
 * quantizes, and exchanges the quantized sums among one leader GPU per node
 * (sim/collectives/bagua_leader.c), which no NCCL algorithm does.
 */
#ifndef GCSIM_STACK_LEADER_H
#define GCSIM_STACK_LEADER_H

#include "json_strict.h"
#include "stack.h"

/* Reads $.compressed_allreduce (v; NULL when the file has none) into s. */
int stack_leader_parse(const cJSON *v, gcsim_stack *s, json_ctx *ctx);

/* The collective a quantized payload's all-reduce runs under stack st, when st names one
 * and nothing else did (no --collective, no platform collective): true and *out set. */
bool stack_leader_collective(const gcsim_stack *st, const char *spec, bool collective_named,
                             gcsim_collective *out);

#endif
