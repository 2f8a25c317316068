/*
 * sim/collectives/tuner_memo.h: the tuner's per-call choice kept per process.
 *
 * Both tuners (gcsim_tuner_choose, protocol.c; the stacks' per-call choice, program_stack.c)
 * are pure functions of the platform's contents, the GPU count, the operation, the
 * collective and protocol allowed and the call's bytes. A plan or a sweep asks the same
 * question case after case (the same model's buckets on the same GPU count), and each
 * answer costs several schedule look-ups and, for a tree, a template prepared per chunk
 * count; this memo answers a question asked before with one hash look-up.
 *
 * The key holds the bytes exactly (their bit pattern), not a coarser size class: the
 * choice changes inside any size class (the ring-tree crossover falls between NCCL's
 * tree-correction steps), and the outputs must stay the same bit for bit. Failures are
 * never kept: a question that failed is asked again (and fails with the same message).
 * Bounded (GCSIM_TUNER_MEMO_ENTRIES, then everything is dropped); thread-safe (one lock).
 */
#ifndef GCSIM_TUNER_MEMO_H
#define GCSIM_TUNER_MEMO_H

#include <stdbool.h>
#include <stddef.h>

#include "collectives.h"

/* Answers kept before the memo starts over (each a few hundred bytes at most). */
#define GCSIM_TUNER_MEMO_ENTRIES 65536

/* Which tuner asked (answers of different shapes never mix). */
typedef enum { GCSIM_TUNER_MEMO_CHOOSE, GCSIM_TUNER_MEMO_STACK } gcsim_tuner_memo_kind;

typedef struct {
    gcsim_tuner_memo_kind kind;
    int gpus, nodes;
    int op, collective, protocol; /* the caller's enums; -1 where they do not apply */
    double bytes;                 /* compared bit for bit */
} gcsim_tuner_memo_key;

/* Copies the answer kept for (platform p's contents, k) into value (`size` bytes, the size
 * it was kept with) and returns true; false when none is kept. */
bool gcsim_tuner_memo_get(const gcsim_platform *p, const gcsim_tuner_memo_key *k, void *value,
                          size_t size);
/* Keeps a copy of value for (p's contents, k); nothing when out of memory (the next call
 * asks the tuner again). */
void gcsim_tuner_memo_put(const gcsim_platform *p, const gcsim_tuner_memo_key *k,
                          const void *value, size_t size);
/* Drops everything kept (tests, and the end of a process under a leak checker). */
void gcsim_tuner_memo_clear(void);
/* Answers kept now, and hits since the process started (tests). */
size_t gcsim_tuner_memo_entries(void);
size_t gcsim_tuner_memo_hits(void);

#endif
