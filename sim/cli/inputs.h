/*
 * sim/cli/inputs.h: what the subcommands share: loading the platform and model (a file,
 * or the embedded defaults when none is named) and running an engine on a scenario.
 */
#ifndef GCSIM_CLI_INPUTS_H
#define GCSIM_CLI_INPUTS_H

#include "scenario.h"

/* The defaults compiled into the binary, so `gcsim predict` runs with no files. */
#define DEFAULT_PLATFORM_NAME "platforms/terngrad-fig5a.json"
#define DEFAULT_MODEL_NAME "models/alexnet.json"

/* path: a file, or a catalog name such as "a100-hdr" (no '/', not a file here) looked up
 * in the data folder's platforms/ or models/ (data_dir.h); NULL: the embedded default. */
int inputs_load_platform(const char *path, gcsim_platform *out, gcsim_error *err);
int inputs_load_model(const char *path, gcsim_model *out, gcsim_error *err);

typedef enum { ENGINE_ANALYTIC, ENGINE_DES, ENGINE_BOTH } gcsim_engine;

int engine_parse(const char *text, gcsim_engine *out);
const char *engine_name(gcsim_engine e);
/* Whether this build has the SimGrid engine. */
int engine_des_available(void);

/* Runs one engine (ENGINE_ANALYTIC or ENGINE_DES) on a scenario. */
int engine_run(gcsim_engine e, const gcsim_scenario *s, gcsim_prediction *out,
               gcsim_error *err);

#endif
