/*
 * sim/report/collective_table.h: what `gcsim collective` prints: for each GPU count and
 * message size the tuner's algorithm and protocol, costed by each engine asked for, with
 * time, algbw and busbw as nccl-tests defines them, and the notes saying how.
 */
#ifndef GCSIM_REPORT_COLLECTIVE_TABLE_H
#define GCSIM_REPORT_COLLECTIVE_TABLE_H

#include "collectives.h"
#include "platform.h"
#include "protocol.h"
#include "report.h"

typedef struct {
    gcsim_op op;
    gcsim_protocol protocol;   /* GCSIM_PROTO_COUNT: the tuner's */
    int engines;               /* bit 1 analytic, bit 2 des */
    int elem_bytes;            /* --dtype: 4 or 2 */
    const char *dtype;         /* its name as reported */
    gcsim_collective forced;   /* COLLECTIVE_COUNT: the tuner picks the all-reduce algorithm */
    const int *gpus;           /* ascending, at least one */
    int n_gpus;
    const double *sizes;
    int n_sizes;
    const char *skipped;       /* why GPU counts were left out (a note), or "" / NULL */
} collective_request;

/* The table; *status 0, or the exit code (2 bad input, 3 internal) after "gcsim collective:
 * ..." on stderr when a size cannot be costed (the table is then partial: free it). */
report *collective_table(const collective_request *q, const gcsim_platform *platform,
                         int *status);

#endif
