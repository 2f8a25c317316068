/*
 * sim/config/platform_busbw_correction.h: "busbw_correction", a table of busbw factors by
 * message-size band fitted by `gcsim calibrate` to one nccl-tests log (docs/formats.md,
 * "busbw_correction"; docs/calibrate.md).
 *
 * It is no mechanism: where a log's busbw curve has a step that no field of the platform
 * explains (a transport plugin's own size thresholds, a change of channels), calibrate
 * writes the ratio measured / modelled busbw per size band, so that the platform it writes
 * reproduces its own log and says that it is a fit ("fitted to LOG"). A factor applies only
 * to the operation and GPU count of the log it was fitted to; everywhere else the platform
 * runs as without it.
 */
#ifndef GCSIM_CONFIG_PLATFORM_BUSBW_CORRECTION_H
#define GCSIM_CONFIG_PLATFORM_BUSBW_CORRECTION_H

#include "json_strict.h"
#include "platform.h"

/* The factors' range: a band's busbw at most 10x or 1/10 of the model's (beyond that the
 * model, not a band, is wrong). */
#define GCSIM_BUSBW_FACTOR_MIN 0.1
#define GCSIM_BUSBW_FACTOR_MAX 10.0

/* $.busbw_correction; absent: p->busbw_correction.n = 0 (nothing changes). */
int gcsim_platform_parse_busbw_correction(const cJSON *root, gcsim_platform *p,
                                          json_ctx *ctx);

/* The entry for operation `op` (0 all_reduce, 1 all_gather, 2 reduce_scatter: gcsim_op's
 * order) on `gpus` GPUs, or NULL. */
const gcsim_busbw_correction *gcsim_busbw_correction_find(const gcsim_platform *p, int op,
                                                          int gpus);
/* Its factor at `bytes` (the band holding it: the first whose below_bytes exceeds it). */
double gcsim_busbw_correction_factor(const gcsim_busbw_correction *c, double bytes);
/* A collective's time on p corrected by the platform's fitted factor (time / factor: busbw
 * x factor); the time unchanged when p has no entry for op and gpus. The hook the engines
 * call on a bare operation's time (sim/analytic/analytic_bare.c, sim/des/des_bare.c). */
double gcsim_busbw_corrected_time_s(const gcsim_platform *p, int op, int gpus, double bytes,
                                    double time_s);

#endif
