/*
 * sim/step/interference.c: how much of the GPU a collective in flight takes from the
 * compute it overlaps (step.h, gcsim_step_interference; docs/formats.md,
 * "Compute-communication interference").
 *
 * The mechanism: NCCL runs a collective as a kernel of one thread block (CTA) per channel,
 * and a block holds its SM for the whole call, never sharing it with a compute kernel
 * (NVIDIA/nccl#689, S. Jeaugey, 2023-08-14: "NCCL CTAs won't share an SM with compute
 * kernels"). Compute overlapped with a call therefore runs on SMs - CTAs of the SMs:
 * s = CTAs / SMs, for SM-bound work (derived). Memory-bound work loses HBM bandwidth as
 * well (NVIDIA/nccl#1428: an A100's attention kernel 0.18 -> 0.33 ms, GEMM 1.18 -> 2.08 ms
 * beside an all-gather; NVIDIA/nccl#1433), and a GEMM sized to one wave of all SMs gets a
 * second wave (NVIDIA developer forum, "Compute-communication overlap causes severe GEMM
 * performance degradation because of tail effect", 2025: an H100's 132-block GEMM nearly
 * twice as long beside a 24-block all-gather), so the SM share is the mechanism's lower
 * bound. Lee et al., "Characterizing Compute-Communication Overlap in GPU-Accelerated
 * Distributed Deep Learning" (arXiv 2507.03114, 2025) measured GPT and LLaMA training on
 * 4 A100, H100, MI250 and MI210: compute overlapped with communication 18.9% slower on
 * average (40.0% at most), i.e. s = 1 - 1/1.189 = 0.159 (measured, over those GPUs) -
 * next to the derived H100 default here, 16/132 = 0.121.
 *
 * CTAs (derived): NCCL uses "the minimal number of SMs to achieve the performance of the
 * platform ... a PCI system with a single NIC ... 2 SMs ... DGX with 8 NICs ... 16 SMs"
 * (NVIDIA/nccl#689, S. Jeaugey, 2023): 2 channels per NIC of the node, or the platform's
 * nic.channels per NIC where its transport states them; at most 32 (NCCL's MAXCHANNELS
 * before 2.19; NVLS on sm90 uses 16 channels, src/transport/nvls.cc NVLS_NCHANNELS_SM90).
 * SMs: the GPU type's, from NVIDIA's datasheets and architecture whitepapers (the
 * sms column of sim/codec/gpu_params.c, one table of GPU types).
 */
#include "codec.h"
#include "collectives.h"
#include "step.h"

/* SMs of the platform's gpu.type: the GPU-type table's (sim/codec/gpu_params.c, its
 * sms column, each with its datasheet); 0 for a type it does not know (no default). */
static int gpu_sms(const char *type)
{
    const gcsim_gpu_params *g;
    gcsim_error unknown; /* not an error here: no interference is derived */
    return gcsim_gpu_params_find(type, &g, &unknown) == 0 ? g->sms : 0;
}

#define NCCL_CHANNELS_PER_NIC 2 /* NVIDIA/nccl#689 (derived, above) */
#define NCCL_MAX_CTAS 32

double gcsim_platform_interference(const gcsim_platform *p)
{
    if (p->gpu.comm_interference >= 0)
        return p->gpu.comm_interference; /* stated, or 0: off */
    int sms = gpu_sms(p->gpu.type);
    if (sms <= 0)
        return 0.0;
    int per_nic = p->nic.channels > 0 ? p->nic.channels : NCCL_CHANNELS_PER_NIC;
    /* the NICs NCCL opens channels on (gcsim_topology_net_channels: all of the node's,
     * except on NVSwitch nodes whose NVLink total a few NICs already reach) */
    int nics = p->nic.per_node > 0 ? gcsim_topology_net_channels(p) : 1;
    int ctas = per_nic * nics;
    if (ctas > NCCL_MAX_CTAS)
        ctas = NCCL_MAX_CTAS;
    return ctas >= sms ? 0.9 : (double)ctas / sms;
}

double gcsim_step_interference(const gcsim_scenario *s)
{
    /* A parameter server's and the papers' patterns' GPUs copy to and from host memory
     * (copy engines, no kernel holding SMs); a lone GPU exchanges nothing. */
    if (!s->platform || gcsim_collective_is_paper_pattern(s->collective) ||
        gcsim_collective_exchange(s->collective) == GCSIM_EXCHANGE_PS ||
        s->placement.gpus <= 1)
        return 0.0;
    return gcsim_platform_interference(s->platform);
}
