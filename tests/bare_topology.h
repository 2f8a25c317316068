/*
 * tests/bare_topology.h: the engines' questions without a step (a bare collective, an
 * nccl-tests operation, call times, a SimGrid platform file) on the first `gpus` GPUs of a
 * hand-built platform, for tests.
 *
 * The engines are handed their topology (analytic.h, des.h; tests/layering rule 9); a test
 * that has a platform and a GPU count builds it here (gcsim_topology_init), asks, and frees
 * it, as the commands do (sim/report/collective_table.c). A platform the topology refuses
 * fails with gcsim_topology_init's message. Include the engine's header first: the
 * analytic helpers are defined after analytic.h, the DES ones after des.h.
 */
#ifndef GCSIM_TESTS_BARE_TOPOLOGY_H
#define GCSIM_TESTS_BARE_TOPOLOGY_H

#include "collectives.h"

#ifdef GCSIM_ANALYTIC_ANALYTIC_H
static inline int bare_analytic_collective_time(const gcsim_platform *p, int gpus,
                                                gcsim_collective c, double bytes, int ps_shards,
                                                double *time_s, gcsim_error *err)
{
    gcsim_topology t;
    if (gcsim_topology_init(&t, p, gpus, err))
        return -1;
    int rc = gcsim_analytic_collective_time(&t, c, bytes, ps_shards, time_s, err);
    gcsim_topology_free(&t);
    return rc;
}

static inline int bare_analytic_op_time(const gcsim_platform *p, int gpus, gcsim_op op,
                                        gcsim_collective c, double bytes, double *time_s,
                                        gcsim_error *err)
{
    gcsim_topology t;
    if (gcsim_topology_init(&t, p, gpus, err))
        return -1;
    int rc = gcsim_analytic_op_time(&t, op, c, bytes, time_s, err);
    gcsim_topology_free(&t);
    return rc;
}

static inline int bare_analytic_call_times(const gcsim_platform *p, int gpus, int ps_shards,
                                           const gcsim_iteration *it, double *call_s,
                                           gcsim_error *err)
{
    gcsim_topology t;
    if (gcsim_topology_init(&t, p, gpus, err))
        return -1;
    int rc = gcsim_analytic_call_times(&t, ps_shards, it, call_s, NULL, err);
    gcsim_topology_free(&t);
    return rc;
}
#endif

#ifdef GCSIM_DES_H
static inline int bare_des_collective_time(const gcsim_platform *p, int gpus,
                                           gcsim_collective c, double bytes, int ps_shards,
                                           const gcsim_des_options *opts, double *time_s,
                                           gcsim_des_details *details, gcsim_error *err)
{
    gcsim_topology t;
    if (gcsim_topology_init(&t, p, gpus, err))
        return -1;
    int rc = gcsim_des_collective_time(&t, c, bytes, ps_shards, opts, time_s, details, err);
    gcsim_topology_free(&t);
    return rc;
}

static inline int bare_des_op_time(const gcsim_platform *p, int gpus, gcsim_op op,
                                   gcsim_collective c, double bytes,
                                   const gcsim_des_options *opts, double *time_s,
                                   gcsim_des_details *details, gcsim_error *err)
{
    gcsim_topology t;
    if (gcsim_topology_init(&t, p, gpus, err))
        return -1;
    int rc = gcsim_des_op_time(&t, op, c, bytes, opts, time_s, details, err);
    gcsim_topology_free(&t);
    return rc;
}

/* The SimGrid platform of p's first `nodes` nodes (all GPUs of each). */
static inline int bare_des_write_platform(const gcsim_platform *p, int nodes, const char *path,
                                          gcsim_error *err)
{
    gcsim_topology t;
    if (gcsim_topology_init(&t, p, nodes * p->gpus_per_node, err))
        return -1;
    int rc = gcsim_des_write_topology(&t, path, err);
    gcsim_topology_free(&t);
    return rc;
}
#endif

#endif
