/*
 * sim/des/des_platform.h: the SimGrid platform of a topology, described once
 * (des_platform.c) to a sink: the XML writer (gcsim_des_write_topology) or the builder
 * that creates it in the simulation child through SimGrid's platform API
 * (des_platform_sg.cpp), element by element in the same order.
 */
#ifndef GCSIM_DES_PLATFORM_H
#define GCSIM_DES_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>

#include <simgrid/forward.h>

#include "collectives.h"
#include "gcsim_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the description calls, in document order. Every zone has Full routing; links and
 * routes come after the hosts and routers of their zone; a route names its links. */
typedef struct {
    void *ctx;
    void (*zone_open)(void *ctx, const char *id);
    void (*zone_close)(void *ctx);
    void (*host)(void *ctx, const char *id, double speed_flops);
    void (*router)(void *ctx, const char *id);
    /* fatpipe: every flow gets the whole bandwidth; else shared fairly */
    void (*link)(void *ctx, const char *id, double bandwidth_Bps, double latency_s, bool fatpipe);
    /* zone_route: src and dst are child zones joined through gw_src and gw_dst (else NULL);
     * one direction only */
    void (*route)(void *ctx, bool zone_route, const char *src, const char *dst,
                  const char *gw_src, const char *gw_dst, const char *const *links, int n_links);
} des_platform_sink;

/* Checks the topology can be simulated, then describes its platform to sink. Without
 * with_cpus the node CPUs (hosts c<n>, their attachment and host-bus links, their routes)
 * are left out: a run whose schedules use only GPUs never crosses them, and they would
 * cost a host, two links and four routes per node to build (the XML writer keeps them). */
int des_platform_describe(const gcsim_topology *t, bool with_cpus, const des_platform_sink *sink,
                          gcsim_error *err);

/* In the simulation child, after simgrid_init: creates the platform of t in SimGrid (no
 * file) and stores the hosts of the endpoints: GPU g at hosts[g], node n's CPU at
 * hosts[t->gpus + n] when t->gpus + n < n_endpoints. Returns 0, or -1 with a message. */
int des_platform_build(const gcsim_topology *t, sg_host_t *hosts, int n_endpoints,
                       char *msg, size_t msg_len);

#ifdef __cplusplus
}
#endif

#endif
