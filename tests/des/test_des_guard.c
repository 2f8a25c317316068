/*
 * tests/des/test_des_guard.c: the DES's size guard (des_plan_check_size). The number of
 * SimGrid messages it predicts from the schedule before the fork is the number the
 * simulation then sends: with the limit set to exactly that number the run goes ahead, one
 * below it the run is refused as an input error (exit 2 in the commands) whose message
 * names the count and the option that lifts the limit; -1 lifts it. Checked for several
 * collectives, coalesced (the pipelined trees in blocks) and fully simulated
 * (GCSIM_DES_FULL=1), on a star of 4 GPUs per node and on platforms/a100-hdr.json.
 * And the guard's cost estimate (des_plan_estimate, deterministic: no time is measured
 * here) against values computed by hand from des_plan.c's constants, for cells whose
 * actors, messages and flows in progress can be counted on paper (estimate_cell).
 */
#include <math.h>
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

/* The estimate for one bare collective of 8 MB: the simulation child's CPU seconds
 * (details.estimated_cpu_s) within 1e-12 of child_cpu_s, and the refusal's figures for the
 * whole gcsim process (the child's plus des_plan.c's start-up floor DES_CPU_S_PROCESS, 0.02
 * s; the larger of the child's memory and the process's own 33.5 MiB) as printed. */
static void estimate_cell(const gcsim_platform *p, int gpus, gcsim_collective c, bool replay,
                          long long messages, double child_cpu_s, const char *process_text)
{
    unsetenv("GCSIM_DES_FULL");
    if (replay)
        setenv("GCSIM_DES_REPLAY", "1", 1);
    else
        unsetenv("GCSIM_DES_REPLAY");
    gcsim_error err;
    double t = 0;
    gcsim_des_details d = {0};
    gcsim_des_options open = {.max_messages = -1};
    CHECK(bare_des_collective_time(p, gpus, c, 8e6, 0, &open, &t, &d, &err) == 0);
    CHECK(d.transfers == messages);
    CHECK(fabs(d.estimated_cpu_s - child_cpu_s) <= 1e-12);
    printf("%-12s %4d GPUs %-18s %s estimate %.12f s (by hand %.12f), %lld messages\n",
           p->name, gpus, gcsim_collective_name(c), replay ? "replayed" : "solved  ",
           d.estimated_cpu_s, child_cpu_s, d.transfers);
    gcsim_des_details_free(&d);
    gcsim_des_options below = {.max_messages = messages - 1};
    memset(&err, 0, sizeof err);
    CHECK(bare_des_collective_time(p, gpus, c, 8e6, 0, &below, &t, NULL, &err) != 0);
    CHECK_STR_CONTAINS(err.message, process_text);
    unsetenv("GCSIM_DES_REPLAY");
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

    /* Ring over 16 GPUs of the star, every message sent (GCSIM_DES_REPLAY=1): a
     * reduce-scatter and an all-gather phase of 16 flows (one a GPU) over 15 steps each,
     * coalesced: 32 messages; 16 senders a phase (F); 16 actors (a comm actor a GPU, no
     * compute, 2 flows an endpoint: no lane helpers). CPU: 0.002 + 16 x 1e-5 + 32 x 2.5e-6
     * = 0.00224 s (no caches' doublings under 256 senders); the process 0.02 more: 0.022
     * (three decimals below 1 s); memory 8.2 MiB + 16 x (14 + 8.3 + 3) KiB = 8.6 MiB, under
     * the process's 33.5 MiB: 34 printed. */
    estimate_cell(&star, 16, COLLECTIVE_RING, true, 32, 0.00224,
                  "an estimated 0.022 CPU s and 34 MiB");
    /* The same ring over 1,024 GPUs (256 nodes of 4), replayed: 2,048 messages, 1,024
     * senders a phase, two doublings past 256, each adding 2.8e-6 s a message. CPU: 0.002
     * + 1,024 x 1e-5 + 2,048 x (2.5e-6 + 2 x 2.8e-6) = 0.0288288 s; the process 0.02 more:
     * 0.049; memory 8.2 MiB + 1,024 x (14 + 8.3 + 3) KiB = 33.5 MiB, the process's own: 34
     * printed. Without the cache term it would print 0.037. */
    gcsim_platform wide = des_test_platform(256, 4);
    estimate_cell(&wide, 1024, COLLECTIVE_RING, true, 2048, 0.0288288,
                  "an estimated 0.049 CPU s and 34 MiB");
    /* Both rings solved per flow with an actor per GPU (GCSIM_DES_ACTORS=1; des_shard.c: no
     * gate, so at 5.3e-8 sqrt(F) s a message, F the phase's senders). CPU: 0.002 + 16 x
     * 1e-5 + 32 x 5.3e-8 x 4 = 0.002166784 s, the process 0.022; 0.002 + 1,024 x 1e-5 +
     * 2,048 x 5.3e-8 x 32 = 0.015713408 s, the process 0.036. */
    setenv("GCSIM_DES_ACTORS", "1", 1);
    estimate_cell(&star, 16, COLLECTIVE_RING, false, 32, 0.002166784,
                  "an estimated 0.022 CPU s and 34 MiB");
    estimate_cell(&wide, 1024, COLLECTIVE_RING, false, 2048, 0.015713408,
                  "an estimated 0.036 CPU s and 34 MiB");
    unsetenv("GCSIM_DES_ACTORS");
    /* And as they run by default, with no actor per GPU (des_shard_direct.c: one actor;
     * 0.002 more, 3.4e-5 s an endpoint and 3e-8 s a message). CPU: 0.002 + 1 x 1e-5 + 0.002
     * + 16 x 3.4e-5 + 32 x 3e-8 = 0.00455496 s, the process 0.025; 0.002 + 1e-5 + 0.002 +
     * 1,024 x 3.4e-5 + 2,048 x 3e-8 = 0.03888744 s, the process 0.059. */
    estimate_cell(&star, 16, COLLECTIVE_RING, false, 32, 0.00455496,
                  "an estimated 0.025 CPU s and 34 MiB");
    estimate_cell(&wide, 1024, COLLECTIVE_RING, false, 2048, 0.03888744,
                  "an estimated 0.059 CPU s and 34 MiB");
    /* Parameter server over the star's 4 nodes, a shard a node: push and pull phases of
     * 16 x 4 = 64 flows, solved outside SimGrid (des_ps.c): 128 messages at 8.7e-7 s; 20
     * actors (16 GPUs, 4 node CPUs). CPU: 0.002 + 20 x 1e-5 + 128 x 8.7e-7 = 0.00231136 s;
     * process 0.02231136: 0.022. */
    estimate_cell(&star, 16, COLLECTIVE_PARAMETER_SERVER, false, 128, 0.00231136,
                  "an estimated 0.022 CPU s and 34 MiB");
    unsetenv("GCSIM_DES_FULL");
    CHECK_DONE();
}
