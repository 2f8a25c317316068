/*
 * sim/collectives/schedule_memo.h: a collective's prepared schedule built once per process.
 *
 * The analytic engine costs a call from its schedule's classes (gcsim_schedule_prepare),
 * which depend on the platform, the GPU count, the collective, its pipeline chunks, its
 * group and the parameter-server shards, never on the bytes. A sweep or a plan asks for
 * the same few schedules case after case (models and compressors change the bytes, not
 * the schedule), so they are built, prepared and stripped of their flows once and kept
 * here: the cost of a call is then a loop over a few classes. Bounded: past
 * GCSIM_SCHEDULE_MEMO_BYTES of kept classes, everything is dropped and built again on
 * demand. Thread-safe (one lock).
 */
#ifndef GCSIM_SCHEDULE_MEMO_H
#define GCSIM_SCHEDULE_MEMO_H

#include "collectives.h"

/* Kept classes and entries before the memo starts over (256 MiB); the same for the trees'
 * templates, apart, which are dropped before a new one is built once they pass it. */
#define GCSIM_SCHEDULE_MEMO_BYTES (256.0 * 1024 * 1024)

/* *time_s = the closed form of the schedule of collective c (gcsim_schedule_build, or
 * gcsim_schedule_build_group when group > 0 or c is a grouped collective) on `gpus` GPUs
 * of p for bucket b: the same number gcsim_schedule_time_s gives on a freshly built and
 * prepared schedule. Returns -1 with err when the schedule cannot be built. */
int gcsim_schedule_memo_time_s(const gcsim_platform *p, int gpus, gcsim_collective c,
                               int shards, int chunks, int group, const gcsim_bucket_bytes *b,
                               double *time_s, gcsim_error *err);

/* The same for n calls of one platform, GPU count and shard count at once (one lock, the
 * platform looked up once): the queries' time_s filled in order, up to the first schedule
 * that cannot be built. Returns how many were filled (n, or fewer with err). */
typedef struct {
    gcsim_collective collective;
    int chunks, group;
    const gcsim_bucket_bytes *bytes;
    double time_s; /* out */
} gcsim_schedule_memo_query;
int gcsim_schedule_memo_times(const gcsim_platform *p, int gpus, int shards,
                              gcsim_schedule_memo_query *q, int n, gcsim_error *err);

/* Drops everything kept (tests, and the end of a process under a leak checker). */
void gcsim_schedule_memo_clear(void);

/* Drops the prepared schedules and the platforms they were kept for, and keeps the trees'
 * templates (keyed by the network's shape, bounded on their own): what a sweep does when it
 * moves on to another network of the same shape (gcsim_schedule_memo_same_shape). */
void gcsim_schedule_memo_drop_schedules(void);
/* Whether a and b have the same network shape (the same links and routes, other numbers),
 * so that one tree template serves both (tree_cost.h). */
bool gcsim_schedule_memo_same_shape(const gcsim_platform *a, const gcsim_platform *b);
/* How many trees' templates are kept (tests: that a platform of a kept shape builds none). */
size_t gcsim_schedule_memo_templates(void);

/* Whether a and b share their schedules here (the same network: they differ only in
 * fields no schedule reads, such as the GPU, names and price). A sweep that moves on to a
 * platform of another network drops what the last one kept (sim/planning/sweep_run.c). */
bool gcsim_schedule_memo_same_network(const gcsim_platform *a, const gcsim_platform *b);

#endif
