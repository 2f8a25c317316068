/*
 * sim/planning/plan_answer.h: the plan's answer in sentences, per platform (issue 46): the
 * configuration ranked first there (strategy, checkpointing policy, micro-batch x
 * accumulation, tokens/s or samples/s, MFU, memory per GPU), and what compression and
 * ZeRO++ change: the best row with a compressor against the best without, the best with a
 * ZeRO++ option (qwz, hpz, qgz) against the best without, in percent of throughput.
 */
#ifndef GCSIM_PLANNING_PLAN_ANSWER_H
#define GCSIM_PLANNING_PLAN_ANSWER_H

#include <stddef.h>

#include "plan_run.h"

/* Writes platform p's sentence to out from rows (ranked best first, as plan_run gives
 * them). Returns 0, or -1 when no row is on platform p (out then empty). */
int plan_answer_platform(const plan_problem *pb, const plan_candidate *rows, int n, int p,
                         char *out, size_t size);

/* Whether a sharding uses a ZeRO++ option. */
int plan_sharding_is_zeropp(const gcsim_sharding *s);

/* --best-per: the keys a row's configuration is grouped by. */
enum {
    PLAN_KEY_PLATFORM = 1, PLAN_KEY_COMPRESSOR = 2, PLAN_KEY_STACK = 4, PLAN_KEY_SHARDING = 8,
    PLAN_KEY_CKPT = 16, PLAN_KEY_MICRO = 32, PLAN_KEY_PRECISION = 64
};
/* Parses a comma list of platform, compressor, stack, sharding, act-ckpt, micro-batch into
 * a mask. Returns 0, or -1 with the unknown word in why. */
int plan_keys_parse(const char *text, unsigned *mask, char *why, size_t why_len);
/* Keeps the first (best ranked) row of each combination of the keys' values, in order;
 * returns how many remain. */
int plan_rows_best_per(const plan_problem *pb, plan_candidate *rows, int n, unsigned mask);

#endif
