/*
 * sim/planning/engine.h: which engine predicts a scenario: the analytic model
 * (sim/analytic) or the SimGrid discrete-event simulation (sim/des, when built).
 */
#ifndef GCSIM_PLANNING_ENGINE_H
#define GCSIM_PLANNING_ENGINE_H

#include "scenario.h"

typedef enum { ENGINE_ANALYTIC, ENGINE_DES, ENGINE_BOTH } gcsim_engine;

/* Parses "analytic", "des" or "both"; returns -1 otherwise. */
int engine_parse(const char *text, gcsim_engine *out);
const char *engine_name(gcsim_engine e);
/* Whether this build has the SimGrid engine. */
int engine_des_available(void);

/* Runs one engine (ENGINE_ANALYTIC or ENGINE_DES) on a scenario: builds its step once
 * (sim/step, gcsim_step_resolve) and hands it to the engine. */
int engine_run(gcsim_engine e, const gcsim_scenario *s, gcsim_prediction *out,
               gcsim_error *err);

#ifdef GCSIM_HAVE_DES
#include "des.h"
/* The DES on a scenario's step, with its per-bucket details (details may be NULL). */
int engine_run_des(const gcsim_scenario *s, gcsim_prediction *out, gcsim_des_details *details,
                   gcsim_error *err);
#endif

#endif
