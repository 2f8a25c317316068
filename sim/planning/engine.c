/* Which engine predicts a scenario (engine.h). */
#include "engine.h"

#include <string.h>

#include "analytic.h"
#ifdef GCSIM_HAVE_DES
#include "des.h"
#endif

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
