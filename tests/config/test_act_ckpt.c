/*
 * Activation checkpointing policies (sim/config/act_ckpt.c), against shares and block
 * choices computed by hand from torchtitan's and fms-fsdp's rules (act_ckpt.h):
 *   - op: every other matmul of a block, in forward order, counted across its layers;
 *     attention's own FLOPs saved; norms recomputed whole; nothing outside the blocks;
 *   - every:N and fraction:P: which blocks recompute whole, fms-fsdp's documented examples;
 *   - the memory estimate under each;
 *   - spellings, round trips and refusals.
 */
#include <stdlib.h>

#include "../check.h"
#include "act_ckpt.h"
#include "memory.h"

static int load(gcsim_model *m, const char *json)
{
    gcsim_error err;
    if (gcsim_model_parse(json, "<test>", m, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return -1;
    }
    return 0;
}

/* 100 tokens a sample. Attention layers of 4,000 weights: projections 2 x 100 x 4,000 =
 * 800,000 FLOPs of their 1,000,000. */
static const char *mixed_json =
    "{\"name\": \"mixed\", \"batch_per_gpu\": 1, \"tokens_per_sample\": 100, \"profiles\": [], \"layers\": ["
    "{\"name\": \"embeddings\", \"kind\": \"embedding\", \"weights\": 1000, \"bias\": 0, \"fwd_flops\": 0},"
    "{\"name\": \"layer0.attention\", \"kind\": \"attention\", \"weights\": 4000, \"bias\": 0, \"matrices\": 4, \"fwd_flops\": 1000000},"
    "{\"name\": \"layer0.mlp\", \"kind\": \"fc\", \"weights\": 6000, \"bias\": 0, \"matrices\": 3, \"fwd_flops\": 1200000},"
    "{\"name\": \"layer1.attention\", \"kind\": \"attention\", \"weights\": 4000, \"bias\": 0, \"matrices\": 2, \"fwd_flops\": 1000000},"
    "{\"name\": \"layer1.mlp\", \"kind\": \"fc\", \"weights\": 6000, \"bias\": 0, \"matrices\": 2, \"fwd_flops\": 1200000},"
    "{\"name\": \"layer1.norm\", \"kind\": \"norm\", \"weights\": 0, \"bias\": 0, \"other_params\": 200, \"fwd_flops\": 5000},"
    "{\"name\": \"lm_head\", \"kind\": \"fc\", \"weights\": 1000, \"bias\": 0, \"fwd_flops\": 200000}]}";

static void test_op_shares(void)
{
    gcsim_model m;
    CHECK(load(&m, mixed_json) == 0);
    gcsim_act_ckpt op = {.mode = GCSIM_CKPT_OP};
    double share[7];
    gcsim_error err;
    CHECK(gcsim_act_ckpt_layer_share(&m, &op, share, &err) == 0);
    /* outside the blocks: torchtitan wraps model.layers only */
    CHECK(share[0] == 0.0 && share[6] == 0.0);
    /* block 0: Q K V O are matmuls 1-4, K and O (2, 4) recomputed: half the projection
     * weights, 400,000 of the layer's 1,000,000 FLOPs; the gated MLP's w1 w3 w2 are 5-7,
     * w3 (6) recomputed: a third */
    CHECK_REL(share[1], 0.4, 1e-15);
    CHECK_REL(share[2], 1.0 / 3, 1e-15);
    /* block 1 (the counter starts again): fused QKV is matmul 1 (saved), O matmul 2 (a
     * quarter of the weights: 200,000 FLOPs); the MLP's fc and proj are 3 and 4 (proj
     * recomputed: half); the norm is element-wise, recomputed whole */
    CHECK_REL(share[3], 0.2, 1e-15);
    CHECK_REL(share[4], 0.5, 1e-15);
    CHECK(share[5] == 1.0);
    gcsim_act_ckpt full = {.mode = GCSIM_CKPT_FULL};
    CHECK(gcsim_act_ckpt_layer_share(&m, &full, share, &err) == 0);
    for (int l = 0; l < 7; l++)
        CHECK(share[l] == 1.0);
    int blocks, whole;
    gcsim_act_ckpt_blocks(&m, &op, &blocks, &whole);
    CHECK(blocks == 2 && whole == 0);
    gcsim_act_ckpt_blocks(&m, &full, &blocks, &whole);
    CHECK(blocks == 2 && whole == 4); /* full: every unit, embeddings and head included */
    gcsim_model_free(&m);
}

/* Six blocks of one attention layer, then a head. */
static const char *six_json =
    "{\"name\": \"six\", \"batch_per_gpu\": 1, \"tokens_per_sample\": 10, \"activation_bytes_per_sample\": 700000,"
    " \"profiles\": [], \"layers\": ["
    "{\"name\": \"b1.attn\", \"kind\": \"attention\", \"weights\": 100, \"bias\": 0, \"fwd_flops\": 5000},"
    "{\"name\": \"b2.attn\", \"kind\": \"attention\", \"weights\": 100, \"bias\": 0, \"fwd_flops\": 5000},"
    "{\"name\": \"b3.attn\", \"kind\": \"attention\", \"weights\": 100, \"bias\": 0, \"fwd_flops\": 5000},"
    "{\"name\": \"b4.attn\", \"kind\": \"attention\", \"weights\": 100, \"bias\": 0, \"fwd_flops\": 5000},"
    "{\"name\": \"b5.attn\", \"kind\": \"attention\", \"weights\": 100, \"bias\": 0, \"fwd_flops\": 5000},"
    "{\"name\": \"b6.attn\", \"kind\": \"attention\", \"weights\": 100, \"bias\": 0, \"fwd_flops\": 5000},"
    "{\"name\": \"head\", \"kind\": \"fc\", \"weights\": 100, \"bias\": 0, \"fwd_flops\": 2000}]}";

/* The blocks (from 1) a policy recomputes whole, as a bit mask. */
static int whole_blocks(const gcsim_model *m, const char *spec)
{
    gcsim_act_ckpt c;
    char why[128];
    double share[7];
    gcsim_error err;
    if (gcsim_act_ckpt_parse(spec, &c, why, sizeof why) ||
        gcsim_act_ckpt_layer_share(m, &c, share, &err))
        return -1;
    int mask = 0;
    for (int b = 0; b < 6; b++)
        if (share[b] == 1.0)
            mask |= 1 << (b + 1);
        else if (share[b] != 0.0)
            return -1;
    return share[6] == 0.0 ? mask : -1;
}

#define BLOCKS(a, b, c) ((1 << (a)) | (1 << (b)) | (1 << (c)))

static void test_whole_blocks(void)
{
    gcsim_model m;
    CHECK(load(&m, six_json) == 0);
    /* torchtitan's counter: multiples of N */
    CHECK(whole_blocks(&m, "every:2") == BLOCKS(2, 4, 6));
    CHECK(whole_blocks(&m, "every:3") == ((1 << 3) | (1 << 6)));
    CHECK(whole_blocks(&m, "every:1") == 0x7e);
    CHECK(whole_blocks(&m, "every:7") == 0);
    /* fms-fsdp's examples (ac_handler.py): 1/2 [ac, no, ac, no, ...], 1/3 [no, ac, no, no,
     * ac, no], 2/3 [ac, no, ac, ac, no, ac] */
    CHECK(whole_blocks(&m, "fraction:0.5") == BLOCKS(1, 3, 5));
    CHECK(whole_blocks(&m, "fraction:0.3333333333333333") == ((1 << 2) | (1 << 5)));
    CHECK(whole_blocks(&m, "fraction:0.6666666666666666") == (BLOCKS(1, 3, 4) | (1 << 6)));
    CHECK(whole_blocks(&m, "fraction:1") == 0x7e);
    /* memory: 7 units, 3 blocks whole keep their input (2/34) plus one unit in full, the
     * other 4 units all of theirs */
    gcsim_platform pf = {0};
    gcsim_sharding sh = {.strategy = GCSIM_SHARD_ZERO3};
    gcsim_act_ckpt c;
    char why[64];
    CHECK(gcsim_act_ckpt_parse("every:2", &c, why, sizeof why) == 0);
    gcsim_memory mem;
    gcsim_memory_estimate_sharded(&m, &pf, &sh, 8, 1, &c, 0, &mem);
    CHECK_REL(mem.activation_bytes, 700000.0 * (4.0 / 7 + 3.0 / 7 * 2.0 / 34 + 1.0 / 7), 1e-12);
    gcsim_act_ckpt full = {.mode = GCSIM_CKPT_FULL};
    gcsim_memory_estimate_sharded(&m, &pf, &sh, 8, 1, &full, 0, &mem);
    CHECK_REL(mem.activation_bytes, 700000.0 * (2.0 / 34 + 1.0 / 7), 1e-12);
    /* op: counted whole (its saved tensors are not modelled) */
    gcsim_act_ckpt op = {.mode = GCSIM_CKPT_OP};
    gcsim_memory_estimate_sharded(&m, &pf, &sh, 8, 1, &op, 0, &mem);
    CHECK(mem.activation_bytes == 700000.0);
    gcsim_model_free(&m);
}

static void test_refusals(void)
{
    gcsim_act_ckpt c;
    char why[160];
    double share[8];
    gcsim_error err;
    CHECK(gcsim_act_ckpt_parse("every:0", &c, why, sizeof why) != 0);
    CHECK_STR_CONTAINS(why, "at least 1");
    CHECK(gcsim_act_ckpt_parse("every:2x", &c, why, sizeof why) != 0);
    CHECK(gcsim_act_ckpt_parse("fraction:0", &c, why, sizeof why) != 0);
    CHECK(gcsim_act_ckpt_parse("fraction:1.01", &c, why, sizeof why) != 0);
    CHECK(gcsim_act_ckpt_parse("fraction:nan", &c, why, sizeof why) != 0);
    CHECK(gcsim_act_ckpt_parse("selective", &c, why, sizeof why) != 0);
    CHECK_STR_CONTAINS(why, "unknown policy \"selective\"");
    /* round trips */
    const char *spellings[] = {"full", "op", "every:3", "fraction:0.25"};
    for (int k = 0; k < 4; k++) {
        char back[48];
        CHECK(gcsim_act_ckpt_parse(spellings[k], &c, why, sizeof why) == 0);
        gcsim_act_ckpt_format(&c, back, sizeof back);
        CHECK(strcmp(back, spellings[k]) == 0);
    }
    gcsim_model m;
    gcsim_act_ckpt op = {.mode = GCSIM_CKPT_OP};
    /* no transformer block */
    CHECK(load(&m, "{\"name\": \"cnn\", \"batch_per_gpu\": 1, \"profiles\": [], \"layers\": [{\"name\": \"conv1\", \"kind\": \"conv\", "
                   "\"weights\": 10, \"bias\": 0, \"fwd_flops\": 100}]}") == 0);
    CHECK(gcsim_act_ckpt_layer_share(&m, &op, share, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "no layer of kind attention");
    gcsim_model_free(&m);
    /* a convolution inside a block */
    CHECK(load(&m, "{\"name\": \"odd\", \"batch_per_gpu\": 1, \"tokens_per_sample\": 10, \"profiles\": [], \"layers\": ["
                   "{\"name\": \"b.attn\", \"kind\": \"attention\", \"weights\": 10, \"bias\": 0, \"fwd_flops\": 500},"
                   "{\"name\": \"b.conv\", \"kind\": \"conv\", \"weights\": 10, \"bias\": 0, \"fwd_flops\": 100}]}") == 0);
    CHECK(gcsim_act_ckpt_layer_share(&m, &op, share, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "layer \"b.conv\" (kind conv)");
    gcsim_model_free(&m);
    /* attention FLOPs below its projections' 2 x 10 x 10 = 200 */
    CHECK(load(&m, "{\"name\": \"low\", \"batch_per_gpu\": 1, \"tokens_per_sample\": 10, \"profiles\": [], \"layers\": ["
                   "{\"name\": \"b.attn\", \"kind\": \"attention\", \"weights\": 10, \"bias\": 0, \"fwd_flops\": 150}]}") == 0);
    CHECK(gcsim_act_ckpt_layer_share(&m, &op, share, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "below its projections'");
    gcsim_model_free(&m);
    /* no tokens_per_sample: attention's projection FLOPs are unknown */
    CHECK(load(&m, "{\"name\": \"untokened\", \"batch_per_gpu\": 1, \"profiles\": [], \"layers\": ["
                   "{\"name\": \"b.attn\", \"kind\": \"attention\", \"weights\": 10, \"bias\": 0, \"fwd_flops\": 500}]}") == 0);
    CHECK(gcsim_act_ckpt_layer_share(&m, &op, share, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "tokens_per_sample");
    /* the block policies need no tokens */
    gcsim_act_ckpt every = {.mode = GCSIM_CKPT_EVERY, .every = 1};
    CHECK(gcsim_act_ckpt_layer_share(&m, &every, share, &err) == 0 && share[0] == 1.0);
    gcsim_model_free(&m);
}

int main(void)
{
    test_op_shares();
    test_whole_blocks();
    test_refusals();
    CHECK_DONE();
}
