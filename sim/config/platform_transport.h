/*
 * sim/config/platform_transport.h: the transport keys of a platform's NIC and the PCIe
 * topology of its nodes (platform_transport.c has the defaults and their sources).
 */
#ifndef GCSIM_CONFIG_PLATFORM_TRANSPORT_H
#define GCSIM_CONFIG_PLATFORM_TRANSPORT_H

#include "json_strict.h"
#include "platform.h"

/* $.nic's transport keys (the other keys are platform.c's). */
int gcsim_platform_parse_transport(const cJSON *nic, gcsim_platform *p, json_ctx *ctx);
/* One core's socket throughput, one direction, at an Ethernet MTU: the default of
 * nic.stream_bandwidth and nic.thread_bandwidth (platform_transport.c has the sources). */
double gcsim_tcp_core_Bps(int mtu);
/* The default nic.message_overhead of transport "efa": what aws-ofi-nccl says a network step
 * costs (75 us with GPUDirect RDMA, 150 us without) less nic.latency, at least 0. */
double gcsim_efa_message_overhead_s(bool gpudirect, double nic_latency_s);
/* $.intra_node.pcie and $.intra_node.host_memory_bandwidth, after the kind is known. */
int gcsim_platform_parse_pcie(const cJSON *intra_node, gcsim_platform *p, json_ctx *ctx);

/* intra_node.pcie.p2p_level ("pxb" default, "sys"): which GPU pairs NCCL lets peer
 * (platform_pcie_shm.c). */
int gcsim_platform_parse_p2p_level(const cJSON *pcie, const char *path, gcsim_platform *p,
                                   json_ctx *ctx);
/* $.intra_node.pcie.shm_efficiency (platform_pcie_shm.c), after p2p and p2p_level are
 * known; pcie may be NULL (the default for the platform's P2P). */
int gcsim_platform_parse_shm(const cJSON *pcie, const char *path, gcsim_platform *p,
                             json_ctx *ctx);

#endif
