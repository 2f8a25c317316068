#include "inputs.h"

#include <limits.h>
#include <string.h>

#include "data_dir.h"
#include "sweep_case.h"

/* Generated at build time from the files named by DEFAULT_*_NAME (embed.cmake). */
extern const char gcsim_default_platform_json[];
extern const char gcsim_default_model_json[];

int inputs_load_platform(const char *path, gcsim_platform *out, gcsim_error *err)
{
    char catalog[PATH_MAX];
    if (path && gcsim_data_catalog_path("platforms", path, catalog, sizeof catalog) == 0)
        path = catalog;
    if (path)
        return gcsim_platform_load(path, out, err);
    return gcsim_platform_parse(gcsim_default_platform_json,
                                "<embedded " DEFAULT_PLATFORM_NAME ">", out, err);
}

int inputs_load_model(const char *path, gcsim_model *out, gcsim_error *err)
{
    char catalog[PATH_MAX];
    if (path && gcsim_data_catalog_path("models", path, catalog, sizeof catalog) == 0)
        path = catalog;
    if (path)
        return gcsim_model_load(path, out, err);
    return gcsim_model_parse(gcsim_default_model_json, "<embedded " DEFAULT_MODEL_NAME ">", out,
                             err);
}

const sweep_loaders inputs_loaders = {inputs_load_platform, inputs_load_model};
