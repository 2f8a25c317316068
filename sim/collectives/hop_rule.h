/*
 * sim/collectives/hop_rule.h: gcsim_hop_bytes's rule taken apart once per bucket, so that a
 * loop over steps or classes applies it inline (issue 47: the call, its subtractions and its
 * switch were 2-4% of a sweep, at every step of a growing payload's phase). The one
 * definition: gcsim_hop_bytes is gcsim_hop_rule_of then gcsim_hop_rule_bytes (hop_bytes.c),
 * the same operations in the same order, so the bytes are the same bits.
 */
#ifndef GCSIM_HOP_RULE_H
#define GCSIM_HOP_RULE_H

#include <math.h>
#include <stdbool.h>

#include "collectives.h"

/* fmax as x86-64 libm computes it (maxsd: the second operand when equal; the other operand
 * when one is NaN), inlined: the same bits as the call it replaces. */
static inline double gcsim_fmax_as_libm(double x, double y)
{
    if (y != y)
        return x;
    return x > y ? x : y;
}

typedef enum { HOP_FLAT, HOP_SHARED_SCALE, HOP_SPARSE } gcsim_hop_growth;

typedef struct {
    double packed;        /* payload_bytes - fixed_bytes */
    double dense;         /* dense_bytes - fixed_bytes */
    double fixed;         /* fixed_bytes */
    gcsim_hop_growth growth; /* HOP_FLAT: the same bytes whatever k */
    bool capped;          /* compressed and packed > 0: never more than dense */
    const double *log2_odd; /* log2(2k + 1) for whole k < GCSIM_HOP_LOG2_TABLE */
} gcsim_hop_rule;

enum { GCSIM_HOP_LOG2_TABLE = 4096 };

void gcsim_hop_rule_of(const gcsim_bucket_bytes *b, gcsim_hop_rule *r);

/* gcsim_hop_bytes(b, k) for the b that r was taken from. */
static inline double gcsim_hop_rule_bytes(const gcsim_hop_rule *r, double k)
{
    double v = r->packed;
    if (k < 1)
        k = 1;
    if (r->growth == HOP_SHARED_SCALE) {
        double l2 = k >= 0 && k < GCSIM_HOP_LOG2_TABLE && k == (double)(int)k
                        ? r->log2_odd[(int)k]
                        : log2(2.0 * k + 1.0);
        v = r->packed * gcsim_fmax_as_libm(1.0, l2 / 2.0);
    } else if (r->growth == HOP_SPARSE) {
        v = r->packed * k;
    }
    if (r->capped && v > r->dense)
        v = r->dense;
    return v + r->fixed;
}

/* Whether every step of phase ph carries the same bytes per flow under rule r (its
 * bucket's, through gcsim_phase_bucket): the sums' count k never grows (fixed_k, dk = 0)
 * or the bytes do not depend on it (a flat rule: uncompressed, dense summable or
 * per-worker-scale payloads). Both engines cost such a phase's steps once. */
static inline bool gcsim_hop_steps_alike(const gcsim_phase *ph, const gcsim_hop_rule *r)
{
    return ph->fixed_k || r->growth == HOP_FLAT || ph->dk == 0;
}

#endif
