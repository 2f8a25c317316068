/*
 * sim/stack/stack_allgather.h: how a stack's all-gather of GPU payloads travels
 * ("allgather", private to sim/stack): on the library's GPU collective (NCCL's ring, the
 * default) or, as Horovod runs it without a GPU all-gather op, staged through host memory
 * and exchanged by OpenMPI (sim/collectives/mpi_host_allgather.c).
 */
#ifndef GCSIM_STACK_ALLGATHER_H
#define GCSIM_STACK_ALLGATHER_H

#include "json_strict.h"
#include "stack.h"

/* Reads $.allgather (v; NULL when the file has none: the library's all-gather) into s. */
int stack_allgather_parse(const cJSON *v, gcsim_stack *s, json_ctx *ctx);

#endif
