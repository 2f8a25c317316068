/*
 * tests/config/test_act_memory.c: the activation bytes each checkpointing policy keeps
 * (sim/config/act_memory.h), on a tiny Llama-style decoder worked out by hand.
 *
 * s = 4 tokens, h = 8, kv = 4 (attention weights 2 h^2 + 2 h kv = 192), SwiGLU ffn 16 (3 x
 * 8 x 16 = 384), 2 blocks, vocabulary 10 (the head's forward 2 s h V = 640 FLOPs), bf16
 * (e = 2). activation_bytes_per_sample A = 2 x 34 s h + 4 s V = 2176 + 160 = 2336.
 *   op: per block, elements per token: input 8, q 8, v 4, attention output 8, w1 16, w2 8
 *       = 52; saved e s (2 x 52) + the head's input e s h = 832 + 64 = 896; the block
 *       recomputed: 2176 / 2 - 832 / 2 = 672 above the loss's 12 s V = 480: 896 + 672 = 1568
 *   full: e s h x 3 = 192, plus one block's 1088: 1280
 *   every:2: block 2 whole (64), block 1 kept (1088), the head's input 64, plus 1088: 2304
 *   every:3: no block whole: 2176 + 64 + 480 = 2720, capped at A = 2336
 */
#include <math.h>
#include <stdio.h>

#include "act_memory.h"
#include "check.h"
#include "model.h"

static const char *decoder =
    "{\"name\": \"tiny\", \"batch_per_gpu\": 1, \"precision\": \"bf16\", \"optimizer\": \"adam\","
    " %s \"activation_bytes_per_sample\": 2336, \"layers\": ["
    "{\"name\": \"embeddings\", \"kind\": \"embedding\", \"weights\": 80, \"bias\": 0,"
    " \"fwd_flops\": 0},"
    "{\"name\": \"layer0.attention\", \"kind\": \"attention\", \"weights\": 192, \"bias\": 0,"
    " \"fwd_flops\": 2048, \"matrices\": 4, \"rows\": 8},"
    "{\"name\": \"layer0.mlp\", \"kind\": \"fc\", \"weights\": 384, \"bias\": 0,"
    " \"fwd_flops\": 3072, \"matrices\": 3, \"rows\": 8},"
    "{\"name\": \"layer1.attention\", \"kind\": \"attention\", \"weights\": 192, \"bias\": 0,"
    " \"fwd_flops\": 2048, \"matrices\": 4, \"rows\": 8},"
    "{\"name\": \"layer1.mlp\", \"kind\": \"fc\", \"weights\": 384, \"bias\": 0,"
    " \"fwd_flops\": 3072, \"matrices\": 3, \"rows\": 8},"
    "{\"name\": \"lm_head\", \"kind\": \"fc\", \"weights\": 80, \"bias\": 0,"
    " \"fwd_flops\": 640}], \"profiles\": []}";

static double kept(const gcsim_model *m, const char *policy)
{
    gcsim_act_ckpt c;
    char why[256];
    if (!policy)
        return gcsim_act_bytes_per_sample(m, NULL);
    if (gcsim_act_ckpt_parse(policy, &c, why, sizeof why) != 0)
        return -1;
    return gcsim_act_bytes_per_sample(m, &c);
}

int main(void)
{
    gcsim_model m;
    gcsim_error err;
    char text[4096];
    snprintf(text, sizeof text, decoder, "\"tokens_per_sample\": 4,");
    CHECK(gcsim_model_parse(text, "<tiny>", &m, &err) == 0);
    CHECK(gcsim_act_memory_from_saved(&m));
    CHECK(kept(&m, NULL) == 2336);
    CHECK(fabs(kept(&m, "op") - 1568) < 1e-9);
    CHECK(fabs(kept(&m, "full") - 1280) < 1e-9);
    CHECK(fabs(kept(&m, "every:2") - 2304) < 1e-9);
    CHECK(fabs(kept(&m, "every:3") - 2336) < 1e-9); /* never above no checkpointing */
    CHECK(fabs(kept(&m, "fraction:1") - 1280) < 1e-9); /* every block whole: as full */
    gcsim_model_free(&m);

    /* Without tokens_per_sample the shapes are not read: the earlier fractions, op whole;
     * 4 units (embeddings, 2 blocks, head): full keeps 2/34 + 1/4 of A. */
    snprintf(text, sizeof text, decoder, "");
    CHECK(gcsim_model_parse(text, "<tiny>", &m, &err) == 0);
    CHECK(!gcsim_act_memory_from_saved(&m));
    CHECK(kept(&m, "op") == 2336);
    CHECK(fabs(kept(&m, "full") - 2336 * (2.0 / 34.0 + 0.25)) < 1e-9);
    gcsim_model_free(&m);
    CHECK_DONE();
}
