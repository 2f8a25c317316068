/*
 * sim/config/platform_pcie_shm.c: what NCCL's SHM transport gets of a PCIe link
 * (intra_node.pcie.shm_efficiency; docs/formats.md, "Transports and PCIe topology";
 * issue 42, "PCIe-only servers").
 *
 * Mechanism (NVIDIA/nccl 5067397, src/transport/shm.cc, shmSendConnect/shmRecvConnect):
 * where two GPUs cannot peer (pcie.p2p false; NCCL also refuses P2P beyond PATH_PXB, i.e.
 * through a CPU host bridge or between sockets, except between the 2 GPUs of an AMD host:
 * src/graph/paths.cc, ncclTopoCheckP2p, "int p2pLevel = PATH_PXB"), NCCL connects them
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
 * Limits: the fraction applies to every flow on a PCIe link of a platform without P2P, also
 * to a DMA copy to host memory in the same step (a parameter server's, a codec's host
 * copy), which it makes pessimistic; host memory and the socket link are not scaled (the
 * platform states their rates); NCCL_SHM_USE_CUDA_MEMCPY (copy engines through a proxy)
 * is not modelled: such a platform states 1.
 */
#include "platform.h"
#include "platform_transport.h"

/* NVIDIA/nccl#406 (sjeaugey, 2020-10-14): SHM 9 GB/s against 12 GB/s through a PCIe
 * switch's NIC path, on PCIe 3.0 x16 servers. Derived. */
#define SHM_OVER_DMA (9.0 / 12.0)

int gcsim_platform_parse_shm(const cJSON *pcie, const char *path, gcsim_platform *p,
                             json_ctx *ctx)
{
    p->intra.shm_efficiency = p->intra.p2p_off ? SHM_OVER_DMA : 1.0;
    if (!pcie)
        return 0;
    if (!p->intra.p2p_off && json_member(pcie, "shm_efficiency"))
        return gcsim_fail(ctx->err, "%s: %s.shm_efficiency: only used with p2p false (copies "
                                    "staged through host memory by NCCL's SHM transport)",
                          ctx->origin, path);
    return json_number(pcie, path, "shm_efficiency", false, 0.05, 1.0,
                       &p->intra.shm_efficiency, ctx);
}

double gcsim_platform_pcie_shm_scale(const gcsim_platform *p)
{
    double e = p->intra.shm_efficiency;
    /* a platform built in code (zeroed) or with P2P: DMA rates, as written */
    if (!p->intra.p2p_off || !(e > 0) || e > 1)
        return 1.0;
    return e;
}
