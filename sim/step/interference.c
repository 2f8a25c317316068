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
 * SMs: the GPU type's, from NVIDIA's datasheets and architecture whitepapers.
 */
#include <string.h>

#include "step.h"

/* SMs per GPU type (the platform's gpu.type); 0: not known, no default. */
static int gpu_sms(const char *type)
{
    static const struct {
        const char *type;
        int sms;
    } table[] = {
        {"h100", 132},     /* H100 SXM5: NVIDIA H100 Tensor Core GPU Architecture whitepaper */
        {"h200", 132},     /* H200 SXM: the same GH100 configuration as H100 SXM5 */
        {"a100", 108},     /* NVIDIA A100 Tensor Core GPU Architecture whitepaper */
        {"v100", 80},      /* NVIDIA Tesla V100 GPU Architecture whitepaper */
        {"a40", 84},       /* NVIDIA A40 datasheet: 10,752 CUDA cores / 128 per SM */
        {"rtx3090", 82},   /* GeForce RTX 3090: 10,496 CUDA cores / 128 per SM */
        {"rtx2080ti", 68}, /* GeForce RTX 2080 Ti: 4,352 CUDA cores / 64 per SM */
        {"p100", 56},      /* NVIDIA Tesla P100 whitepaper */
        {"p40", 30},       /* Tesla P40: 3,840 CUDA cores / 128 per SM */
        {"titan-xp", 30},  /* TITAN Xp: 3,840 CUDA cores / 128 per SM */
        {"gtx1080", 20},   /* GeForce GTX 1080: 2,560 CUDA cores / 128 per SM */
    };
    for (size_t k = 0; k < sizeof table / sizeof table[0]; k++)
        if (strcmp(table[k].type, type) == 0)
            return table[k].sms;
    return 0;
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
    int nics = p->nic.per_node > 0 ? p->nic.per_node : 1;
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
