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

/* Lookup and application of the fitted bands: declared in platform.h, where the engines
 * may read them (layering rule 3: the engines include only type headers from config/). */

#endif
