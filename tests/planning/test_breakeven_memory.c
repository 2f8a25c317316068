/*
 * One breakeven row (sim/planning/breakeven_row.h) of a configuration whose worker cannot
 * hold its training state is infeasible with the builder's reason, not a break-even (issue
 * 46: breakeven skipped the memory check, "it compares rates", and answered what predict
 * refuses):
 *   - llama-2-70b (bf16, Adam) on a100-hdr (80 GB per GPU) under ddp at 16 GPUs:
 *     68,976,648,192 parameters x 16 B + 91.79 GB of activations = 1195.42 GB per GPU:
 *     breakeven_row_answer returns 1 with case_build_feasible's message, word for word;
 *   - the same under fsdp with full activation checkpointing: 16 GPUs hold 81.12 GB
 *     (weights 25.87 + gradients 8.62 + optimizer 34.49 + buffers 5.13 + activations
 *     7.01 GB): infeasible; 32 GPUs hold 46.6 GB: answered, fp32's throughput at the
 *     platform's bandwidth is sweep_case_run's for the fp32 case (what predict prints).
 * Usage: test_breakeven_memory SOURCE_DIR
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "act_ckpt.h"
#include "planning.h"
#include "sharding.h"

static const gcsim_platform *platform;
static const gcsim_model *model;
static const gcsim_stack *ddp, *fused;
static const gcsim_payload_plan *fp16, *none;

static breakeven_case case_at(const case_options *o, int gpus)
{
    return (breakeven_case){.c = case_options_case(o, platform, model, fp16, ddp, gpus),
                            .fp32 = none};
}

/* Row of o at gpus: infeasible (1) with the builder's own message containing `figure`. */
static void check_infeasible(const case_options *o, int gpus, const char *figure)
{
    breakeven_case bc = case_at(o, gpus);
    gcsim_error built = {.internal = 0}, err = {.internal = 0};
    CHECK(case_build_feasible(&bc.c, &built) == 1);
    breakeven_row row;
    CHECK(breakeven_row_answer(&bc, ddp, fused, 1.0, &row, &err) == 1);
    CHECK_STR_CONTAINS(err.message, "does not fit in GPU memory");
    CHECK_STR_CONTAINS(err.message, figure);
    CHECK_STR_CONTAINS(err.message, "> 80.0 GB of gpu.memory");
    CHECK(strcmp(err.message, built.message) == 0);
    CHECK(gcsim_error_skippable(&err));
}

static void test_ddp(void)
{
    case_options o;
    case_options_init(&o);
    check_infeasible(&o, 16, "= 1195.42 GB per GPU");
    check_infeasible(&o, 8, "= 1195.42 GB per GPU");
}

static void test_fsdp_act_ckpt(void)
{
    case_options o;
    case_options_init(&o);
    char why[160];
    CHECK(gcsim_sharding_parse("fsdp", &o.sharding, why, sizeof why) == 0);
    CHECK(gcsim_act_ckpt_parse("full", &o.act_ckpt_policy, why, sizeof why) == 0);
    o.act_ckpt = true;
    check_infeasible(&o, 16, "= 81.12 GB per GPU");

    breakeven_case bc = case_at(&o, 32);
    gcsim_error err = {.internal = 0};
    breakeven_row row;
    CHECK(breakeven_row_answer(&bc, ddp, fused, 1.0, &row, &err) == 0);
    /* fp32's side is predict's case with compressor none (stack_breakeven.h) */
    sweep_case fp32 = bc.c;
    fp32.payload = none;
    sweep_result res;
    CHECK(sweep_case_run(&fp32, &res, &err) == 0);
    CHECK(res.p.throughput_samples_per_s > 0);
    CHECK(row.own.be.none_tput == res.p.throughput_samples_per_s);
    CHECK(row.own.be.status != BREAKEVEN_REFUSED);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: test_breakeven_memory SOURCE_DIR\n");
        return 2;
    }
    char path[4096];
    gcsim_error err = {.internal = 0};
    sweep_cache *cache = sweep_cache_new(NULL);
    snprintf(path, sizeof path, "%s/platforms/a100-hdr.json", argv[1]);
    platform = cache ? sweep_cache_platform(cache, path, &err) : NULL;
    snprintf(path, sizeof path, "%s/models/llama-2-70b.json", argv[1]);
    model = platform ? sweep_cache_model(cache, path, &err) : NULL;
    ddp = model ? sweep_cache_stack(cache, "pytorch-ddp", &err) : NULL;
    fused = ddp ? sweep_cache_stack(cache, "fused", &err) : NULL;
    fp16 = fused ? sweep_cache_payload(cache, model, "fp16", &err) : NULL;
    none = fp16 ? sweep_cache_payload(cache, model, "none", &err) : NULL;
    CHECK(none != NULL);
    if (!none) {
        fprintf(stderr, "%s\n", err.message);
    } else {
        test_ddp();
        test_fsdp_act_ckpt();
    }
    sweep_cache_free(cache);
    CHECK_DONE();
}
