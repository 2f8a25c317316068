/*
 * sim/cli/inputs.h: what the subcommands share: loading the platform and model (a file,
 * a catalog name, or the embedded defaults when none is named). The engines are run
 * through sim/planning/engine.h, included here for the commands.
 */
#ifndef GCSIM_CLI_INPUTS_H
#define GCSIM_CLI_INPUTS_H

#include "engine.h" /* gcsim_engine, engine_run: sim/planning */
#include "scenario.h"

/* The defaults compiled into the binary, so `gcsim predict` runs with no files. */
#define DEFAULT_PLATFORM_NAME "platforms/terngrad-fig5a.json"
#define DEFAULT_MODEL_NAME "models/alexnet.json"

/* path: a file, or a catalog name such as "a100-hdr" (no '/', not a file here) looked up
 * in the data folder's platforms/ or models/ (data_dir.h); NULL: the embedded default. */
int inputs_load_platform(const char *path, gcsim_platform *out, gcsim_error *err);
int inputs_load_model(const char *path, gcsim_model *out, gcsim_error *err);

/* The loaders sweep_cache_new takes (sweep_case.h): these two functions, so the cached
 * inputs of sweep, plan and check also come from the catalog or the embedded defaults. */
struct sweep_loaders;
extern const struct sweep_loaders inputs_loaders;

#endif
