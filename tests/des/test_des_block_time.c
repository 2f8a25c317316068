/*
 * tests/des/test_des_block_time.c: a pipelined phase in blocks (sim/des/des_blocks.c) takes
 * the time of its steps simulated one by one (GCSIM_DES_FULL=1) where a GPU pair's
 * stretches differ in size and the slowest flow changes from step to step (issue 42):
 * NVLS-tree at NCCL's loop count, whose chains inside a node run at the switch's rate
 * against the NICs. h100-ndr (platforms/h100-ndr.json), 2 x 8 GPUs: 256 MiB is 16 chunks
 * (16 channels x 8 heads x 128 KiB a loop), 1 GiB 64. When a block sent one message per
 * run of stretches whatever their sizes, the blocks ran 1.5% and 0.40% under the step-by-
 * step simulation; a block now grows only while its time as the closed form prices it
 * stays its steps' to DES_BLOCK_TIME_SLACK (1e-4 of the block), which this asserts for
 * the whole call. The blocks still send fewer messages than the steps.
 */
#include <stdio.h>

#include "../check.h"
#include "des_test_cases.h"
#include "platform.h"

static void compare(const gcsim_platform *p, int gpus, double bytes)
{
    des_test_run r[2];
    CHECK(des_test_collective_both_ways("GCSIM_DES_FULL", p, gpus, COLLECTIVE_NVLS_TREE, bytes,
                                        0, r) == 0);
    printf("%-10s %3d GPUs nvls-tree %12.0f B  steps %.9e s (%lld msgs)  blocks %.9e s (%lld "
           "msgs)  %+.2e\n",
           p->name, gpus, bytes, r[1].seconds, r[1].transfers, r[0].seconds, r[0].transfers,
           r[0].seconds / r[1].seconds - 1);
    CHECK_REL(r[0].seconds, r[1].seconds, 1e-4);
    CHECK(r[0].transfers < r[1].transfers);
}

int main(void)
{
    gcsim_error err;
    gcsim_platform h100;
    CHECK(gcsim_platform_load(GCSIM_SOURCE_DIR "/platforms/h100-ndr.json", &h100, &err) == 0);
    compare(&h100, 16, 256.0 * 1024 * 1024);
    compare(&h100, 16, 1024.0 * 1024 * 1024);
    CHECK_DONE();
}
