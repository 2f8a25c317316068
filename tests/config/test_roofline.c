/*
 * tests/config/test_roofline.c: the roofline compute model for GPUs without a profile
 * (issue 17), against per-layer arithmetic done by hand with the fitted efficiencies of
 * sim/config/roofline_fit.h; a profile in the model always wins.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "roofline.h"
#include "roofline_fit.h"

/* 100 TFLOP/s at fp32/tf32, 200 at 16 bits, 1 TB/s of memory bandwidth. */
static const char *platform_json =
    "{\"name\": \"t\", \"nodes\": 1, \"gpus_per_node\": 8,"
    " \"gpu\": {\"type\": \"newgpu\", \"speed\": \"100Tflops\", \"speed_16bit\": \"200Tflops\","
    " \"memory_bandwidth\": \"1TBps\"},"
    " \"intra_node\": {\"kind\": \"nvswitch\", \"gpu_to_host\": \"63GBps\","
    " \"gpu_to_gpu\": \"370GBps\"},"
    " \"nic\": {\"kind\": \"infiniband\", \"bandwidth\": \"400Gbps\", \"latency\": \"1us\"},"
    " \"fabric\": {\"topology\": \"star\"}}";

/* conv: 1e9 forward FLOPs per sample, 1e6 parameters; fc: 2e9 FLOPs, 1e8 parameters. */
static const char *model_json =
    "{\"name\": \"m\", \"batch_per_gpu\": 10, \"layers\": ["
    " {\"name\": \"c\", \"kind\": \"conv\", \"weights\": 1000000, \"bias\": 0, \"fwd_flops\": 1e9},"
    " {\"name\": \"f\", \"kind\": \"fc\", \"weights\": 99999000, \"bias\": 1000, \"fwd_flops\": 2e9}],"
    " \"profiles\": [{\"gpu\": \"oldgpu\", \"framework\": \"f\", \"source\": \"s\","
    " \"points\": [{\"batch\": 10, \"time\": \"5ms\"}]}]}";

int main(void)
{
    gcsim_error err = {0};
    gcsim_platform pf;
    gcsim_model m;
    CHECK(gcsim_platform_parse(platform_json, "<t>", &pf, &err) == 0);
    CHECK(gcsim_model_parse(model_json, "<m>", &m, &err) == 0);
    CHECK(pf.gpu.speed_16bit_flops == 200e12 && pf.gpu.memory_Bps == 1e12);

    /* fp32, batch 10:
     *   conv max(3 x 1e9 x 10 / 1e14, 3 x 1e6 x 4 / 1e12) = max(3e-4, 1.2e-5) = 3e-4 s
     *   fc   max(3 x 2e9 x 10 / 1e14, 3 x 1e8 x 4 / 1e12) = max(6e-4, 1.2e-3) = 1.2e-3 s
     *        (bandwidth bound) */
    double t = 0.0;
    CHECK(gcsim_roofline_time_s(&m, &pf, 10, &t, &err) == 0);
    CHECK_REL(t, 3e-4 / GCSIM_ROOFLINE_EFF_CONV + 1.2e-3 / GCSIM_ROOFLINE_EFF_MATMUL, 1e-12);
    /* batch 100: conv 3e-3 s; fc max(6e-3, 1.2e-3) = 6e-3 s (compute bound) */
    CHECK(gcsim_roofline_time_s(&m, &pf, 100, &t, &err) == 0);
    CHECK_REL(t, 3e-3 / GCSIM_ROOFLINE_EFF_CONV + 6e-3 / GCSIM_ROOFLINE_EFF_MATMUL, 1e-12);

    /* No profile for newgpu: the engines get a roofline profile, one point at the batch. */
    gcsim_profile scratch;
    const gcsim_profile *p = gcsim_compute_profile(&m, &pf, 10, &scratch, &err);
    CHECK(p == &scratch);
    CHECK(p->n_points == 1 && p->points[0].batch == 10);
    CHECK_REL(p->points[0].time_s, 3e-4 / GCSIM_ROOFLINE_EFF_CONV + 1.2e-3 / GCSIM_ROOFLINE_EFF_MATMUL, 1e-12);
    CHECK_STR_CONTAINS(p->source, "roofline");

    /* bf16: 16-bit peak and 2-byte elements:
     *   conv max(3e10 / 2e14, 3 x 1e6 x 2 / 1e12) = 1.5e-4 s
     *   fc   max(6e10 / 2e14, 3 x 1e8 x 2 / 1e12) = max(3e-4, 6e-4) = 6e-4 s */
    gcsim_model_set_precision(&m, GCSIM_PREC_BF16);
    CHECK(gcsim_roofline_time_s(&m, &pf, 10, &t, &err) == 0);
    CHECK_REL(t, 1.5e-4 / GCSIM_ROOFLINE_EFF_CONV + 6e-4 / GCSIM_ROOFLINE_EFF_MATMUL, 1e-12);
    /* Without a 16-bit peak there is nothing to compute with: refused, naming the field. */
    gcsim_platform no16 = pf;
    no16.gpu.speed_16bit_flops = 0.0;
    CHECK(gcsim_compute_profile(&m, &no16, 10, &scratch, &err) == NULL);
    CHECK_STR_CONTAINS(err.message, "$.gpu.speed_16bit");
    /* Without memory bandwidth only the FLOPs count: fc 3e-4 s at 16 bits. */
    gcsim_platform nobw = pf;
    nobw.gpu.memory_Bps = 0.0;
    CHECK(gcsim_roofline_time_s(&m, &nobw, 10, &t, &err) == 0);
    CHECK_REL(t, 1.5e-4 / GCSIM_ROOFLINE_EFF_CONV + 3e-4 / GCSIM_ROOFLINE_EFF_MATMUL, 1e-12);
    gcsim_model_set_precision(&m, GCSIM_PREC_FP32);

    /* A profile for the GPU wins over the roofline. */
    snprintf(pf.gpu.type, sizeof pf.gpu.type, "oldgpu");
    p = gcsim_compute_profile(&m, &pf, 10, &scratch, &err);
    CHECK(p == &m.profiles[0]);
    CHECK(p->points[0].time_s == 5e-3);

    /* The efficiencies are fitted fractions of peak. */
    CHECK(GCSIM_ROOFLINE_EFF_CONV > 0.0 && GCSIM_ROOFLINE_EFF_CONV <= 1.0);
    CHECK(GCSIM_ROOFLINE_EFF_MATMUL > 0.0 && GCSIM_ROOFLINE_EFF_MATMUL <= 1.0);
    gcsim_model_free(&m);
    CHECK_DONE();
}
