/*
 * tests/stack/test_stack_gpu_passes.c: a codec-model stack's unfused GPU codec
 * ("gpu_passes", sim/stack/stack_gpu_passes.c): encode and decode seconds per element =
 * their bytes per element / the GPU's memory bandwidth; values by hand, the shipped
 * deepspeed.json's onebit by hand on a V100 (900 GB/s), a compressor it lists no passes
 * for left to the codec model, and the refusals. Argument: the source tree.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stack.h"
#include "stack_gpu_passes.h"

static const char *const frame =
    "{\"schema\": \"gcsim-stack/1\", \"name\": \"g\", \"description\": \"d\", \"source\": \"s\","
    " \"codec\": \"%s\", \"granularity\": {\"unit\": \"bucket\", \"bucket_bytes\": \"4MB\","
    " \"source\": \"s\"}, \"gpu_passes\": {\"source\": \"s\", \"compressors\": {\"onebit\":"
    " {\"encode_bytes_per_element\": %s, \"decode_bytes_per_element\": 8, \"source\": \"%s\"}}}}";

static int parse(const char *codec, const char *enc, const char *src, gcsim_stack *s,
                 gcsim_error *err)
{
    char json[2048];
    snprintf(json, sizeof json, frame, codec, enc, src);
    return gcsim_stack_parse(json, "gpu.json", s, err);
}

static void near(double got, double want)
{
    if (!(fabs(got - want) <= 1e-9 * want)) {
        fprintf(stderr, "got %.17g, want %.17g\n", got, want);
        CHECK(0);
    }
}

static gcsim_codec model_codec(void)
{
    gcsim_codec codec;
    memset(&codec, 0, sizeof codec);
    codec.source = CODEC_COST_MODEL;
    return codec;
}

static void by_hand(void)
{
    gcsim_stack *s = malloc(sizeof *s);
    gcsim_error err;
    CHECK(parse("model", "40", "p", s, &err) == 0 && s->n_gpu_passes == 1);
    /* 40 B and 8 B per element at 800 GB/s: 0.05 ns and 0.01 ns per element; a 1e8-element
     * tensor: 5 ms and 1 ms (the profile is linear from its one point at one element) */
    gcsim_codec codec = model_codec();
    CHECK(stack_gpu_passes_apply(s, "onebit", 800e9, &codec, &err) == 0);
    CHECK(codec.source == CODEC_COST_PROFILE && !codec.on_host);
    CHECK(codec.n_points == 1 && codec.elements[0] == 1);
    near(codec.encode_s[0], 40 / 800e9);
    near(codec.decode_s[0], 8 / 800e9);
    near(gcsim_codec_encode_s(&codec, 1e8, 0), 5e-3);
    near(gcsim_codec_decode_s(&codec, 1e8, 0), 1e-3);
    CHECK_STR_CONTAINS(codec.description, "$.gpu_passes");
    /* half the bandwidth, twice the time */
    codec = model_codec();
    CHECK(stack_gpu_passes_apply(s, "onebit", 400e9, &codec, &err) == 0);
    near(gcsim_codec_encode_s(&codec, 1e8, 0), 10e-3);
    /* a compressor the stack lists no passes for keeps the codec model */
    codec = model_codec();
    CHECK(stack_gpu_passes_apply(s, "qsgd", 800e9, &codec, &err) == 0);
    CHECK(codec.source == CODEC_COST_MODEL);
    /* no compression: nothing to price */
    codec.source = CODEC_COST_NONE;
    CHECK(stack_gpu_passes_apply(s, "onebit", 800e9, &codec, &err) == 0);
    CHECK(codec.source == CODEC_COST_NONE);
    /* a GPU without a memory bandwidth cannot be priced: an error naming the field */
    codec = model_codec();
    CHECK(stack_gpu_passes_apply(s, "onebit", 0, &codec, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "gpu.memory_bandwidth");
    free(s);
}

/* The shipped DeepSpeed stack: onebit's 100.375 B (encode) and 72.5 B (decode) per element
 * counted from nccl.py, on a V100 at 900 GB/s and 3.35e8 elements (about BERT-Large's): 3.35e8 x 100.375 / 900e9 = 37.36 ms, 3.35e8 x 72.5 / 900e9 = 26.99 ms. */
static void shipped(const char *src)
{
    char path[1024];
    gcsim_error err;
    gcsim_stack *s = malloc(sizeof *s);
    snprintf(path, sizeof path, "%s/platforms/stacks/deepspeed.json", src);
    CHECK(gcsim_stack_load(path, s, &err) == 0);
    CHECK(s->codec_model && s->n_gpu_passes == 1);
    gcsim_codec codec = model_codec();
    CHECK(stack_gpu_passes_apply(s, "onebit", 900e9, &codec, &err) == 0);
    near(gcsim_codec_encode_s(&codec, 3.35e8, 0), 3.35e8 * 100.375 / 900e9);
    near(gcsim_codec_decode_s(&codec, 3.35e8, 0), 3.35e8 * 72.5 / 900e9);
    CHECK(fabs(gcsim_codec_encode_s(&codec, 3.35e8, 0) - 37.36e-3) < 0.01e-3);
    CHECK(fabs(gcsim_codec_decode_s(&codec, 3.35e8, 0) - 26.99e-3) < 0.01e-3);
    free(s);
}

static void expect_bad(const char *codec, const char *enc, const char *src, const char *message)
{
    gcsim_stack *s = malloc(sizeof *s);
    gcsim_error err;
    CHECK(parse(codec, enc, src, s, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "gpu.json: ");
    CHECK_STR_CONTAINS(err.message, message);
    free(s);
}

static void refusals(void)
{
    expect_bad("model", "0", "p", "$.gpu_passes.compressors.onebit: encode_bytes_per_element");
    expect_bad("model", "-1", "p", "encode_bytes_per_element");
    expect_bad("model", "40", "", "$.gpu_passes.compressors.onebit.source");
    /* a laws stack prices its ops from its laws: it refuses the section */
    expect_bad("laws", "40", "p", "$.gpu_passes: only a \"codec\": \"model\" stack");
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_stack_gpu_passes SOURCE_DIR\n");
        return 2;
    }
    by_hand();
    shipped(argv[1]);
    refusals();
    CHECK_DONE();
}
