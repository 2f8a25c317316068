/*
 * sim/stack/stack_hook.h: where a stack's encode ops spend their host time ("hook_host",
 * docs/stacks.md, "Host time of the hook's ops"), private to sim/stack. Kept apart from
 * stack_host.c (how the framework issues ops) and stack_law.c (what an op costs).
 */
#ifndef GCSIM_STACK_HOOK_H
#define GCSIM_STACK_HOOK_H

#include "json_strict.h"
#include "stack.h"

/* Reads $.hook_host of root (optional: "serial", the host time on the stream as before). */
int stack_hook_parse(const cJSON *root, gcsim_stack *s, json_ctx *ctx);

#endif
