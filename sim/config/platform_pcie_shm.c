/*
 * sim/config/platform_pcie_shm.c: what NCCL's SHM transport gets of a PCIe link
 * (intra_node.pcie.shm_efficiency; docs/formats.md, "Transports and PCIe topology";
 * issue 42, "PCIe-only servers").
 *
 * Mechanism (NVIDIA/nccl 5067397, src/transport/shm.cc, shmSendConnect/shmRecvConnect):
 * where two GPUs cannot peer (pcie.p2p false, or pcie.p2p_level below), NCCL connects them
 * through pinned host memory: both sides' conn.buffs point into one host buffer (the
 * receiver's by default, NCCL_SHM_LOCALITY = SHM_RECV_SIDE), the sender's kernel stores
 * its chunk there and the receiver's kernel loads it. Both are SM loads and stores crossing PCIe in
 * small transactions, not the copy engines' DMA bursts that a copy test (bandwidthTest,
 * p2pBandwidthLatencyTest with P2P disabled, which stages through the driver's DMA) or
 * NCCL's own network path through a PCIe switch reaches. So a staged hop gets a fraction
 * of the rate a DMA copy gets on every PCIe link it crosses: the GPU's own link and any
 * switch uplink, which the stores and loads of every GPU behind the switch share.
 *
 * Default 0.75 (derived): NCCL's maintainer on PCIe 3.0 servers: with GPUs under PCIe
 * switches and a NIC per switch, going through the NICs "you would always stay within the
 * PCI switch and achieve 12GB/s instead of 9 or 6" through SHM (sjeaugey, NVIDIA/nccl#406,
 * 2020-10-14): 9 GB/s for SHM inside a socket against 12 GB/s for DMA on the same links,
 * 9 / 12 = 0.75 of the DMA rate (the 6 is across sockets, where pcie.socket_link binds).
 * So the default suits a platform whose gpu_to_host (and switch_uplink) are DMA rates, as
 * measured by bandwidthTest or p2pBandwidthLatencyTest; a platform that states PCIe's
 * nominal rate (15.75 GB/s for 3.0 x16) states 9 / 15.75 = 0.571 itself.
 *
 * Which pairs NCCL stages (intra_node.pcie.p2p_level): even GPUs that can peer are only
 * let peer up to a path type (NVIDIA/nccl 5067397, src/graph/paths.cc, ncclTopoCheckP2p:
 * "int p2pLevel = PATH_PXB", with the comment "By default don't use P2P across CPU Host
 * Bridges and further apart"; raised to PATH_SYS only on an AMD host with at most 2 GPUs,
 * or by NCCL_P2P_LEVEL): GPUs behind one PCIe switch (PIX/PXB) peer through it; GPUs on
 * different switches or on the root ports of one CPU (PHB) or of two sockets (SYS) go
 * through SHM, as if P2P were off. Where the platform describes its PCIe ("pcie" given),
 * "pxb" is the default: a platform says "sys" for an AMD host of 2 GPUs or a run that sets
 * NCCL_P2P_LEVEL=SYS. Without "pcie" the node is one flat switch and every pair peers.
 *
 * Limits: the fraction applies to every flow on a PCIe link of a platform where some pair
 * stages (p2p false, or "pxb" with GPUs on different switches), also to a pair that peers
 * behind one switch (pessimistic for it; every validation platform has p2p false), and
 * to a DMA copy to host memory in the same step (a parameter server's, a codec's host
 * copy), which it makes pessimistic; host memory and the socket link are not scaled (the
 * platform states their rates); NCCL_SHM_USE_CUDA_MEMCPY (copy engines through a proxy)
 * is not modelled: such a platform states 1. A measured shm_bandwidth (below) caps the
 * same links and so has the same limits.
 *
 * Both directions at once (intra_node.pcie.h2d_bidirectional, optional): a staged ring
 * sends and receives on every GPU link and uplink at the same time, the stores going up
 * as posted writes and the loads' read completions coming down. On some hosts a link's
 * host-to-GPU direction collapses while GPU-to-host traffic runs: nvbandwidth's
 * host_to_device_bidirectional_memcpy_ce (a host-to-GPU copy measured while a GPU-to-host
 * copy runs) reads 12-13 GB/s on an A100 PCIe 4.0 host whose one-way copies reach 25-26
 * (NVIDIA/nvbandwidth#11, 2023-11-29) and 11.24, 14.42 and 16.x GB/s on an 8 x RTX 4090
 * host whose one-way copies reach 23.9-26.4 (NVIDIA/nvbandwidth#15, 2024-01-06), while
 * an 8 x RTX 5090 PCIe 5.0 host keeps 50.9 of 56.3 (tinygrad/open-gpu-kernel-modules#29).
 * So it is a property of the host, measured, not derived from the link's generation: a
 * platform that states it gets shm_efficiency x min(link rate, h2d_bidirectional) on every
 * staged link (gcsim_platform_pcie_shm_link_Bps), shm_efficiency then being the SHM share
 * of a DMA rate (0.75, the default). Not stated: no cap, as before. The read direction's
 * collapse is applied to both directions of the link (a ring loads them equally, so the
 * slower one sets its pace) and to an uplink as to a GPU's own link (the root port it
 * enters is where the measurement was taken). docs/collectives.md, "PCIe-only servers", has
 * what the validation rows show.
 *
 * The host's SHM rate measured (intra_node.pcie.shm_bandwidth, optional): the rule above
 * misses by host. Two RTX 4090 hosts whose links the rule rates alike (10.8 GB/s) move
 * 3.85 and 14.5 GB/s per link through SHM (kalavai-client scripts/README.md: a pair across
 * sockets; blog.chlc.cc: 8 GPUs on their own root ports): the SM loads from host memory
 * that carry it are set by the host (its read latency, the loads in flight), which no
 * source gives. Where a host's own run measures it (an all_reduce of two GPUs that share
 * no PCIe link: busbw = one staged link's rate each way), the platform states that rate
 * and every staged link carries min(its rate, shm_bandwidth), no DMA share taken; stating
 * shm_efficiency or h2d_bidirectional beside it is refused (two descriptions of one rate).
 */
#include <string.h>

#include "platform.h"
#include "platform_transport.h"

/* NVIDIA/nccl#406 (sjeaugey, 2020-10-14): SHM 9 GB/s against 12 GB/s through a PCIe
 * switch's NIC path, on PCIe 3.0 x16 servers. Derived. */
#define SHM_OVER_DMA (9.0 / 12.0)

int gcsim_platform_parse_p2p_level(const cJSON *pcie, const char *path, gcsim_platform *p,
                                   json_ctx *ctx)
{
    char level[8] = "pxb";
    p->intra.p2p_switch_only = false;
    if (json_string(pcie, path, "p2p_level", false, level, sizeof level, ctx))
        return -1;
    if (p->intra.p2p_off && json_member(pcie, "p2p_level"))
        return gcsim_fail(ctx->err, "%s: %s.p2p_level: only used with p2p true (which GPU "
                                    "pairs NCCL lets peer)", ctx->origin, path);
    if (strcmp(level, "pxb") != 0 && strcmp(level, "sys") != 0)
        return gcsim_fail(ctx->err, "%s: %s.p2p_level: expected \"pxb\" (NCCL's default: P2P "
                                    "only behind one PCIe switch) or \"sys\" (every pair), "
                                    "got \"%s\"", ctx->origin, path, level);
    p->intra.p2p_switch_only = !p->intra.p2p_off && strcmp(level, "pxb") == 0;
    return 0;
}

bool gcsim_platform_pair_staged(const gcsim_platform *p, int a, int b)
{
    if (a == b || p->intra.kind != INTRA_PCIE_SWITCH)
        return false;
    if (p->intra.p2p_off)
        return true;
    if (!p->intra.p2p_switch_only)
        return false;
    int per = p->intra.gpus_per_switch;
    /* no switch: each GPU on a root port, every pair through a host bridge (PHB or SYS) */
    return per <= 0 || a / per != b / per;
}

bool gcsim_platform_intra_shm(const gcsim_platform *p)
{
    if (p->intra.kind != INTRA_PCIE_SWITCH)
        return false;
    if (p->intra.p2p_off)
        return true;
    int per = p->intra.gpus_per_switch;
    return p->intra.p2p_switch_only && p->gpus_per_node > (per > 0 ? per : 1);
}

int gcsim_platform_parse_shm(const cJSON *pcie, const char *path, gcsim_platform *p,
                             json_ctx *ctx)
{
    p->intra.shm_efficiency = gcsim_platform_intra_shm(p) ? SHM_OVER_DMA : 1.0;
    p->intra.h2d_bidirectional_Bps = 0;
    p->intra.shm_bandwidth_Bps = 0;
    if (!pcie)
        return 0;
    if (!gcsim_platform_intra_shm(p) && json_member(pcie, "shm_efficiency"))
        return gcsim_fail(ctx->err, "%s: %s.shm_efficiency: only used where GPUs copy through "
                                    "host memory (NCCL's SHM transport): p2p false, or "
                                    "p2p_level \"pxb\" with pairs on different switches",
                          ctx->origin, path);
    if (!gcsim_platform_intra_shm(p) && json_member(pcie, "h2d_bidirectional"))
        return gcsim_fail(ctx->err, "%s: %s.h2d_bidirectional: only used where GPUs copy "
                                    "through host memory (NCCL's SHM transport): p2p false, "
                                    "or p2p_level \"pxb\" with pairs on different switches",
                          ctx->origin, path);
    if (!gcsim_platform_intra_shm(p) && json_member(pcie, "shm_bandwidth"))
        return gcsim_fail(ctx->err, "%s: %s.shm_bandwidth: only used where GPUs copy through "
                                    "host memory (NCCL's SHM transport): p2p false, or "
                                    "p2p_level \"pxb\" with pairs on different switches",
                          ctx->origin, path);
    /* a measured SHM rate is the whole answer for a staged link: a share of a DMA rate
     * beside it would describe the same thing twice */
    if (json_member(pcie, "shm_bandwidth") &&
        (json_member(pcie, "shm_efficiency") || json_member(pcie, "h2d_bidirectional")))
        return gcsim_fail(ctx->err, "%s: %s.shm_bandwidth: a measured SHM rate replaces "
                                    "shm_efficiency and h2d_bidirectional; give it or them, "
                                    "not both", ctx->origin, path);
    if (json_rate_Bps(pcie, path, "shm_bandwidth", false, &p->intra.shm_bandwidth_Bps, ctx))
        return -1;
    if (json_rate_Bps(pcie, path, "h2d_bidirectional", false, &p->intra.h2d_bidirectional_Bps,
                      ctx))
        return -1;
    return json_number(pcie, path, "shm_efficiency", false, 0.05, 1.0,
                       &p->intra.shm_efficiency, ctx);
}

double gcsim_platform_pcie_shm_scale(const gcsim_platform *p)
{
    double e = p->intra.shm_efficiency;
    /* a platform built in code (zeroed) or with P2P: DMA rates, as written */
    if (!gcsim_platform_intra_shm(p) || !(e > 0) || e > 1)
        return 1.0;
    return e;
}

double gcsim_platform_pcie_shm_link_Bps(const gcsim_platform *p, double link_Bps,
                                        double bidir_Bps)
{
    if (!gcsim_platform_intra_shm(p))
        return link_Bps; /* DMA or peer copies: the link's rate as written */
    /* the host's SHM rate, measured: no share of a DMA rate to take */
    if (p->intra.shm_bandwidth_Bps > 0)
        return p->intra.shm_bandwidth_Bps < link_Bps ? p->intra.shm_bandwidth_Bps : link_Bps;
    /* both directions of a staged link loaded at once: the host's bidirectional rate */
    double rate = bidir_Bps > 0 && bidir_Bps < link_Bps ? bidir_Bps : link_Bps;
    return rate * gcsim_platform_pcie_shm_scale(p);
}
