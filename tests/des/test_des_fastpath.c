/*
 * tests/des/test_des_fastpath.c: the DES's coalesced phases (des_collectives.c: a flow's
 * contention-identical steps as one message plus the other steps' latencies) give the
 * times of the full simulation (GCSIM_DES_FULL=1: every step its own messages) within
 * 0.5%, for every collective on
 *   - a star of 1 GPU per node (10 Gb/s Ethernet) and of 4 GPUs per node on a PCIe switch,
 *     16 and 64 GPUs;
 *   - platforms/a100-hdr.json (8 GPUs on NVSwitch, 8 rails, fat tree of 20 nodes per
 *     leaf), 16 and 64 GPUs, the ring and hierarchical all-reduce also at 256, the
 *     hierarchical one at 1,024 (the ring's full simulation there takes minutes);
 * and for a whole ResNet-50 iteration (overlap: buckets start while backward runs) on
 * a100-hdr at 64 GPUs. The coalesced runs also send fewer messages.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "des.h"
#include "des_test_cases.h"
#include "des_test_platform.h"
#include "model.h"
#include "payload.h"
#include "platform.h"
#include "../resolved_predict.h"
#include "../bare_topology.h"

#define TOLERANCE 0.005

#define FULL "GCSIM_DES_FULL"

static void compare(const gcsim_platform *p, int gpus, gcsim_collective c, double bytes)
{
    des_test_run r[2];
    CHECK(des_test_collective_both_ways(FULL, p, gpus, c, bytes, 0, r) == 0);
    printf("%-14s %5d GPUs %-18s full %.6e s (%8lld msgs)  fast %.6e s (%7lld msgs)  %+.4f%%\n",
           p->name, gpus, gcsim_collective_name(c), r[1].seconds, r[1].transfers, r[0].seconds,
           r[0].transfers, 100 * (r[0].seconds / r[1].seconds - 1));
    CHECK_REL(r[0].seconds, r[1].seconds, TOLERANCE);
    CHECK(r[0].transfers <= r[1].transfers);
}

static void iteration(const gcsim_platform *p, const gcsim_model *m, const gcsim_payload_plan *pay,
                      int gpus, gcsim_collective c)
{
    gcsim_error err;
    gcsim_scenario s;
    CHECK(des_test_weak_scenario(p, m, pay, gpus, c, &s, &err) == 0);
    double t[2] = {0, 0};
    for (int full = 0; full < 2; full++) {
        gcsim_prediction out;
        des_test_switch(FULL, full);
        CHECK(des_predict_opts_s(&s, NULL, &out, NULL, &err) == 0);
        t[full] = out.iteration_s;
    }
    des_test_switch(FULL, false);
    printf("%-14s %5d GPUs %-18s iteration: full %.6e s  fast %.6e s  %+.4f%%\n", p->name, gpus,
           gcsim_collective_name(c), t[1], t[0], 100 * (t[0] / t[1] - 1));
    CHECK_REL(t[0], t[1], TOLERANCE);
}

int main(void)
{
    const double S = 64.0 * 1024 * 1024;
    gcsim_platform star = des_test_platform(64, 1), pcie = des_test_platform(16, 4);
    snprintf(pcie.name, sizeof pcie.name, "pcie-4");
    for (int c = 0; c < COLLECTIVE_COUNT; c++)
        for (int n = 16; n <= 64 && c != COLLECTIVE_NVLS; n *= 4) { /* nvls: one node */
            compare(&star, n, (gcsim_collective)c, S);
            compare(&pcie, n, (gcsim_collective)c, S);
        }

    gcsim_error err;
    gcsim_platform a100;
    CHECK(gcsim_platform_load(GCSIM_SOURCE_DIR "/platforms/a100-hdr.json", &a100, &err) == 0);
    a100.nodes = 128;
    for (int c = 0; c < COLLECTIVE_COUNT; c++)
        for (int n = 16; n <= 64 && c != COLLECTIVE_NVLS; n *= 4)
            compare(&a100, n, (gcsim_collective)c, S);
    compare(&a100, 256, COLLECTIVE_RING, S);
    compare(&a100, 256, COLLECTIVE_HIERARCHICAL, S);
    compare(&a100, 1024, COLLECTIVE_HIERARCHICAL, S);

    gcsim_model model;
    gcsim_payload_plan pay;
    CHECK(gcsim_model_load(GCSIM_SOURCE_DIR "/models/resnet-50.json", &model, &err) == 0);
    CHECK(gcsim_payload_plan_build("none", &model, &pay, &err) == 0);
    iteration(&a100, &model, &pay, 64, COLLECTIVE_RING);
    iteration(&a100, &model, &pay, 64, COLLECTIVE_HIERARCHICAL);
    gcsim_payload_plan_free(&pay);
    gcsim_model_free(&model);
    CHECK_DONE();
}
