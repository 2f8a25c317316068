/*
 * sim/stack/stack_host.h: reading a stack file's host model ("host": how the framework
 * issues its ops) and its decode of gathered payloads ("gathered_decode"), private to
 * sim/stack (docs/stacks.md, "Host cost per framework"). Kept apart from stack_file.c: the
 * laws' parsing there belongs to the codec laws, this to the framework that runs them.
 */
#ifndef GCSIM_STACK_HOST_H
#define GCSIM_STACK_HOST_H

#include "json_strict.h"
#include "stack.h"

/* Reads $.host and $.gathered_decode of root (both optional: eager, looped). */
int stack_host_parse(const cJSON *root, gcsim_stack *s, json_ctx *ctx);

/* Once the laws are read: a graph-executed framework's host time per op replaces each
 * law's measured (eager) host part. */
void stack_host_finish(gcsim_stack *s);

#endif
