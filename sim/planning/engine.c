/* Which engine predicts a scenario (engine.h). */
#include "engine.h"

#include <string.h>

#include "analytic.h"
#include "step.h"
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

/* The step is built once, here (gcsim_step_resolve), with its topology
 * (gcsim_step_topology), and both are handed to the engine, which reads no scenario and
 * builds no topology. */
static int resolve(const gcsim_scenario *s, gcsim_resolved_step *st, gcsim_topology *topo,
                   gcsim_error *err)
{
    if (gcsim_step_resolve(st, s, err))
        return -1;
    if (gcsim_step_topology(st, topo, err)) {
        gcsim_step_release(st);
        return -1;
    }
    return 0;
}

static void release(gcsim_resolved_step *st, gcsim_topology *topo)
{
    gcsim_topology_free(topo);
    gcsim_step_release(st);
}

int engine_run(gcsim_engine e, const gcsim_scenario *s, gcsim_prediction *out,
               gcsim_error *err)
{
    if (e != ENGINE_ANALYTIC && (e != ENGINE_DES || !engine_des_available()))
        return gcsim_fail(err, "engine %s is not available in this build", engine_name(e));
    gcsim_resolved_step st;
    gcsim_topology topo;
    if (resolve(s, &st, &topo, err))
        return -1;
    int rc = -1;
    if (e == ENGINE_ANALYTIC)
        rc = gcsim_analytic_predict(&st, &topo, out, err);
#ifdef GCSIM_HAVE_DES
    else
        rc = gcsim_des_predict(&st, &topo, out, NULL, err);
#endif
    release(&st, &topo);
    return rc;
}

#ifdef GCSIM_HAVE_DES
int engine_run_des(const gcsim_scenario *s, gcsim_prediction *out, gcsim_des_details *details,
                   gcsim_error *err)
{
    gcsim_resolved_step st;
    gcsim_topology topo;
    if (resolve(s, &st, &topo, err))
        return -1;
    int rc = gcsim_des_predict(&st, &topo, out, details, err);
    release(&st, &topo);
    return rc;
}
#endif
