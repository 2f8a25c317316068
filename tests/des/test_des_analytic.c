/*
 * tests/des/test_des_analytic.c: validation (3) of issue 5. With overlap disabled, one
 * bucket and the TernGrad paper's communication pattern (COLLECTIVE_TERNGRAD: log2(i)
 * GPU-to-GPU exchanges of |g|, one GPU-to-host copy, log2(j) network exchanges of |g|), the
 * DES and the analytic engine (eq. 27 and 29, sim/analytic) agree within 0.1%.
 *
 * Part A uses SimGrid's CM02 model without cross-traffic, named explicitly; part B the
 * engine's default network model, "alpha-beta", which is CM02 without TCP window bound or
 * cross-traffic: the platform's latency and bandwidth are used as measured, never
 * multiplied by a protocol model's factors (docs/des.md).
 *
 * Platform (des_test_platform.h, 4 GPUs per node, PCIe switch 100 GB/s replaced by
 * C_cwd = 12 GB/s, C_gwd = 10 GB/s; 1.25 GB/s Ethernet, C_ncost = 20 us), model
 * (des_test_model.h: |g| = 1e8 B, T(1,1,128) = 1 s). E.g. weak scaling, i = 4, j = 8:
 *   T_weak = 1 + 1e8/1e10 * 2 + (20e-6 + 1e8/1.25e9) * 3 = 1.26006 s.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "analytic.h"
#include "des.h"
#include "des_test_model.h"
#include "des_test_platform.h"
#include "payload.h"
#include "../resolved_predict.h"

static int predict_both(gcsim_scenario *s, const gcsim_des_options *o, gcsim_prediction *des,
                        gcsim_prediction *ana)
{
    gcsim_error err;
    if (analytic_predict_s(s, ana, &err) != 0 || des_predict_opts_s(s, o, des, NULL, &err) != 0) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    return 0;
}

int main(void)
{
    gcsim_platform p = des_test_platform(8, 4);
    p.intra.gpu_to_host_Bps = 12e9;
    p.intra.gpu_to_gpu_Bps = 10e9;
    des_test_model tm;
    des_test_model_init(&tm);
    gcsim_payload_plan pay;
    gcsim_error err;
    int rc = gcsim_payload_plan_build("none", &tm.model, &pay, &err);
    CHECK(rc == 0);
    if (rc) {
        fprintf(stderr, "%s\n", err.message);
        CHECK_DONE();
    }
    CHECK_REL(pay.dense_bytes, 1e8, 1e-12);

    gcsim_scenario s;
    memset(&s, 0, sizeof s);
    s.platform = &p;
    s.model = &tm.model;
    s.payload = &pay;
    s.collective = COLLECTIVE_TERNGRAD;
    s.batch = 128;
    s.bucket_bytes = 1e12; /* one bucket */
    s.overlap = false;

    gcsim_des_options plain = {.network_model = "CM02", .crosstraffic = -1};
    const int gpus[] = {4, 8, 32};
    for (int sc = 0; sc < 2; sc++) {
        s.scaling = sc == 0 ? SCALING_STRONG : SCALING_WEAK;
        for (size_t k = 0; k < 3; k++) {
            CHECK(gcsim_platform_place(&p, gpus[k], &s.placement, &err) == 0);
            gcsim_prediction des, ana;
            /* Part A: same link physics as the equations. */
            CHECK(predict_both(&s, &plain, &des, &ana) == 0);
            printf("%s N=%2d  analytic %.6f s  DES(CM02) %.6f s  diff %+.3f%%\n",
                   gcsim_scaling_name(s.scaling), gpus[k], ana.iteration_s, des.iteration_s,
                   100 * (des.iteration_s - ana.iteration_s) / ana.iteration_s);
            CHECK_REL(des.iteration_s, ana.iteration_s, 1e-3);
            CHECK_REL(des.compute_s, ana.compute_s, 1e-9);
            CHECK_REL(des.throughput_samples_per_s, ana.throughput_samples_per_s, 1e-3);
            if (s.scaling == SCALING_WEAK && gpus[k] == 32)
                CHECK_REL(ana.iteration_s, 1.26006, 1e-6);

            /* Part B: the default network model ("alpha-beta") means the platform's
             * figures as they are: the DES gives the equations' time. */
            gcsim_prediction ab;
            gcsim_des_details d = {0};
            CHECK(des_predict_opts_s(&s, NULL, &ab, &d, &err) == 0);
            CHECK(strcmp(d.network_model, "alpha-beta") == 0);
            gcsim_des_details_free(&d);
            CHECK_REL(ab.iteration_s, ana.iteration_s, 1e-3);
        }
    }
    gcsim_payload_plan_free(&pay);
    CHECK_DONE();
}
