/*
 * tests/config/test_memory.c: the memory feasibility check and the training precision,
 * against numbers worked out by hand (docs/formats.md, "Memory").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "memory.h"
#include "model.h"
#include "payload.h"
#include "platform.h"

/* A Llama-style 7B decoder's parameter count (tests/catalog/test_catalog_models.c). */
#define LLAMA_7B_PARAMS 6738415616LL

static const char *platform_json =
    "{\"name\": \"t\", \"nodes\": 2, \"gpus_per_node\": 8,"
    " \"gpu\": {\"type\": \"h100\", \"speed\": \"494.7Tflops\", \"memory\": \"80GB\"},"
    " \"intra_node\": {\"kind\": \"nvswitch\", \"gpu_to_host\": \"63GBps\","
    " \"gpu_to_gpu\": \"370GBps\"},"
    " \"nic\": {\"kind\": \"infiniband\", \"bandwidth\": \"400Gbps\", \"latency\": \"1us\"},"
    " \"fabric\": {\"topology\": \"star\"}}";

/* One fc layer of `params` weights, fp32 unless `extra` says otherwise. */
static int one_layer_model(long long params, const char *extra, gcsim_model *m,
                           gcsim_error *err)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"name\": \"m\", \"batch_per_gpu\": 4%s, \"layers\": [{\"name\": \"l\","
             " \"kind\": \"fc\", \"weights\": %lld, \"bias\": 0, \"fwd_flops\": 1e9}],"
             " \"profiles\": [{\"gpu\": \"h100\", \"framework\": \"f\", \"source\": \"s\","
             " \"points\": [{\"batch\": 4, \"time\": \"100ms\"}]}]}",
             extra, params);
    return gcsim_model_parse(text, "<test>", m, err);
}

int main(void)
{
    gcsim_error err = {0};
    gcsim_platform pf;
    CHECK(gcsim_platform_parse(platform_json, "<test platform>", &pf, &err) == 0);
    CHECK(pf.gpu.memory_bytes == 80e9);

    /* Bytes per parameter (ZeRO Sec. 3.1 accounting): fp32 4 + 4 + state; mixed precision
     * 2 + 4 (master) + 2 + state; state SGD 0, momentum 4, Adam 8. */
    CHECK(gcsim_memory_bytes_per_param(GCSIM_PREC_FP32, GCSIM_OPT_SGD) == 8.0);
    CHECK(gcsim_memory_bytes_per_param(GCSIM_PREC_TF32, GCSIM_OPT_MOMENTUM) == 12.0);
    CHECK(gcsim_memory_bytes_per_param(GCSIM_PREC_FP32, GCSIM_OPT_ADAM) == 16.0);
    CHECK(gcsim_memory_bytes_per_param(GCSIM_PREC_BF16, GCSIM_OPT_ADAM) == 16.0);
    CHECK(gcsim_memory_bytes_per_param(GCSIM_PREC_FP16, GCSIM_OPT_SGD) == 8.0);

    /* Llama-7B with Adam in fp32: 6,738,415,616 x 16 B = 107,814,649,856 B = 107.8 GB
     * > 80 GB: refused, and the message carries the arithmetic. */
    gcsim_model m;
    CHECK(one_layer_model(LLAMA_7B_PARAMS, ", \"optimizer\": \"adam\"", &m, &err) == 0);
    gcsim_memory mem;
    gcsim_memory_estimate(&m, &pf, 4, &mem);
    CHECK(mem.total_bytes == 107814649856.0);
    CHECK(mem.optimizer_bytes == 8.0 * LLAMA_7B_PARAMS);
    CHECK(gcsim_memory_check(&m, &pf, 4, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "does not fit in GPU memory");
    CHECK_STR_CONTAINS(err.message, "6738415616 parameters x 16 B");
    CHECK_STR_CONTAINS(err.message, "= 107.81 GB per GPU, > 80.0 GB");
    /* With plain SGD in fp32: 8 B x 6.74e9 = 53.9 GB fits ... */
    m.optimizer = GCSIM_OPT_SGD;
    CHECK(gcsim_memory_check(&m, &pf, 4, &err) == 0);
    /* ... until activations of 7 GB per sample are added: 53.91 + 4 x 7 = 81.91 GB > 80. */
    m.activation_bytes_per_sample = 7e9;
    gcsim_memory_estimate(&m, &pf, 4, &mem);
    CHECK_REL(mem.total_bytes, 8.0 * LLAMA_7B_PARAMS + 28e9, 1e-15);
    CHECK(gcsim_memory_check(&m, &pf, 4, &err) != 0);
    CHECK(gcsim_memory_check(&m, &pf, 3, &err) == 0); /* 53.91 + 21 = 74.91 GB */
    /* Strong scaling splits the batch: K = 32 on 8 GPUs is 4 samples each, on 11 it is 3. */
    CHECK(gcsim_samples_per_gpu(SCALING_STRONG, 32, 8) == 4);
    CHECK(gcsim_samples_per_gpu(SCALING_STRONG, 32, 11) == 3);
    CHECK(gcsim_samples_per_gpu(SCALING_WEAK, 32, 11) == 32);
    /* bf16 halves the per-element activation estimate: 7 GB -> 3.5 GB per sample. */
    gcsim_model_set_precision(&m, GCSIM_PREC_BF16);
    CHECK(m.activation_bytes_per_sample == 3.5e9);
    /* A platform without gpu.memory checks nothing. */
    gcsim_platform open_pf = pf;
    open_pf.gpu.memory_bytes = 0.0;
    m.optimizer = GCSIM_OPT_ADAM;
    CHECK(gcsim_memory_check(&m, &open_pf, 4, &err) == 0);
    gcsim_model_free(&m);

    /* Precision and profiles: an fp32 model uses its tf32 profile (same class); at bf16 it
     * has none until a bf16 one is given. */
    gcsim_model p;
    CHECK(gcsim_model_parse(
              "{\"name\": \"m\", \"batch_per_gpu\": 4, \"layers\": [{\"name\": \"l\","
              " \"kind\": \"fc\", \"weights\": 1000, \"bias\": 24, \"fwd_flops\": 1e9}],"
              " \"profiles\": [{\"gpu\": \"h100\", \"precision\": \"tf32\", \"framework\": \"f\","
              " \"source\": \"s\", \"points\": [{\"batch\": 4, \"time\": \"100ms\"}]},"
              " {\"gpu\": \"h100\", \"precision\": \"bf16\", \"framework\": \"f\","
              " \"source\": \"s\", \"points\": [{\"batch\": 4, \"time\": \"60ms\"}]}]}",
              "<test>", &p, &err) == 0);
    CHECK(gcsim_model_profile(&p, "h100")->points[0].time_s == 0.1);
    /* fp32 gradients: 1,024 x 4 = 4,096 B exchanged; the payload plan without a
     * compressor sends them all, each tensor with its header (1 B + the element count in
     * LEB128: 1000 -> 2 B, 24 -> 1 B): 4,000 + 3 + 96 + 2 = 4,101 B. */
    CHECK(gcsim_model_exchanged_gradient_bytes(&p) == 4096.0);
    gcsim_payload_plan plan;
    CHECK(gcsim_payload_plan_build(NULL, &p, &plan, &err) == 0);
    CHECK(plan.total_bytes == 4101.0 && plan.dense_bytes == 4096.0);
    gcsim_payload_plan_free(&plan);
    gcsim_model_set_precision(&p, GCSIM_PREC_BF16);
    CHECK(gcsim_model_profile(&p, "h100")->points[0].time_s == 0.06);
    /* bf16 gradients: 1,024 x 2 = 2,048 B, half of fp32, before any compressor (with the
     * headers 2,000 + 3 + 48 + 2 = 2,053 B); the compressors still take the fp32 gradient
     * (dense 4,096 B), so fp16 compression of it is the same 2,053 B. */
    CHECK(gcsim_model_exchanged_gradient_bytes(&p) == 2048.0);
    CHECK(gcsim_payload_plan_build(NULL, &p, &plan, &err) == 0);
    CHECK(plan.total_bytes == 2053.0 && plan.dense_bytes == 4096.0);
    CHECK(plan.layer_bytes[0] == 2053.0);
    gcsim_payload_plan_free(&plan);
    CHECK(gcsim_payload_plan_build("fp16", &p, &plan, &err) == 0);
    CHECK(plan.total_bytes == 2053.0);
    gcsim_payload_plan_free(&plan);
    gcsim_model_free(&p);

    /* Two profiles for one GPU in one precision class are an error naming the path. */
    CHECK(gcsim_model_parse(
              "{\"name\": \"m\", \"batch_per_gpu\": 4, \"layers\": [{\"name\": \"l\","
              " \"kind\": \"fc\", \"weights\": 1000, \"bias\": 24, \"fwd_flops\": 1e9}],"
              " \"profiles\": [{\"gpu\": \"h100\", \"framework\": \"f\","
              " \"source\": \"s\", \"points\": [{\"batch\": 4, \"time\": \"100ms\"}]},"
              " {\"gpu\": \"h100\", \"precision\": \"tf32\", \"framework\": \"f\","
              " \"source\": \"s\", \"points\": [{\"batch\": 4, \"time\": \"60ms\"}]}]}",
              "<test>", &p, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "$.profiles[1].gpu: a second profile for \"h100\" at tf32");
    /* A precision or optimizer that does not exist is refused with its path. */
    CHECK(one_layer_model(10, ", \"precision\": \"fp8\"", &p, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "$.precision");
    CHECK(one_layer_model(10, ", \"optimizer\": \"lamb\"", &p, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "$.optimizer");
    CHECK(gcsim_platform_parse("{\"name\": \"t\", \"nodes\": 1, \"gpus_per_node\": 1,"
                               " \"gpu\": {\"type\": \"x\", \"speed\": \"1Tflops\","
                               " \"memory\": \"lots\"}}",
                               "<bad>", &pf, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "$.gpu.memory: expected a positive size");
    CHECK_DONE();
}
