/* The training variants gcsim plan searches (sim/planning/plan_variant.c, plan_answer.c's
 * --best-per keys), on hand-counted lists (issue 46). */
#include <string.h>

#include "check.h"
#include "plan_answer.h"
#include "plan_variant.h"

int main(void)
{
    char why[300], buf[64];

    /* Accumulation to a global batch: 512 samples on 256 GPUs of micro-batch 2 is one
     * micro-batch per step, of 1 two; 4 per GPU would need half a micro-batch; 3 does not
     * divide 512 / 256 = 2 at all. */
    CHECK(plan_grad_accum_for(512, 256, 2, why, sizeof why) == 1);
    CHECK(plan_grad_accum_for(512, 256, 1, why, sizeof why) == 2);
    CHECK(plan_grad_accum_for(512, 256, 4, why, sizeof why) == 0);
    CHECK_STR_CONTAINS(why, "not a whole number of micro-batches of 4 on 256 GPUs");
    CHECK(plan_grad_accum_for(4096, 8, 3, why, sizeof why) == 0);
    /* 1,024 micro-batches per step is gcsim's most (GCSIM_MAX_GRAD_ACCUM), 2,048 too many */
    CHECK(plan_grad_accum_for(8192, 8, 1, why, sizeof why) == GCSIM_MAX_GRAD_ACCUM);
    CHECK(plan_grad_accum_for(16384, 8, 1, why, sizeof why) == 0);
    CHECK_STR_CONTAINS(why, "2048 micro-batches");

    /* --sharding all on 64 nodes of 8 GPUs, up to 256 GPUs: ddp, zero1, zero2, zero3, fsdp
     * (5), zero3 with +qwz, +hpz, +qgz, +qwz+hpz+qgz (4), hsdp on one node and on 16, 32,
     * 64 and 128 GPUs (5): 14, hsdp:256 left out (a group of every GPU is zero3). */
    gcsim_platform pf;
    memset(&pf, 0, sizeof pf);
    pf.nodes = 64;
    pf.gpus_per_node = 8;
    const gcsim_platform *pfs[2] = {&pf, &pf};
    gcsim_sharding all[64];
    int n = plan_sharding_all(pfs, 1, 256, all, 64);
    CHECK(n == 14);
    const char *want[] = {"ddp", "zero1", "zero2", "zero3", "fsdp", "zero3+qwz", "zero3+hpz",
                          "zero3+qgz", "zero3+qwz+hpz+qgz", "hsdp", "hsdp:16", "hsdp:32",
                          "hsdp:64", "hsdp:128"};
    for (int k = 0; k < n && k < 14; k++) {
        gcsim_sharding_format(&all[k], buf, sizeof buf);
        CHECK(strcmp(buf, want[k]) == 0);
    }
    /* the same platform twice adds nothing; every GPU count (0): up to 256 of 512 GPUs */
    CHECK(plan_sharding_all(pfs, 2, 256, all, 64) == 14);
    CHECK(plan_sharding_all(pfs, 1, 0, all, 64) == 15);

    /* Checkpointing choices: none is off; all is none, op, every:2, full */
    plan_ckpt ck[8];
    CHECK(plan_ckpt_parse("none", &ck[0], why, sizeof why) == 0 && !ck[0].on);
    CHECK(plan_ckpt_parse("every:3", &ck[1], why, sizeof why) == 0 && ck[1].on &&
          ck[1].policy.mode == GCSIM_CKPT_EVERY && ck[1].policy.every == 3);
    CHECK(plan_ckpt_parse("sometimes", &ck[2], why, sizeof why) == -1);
    CHECK(plan_ckpt_all(ck, 8) == 4);
    const char *policies[] = {"none", "op", "every:2", "full"};
    for (int k = 0; k < 4; k++) {
        plan_ckpt_format(&ck[k], buf, sizeof buf);
        CHECK(strcmp(buf, policies[k]) == 0);
    }

    /* The cross product: 2 shardings x 4 policies x 3 micro-batches = 24, sharding slowest,
     * micro-batch fastest; an empty list counts as one default item. */
    gcsim_sharding two[2] = {{.strategy = GCSIM_SHARD_ZERO3, .fsdp = true},
                             {.strategy = GCSIM_SHARD_HSDP, .fsdp = true}};
    int micro[3] = {1, 2, 4};
    plan_variant v[32];
    CHECK(plan_variants_cross(two, 2, ck, 4, micro, 3, v, 32) == 24);
    CHECK(v[0].sharding.strategy == GCSIM_SHARD_ZERO3 && !v[0].ckpt.on && v[0].micro_batch == 1);
    CHECK(v[2].micro_batch == 4 && v[3].ckpt.on && v[3].ckpt.policy.mode == GCSIM_CKPT_OP);
    CHECK(v[12].sharding.strategy == GCSIM_SHARD_HSDP && v[23].micro_batch == 4 &&
          v[23].ckpt.policy.mode == GCSIM_CKPT_FULL);
    CHECK(plan_variants_cross(two, 2, ck, 4, micro, 3, v, 23) == -1);
    CHECK(plan_variants_cross(NULL, 0, NULL, 0, NULL, 0, v, 32) == 1);
    CHECK(v[0].sharding.strategy == GCSIM_SHARD_DDP && !v[0].ckpt.on && v[0].micro_batch == 0);

    /* --best-per keys */
    unsigned mask;
    CHECK(plan_keys_parse("platform,sharding", &mask, why, sizeof why) == 0 &&
          mask == (PLAN_KEY_PLATFORM | PLAN_KEY_SHARDING));
    CHECK(plan_keys_parse("platform,colour", &mask, why, sizeof why) == -1);
    CHECK_STR_CONTAINS(why, "unknown key \"colour\"");
    CHECK(plan_sharding_is_zeropp(&all[6]) && !plan_sharding_is_zeropp(&all[4]));
    CHECK_DONE();
}
