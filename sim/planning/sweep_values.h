/*
 * sim/planning/sweep_values.h: the values `gcsim sweep` lists by name (--collective,
 * --scaling, --batch, --engine) parsed into a loaded space (sweep_space.h), every one
 * checked before the sweep writes anything.
 */
#ifndef GCSIM_PLANNING_SWEEP_VALUES_H
#define GCSIM_PLANNING_SWEEP_VALUES_H

#include "gcsim_error.h"
#include "sweep_lists.h"
#include "sweep_space.h"

/* Fills s's collectives, scalings, batches and engines (both: analytic then des; none
 * listed: analytic) from the texts. Returns 0, or -1 with "--OPTION: ..." in err: an unknown
 * name, a batch that is no positive integer, des in a build without SimGrid. */
int sweep_values_parse(sweep_space *s, const sweep_list *collectives, const sweep_list *scalings,
                       const sweep_list *batches, const sweep_list *engines, gcsim_error *err);

#endif
