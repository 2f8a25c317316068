/* The analytic engine end to end on a platform and model parsed from JSON: it must equal
 * the paper's equations, and the closed form of the shared schedules must keep their
 * alpha-beta values (hand-computed below) and the properties a performance model needs. */
#include <string.h>

#include "analytic.h"
#include "analytic_fixture.h"
#include "check.h"
#include "resolved_predict.h"

/* The cluster and model of analytic_fixture.h (its header gives their figures). */
static const char *platform_json = FIXTURE_PLATFORM_JSON;
static const char *model_json = FIXTURE_MODEL_JSON;

/* The same cluster with 100 Gbps InfiniBand, where communication stays below compute. */
static const char *fast_platform_json =
    "{\"name\": \"fast\", \"nodes\": 4, \"gpus_per_node\": 4,"
    " \"gpu\": {\"type\": \"testgpu\", \"speed\": \"10Tflops\"},"
    " \"intra_node\": {\"kind\": \"pcie-switch\", \"gpu_to_host\": \"100Gbps\","
    "                  \"gpu_to_gpu\": \"10GBps\", \"latency\": \"5us\"},"
    " \"nic\": {\"kind\": \"infiniband\", \"bandwidth\": \"100Gbps\", \"latency\": \"2us\"},"
    " \"fabric\": {\"topology\": \"star\"}}";

static gcsim_platform platform, slow_platform, fast_platform;
static gcsim_model model;

static gcsim_payload_plan plan_of(double payload_bytes, gcsim_payload_aggregation agg)
{
    static double layer[1];
    layer[0] = payload_bytes;
    gcsim_payload_plan p = {.aggregation = agg, .n_layers = 1, .layer_bytes = layer,
                            .total_bytes = payload_bytes, .dense_bytes = 200e6};
    strcpy(p.spec, payload_bytes == 200e6 ? "none" : "test");
    return p;
}

static double predict(gcsim_collective c, gcsim_scaling scaling, int gpus,
                      const gcsim_payload_plan *plan, gcsim_prediction *out)
{
    gcsim_error err;
    gcsim_scenario s = {.platform = &platform, .model = &model, .payload = plan,
                        .scaling = scaling, .collective = c, .batch = 128};
    if (gcsim_platform_place(&platform, gpus, &s.placement, &err) ||
        analytic_predict_s(&s, out, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return -1.0;
    }
    return out->throughput_samples_per_s;
}

int main(void)
{
    gcsim_error err;
    if (gcsim_platform_parse(platform_json, "test", &slow_platform, &err) ||
        gcsim_platform_parse(fast_platform_json, "fast", &fast_platform, &err) ||
        gcsim_model_parse(model_json, "test", &model, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    platform = slow_platform;
    CHECK_REL(gcsim_model_gradient_bytes(&model), 200e6, 0);
    terngrad_links c = gcsim_terngrad_links(&platform);
    CHECK_REL(c.C_cwd_Bps, 12.5e9, 1e-15);
    CHECK_REL(c.C_nwd_Bps, 125e6, 1e-15);

    gcsim_prediction p;
    gcsim_payload_plan fp32 = plan_of(200e6, PAYLOAD_DENSE_SUMMABLE);

    /* The engine with the paper's pattern is eq. 27-30: at 8 GPUs (i = 4, j = 2) the
     * hand values of tests/analytic/test_terngrad_model.c, configuration A. */
    CHECK_REL(predict(COLLECTIVE_TERNGRAD, SCALING_STRONG, 8, &fp32, &p), 128.0 / 1.6853, 1e-9);
    CHECK_REL(p.compute_s, 0.02925, 1e-9);
    CHECK_REL(p.comm_s, 1.65605, 1e-9);
    CHECK_REL(predict(COLLECTIVE_TERNGRAD, SCALING_WEAK, 8, &fp32, &p), 1024.0 / 1.89005, 1e-9);
    CHECK_REL(p.iteration_s, 1.89005, 1e-9);

    /* One GPU: GPU-direct collectives exchange nothing, so Tput = K / T(1,1,K) with or
     * without a compressor. In the paper's pattern the gradient still goes to the host,
     * so TernGrad's 12.5e6-byte payload replaces the 200e6-byte copy:
     *   T = 0.25 - 200e6/12.5e9 + 12.5e6/12.5e9 = 0.25 - 0.016 + 0.001 = 0.235 s */
    gcsim_payload_plan ternary = plan_of(12.5e6, PAYLOAD_SHARED_SCALE);
    CHECK_REL(predict(COLLECTIVE_RING, SCALING_STRONG, 1, &ternary, &p), 128.0 / 0.25, 1e-9);
    CHECK_REL(predict(COLLECTIVE_HIERARCHICAL, SCALING_WEAK, 1, &ternary, &p), 128.0 / 0.25, 1e-9);
    CHECK_REL(predict(COLLECTIVE_TERNGRAD, SCALING_WEAK, 1, &ternary, &p), 128.0 / 0.235, 1e-9);
    /* With fp32, every collective and scaling gives K / T(1,1,K) on one GPU; dgc-paper
     * (TernGrad's steps as a schedule, not eq. 27-30) also pays the host copy's 5 us
     * latency: 128 / (0.25 + 5e-6). */
    for (int col = 0; col < COLLECTIVE_COUNT; col++) {
        double one = col == COLLECTIVE_DGC_PAPER ? 128.0 / (0.25 + 5e-6) : 128.0 / 0.25;
        CHECK_REL(predict((gcsim_collective)col, SCALING_WEAK, 1, &fp32, &p), one, 1e-9);
        CHECK_REL(predict((gcsim_collective)col, SCALING_STRONG, 1, &fp32, &p), one, 1e-9);
    }

    /* Ring all-reduce, dense, 16 GPUs over the network (slowest hop 1 Gbps, 50 us): the
     * steps' bytes at the bottleneck, plus one chunk's route per phase (collectives.h,
     * gcsim_ring_route_s): the cycle of 12 hops of 5 us inside the 4 nodes and 4 of 50 us
     * between them, less its shortest hop (a 15-hop route), twice:
     *   2 (12 x 5e-6 + 4 x 50e-6 - 5e-6) + 2 * 15/16 * 200e6 / 125e6
     *   = 0.00051 + 3.0 = 3.00051 s (lock-step, every step its slowest hop: 3.0015) */
    predict(COLLECTIVE_RING, SCALING_WEAK, 16, &fp32, &p);
    CHECK_REL(p.comm_s, 3.00051, 1e-9);
    /* The same ring in bf16 (issue 17): uncompressed gradients travel at 2 bytes, half of
     * |g|: 0.00051 + 2 * 15/16 * 100e6 / 125e6 = 0.00051 + 1.5 = 1.50051 s. The profile
     * must be one measured at 16 bits. */
    model.precision = GCSIM_PREC_BF16;
    model.profiles[0].precision = GCSIM_PREC_BF16;
    predict(COLLECTIVE_RING, SCALING_WEAK, 16, &fp32, &p);
    CHECK_REL(p.comm_s, 1.50051, 1e-9);
    model.profiles[0].precision = GCSIM_PREC_FP32;
    gcsim_error no_profile;
    gcsim_scenario bf16_s = {.platform = &platform, .model = &model, .payload = &fp32,
                             .scaling = SCALING_WEAK, .collective = COLLECTIVE_RING, .batch = 128};
    CHECK(gcsim_platform_place(&platform, 16, &bf16_s.placement, &no_profile) == 0);
    CHECK(analytic_predict_s(&bf16_s, &p, &no_profile) != 0);
    CHECK_STR_CONTAINS(no_profile.message, "no compute profile for GPU type \"testgpu\"");
    model.precision = GCSIM_PREC_FP32;
    /* Hierarchical, dense, i = 4, j = 4:
     *   2 (i-1)(a_g + |g|/(i C_gwd)) + 2 (j-1)(a_n + |g|/(j C_nwd))
     *   = 6 (5e-6 + 200e6/40e9) + 6 (50e-6 + 200e6/500e6)
     *   = 6 * 0.005005 + 6 * 0.40005 = 0.03003 + 2.4003 = 2.43033 s */
    predict(COLLECTIVE_HIERARCHICAL, SCALING_WEAK, 16, &fp32, &p);
    CHECK_REL(p.comm_s, 2.43033, 1e-9);
    /* All-gather of 2-bit payloads (|g|/16 = 12.5e6 B) over 16 GPUs: the steps' bytes
     * plus one chunk's 15-hop route (above):
     *   (N-1) P/B + 255e-6 = 15 * 0.1 + 0.000255 = 1.500255 s (lock-step: 1.50075) */
    gcsim_payload_plan sixteenth = plan_of(12.5e6, PAYLOAD_PER_WORKER_SCALE);
    predict(COLLECTIVE_ALLGATHER, SCALING_WEAK, 16, &sixteenth, &p);
    CHECK_REL(p.comm_s, 1.500255, 1e-9);

    /* On 1 Gbps Ethernet the paper's weak-scaling throughput falls from 4 to 8 GPUs: the
     * first network step costs C_ncost + |g|/C_nwd = 1.60005 s against T(1,1,K) = 0.25 s.
     *   4 GPUs: 512 / (0.25 + 0.04) = 1765.5;  8 GPUs: 1024 / 1.89005 = 541.8 */
    CHECK(predict(COLLECTIVE_TERNGRAD, SCALING_WEAK, 4, &fp32, &p) >
          predict(COLLECTIVE_TERNGRAD, SCALING_WEAK, 8, &fp32, &p));

    /* Properties over every collective, aggregation and GPU count, on the fast network
     * where each doubling of N adds less communication than it adds compute. */
    platform = fast_platform;
    const double payloads[] = {200e6, 100e6, 25e6, 12.5e6, 1e6, 0.2e6};
    for (int col = 0; col < COLLECTIVE_COUNT; col++)
        for (int agg = 0; agg < 4 && col != COLLECTIVE_NVLS; agg++) { /* nvls: below */
            double last_weak = 0.0;
            for (int n = 1; n <= 16; n *= 2) {
                /* Weak-scaling throughput grows with N. */
                gcsim_payload_plan plan = plan_of(12.5e6, (gcsim_payload_aggregation)agg);
                double t = predict((gcsim_collective)col, SCALING_WEAK, n, &plan, &p);
                if (!(t > last_weak))
                    fprintf(stderr, "collective %d aggregation %d: weak tput %g at N=%d after %g\n",
                            col, agg, t, n, last_weak);
                CHECK(t > last_weak);
                last_weak = t;
                /* A smaller payload never lowers throughput, strong or weak. */
                for (int sc = 0; sc < 2; sc++) {
                    double last = 0.0;
                    for (size_t k = 0; k < sizeof payloads / sizeof payloads[0]; k++) {
                        gcsim_payload_plan smaller =
                            plan_of(payloads[k], (gcsim_payload_aggregation)agg);
                        double tp = predict((gcsim_collective)col, (gcsim_scaling)sc, n,
                                            &smaller, &p);
                        if (!(tp >= last))
                            fprintf(stderr, "collective %d aggregation %d, %d GPUs: %g B "
                                            "gives %g after %g\n",
                                    col, agg, n, payloads[k], tp, last);
                        CHECK(tp >= last);
                        last = tp;
                    }
                }
            }
        }

    platform = slow_platform;
    /* GPU counts that do not fill machines: 6 GPUs on 4-GPU machines are i = 4, j = 2
     * with 2 GPUs on the last machine; more GPUs than the platform has is an error. */
    gcsim_placement pl;
    CHECK(gcsim_platform_place(&platform, 6, &pl, &err) == 0);
    CHECK(pl.gpus_per_machine == 4 && pl.machines == 2 && pl.last_machine_gpus == 2);
    CHECK(gcsim_platform_place(&platform, 3, &pl, &err) == 0);
    CHECK(pl.gpus_per_machine == 3 && pl.machines == 1);
    CHECK(gcsim_platform_place(&platform, 17, &pl, &err) == -1);
    CHECK_STR_CONTAINS(err.message, "does not fit the platform: 4 nodes x 4 GPUs = 16 GPUs");
    gcsim_model_free(&model);
    CHECK_DONE();
}
