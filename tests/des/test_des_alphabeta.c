/*
 * tests/des/test_des_alphabeta.c: the DES means what a platform says.
 *
 * 1. One message: on every kind of link (PCIe switch, NVLink pair, NVSwitch inside a node;
 *    Ethernet and InfiniBand between nodes) one message of 1 B and of 1 GiB takes the
 *    route's end-to-end latency + size / bandwidth within 1%, with the default network
 *    model. An all-gather of 2 GPUs is exactly one message each way over full-duplex links.
 * 2. On a uniform star (one GPU per node, 10 Gb/s NICs, 20 us), the simulated ring and
 *    recursive halving-doubling all-reduce take their closed forms within 1%, from 1 KiB
 *    to 256 MiB and from 2 to 64 GPUs:
 *      ring: T = 2 (N-1) (alpha + S/(N beta)),  HD: T = 2 log2(N) alpha + 2 (N-1)/N S / beta,
 *    alpha = 20 us, beta = 1.25e9 B/s (PCIe 100 GB/s never binds, and adds no latency).
 *    e.g. ring, N = 8, S = 1 MiB: 14 x (20 us + 131072 B / 1.25e9 B/s) = 1.748 ms.
 * 3. Flows of different route latencies that start together share a link as max-min says
 *    (SimGrid 3.32's lazy update got this wrong; des_sim.c uses the full update): the
 *    parameter server on 2 nodes of one GPU, 2 shards (one per node CPU). Each GPU pushes
 *    S/2 to its own CPU over PCIe (10 us) and S/2 to the other node's CPU over the NIC
 *    (20 us), then pulls the same back; the NICs bind:
 *      T = 2 (20 us + (S/2) / 1.25e9 B/s); S = 16 MiB: 2 x (20 us + 6.7109 ms) = 13.4618 ms,
 *    (the lazy update gave 15.36 ms).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "des.h"
#include "des_test_platform.h"
#include "../bare_topology.h"

static void one_message(const gcsim_platform *p, int gpus, double latency_s, double Bps,
                        const char *what)
{
    gcsim_error err;
    const double sizes[] = {1, 1073741824.0};
    for (int k = 0; k < 2; k++) {
        double t = 0;
        int rc = bare_des_collective_time(p, gpus, COLLECTIVE_ALLGATHER, sizes[k], 0, NULL, &t,
                                          NULL, &err);
        CHECK(rc == 0);
        if (rc)
            fprintf(stderr, "%s: %s\n", what, err.message);
        double want = latency_s + sizes[k] / Bps;
        printf("%-28s %10.0f B  %.6e s  expected %.6e s\n", what, sizes[k], t, want);
        CHECK_REL(t, want, 0.01);
    }
}

int main(void)
{
    /* 1. Intra-node kinds: 2 GPUs on one node, intra latency 1 us. */
    gcsim_platform p = des_test_platform(1, 2);
    p.intra.gpu_to_gpu_Bps = 11.28e9;
    one_message(&p, 2, 1e-6, 11.28e9, "pcie-switch");
    p.intra.kind = INTRA_NVLINK;
    p.intra.nvlink_links_per_pair = 4;
    p.intra.nvlink_link_Bps = 20e9;
    p.intra.gpu_to_gpu_Bps = 80e9;
    one_message(&p, 2, 1e-6, 80e9, "nvlink");
    p.intra.kind = INTRA_NVSWITCH;
    p.intra.gpu_to_gpu_Bps = 450e9;
    one_message(&p, 2, 1e-6, 450e9, "nvswitch");
    /* Network kinds: 2 nodes of one GPU; latency nic + 2 switch latencies. */
    p = des_test_platform(2, 1);
    p.fabric.switch_latency_s = 0.5e-6;
    one_message(&p, 2, 21e-6, 1.25e9, "ethernet 10 Gb/s");
    p.nic.kind = NIC_INFINIBAND;
    p.nic.bandwidth_Bps = 25e9;
    p.nic.latency_s = 1e-6;
    one_message(&p, 2, 2e-6, 25e9, "infiniband 200 Gb/s");
    /* A GPU behind a slower PCIe link than its NIC is held to the PCIe rate. */
    p.intra.gpu_to_host_Bps = 12e9;
    one_message(&p, 2, 2e-6, 12e9, "infiniband behind PCIe 3");

    /* 2. Ring and halving-doubling on the uniform star. */
    p = des_test_platform(64, 1);
    const double alpha = 20e-6, beta = 1.25e9;
    gcsim_error err;
    double t = 0;
    CHECK(bare_des_collective_time(&p, 8, COLLECTIVE_RING, 1048576.0, 0, NULL, &t, NULL, &err) == 0);
    CHECK_REL(t, 1.748e-3, 0.001);
    const int ns[] = {2, 8, 64};
    const double sizes[] = {1024.0, 1048576.0, 268435456.0};
    for (size_t a = 0; a < 3; a++)
        for (size_t b = 0; b < 3; b++) {
            int n = ns[a];
            double s = sizes[b], t_ring = 0, t_hd = 0;
            gcsim_des_details d = {0};
            CHECK(bare_des_collective_time(&p, n, COLLECTIVE_RING, s, 0, NULL, &t_ring, &d, &err) == 0);
            /* A pipelined ring's phase is one message per flow, in the full simulation too
             * (des_plan.c, des_phase_coalesces): every GPU sends one per phase (N = 2: one
             * step, nothing to coalesce). On this star every hop takes alpha, so one
             * chunk's route of N - 1 hops per phase is the lock-step ring's 2 (N-1) alpha. */
            CHECK(d.transfers == 2LL * n);
            gcsim_des_details_free(&d);
            CHECK(bare_des_collective_time(&p, n, COLLECTIVE_HALVING_DOUBLING, s, 0, NULL, &t_hd,
                                           NULL, &err) == 0);
            double ring = 2.0 * (n - 1) * (alpha + s / n / beta);
            double hd = 2.0 * log2(n) * alpha + 2.0 * (n - 1) / n * s / beta;
            printf("N=%2d S=%10.0f  ring %.6e (closed %.6e)  hd %.6e (closed %.6e)\n", n, s,
                   t_ring, ring, t_hd, hd);
            CHECK_REL(t_ring, ring, 0.01);
            CHECK_REL(t_hd, hd, 0.01);
        }

    /* 3. Mixed latencies: parameter server, 2 nodes x 1 GPU. */
    p = des_test_platform(2, 1);
    p.intra.latency_s = 10e-6;
    const double ps_bytes = 16777216.0;
    const double ps_want = 2 * (20e-6 + ps_bytes / 2 / 1.25e9);
    gcsim_des_details d = {0};
    CHECK(bare_des_collective_time(&p, 2, COLLECTIVE_PARAMETER_SERVER, ps_bytes, 2, NULL, &t,
                                   &d, &err) == 0);
    printf("ps 2 nodes, 16 MiB: %.6e s (closed %.6e)\n", t, ps_want);
    CHECK_REL(t, ps_want, 0.001);
    gcsim_des_details_free(&d);
    CHECK_DONE();
}
