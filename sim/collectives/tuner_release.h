/*
 * sim/collectives/tuner_release.h: NCCL's tuning model of an older release where it differs
 * from the current one (tuner_model.c). Today: the 2.8 and 2.9 series (2.8.3 to 2.9.9,
 * one tuning.cc in what gcsim models: tuner_release.c), whose
 * latency tables, protocol efficiencies, per-channel LL128 caps, tree correction and LL128
 * default rule differ from the current tables (tuner_release.c gives each figure's tag and
 * line). A release outside the listed ones, or 0 (no "nccl_version"), takes the current
 * model: every function here then returns what its tuner_model.c counterpart returns.
 */
#ifndef GCSIM_TUNER_RELEASE_H
#define GCSIM_TUNER_RELEASE_H

#include <stdbool.h>

#include "collectives.h"
#include "protocol.h"
#include "tuner_model.h"

/* Whether release nccl_version (NCCL_VERSION_CODE) tunes with the 2.8 tables (2.8.3 <=
 * release < 2.10.0: 2.9 kept them). */
bool gcsim_nccl_release_2_8(int nccl_version);

/* gcsim_nccl_latency_of with release nccl_version's tables. */
void gcsim_nccl_latency_of_release(int nccl_version, gcsim_nccl_algo a, gcsim_protocol pr,
                                   gcsim_op op, bool nvlink_node, int gpus, int nodes,
                                   gcsim_nccl_latency *out);
/* gcsim_nccl_tree_correction with the release's table. */
double gcsim_nccl_tree_correction_release(int nccl_version, gcsim_protocol pr, double bytes);
/* gcsim_nccl_tree_bw_factor with the release's efficiencies. */
double gcsim_nccl_tree_bw_factor_release(int nccl_version, gcsim_protocol pr, int nodes);
/* gcsim_nccl_ring_bw_factor with the release's efficiencies, for operation op on `nodes`
 * nodes of ppn GPUs (2.8: LL 1/4, 1/3 for a one-node all-gather, reduce-scatter or
 * broadcast; LL128 0.92, 0.7 with one GPU per node). */
double gcsim_nccl_ring_bw_factor_release(int nccl_version, gcsim_protocol pr, gcsim_op op,
                                         int nodes, int ppn);
/* gcsim_nccl_ring_plateau_factor with the release's factor (2.8: 1.9 on every GPU). */
double gcsim_nccl_ring_plateau_factor_release(int nccl_version, gcsim_nccl_algo a,
                                              gcsim_protocol pr, gcsim_op op, bool pre_ampere,
                                              int gpus, int nodes, double bytes);
/* Whether the release turns LL128 on by default for GPU type gpu_type on a node whose GPUs
 * talk over NVLink (2.8: only where every GPU is of compute capability 7.0 or every one
 * 8.0; the current release: always). */
bool gcsim_nccl_ll128_default_release(int nccl_version, const char *gpu_type);
/* Whether the release turns LL128 on by default across nodes whose NICs the GPU reaches over
 * NVLink-C2C and the CPU's PCIe (nic.attach "cpu-c2c": GB200, GH200): not before 2.27.3,
 * where that path is PATH_PHB, beyond LL128's PATH_PXN; from 2.27.3 (path PATH_P2C) and
 * with the current tables (nccl_version 0), yes. */
bool gcsim_nccl_ll128_over_c2c_release(int nccl_version);
/* NCCL's caps for GPU type gpu_type under release nccl_version on `nodes` nodes with
 * `channels` channels: 2.8's tables, or (any other release) gcsim_nccl_caps_of_release's. */
void gcsim_nccl_release_caps(const char *gpu_type, int nccl_version, int nodes, int channels,
                             gcsim_nccl_caps *out);

#endif
