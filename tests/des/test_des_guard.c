/*
 * tests/des/test_des_guard.c: the DES's size guard (des_plan_check_size). The number of
 * SimGrid messages it predicts from the schedule before the fork is the number the
 * simulation then sends: with the limit set to exactly that number the run goes ahead, one
 * below it the run is refused as an input error (exit 2 in the commands) whose message
 * names the count and the option that lifts the limit; -1 lifts it. Checked for several
 * collectives, coalesced (the pipelined trees in blocks) and fully simulated
 * (GCSIM_DES_FULL=1), on a star of 4 GPUs per node and on platforms/a100-hdr.json.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "des.h"
#include "des_test_platform.h"
#include "platform.h"
#include "../bare_topology.h"

/* Returns the messages the run sent. */
static long long guard(const gcsim_platform *p, int gpus, gcsim_collective c, bool full)
{
    gcsim_error err;
    double t = 0;
    if (full)
        setenv("GCSIM_DES_FULL", "1", 1);
    else
        unsetenv("GCSIM_DES_FULL");
    gcsim_des_details d = {0};
    gcsim_des_options open = {.max_messages = -1};
    CHECK(bare_des_collective_time(p, gpus, c, 8e6, 0, &open, &t, &d, &err) == 0);
    long long sent = d.transfers;
    gcsim_des_details_free(&d);
    CHECK(sent > 0);

    gcsim_des_options exact = {.max_messages = sent};
    CHECK(bare_des_collective_time(p, gpus, c, 8e6, 0, &exact, &t, NULL, &err) == 0);

    gcsim_des_options below = {.max_messages = sent - 1};
    memset(&err, 0, sizeof err);
    int rc = bare_des_collective_time(p, gpus, c, 8e6, 0, &below, &t, NULL, &err);
    CHECK(rc != 0);
    CHECK(err.internal == 0);
    char count[32];
    snprintf(count, sizeof count, "send %lld SimGrid messages", sent);
    CHECK_STR_CONTAINS(err.message, count);
    CHECK_STR_CONTAINS(err.message, "--des-max-messages");
    printf("%-12s %4d GPUs %-18s %s: %lld messages, limit %lld refused\n", p->name, gpus,
           gcsim_collective_name(c), full ? "full" : "coalesced", sent, sent - 1);
    return sent;
}

int main(void)
{
    gcsim_platform star = des_test_platform(4, 4);
    gcsim_collective cs[] = {COLLECTIVE_RING, COLLECTIVE_HIERARCHICAL, COLLECTIVE_HALVING_DOUBLING,
                             COLLECTIVE_PARAMETER_SERVER};
    for (size_t k = 0; k < sizeof cs / sizeof *cs; k++)
        for (int full = 0; full < 2; full++)
            guard(&star, 16, cs[k], full);
    gcsim_error err;
    gcsim_platform a100;
    CHECK(gcsim_platform_load(GCSIM_SOURCE_DIR "/platforms/a100-hdr.json", &a100, &err) == 0);
    for (int full = 0; full < 2; full++) {
        guard(&a100, 64, COLLECTIVE_RING, full);
        guard(&a100, 64, COLLECTIVE_HIERARCHICAL, full);
    }
    /* The pipelined trees, run in blocks (des_blocks.c) or every step (full), on the star
     * and on a100-hdr: the count is exact either way, and blocks send fewer messages. */
    gcsim_collective trees[] = {COLLECTIVE_TREE, COLLECTIVE_DOUBLE_TREE};
    for (size_t k = 0; k < 2; k++) {
        long long sent[2];
        for (int full = 0; full < 2; full++) {
            guard(&star, 16, trees[k], full);
            sent[full] = guard(&a100, 256, trees[k], full);
        }
        CHECK(sent[0] < sent[1]);
    }
    /* 256 GPUs on 32 nodes: each shard has 256 flows a phase, spread over 8 lanes
     * (des_collectives.c), whose messages the count must include. */
    guard(&a100, 256, COLLECTIVE_PARAMETER_SERVER, false);
    unsetenv("GCSIM_DES_FULL");
    CHECK_DONE();
}
