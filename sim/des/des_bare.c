/*
 * sim/des/des_bare.c: the DES's entry points for questions that have no step: one bare
 * collective of a dense buffer, one operation as nccl-tests runs it, and the SimGrid
 * platform of a platform's first nodes (des.h). Each takes a platform and a GPU or node
 * count and builds its own topology: the only file of sim/des that does (tests/layering,
 * rule 9); a step's simulation is handed its topology (gcsim_des_predict).
 */
#include <stdlib.h>

#include "des_internal.h"

/* The refusals of the plan first, in the order they always came, then the topology. */
static int bare_time(const gcsim_platform *p, int gpus, int op, gcsim_collective c, double bytes,
                     int ps_shards, const gcsim_des_options *opts, double *time_s,
                     gcsim_des_details *details, gcsim_error *err)
{
    if (des_plan_check_collective(p, gpus, c, bytes, opts, err) != 0)
        return -1;
    gcsim_topology topo;
    if (gcsim_topology_init(&topo, p, gpus, err) != 0)
        return -1;
    des_plan plan;
    if (des_plan_collective(&plan, &topo, op, c, bytes, ps_shards, opts, err) != 0) {
        gcsim_topology_free(&topo);
        return -1;
    }
    des_result_header hdr;
    gcsim_des_details local;
    int rc = des_run_plan(&plan, &hdr, details ? details : &local, err);
    des_plan_free(&plan);
    gcsim_topology_free(&topo);
    if (rc != 0)
        return -1;
    if (!details)
        gcsim_des_details_free(&local);
    *time_s = hdr.iteration_s;
    return 0;
}

int gcsim_des_collective_time(const gcsim_platform *p, int gpus, gcsim_collective c,
                              double bytes, int ps_shards, const gcsim_des_options *opts,
                              double *time_s, gcsim_des_details *details, gcsim_error *err)
{
    return bare_time(p, gpus, -1, c, bytes, ps_shards, opts, time_s, details, err);
}

int gcsim_des_op_time(const gcsim_platform *p, int gpus, gcsim_op op, gcsim_collective c,
                      double bytes, const gcsim_des_options *opts, double *time_s,
                      gcsim_des_details *details, gcsim_error *err)
{
    return bare_time(p, gpus, (int)op, c, bytes, 0, opts, time_s, details, err);
}

int gcsim_des_write_platform(const gcsim_platform *p, int nodes, const char *path,
                             gcsim_error *err)
{
    if (nodes < 1 || p->gpus_per_node < 1 || nodes > p->nodes)
        return gcsim_fail(err, "%s: cannot generate a SimGrid platform with %d node(s) of %d GPU(s)",
                          p->source_path, nodes, p->gpus_per_node);
    gcsim_topology t;
    if (gcsim_topology_init(&t, p, nodes * p->gpus_per_node, err) != 0)
        return -1;
    int rc = gcsim_des_write_topology(&t, path, err);
    gcsim_topology_free(&t);
    return rc;
}
