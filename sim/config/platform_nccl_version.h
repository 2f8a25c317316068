/*
 * sim/config/platform_nccl_version.h: "nccl_version", the NCCL release the modelled job runs
 * (docs/collectives.md, "NCCL release"): NCCL's tuning tables changed between releases, and
 * the tuner (sim/collectives/tuner_model.c) takes the release's.
 */
#ifndef GCSIM_CONFIG_PLATFORM_NCCL_VERSION_H
#define GCSIM_CONFIG_PLATFORM_NCCL_VERSION_H

#include "json_strict.h"
#include "platform.h"

/* $.nccl_version, optional: "MAJOR.MINOR.PATCH" (a suffix after the patch, "+cuda13.1" as
 * NCCL prints it, is allowed and ignored) into p->nccl_version = MAJOR x 10000 + MINOR x
 * 100 + PATCH (NCCL's own NCCL_VERSION_CODE scheme from 2.9 on: 2.26.2 -> 22602). Absent:
 * 0, NCCL's current tables. Refused: anything else, or a minor or patch above 99. */
int gcsim_platform_parse_nccl_version(const cJSON *root, gcsim_platform *p, json_ctx *ctx);

/* "2.26.2[+...]" -> 22602; -1 when the text is not such a version. */
int gcsim_nccl_version_code(const char *text);

#endif
