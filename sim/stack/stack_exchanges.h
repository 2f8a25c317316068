/*
 * sim/stack/stack_exchanges.h: reading a stack file's "exchanges" (private to sim/stack;
 * the queries are in stack.h). Kept apart from stack_file.c: what a stack implements is a
 * question of its own (docs/stacks.md, "Exchanges a stack implements").
 */
#ifndef GCSIM_STACK_EXCHANGES_H
#define GCSIM_STACK_EXCHANGES_H

#include "json_strict.h"
#include "stack.h"

/* Reads $.exchanges (v; NULL when the file has none) into s->exchanges. */
int stack_exchanges_parse(const cJSON *v, gcsim_stack *s, json_ctx *ctx);

/* Once the compressors are read: without a list, each kind gets the exchanges the stack's
 * compressors of that kind run with; with one, every compressor's own exchange must be in
 * its kind's list (else the file contradicts itself, and `best` could never return the
 * stack's own). */
int stack_exchanges_finish(gcsim_stack *s, json_ctx *ctx);

#endif
