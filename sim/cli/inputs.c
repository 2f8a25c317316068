#include "inputs.h"

#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "data_dir.h"
#include "sweep_case.h"

/* Generated at build time from the files named by DEFAULT_*_NAME (embed.cmake). */
extern const char gcsim_default_platform_json[];
extern const char gcsim_default_model_json[];

/* A name that is no file here and no catalog entry: say both, and list the catalog, rather
 * than the bare "cannot open" of a path. Returns -1 with err set, 0 when path is to be read. */
static int unknown_name(const char *option, const char *folder, const char *path,
                        gcsim_error *err)
{
    if (!*path)
        return gcsim_fail(err, "%s \"\": an empty file name", option);
    struct stat st;
    if (strchr(path, '/') || stat(path, &st) == 0)
        return 0;
    char names[768];
    gcsim_data_catalog_names(folder, names, sizeof names);
    return gcsim_fail(err, "%s \"%.200s\": no such file, and no such name in the catalog (%s)",
                      option, path, names[0] ? names : "unreadable");
}

int inputs_load_platform(const char *path, gcsim_platform *out, gcsim_error *err)
{
    char catalog[PATH_MAX];
    if (path && gcsim_data_catalog_path("platforms", path, catalog, sizeof catalog) == 0)
        path = catalog;
    else if (path && unknown_name("--platform", "platforms", path, err))
        return -1;
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
    else if (path && unknown_name("--model", "models", path, err))
        return -1;
    if (path)
        return gcsim_model_load(path, out, err);
    return gcsim_model_parse(gcsim_default_model_json, "<embedded " DEFAULT_MODEL_NAME ">", out,
                             err);
}

const sweep_loaders inputs_loaders = {inputs_load_platform, inputs_load_model};
