/*
 * sim/analytic/analytic.c: the analytic engine's entry for a resolved step: the closed
 * form of one fabric (predict_one.c), or its expectation over ECMP collisions
 * (analytic_fabric.c).
 */
#include "analytic.h"
#include "analytic_internal.h"

#include <math.h>
#include <string.h>

int gcsim_analytic_predict(const gcsim_resolved_step *st, const gcsim_topology *topo,
                           gcsim_prediction *out, gcsim_error *err)
{
    memset(out, 0, sizeof *out);
    if (gcsim_analytic_check_topology(st, topo, err) != 0)
        return -1;
    if (st->costing != GCSIM_COST_TERNGRAD_FORM && st->platform->ecmp.spines > 1) {
        if (gcsim_analytic_ecmp_predict(st, out, err) != 0)
            return -1;
        out->exposed_comm_s = fmax(0.0, out->iteration_s - out->compute_s - out->compress_s);
        out->throughput_samples_per_s = out->samples_per_iteration / out->iteration_s;
        return 0;
    }
    return gcsim_analytic_predict_one(st, topo, out, err);
}
