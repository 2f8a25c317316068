/*
 * tests/des/des_test_platform.h: a uniform platform built in code for the DES validation
 * tests (no file loading, so the arithmetic in the tests can name every figure).
 */
#ifndef GCSIM_TESTS_DES_PLATFORM_H
#define GCSIM_TESTS_DES_PLATFORM_H

#include <string.h>

#include "platform.h"

/* nodes x gpus_per_node GPUs of 1 Tflop/s; PCIe switch at 100 GB/s both ways with 1 us per
 * intra-node transfer; one 10 Gb/s (1.25e9 B/s) Ethernet NIC per node with C_ncost = 20 us;
 * a single switch without latency. */
static inline gcsim_platform des_test_platform(int nodes, int gpus_per_node)
{
    gcsim_platform p;
    memset(&p, 0, sizeof p);
    strcpy(p.name, "uniform-star");
    strcpy(p.source_path, "<des test platform>");
    strcpy(p.gpu.type, "testgpu");
    p.nodes = nodes;
    p.gpus_per_node = gpus_per_node;
    p.gpu.speed_flops = 1e12;
    p.intra.kind = INTRA_PCIE_SWITCH;
    p.intra.gpu_to_host_Bps = 100e9;
    p.intra.gpu_to_gpu_Bps = 100e9;
    p.intra.latency_s = 1e-6;
    p.nic.kind = NIC_ETHERNET;
    p.nic.bandwidth_Bps = 1.25e9;
    p.nic.latency_s = 20e-6;
    p.nic.per_node = 1;
    p.fabric.topology = FABRIC_STAR;
    p.fabric.oversubscription = 1;
    return p;
}

#endif
