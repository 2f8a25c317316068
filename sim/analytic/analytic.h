/*
 * sim/analytic/analytic.h: the analytic engine. For the collective "terngrad" it is the
 * TernGrad paper's model (terngrad_model.h, eq. 27-30) with |g| in the communication
 * terms replaced by the compressed payload; for the other collectives the same compute
 * term plus an alpha-beta exchange cost (collectives.h). No overlap: compute,
 * communication and compression add up.
 */
#ifndef GCSIM_ANALYTIC_ANALYTIC_H
#define GCSIM_ANALYTIC_ANALYTIC_H

#include "collectives.h"
#include "scenario.h"
#include "terngrad_model.h"

/* The paper's link constants of a platform: C_gwd, C_cwd, C_nwd (all NICs of a node),
 * C_ncost. */
terngrad_links gcsim_terngrad_links(const gcsim_platform *p);

int gcsim_analytic_predict(const gcsim_scenario *s, gcsim_prediction *out, gcsim_error *err);

#endif
