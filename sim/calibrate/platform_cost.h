/*
 * sim/calibrate/platform_cost.h: what `gcsim collective` predicts for one operation on a
 * platform, and the platform fields calibrate may change.
 *
 * calib_platform_op_time_s makes the same calls as `gcsim collective --engine analytic`
 * with its defaults (sim/cli/cmd_collective.c, time_sizes): the platform's own all-reduce
 * algorithm when it names one (not a paper's pattern), else the tuner's pick
 * (gcsim_tuner_choose: algorithm and protocol per size), costed by the analytic engine on
 * the protocol's platform's topology (gcsim_analytic_op_time). No constant of the tuner is copied
 * here: a fit through this function fits whatever tuner the build has.
 *
 * A knob is one platform field a fit may set: a bandwidth (a link's line rate) or a
 * latency. For an "nvlink" node the intra-node bandwidth knob is link_bandwidth (and
 * gpu_to_gpu follows: links_per_pair x link_bandwidth), as the loader derives it.
 */
#ifndef GCSIM_CALIBRATE_PLATFORM_COST_H
#define GCSIM_CALIBRATE_PLATFORM_COST_H

#include <stdbool.h>

#include <stddef.h>

#include "collectives.h"
#include "gcsim_error.h"
#include "platform.h"
#include "protocol.h"

typedef enum {
    CALIB_KNOB_NIC_BW,    /* nic.bandwidth */
    CALIB_KNOB_INTRA_BW,  /* intra_node.gpu_to_gpu (link_bandwidth for "nvlink") */
    CALIB_KNOB_NVLS_BW,   /* intra_node.nvls_bandwidth (only where the base has it) */
    CALIB_KNOB_NIC_LAT,   /* nic.latency */
    CALIB_KNOB_INTRA_LAT, /* intra_node.latency */
    CALIB_KNOB_COUNT
} calib_knob;

/* The dotted JSON path of the knob on this platform ("intra_node.link_bandwidth"...). */
const char *calib_knob_path(const gcsim_platform *p, calib_knob k);
bool calib_knob_is_bandwidth(calib_knob k);
/* Whether the platform has the field (nvls_bandwidth is optional). */
bool calib_knob_present(const gcsim_platform *p, calib_knob k);
/* Its value in SI units (bytes per second, seconds). */
double calib_knob_get(const gcsim_platform *p, calib_knob k);
void calib_knob_set(gcsim_platform *p, calib_knob k, double value);

typedef struct {
    double time_s;
    gcsim_collective collective; /* the algorithm run (all-reduce), as collective reports */
    gcsim_protocol protocol;     /* the protocol run */
} calib_cost;

/* The analytic time of op on `bytes` over `gpus` GPUs of p, as `gcsim collective` gives
 * it. Failures are the tuner's or the engine's messages. */
/* collective, protocol: what the log's run forced (NCCL_ALGO, NCCL_PROTO), as `gcsim
 * collective --collective C --protocol P`; COLLECTIVE_COUNT / GCSIM_PROTO_COUNT: the
 * platform's algorithm or the tuner's pick, as without those options. */
int calib_platform_op_time_s(const gcsim_platform *p, int gpus, gcsim_op op, double bytes,
                             gcsim_collective collective, gcsim_protocol protocol,
                             calib_cost *out, gcsim_error *err);
/* "ring/simple" ..., for the per-row table; buf of at least 48 bytes. */
void calib_cost_text(gcsim_op op, const calib_cost *c, char *buf, size_t len);

#endif
