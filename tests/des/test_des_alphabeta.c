/*
 * tests/des/test_des_alphabeta.c: validation (1) of issue 5. On a uniform star platform
 * (one GPU per node), the simulated ring and recursive halving-doubling all-reduce take
 * their closed-form alpha-beta times, with the LV08 model's documented corrections, within
 * 3%, from 1 KiB to 256 MiB and from 2 to 64 GPUs.
 *
 * LV08 (SimGrid, network_cm02.cpp; docs/des.md): latency x 13.01, bandwidth x 0.97, and
 * cross-traffic: each flow also loads its reverse route with 5% of its rate (TCP ACKs).
 * In both algorithms every GPU sends and receives at once over full-duplex links, so a
 * NIC direction carries one flow plus 5% of the opposite one:
 *   beta  = 0.97 * 1.25e9 / 1.05 B/s                         = 1.1548e9 B/s
 *   alpha = 13.01 * (1 + 10 + 10 + 1) us                       = 286.22 us
 *           (PCIe 1 us, NIC 20 us / 2 at each end, PCIe 1 us; the 100 GB/s PCIe links
 *            never bind)
 * TCP-gamma bound 4 MiB / (2 x 22 us) = 95 GB/s does not bind either.
 *   ring:  T = 2 (N-1) (alpha + S/(N beta))
 *   HD:    T = 2 log2(N) alpha + 2 (N-1)/N S / beta
 * e.g. ring, N = 8, S = 1 MiB: 14 x (286.22 us + 131072 B / 1.1548e9 B/s) = 5.596 ms.
 */
#include <math.h>
#include <stdio.h>

#include "../check.h"
#include "des.h"
#include "des_test_platform.h"

int main(void)
{
    gcsim_platform p = des_test_platform(64, 1);
    const double alpha = 13.01 * 22e-6;
    const double beta = 0.97 * 1.25e9 / 1.05;
    const int gpus[] = {2, 8, 64};
    const double sizes[] = {1024.0, 1048576.0, 268435456.0};
    gcsim_error err;

    /* The hand-computed example of the header comment. */
    {
        double t = 0;
        CHECK(gcsim_des_collective_time(&p, 8, COLLECTIVE_RING, 1048576.0, 0, NULL, &t, NULL,
                                        &err) == 0);
        CHECK_REL(t, 5.596e-3, 0.001);
    }
    for (size_t gi = 0; gi < sizeof gpus / sizeof *gpus; gi++) {
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            int n = gpus[gi];
            double s = sizes[si], t_ring = 0, t_hd = 0;
            gcsim_des_details d = {0};
            int rc = gcsim_des_collective_time(&p, n, COLLECTIVE_RING, s, 0, NULL, &t_ring, &d, &err);
            CHECK(rc == 0);
            if (rc)
                fprintf(stderr, "%s\n", err.message);
            CHECK(d.transfers == 2LL * n * (n - 1)); /* every GPU sends 2 (N-1) messages */
            CHECK(d.network_model[0] == 'L');        /* LV08 for Ethernet */
            gcsim_des_details_free(&d);
            CHECK(gcsim_des_collective_time(&p, n, COLLECTIVE_HALVING_DOUBLING, s, 0, NULL, &t_hd,
                                            NULL, &err) == 0);
            double ring = 2.0 * (n - 1) * (alpha + s / n / beta);
            double hd = 2.0 * log2(n) * alpha + 2.0 * (n - 1) / n * s / beta;
            printf("N=%2d S=%10.0f ring %.6e s (closed %.6e)  hd %.6e s (closed %.6e)\n", n, s,
                   t_ring, ring, t_hd, hd);
            CHECK_REL(t_ring, ring, 0.03);
            CHECK_REL(t_hd, hd, 0.03);
        }
    }
    CHECK_DONE();
}
