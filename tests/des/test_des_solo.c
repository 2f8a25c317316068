/*
 * tests/des/test_des_solo.c: blocks of a pipelined phase solved outside SimGrid
 * (des_maxmin.c, des_collectives.c's solo_block) give what SimGrid gives when it is sent
 * every block's messages (GCSIM_DES_REPLAY=1), to within 1e-9 relative (the two sum the
 * same rates in another order: they differ by rounding only, 1e-14 at most when written),
 * and count the same messages; the solved path is taken (some of its messages solved,
 * none under the replay). Cases:
 *   - the tree and double-tree all-reduce of 4 MiB and 64 MiB on platforms/a100-hdr.json
 *     (NVSwitch, 8 rails, fat tree) at 16, 64 and 256 GPUs, and on it with its leaf links
 *     oversubscribed 4:1, a background load of 30% on the leaf links and ECMP over 4
 *     spines (flows hashed onto the same spine link share it unevenly);
 *   - the same on a star of 1 GPU per node (10 Gb/s Ethernet) and 4 GPUs per node on a
 *     PCIe switch (des_test_platform.h), 16 and 64 GPUs;
 *   - a ResNet-50 iteration (overlap: buckets start while backward runs) under the double
 *     tree on a100-hdr at 64 and 256 GPUs.
 * And the model's own arithmetic on hand-computed cases (des_mm_solve): one flow, two flows
 * of equal and of unequal latency on one link (CM02 shares a link in proportion to
 * 1 / route latency), and a flow that is limited elsewhere leaving the rest to the others.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "des.h"
#include "des_maxmin.h"
#include "des_test_cases.h"
#include "des_test_platform.h"
#include "model.h"
#include "payload.h"
#include "platform.h"
#include "../resolved_predict.h"
#include "../bare_topology.h"

#define AGREE 1e-9

#define REPLAY "GCSIM_DES_REPLAY"

static long long solved_total;

static void compare(const gcsim_platform *p, int gpus, gcsim_collective c, double bytes)
{
    des_test_run r[2];
    CHECK(des_test_collective_both_ways(REPLAY, p, gpus, c, bytes, 0, r) == 0);
    printf("%-14s %5d GPUs %-12s %9.0f B  replay %.17g s  solved %.17g s  %.2e  "
           "msgs %lld (%lld solved)\n",
           p->name, gpus, gcsim_collective_name(c), bytes, r[1].seconds, r[0].seconds,
           fabs(r[0].seconds / r[1].seconds - 1), r[0].transfers, r[0].solved_transfers);
    CHECK_REL(r[0].seconds, r[1].seconds, AGREE);
    CHECK(r[0].transfers == r[1].transfers);
    CHECK(r[1].solved_transfers == 0);
    solved_total += r[0].solved_transfers;
}

static void iteration(const gcsim_platform *p, const gcsim_model *m, const gcsim_payload_plan *pay,
                      int gpus, gcsim_collective c)
{
    gcsim_error err;
    gcsim_scenario s;
    CHECK(des_test_weak_scenario(p, m, pay, gpus, c, &s, &err) == 0);
    double t[2] = {0, 0}, ex[2] = {0, 0};
    for (int replay = 0; replay < 2; replay++) {
        gcsim_prediction out;
        des_test_switch(REPLAY, replay);
        CHECK(des_predict_opts_s(&s, NULL, &out, NULL, &err) == 0);
        t[replay] = out.iteration_s;
        ex[replay] = out.exposed_comm_s;
    }
    des_test_switch(REPLAY, false);
    printf("%-14s %5d GPUs %-12s iteration: replay %.17g s  solved %.17g s  %.2e\n", p->name,
           gpus, gcsim_collective_name(c), t[1], t[0], fabs(t[0] / t[1] - 1));
    CHECK_REL(t[0], t[1], AGREE);
    CHECK(fabs(ex[0] - ex[1]) <= AGREE * t[1]);
}

/* des_mm_solve on hand-computed cases: bytes B over links of capacity C. */
static void hand_cases(void)
{
    const double C = 1e9, B = 1e6;
    double cap[2] = {C, C / 4}, end = 0, fin[3];
    /* one flow, latency 1 us: 1 us + B / C */
    des_mm_flow one = {.bytes = B, .latency_s = 1e-6, .extra_s = 0, .first_link = 0, .n_links = 1};
    int links[4] = {0, 0, 0, 1};
    des_mm_problem p = {.n_links = 1, .capacity_Bps = cap, .n_flows = 1, .flows = &one,
                        .links = links};
    CHECK(des_mm_solve(&p, 0, &end, fin, NULL) == 0);
    CHECK_REL(end, 1e-6 + B / C, 1e-12);
    /* two flows of equal latency: each C / 2 until both end at 1 us + 2B / C; the extra
     * of the second counts after its end */
    des_mm_flow two[2] = {{B, 1e-6, 0, 0, 1}, {B, 1e-6, 5e-6, 1, 1}};
    p.n_flows = 2;
    p.flows = two;
    CHECK(des_mm_solve(&p, 1.0, &end, fin, NULL) == 0);
    CHECK_REL(fin[0] - 1.0, 1e-6 + 2 * B / C, 1e-9);
    CHECK_REL(end - 1.0, 1e-6 + 2 * B / C + 5e-6, 1e-9);
    /* latencies 1 and 3 us: flow 0 alone for 2 us (2e-6 C bytes), then shares in
     * proportion 1/1 : 1/3, i.e. 3/4 C and 1/4 C, until flow 0 is done; then flow 1 alone */
    des_mm_flow uneq[2] = {{B, 1e-6, 0, 0, 1}, {B, 3e-6, 0, 1, 1}};
    p.flows = uneq;
    CHECK(des_mm_solve(&p, 0, &end, fin, NULL) == 0);
    double t0 = 3e-6, left0 = B - 2e-6 * C;
    double t1 = t0 + left0 / (0.75 * C);
    double left1 = B - 0.25 * C * (t1 - t0);
    CHECK_REL(fin[0], t1, 1e-9);
    CHECK_REL(fin[1], t1 + left1 / C, 1e-9);
    /* flow 2 crosses link 0 and link 1 (C / 4): it gets C / 4, flows 0 and 1 share the
     * other 3/4 C (latency 0: penalty 1, no latency phase) */
    des_mm_flow three[3] = {{B, 0, 0, 0, 1}, {B, 0, 0, 1, 1}, {B, 0, 0, 2, 2}};
    p.n_links = 2;
    p.n_flows = 3;
    p.flows = three;
    CHECK(des_mm_solve(&p, 0, &end, fin, NULL) == 0);
    CHECK_REL(fin[2], B / (C / 4), 1e-9);
    CHECK_REL(fin[0], B / (0.375 * C), 1e-9);
}

int main(void)
{
    hand_cases();
    const double sizes[2] = {4.0 * 1024 * 1024, 64.0 * 1024 * 1024};
    const gcsim_collective trees[2] = {COLLECTIVE_TREE, COLLECTIVE_DOUBLE_TREE};
    gcsim_platform star = des_test_platform(64, 1), pcie = des_test_platform(16, 4);
    snprintf(pcie.name, sizeof pcie.name, "pcie-4");
    for (int c = 0; c < 2; c++)
        for (int n = 16; n <= 64; n *= 4) {
            compare(&star, n, trees[c], sizes[1]);
            compare(&pcie, n, trees[c], sizes[1]);
        }

    gcsim_error err;
    gcsim_platform a100;
    CHECK(gcsim_platform_load(GCSIM_SOURCE_DIR "/platforms/a100-hdr.json", &a100, &err) == 0);
    a100.nodes = 32;
    for (int c = 0; c < 2; c++)
        for (int k = 0; k < 2; k++)
            for (int n = 16; n <= 256; n *= 4)
                compare(&a100, n, trees[c], sizes[k]);
    gcsim_platform loaded = des_test_loaded_fabric(&a100, "a100-loaded");
    for (int c = 0; c < 2; c++)
        compare(&loaded, 256, trees[c], sizes[1]);

    gcsim_model model;
    gcsim_payload_plan pay;
    CHECK(gcsim_model_load(GCSIM_SOURCE_DIR "/models/resnet-50.json", &model, &err) == 0);
    CHECK(gcsim_payload_plan_build("none", &model, &pay, &err) == 0);
    iteration(&a100, &model, &pay, 64, COLLECTIVE_DOUBLE_TREE);
    iteration(&a100, &model, &pay, 256, COLLECTIVE_DOUBLE_TREE);
    gcsim_payload_plan_free(&pay);
    gcsim_model_free(&model);
    printf("messages solved outside SimGrid: %lld\n", solved_total);
    CHECK(solved_total > 0);
    CHECK_DONE();
}
