/*
 * sim/des/des_bare.c: the DES's entry points for questions that have no step: one bare
 * collective of a dense buffer and one operation as nccl-tests runs it (des.h). Each is
 * handed the topology it runs on (built by the caller, gcsim_topology_init), as a step's
 * simulation is (gcsim_des_predict): no source of sim/des builds one (tests/layering,
 * rule 9).
 */
#include <stdlib.h>

#include "des_internal.h"
#include "platform.h"

/* The plan (its refusals: the GPU count, the collective and size, the network model), then
 * the simulation. */
static int bare_time(const gcsim_topology *topo, int op, gcsim_collective c, double bytes,
                     int ps_shards, const gcsim_des_options *opts, double *time_s,
                     gcsim_des_details *details, gcsim_error *err)
{
    des_plan plan;
    if (des_plan_collective(&plan, topo, op, c, bytes, ps_shards, opts, err) != 0)
        return -1;
    des_result_header hdr;
    gcsim_des_details local;
    int rc = des_run_plan(&plan, &hdr, details ? details : &local, err);
    des_plan_free(&plan);
    if (rc != 0)
        return -1;
    if (!details)
        gcsim_des_details_free(&local);
    *time_s = hdr.iteration_s;
    return 0;
}

int gcsim_des_collective_time(const gcsim_topology *topo, gcsim_collective c, double bytes,
                              int ps_shards, const gcsim_des_options *opts, double *time_s,
                              gcsim_des_details *details, gcsim_error *err)
{
    return bare_time(topo, -1, c, bytes, ps_shards, opts, time_s, details, err);
}

int gcsim_des_op_time(const gcsim_topology *topo, gcsim_op op, gcsim_collective c,
                      double bytes, const gcsim_des_options *opts, double *time_s,
                      gcsim_des_details *details, gcsim_error *err)
{
    if (bare_time(topo, (int)op, c, bytes, 0, opts, time_s, details, err))
        return -1;
    /* a platform's fitted busbw factors (platform_busbw_correction.h), as the analytic */
    *time_s = gcsim_busbw_corrected_time_s(topo->platform, (int)op, topo->gpus, bytes, *time_s);
    return 0;
}
