/*
 * sim/planning/predict_counts.h: the GPU counts `gcsim predict` runs.
 */
#ifndef GCSIM_PLANNING_PREDICT_COUNTS_H
#define GCSIM_PLANNING_PREDICT_COUNTS_H

#include <stddef.h>

#include "gcsim_error.h"
#include "platform.h"

/* The counts of the --gpus list `gpus`; without one, for an option that prints one count's
 * table (one_table: "--timeline", "--buckets", "--steps" or "--tensors", else NULL), two
 * machines' GPUs (one machine when the platform has one), said in note ("" otherwise), or
 * else powers of two up to the platform's size and its size (sweep's default). At most max.
 * Returns how many, or -1 with the reason in err (a bad list; one_table with a list of
 * more than one count). */
int predict_counts(const gcsim_platform *pf, const char *gpus, const char *one_table,
                   int *counts, int max, char *note, size_t note_len, gcsim_error *err);

#endif
