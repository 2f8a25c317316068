/* sim/planning/sweep_values.c: a sweep's listed values from their texts (sweep_values.h). */
#include "sweep_values.h"

#include <string.h>

#include "engine.h"
#include "plain_number.h"

int sweep_values_parse(sweep_space *s, const sweep_list *collectives, const sweep_list *scalings,
                       const sweep_list *batches, const sweep_list *engines, gcsim_error *err)
{
    for (int k = 0; k < collectives->n; k++)
        if (gcsim_collective_parse(collectives->items[k], &s->collectives[k]))
            return gcsim_fail(err, "--collective: unknown collective \"%s\" (terngrad, ring, "
                                   "halving-doubling, tree, double-tree, hierarchical, nvls, "
                                   "ps, allgather, dgc-paper)", collectives->items[k]);
    for (int k = 0; k < scalings->n; k++) {
        const char *t = scalings->items[k];
        if (strcmp(t, "strong") && strcmp(t, "weak"))
            return gcsim_fail(err, "--scaling: expected strong or weak, got \"%s\"", t);
        s->scalings[k] = strcmp(t, "strong") == 0 ? SCALING_STRONG : SCALING_WEAK;
    }
    for (int k = 0; k < batches->n; k++) {
        long long b;
        if (!gcsim_plain_int(batches->items[k], 1, 1 << 24, &b))
            return gcsim_fail(err, "--batch: expected a positive integer, got \"%s\"",
                              batches->items[k]);
        s->batches[k] = (int)b;
    }
    s->n_engines = 0;
    if (!engines->n)
        s->engines[s->n_engines++] = ENGINE_ANALYTIC;
    for (int k = 0; k < engines->n; k++) {
        gcsim_engine e;
        if (engine_parse(engines->items[k], &e))
            return gcsim_fail(err, "--engine: expected analytic, des or both, got \"%s\"",
                              engines->items[k]);
        if (e != ENGINE_ANALYTIC && !engine_des_available())
            return gcsim_fail(err, "--engine %s: this build has no SimGrid engine",
                              engines->items[k]);
        if (e == ENGINE_BOTH)
            s->engines[s->n_engines++] = ENGINE_ANALYTIC;
        s->engines[s->n_engines++] = e == ENGINE_BOTH ? ENGINE_DES : e;
    }
    return 0;
}
