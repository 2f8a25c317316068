/*
 * sim/config/platform_nvlink_domain.h: an NVLink domain larger than a node (GB200 NVL72
 * class), read from a platform's "nvlink_domain" key (docs/formats.md, "NVLink domains
 * across nodes"; the rules and their sources are in platform_nvlink_domain.c).
 */
#ifndef GCSIM_CONFIG_PLATFORM_NVLINK_DOMAIN_H
#define GCSIM_CONFIG_PLATFORM_NVLINK_DOMAIN_H

#include "json_strict.h"
#include "platform.h"

/* The most GPUs one NVLink domain joins: NVIDIA's NVLink Switch system scales NVLink 5 to
 * 576 GPUs in one non-blocking domain (platform_nvlink_domain.c). */
#define GCSIM_NVLINK_DOMAIN_MAX_GPUS 576

/* $.nvlink_domain, after the rest of the platform is read and checked: validates it and,
 * when present, makes the domain gcsim's node (p->gpus_per_node, p->nodes, p->nic.per_node
 * and a fat tree's nodes_per_leaf count domains from then on; p->nvlink_domain keeps the
 * hosts the file describes). Absent: nothing changes. */
int gcsim_platform_parse_nvlink_domain(const cJSON *root, gcsim_platform *p, json_ctx *ctx);

#endif
