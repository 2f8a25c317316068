/*
 * tests/collectives/test_platforms.h: the two hand-checkable clusters the collectives' tests
 * compute by hand.
 *
 * Platform U: 4 nodes x 4 GPUs, PCIe switch 10 GB/s per GPU port, PCIe to host 12.5 GB/s,
 * intra latency 5 us; one 1 Gb/s (125e6 B/s) Ethernet NIC per node, 50 us; star, no
 * switch latency. Platform R: 2 nodes x 8 GPUs on NVSwitch (300 GB/s, 5 us), 8 NICs of
 * 25 GB/s (200 Gb/s) per node, 1 us, star with 0.13 us switches: one NIC per GPU (rails).
 */
#ifndef GCSIM_TEST_COLLECTIVES_PLATFORMS_H
#define GCSIM_TEST_COLLECTIVES_PLATFORMS_H

#include "../des/des_test_platform.h"

static inline gcsim_platform platform_u(void)
{
    gcsim_platform p = des_test_platform(4, 4);
    p.intra.gpu_to_host_Bps = 12.5e9;
    p.intra.gpu_to_gpu_Bps = 10e9;
    p.intra.latency_s = 5e-6;
    p.nic.bandwidth_Bps = 125e6;
    p.nic.latency_s = 50e-6;
    return p;
}

static inline gcsim_platform platform_r(void)
{
    gcsim_platform p = platform_u();
    p.nodes = 2;
    p.gpus_per_node = 8;
    p.intra.kind = INTRA_NVSWITCH;
    p.intra.gpu_to_host_Bps = 31.5e9;
    p.intra.gpu_to_gpu_Bps = 300e9;
    p.nic.kind = NIC_INFINIBAND;
    p.nic.bandwidth_Bps = 25e9;
    p.nic.latency_s = 1e-6;
    p.nic.per_node = 8;
    p.fabric.switch_latency_s = 0.13e-6;
    return p;
}

#endif
