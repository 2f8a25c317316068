/* sim/step/step_fabrics.h: the step on each fabric of an ECMP expectation (step_fabrics.c),
 * for step_resolve.c only. */
#ifndef GCSIM_STEP_FABRICS_H
#define GCSIM_STEP_FABRICS_H

#include "step.h"

/* Fills st->fabrics for the resolved step st of scenario s (s->platform->ecmp.spines > 1):
 * the law of the most loaded spine link (gcsim_ecmp_law) over the largest call's schedule
 * on the step's topology, and for each of its cases the platform, its topology and the
 * step resolved on it. On failure st->fabrics holds what was built (gcsim_step_release). */
int gcsim_step_resolve_fabrics(gcsim_resolved_step *st, const gcsim_scenario *s,
                               gcsim_error *err);

#endif
