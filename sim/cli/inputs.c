#include "inputs.h"

#include <limits.h>
#include <string.h>

#include "analytic.h"
#include "data_dir.h"
#ifdef GCSIM_HAVE_DES
#include "des.h"
#endif

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

int engine_parse(const char *text, gcsim_engine *out)
{
    if (strcmp(text, "analytic") == 0)
        *out = ENGINE_ANALYTIC;
    else if (strcmp(text, "des") == 0)
        *out = ENGINE_DES;
    else if (strcmp(text, "both") == 0)
        *out = ENGINE_BOTH;
    else
        return -1;
    return 0;
}

const char *engine_name(gcsim_engine e)
{
    return e == ENGINE_ANALYTIC ? "analytic" : e == ENGINE_DES ? "des" : "both";
}

int engine_des_available(void)
{
#ifdef GCSIM_HAVE_DES
    return 1;
#else
    return 0;
#endif
}

int engine_run(gcsim_engine e, const gcsim_scenario *s, gcsim_prediction *out,
               gcsim_error *err)
{
    if (e == ENGINE_ANALYTIC)
        return gcsim_analytic_predict(s, out, err);
#ifdef GCSIM_HAVE_DES
    if (e == ENGINE_DES)
        return gcsim_des_predict(s, out, NULL, err);
#endif
    return gcsim_fail(err, "engine %s is not available in this build", engine_name(e));
}
