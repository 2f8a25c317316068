/*
 * sim/codec/gpu_params.c: the GPU figures the codec model needs, per GPU type of the
 * platform catalog (the platforms folder, key gpu.type).
 *
 * Memory bandwidth and fp32 FLOP/s are vendor peak figures (datasheet or spec sheet, named
 * per row); what a codec kernel reaches is lower (docs/codec.md shows the sensitivity).
 * Launch latency is measured, on an H100 and an H200 host: bench/gpu/results/h100-codec.json,
 * references.launch_latency.per_call_us_enqueue_only = 10.656 us (PyTorch 1-element op,
 * 20,000 calls, host clock; docs/gpu-measurements.md), 9.952 us on the H200's host. A
 * sequential codec whose kernels are short waits for each launch, so it pays this per
 * kernel. Kernel launch is a host and driver cost more than a GPU one; the H100 host's
 * figure is used for every other type, an assumption docs/codec.md states.
 * SMs per type (the last column): datasheets and architecture whitepapers, named per row
 * (derived from CUDA cores / cores per SM where so written); the interference of a collective
 * with compute uses them (sim/step/interference.c).
 */
#include <stdio.h>
#include <string.h>

#include "codec.h"

#define LAUNCH_MEASURED_H100_S 10.656e-6
#define LAUNCH_SOURCE "launch 10.656 us: measured, H100 host, PyTorch op enqueue " \
                      "(bench/gpu/results/h100-codec.json), assumed for every GPU type"

static const gcsim_gpu_params catalog[] = {
    {"h100", 3350e9, 67e12, LAUNCH_MEASURED_H100_S,
     "NVIDIA H100 SXM datasheet: 3.35 TB/s HBM3, 67 TFLOP/s fp32; " LAUNCH_SOURCE,
     /* H100 SXM5: 132 SMs, NVIDIA H100 Tensor Core GPU Architecture whitepaper */
     132},
    /* The H200 host's own launch figure: bench/gpu/results/h200-codec.json,
     * references.launch_latency.per_call_us_enqueue_only = 9.952 us (same op and count). */
    {"h200", 4800e9, 67e12, 9.952e-6,
     "NVIDIA H200 SXM datasheet: 4.8 TB/s HBM3e, 67 TFLOP/s fp32; launch 9.952 us: measured, "
     "H200 host, PyTorch op enqueue (bench/gpu/results/h200-codec.json)",
     /* H200 SXM: 132 SMs, the same GH100 configuration as H100 SXM5 */
     132},
    {"a100", 2039e9, 19.5e12, LAUNCH_MEASURED_H100_S,
     "NVIDIA A100 80GB SXM datasheet: 2,039 GB/s HBM2e, 19.5 TFLOP/s fp32; " LAUNCH_SOURCE,
     /* A100: 108 SMs, NVIDIA A100 Tensor Core GPU Architecture whitepaper */
     108},
    {"v100", 900e9, 15.7e12, LAUNCH_MEASURED_H100_S,
     "NVIDIA V100 SXM2 datasheet: 900 GB/s HBM2, 15.7 TFLOP/s fp32; " LAUNCH_SOURCE,
     /* V100: 80 SMs, NVIDIA Tesla V100 GPU Architecture whitepaper */
     80},
    {"p100", 732e9, 10.6e12, LAUNCH_MEASURED_H100_S,
     "NVIDIA Tesla P100 SXM2 datasheet: 732 GB/s HBM2, 10.6 TFLOP/s fp32; " LAUNCH_SOURCE,
     /* P100: 56 SMs, NVIDIA Tesla P100 whitepaper */
     56},
    {"p40", 346e9, 11.76e12, LAUNCH_MEASURED_H100_S,
     "NVIDIA Tesla P40 datasheet: 346 GB/s GDDR5, 11.76 TFLOP/s fp32; " LAUNCH_SOURCE,
     /* Tesla P40: 3,840 CUDA cores / 128 per SM = 30 SMs */
     30},
    /* Titan Xp spec page: 3840 CUDA cores, 1582 MHz boost, 384-bit GDDR5X at 11.4 Gb/s per
     * pin: 384 / 8 x 11.4e9 = 547.2 GB/s; 3840 x 1582 MHz x 2 = 12.15 TFLOP/s (derived). */
    {"titan-xp", 547.2e9, 12.15e12, LAUNCH_MEASURED_H100_S,
     "NVIDIA Titan Xp spec: 384-bit GDDR5X at 11.4 Gb/s = 547.2 GB/s, 3840 cores x 1582 MHz "
     "x 2 = 12.15 TFLOP/s fp32 (derived); " LAUNCH_SOURCE,
     /* TITAN Xp: 3,840 CUDA cores / 128 per SM = 30 SMs */
     30},
    /* GTX 1080 spec page: 2560 CUDA cores, 1733 MHz boost, 256-bit GDDR5X at 10 Gb/s:
     * 320 GB/s; 2560 x 1733 MHz x 2 = 8.87 TFLOP/s (derived). */
    {"gtx1080", 320e9, 8.87e12, LAUNCH_MEASURED_H100_S,
     "NVIDIA GeForce GTX 1080 spec: 256-bit GDDR5X at 10 Gb/s = 320 GB/s, 2560 cores x "
     "1733 MHz x 2 = 8.87 TFLOP/s fp32 (derived); " LAUNCH_SOURCE,
     /* GeForce GTX 1080: 2,560 CUDA cores / 128 per SM = 20 SMs */
     20},
    /* GeForce RTX 2080 Ti (TU102) spec: 352-bit GDDR6 at 14 Gb/s = 616 GB/s; 4352 cores,
     * 13.45 TFLOP/s fp32 at the reference boost clock. */
    {"rtx2080ti", 616e9, 13.45e12, LAUNCH_MEASURED_H100_S,
     "NVIDIA GeForce RTX 2080 Ti spec (TechPowerUp-style spec pages): 352-bit GDDR6, 616 GB/s, "
     "13.45 TFLOP/s fp32; " LAUNCH_SOURCE,
     /* GeForce RTX 2080 Ti: 4,352 CUDA cores / 64 per SM = 68 SMs */
     68},
    /* GeForce RTX 3090 (GA102): NVIDIA Ampere GA102 architecture whitepaper and RTX 3090
     * spec: 384-bit GDDR6X at 19.5 Gb/s = 936 GB/s; 10496 cores x 1695 MHz boost x 2 =
     * 35.6 TFLOP/s fp32 (TF32 tensor, dense, is the same 35.6 on GeForce). */
    {"rtx3090", 936e9, 35.6e12, LAUNCH_MEASURED_H100_S,
     "NVIDIA GeForce RTX 3090 spec (GA102 whitepaper): 384-bit GDDR6X at 19.5 Gb/s = 936 GB/s, "
     "10496 cores x 1695 MHz x 2 = 35.6 TFLOP/s fp32; " LAUNCH_SOURCE,
     /* GeForce RTX 3090: 10,496 CUDA cores / 128 per SM = 82 SMs */
     82},
    /* NVIDIA A40 datasheet: 48 GB GDDR6 with ECC, 696 GB/s, 37.4 TFLOP/s fp32 (TF32 tensor
     * 74.8 dense), PCIe 4.0 x16. */
    {"a40", 696e9, 37.4e12, LAUNCH_MEASURED_H100_S,
     "NVIDIA A40 datasheet: 696 GB/s GDDR6, 37.4 TFLOP/s fp32; " LAUNCH_SOURCE,
     /* NVIDIA A40 datasheet: 10,752 CUDA cores / 128 per SM = 84 SMs */
     84},
    /* GB200's Blackwell GPU (platforms/gb200-nvl72.json, issue 42): NVIDIA GB200 NVL72
     * datasheet per rack of 72 GPUs: 576 TB/s HBM3e = 8 TB/s, FP32 6,480 TFLOP/s = 90 TFLOP/s
     * per GPU (glennklockwood.com/garden/processors/B200: FP32 VFMA 90 TFLOP/s, GB200 at
     * 1,200 W). No GB200 host was measured: the H100 host's launch latency. */
    {"gb200", 8000e9, 90e12, LAUNCH_MEASURED_H100_S,
     "NVIDIA GB200 NVL72 datasheet: 576 TB/s HBM3e and 6,480 TFLOP/s fp32 per 72 GPUs = "
     "8 TB/s, 90 TFLOP/s fp32 per GPU; " LAUNCH_SOURCE,
     /* B200: 148 SMs (2 dies of 74 enabled), as reported for the Blackwell B200 (not
      * found in an NVIDIA document here: an assumption for the interference share) */
     148},
};
#define N_TYPES (sizeof catalog / sizeof catalog[0])

const char *const *gcsim_gpu_types(void)
{
    static const char *names[N_TYPES + 1];
    for (size_t i = 0; i < N_TYPES; i++)
        names[i] = catalog[i].type;
    names[N_TYPES] = NULL;
    return names;
}

int gcsim_gpu_params_find(const char *type, const gcsim_gpu_params **out, gcsim_error *err)
{
    /* the type found last is checked first: a sweep asks for the same one per call */
    static _Thread_local const gcsim_gpu_params *last;
    if (last && strcmp(last->type, type) == 0) {
        *out = last;
        return 0;
    }
    for (size_t i = 0; i < N_TYPES; i++)
        if (strcmp(catalog[i].type, type) == 0) {
            *out = last = &catalog[i];
            return 0;
        }
    char known[256] = "";
    for (size_t i = 0; i < N_TYPES; i++) {
        strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
        strncat(known, catalog[i].type, sizeof known - strlen(known) - 1);
    }
    return gcsim_fail(err, "codec model: no memory bandwidth, fp32 FLOP/s or launch latency "
                           "known for GPU type \"%s\" (known: %s); give the platform a "
                           "gpu.codec_profile that has this compressor",
                      type, known);
}
