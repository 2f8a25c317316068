/* sim/step/step_fabrics.h: what gcsim_step_resolve (step_fabrics.c) builds on from
 * step_resolve.c; for those two files only. */
#ifndef GCSIM_STEP_FABRICS_H
#define GCSIM_STEP_FABRICS_H

#include "step.h"

/* gcsim_step_resolve on the scenario's own fabric only: no st->fabrics (ECMP's
 * expectation), which gcsim_step_resolve adds. */
int gcsim_step_resolve_one(gcsim_resolved_step *st, const gcsim_scenario *s, gcsim_error *err);
/* Releases st->fabrics (each one's step and topology) and empties the list. */
void gcsim_step_release_fabrics(gcsim_resolved_step *st);

#endif
