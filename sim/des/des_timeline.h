/*
 * sim/des/des_timeline.h: the Chrome trace (Perfetto) of one simulated iteration:
 * traceEvents with ts/dur in microseconds, one process per endpoint (GPU, node CPU, PS
 * shard), one thread (track) each for compute, compression and communication.
 */
#ifndef GCSIM_DES_TIMELINE_H
#define GCSIM_DES_TIMELINE_H

#include <stddef.h>

#include "des_internal.h"

typedef enum { DES_TRACK_COMPUTE = 1, DES_TRACK_COMPRESS = 2, DES_TRACK_COMM = 3 } des_track;

typedef struct des_timeline des_timeline;

des_timeline *des_timeline_new(const des_plan *plan);
/* Adds one complete event; NULL timeline is a no-op. Times in simulated seconds. */
void des_timeline_add(des_timeline *t, int endpoint, des_track track, const char *name,
                      double start_s, double end_s);
/* Writes atomically (temporary file in the same directory, then rename). */
int des_timeline_write(const des_timeline *t, const char *path, char *msg, size_t msg_len);
void des_timeline_free(des_timeline *t);

#endif
