/*
 * tests/analytic/analytic_fixture.h: the cluster and model the analytic engine's tests
 * compute their hand values on (test_analytic_engine.c, test_resolved_step.c), parsed from
 * the JSON below with gcsim_platform_parse and gcsim_model_parse.
 *
 * FIXTURE_PLATFORM_JSON: 4 machines x 4 GPUs; C_gwd = 10e9 B/s, C_cwd = 12.5e9 B/s,
 * C_nwd = 1 Gbps = 125e6 B/s, C_ncost = 50 us, intra latency 5 us.
 * FIXTURE_MODEL_JSON: 50e6 parameters = 200e6 bytes fp32; 0.25 s for a batch of 128.
 */
#ifndef GCSIM_TESTS_ANALYTIC_FIXTURE_H
#define GCSIM_TESTS_ANALYTIC_FIXTURE_H

#define FIXTURE_PLATFORM_JSON                                                               \
    "{\"name\": \"test\", \"nodes\": 4, \"gpus_per_node\": 4,"                              \
    " \"gpu\": {\"type\": \"testgpu\", \"speed\": \"10Tflops\"},"                           \
    " \"intra_node\": {\"kind\": \"pcie-switch\", \"gpu_to_host\": \"100Gbps\","            \
    "                  \"gpu_to_gpu\": \"10GBps\", \"latency\": \"5us\"},"                  \
    " \"nic\": {\"kind\": \"ethernet\", \"bandwidth\": \"1Gbps\", \"latency\": \"50us\"},"  \
    " \"fabric\": {\"topology\": \"star\"}}"

#define FIXTURE_MODEL_JSON                                                                  \
    "{\"name\": \"m\", \"batch_per_gpu\": 128,"                                             \
    " \"layers\": [{\"name\": \"fc\", \"kind\": \"fc\", \"weights\": 49999000, \"bias\": 1000," \
    "              \"fwd_flops\": 1e8}],"                                                   \
    " \"profiles\": [{\"gpu\": \"testgpu\", \"framework\": \"none\", \"source\": \"test\"," \
    "                 \"points\": [{\"batch\": 128, \"time\": \"250ms\"}]}]}"

#endif
