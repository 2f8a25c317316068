/*
 * tests/des/test_des_parts.c: des_mm_solve's independent parts (issue 47, docs/des.md step
 * 21). des_maxmin.c leaves out links that cannot bind, solves the flows of parts that share
 * no other link apart and the same part once; GCSIM_DES_MM_WHOLE=1 solves every problem as
 * one system (the event loop of step 16). Both must agree to rounding (1e-12 relative on
 * the problems here, 1e-9 on whole simulations, the bound of tests/des/test_des_solo.c):
 *   - hand-computed cases that fail if a binding link were left out (two flows over their
 *     own NICs and a shared link of 1.5 NICs: 0.75 of a NIC each, not a whole one) or if two
 *     parts differing in one byte or one capacity were taken for the same;
 *   - generated problems: K pods of flows over their own NICs and a pod link that binds,
 *     joined by spine links that cannot bind, one pod perturbed, against the whole solve;
 *   - tree and double-tree all-reduces on a100-hdr (16-256 GPUs, plain and with 4:1
 *     oversubscription, background load and ECMP), the star and PCIe test platforms, and a
 *     ResNet-50 iteration, whole against parts, with the same message counts; gb200-nvl72
 *     at 64 and 256 GPUs, where a latency ending within 1e-9 s of another part's event
 *     makes des_mm_solve fall back to one system (without it: 1.2e-5 apart).
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

#define WHOLE "GCSIM_DES_MM_WHOLE"

static double worst;

/* p solved both ways from t0: every flow's end and the end agree within tol relative to
 * the time from t0. */
static void both_ways(const des_mm_problem *p, double t0, double tol)
{
    double *fin[2];
    double end[2];
    for (int w = 0; w < 2; w++) {
        fin[w] = malloc(sizeof(double) * (size_t)p->n_flows);
        des_test_switch(WHOLE, w == 1);
        CHECK(des_mm_solve(p, t0, &end[w], fin[w], NULL) == 0);
    }
    des_test_switch(WHOLE, false);
    for (int i = 0; i < p->n_flows; i++) {
        double d = fabs(fin[0][i] - fin[1][i]) / (fin[1][i] - t0);
        if (d > worst)
            worst = d;
        CHECK(d <= tol);
    }
    CHECK(fabs(end[0] - end[1]) <= tol * (end[1] - t0));
    free(fin[0]);
    free(fin[1]);
}

static void hand_cases(void)
{
    const double C = 1e9, B = 1e6, lat = 2e-6;
    double fin[4], end;
    /* two flows, each over its own NIC (C) and a shared link of 1.5 C: the shared link
     * binds (the NICs could carry 2 C), 0.75 C each. Left out, they would take C each. */
    double cap[3] = {C, C, 1.5 * C};
    int links[4] = {0, 2, 1, 2};
    des_mm_flow two[2] = {{B, lat, 0, 0, 2}, {B, lat, 0, 2, 2}};
    des_mm_problem p = {.n_links = 3, .capacity_Bps = cap, .n_flows = 2, .flows = two,
                        .links = links};
    CHECK(des_mm_solve(&p, 0, &end, fin, NULL) == 0);
    CHECK_REL(fin[0], lat + B / (0.75 * C), 1e-12);
    CHECK_REL(fin[1], lat + B / (0.75 * C), 1e-12);
    both_ways(&p, 0, 1e-12);
    /* the shared link of 3 C cannot bind: each flow takes its NIC's C */
    cap[2] = 3 * C;
    CHECK(des_mm_solve(&p, 0, &end, fin, NULL) == 0);
    CHECK_REL(fin[0], lat + B / C, 1e-12);
    both_ways(&p, 0, 1e-12);
    /* two parts (no link shared), the same but for one byte, then for one capacity: each
     * ends at its own time (a part taken for the other would copy its ends) */
    double cap4[4] = {C, C, C, C};
    int l4[4] = {0, 1, 2, 3};
    des_mm_flow parts[2] = {{B, lat, 0, 0, 2}, {B + 1, lat, 0, 2, 2}};
    des_mm_problem q = {.n_links = 4, .capacity_Bps = cap4, .n_flows = 2, .flows = parts,
                        .links = l4};
    CHECK(des_mm_solve(&q, 0, &end, fin, NULL) == 0);
    CHECK_REL(fin[0], lat + B / C, 1e-12);
    CHECK_REL(fin[1], lat + (B + 1) / C, 1e-12);
    parts[1].bytes = B;
    cap4[3] = C / 2;
    CHECK(des_mm_solve(&q, 0, &end, fin, NULL) == 0);
    CHECK_REL(fin[0], lat + B / C, 1e-12);
    CHECK_REL(fin[1], lat + B / (C / 2), 1e-12);
    CHECK_REL(end, lat + B / (C / 2), 1e-12);
}

/* K pods of m flows: flow j of pod k over NIC (k, j) (C), the pod's link (binding: 0.6 m
 * C) and spine link k % 4 (4 K m C: cannot bind); latencies of 1 or 3 us, bytes of 1 or 2
 * units, alternating; pod `odd` gets one flow with a byte more. */
static void pods(int K, int m, int odd)
{
    const double C = 1e9, B = 3e5;
    int n = K * m, L = K * m + K + 4;
    double *cap = malloc(sizeof(double) * (size_t)L);
    des_mm_flow *f = malloc(sizeof *f * (size_t)n);
    int *links = malloc(sizeof(int) * (size_t)n * 3);
    for (int l = 0; l < K * m; l++)
        cap[l] = C;
    for (int k = 0; k < K; k++)
        cap[K * m + k] = 0.6 * m * C;
    for (int s = 0; s < 4; s++)
        cap[K * m + K + s] = 4.0 * K * m * C;
    for (int k = 0; k < K; k++)
        for (int j = 0; j < m; j++) {
            int i = k * m + j;
            links[3 * i] = i;
            links[3 * i + 1] = K * m + k;
            links[3 * i + 2] = K * m + K + k % 4;
            f[i] = (des_mm_flow){.bytes = B * (1 + j % 2) + (k == odd && j == 0 ? 1 : 0),
                                 .latency_s = j % 3 == 0 ? 3e-6 : 1e-6,
                                 .extra_s = 1e-7 * j, .first_link = 3 * i, .n_links = 3};
        }
    des_mm_problem p = {.n_links = L, .capacity_Bps = cap, .n_flows = n, .flows = f,
                        .links = links};
    both_ways(&p, 0.25, 1e-12);
    /* the same with the spine links binding (0.3 of the pods' NICs): one part */
    for (int s = 0; s < 4; s++)
        cap[K * m + K + s] = 0.3 * K * m * C / 4;
    both_ways(&p, 0.25, 1e-12);
    free(cap);
    free(f);
    free(links);
}

static void compare(const gcsim_platform *p, int gpus, gcsim_collective c, double bytes)
{
    des_test_run r[2];
    CHECK(des_test_collective_both_ways(WHOLE, p, gpus, c, bytes, 0, r) == 0);
    double d = fabs(r[0].seconds / r[1].seconds - 1);
    if (d > worst)
        worst = d;
    printf("%-14s %5d GPUs %-12s %9.0f B  whole %.17g s  parts %.17g s  %.2e  msgs %lld\n",
           p->name, gpus, gcsim_collective_name(c), bytes, r[1].seconds, r[0].seconds, d,
           r[0].transfers);
    CHECK_REL(r[0].seconds, r[1].seconds, AGREE);
    CHECK(r[0].transfers == r[1].transfers);
    CHECK(r[0].solved_transfers == r[1].solved_transfers && r[0].solved_transfers > 0);
}

static void iteration(const gcsim_platform *p, const gcsim_model *m, const gcsim_payload_plan *pay,
                      int gpus)
{
    gcsim_error err;
    gcsim_scenario s;
    CHECK(des_test_weak_scenario(p, m, pay, gpus, COLLECTIVE_DOUBLE_TREE, &s, &err) == 0);
    double t[2] = {0, 0};
    for (int w = 0; w < 2; w++) {
        gcsim_prediction out;
        des_test_switch(WHOLE, w == 1);
        CHECK(des_predict_opts_s(&s, NULL, &out, NULL, &err) == 0);
        t[w] = out.iteration_s;
    }
    des_test_switch(WHOLE, false);
    printf("%-14s %5d GPUs iteration: whole %.17g s  parts %.17g s  %.2e\n", p->name, gpus,
           t[1], t[0], fabs(t[0] / t[1] - 1));
    CHECK_REL(t[0], t[1], AGREE);
}

int main(void)
{
    hand_cases();
    pods(8, 4, 3);
    pods(32, 8, 0);
    pods(3, 16, -1);
    printf("generated problems: largest difference %.2e\n", worst);

    const double sizes[2] = {4.0 * 1024 * 1024, 64.0 * 1024 * 1024};
    const gcsim_collective trees[2] = {COLLECTIVE_TREE, COLLECTIVE_DOUBLE_TREE};
    gcsim_platform star = des_test_platform(64, 1), pcie = des_test_platform(16, 4);
    snprintf(pcie.name, sizeof pcie.name, "pcie-4");
    for (int c = 0; c < 2; c++) {
        compare(&star, 64, trees[c], sizes[1]);
        compare(&pcie, 64, trees[c], sizes[1]);
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

    /* gb200-nvl72: short NVLink latencies end within 1e-9 s of other parts' events, where
     * the single loop snaps them paid; des_mm_solve must fall back to one system there
     * (parts alone differed by 1.2e-5 at 1 GiB on 64 GPUs) */
    gcsim_platform gb;
    CHECK(gcsim_platform_load(GCSIM_SOURCE_DIR "/platforms/gb200-nvl72.json", &gb, &err) == 0);
    for (int c = 0; c < 2; c++)
        compare(&gb, 64, trees[c], 1024.0 * 1024 * 1024);
    compare(&gb, 256, COLLECTIVE_DOUBLE_TREE, sizes[1]);

    gcsim_model model;
    gcsim_payload_plan pay;
    CHECK(gcsim_model_load(GCSIM_SOURCE_DIR "/models/resnet-50.json", &model, &err) == 0);
    CHECK(gcsim_payload_plan_build("none", &model, &pay, &err) == 0);
    iteration(&a100, &model, &pay, 256);
    gcsim_payload_plan_free(&pay);
    gcsim_model_free(&model);
    printf("largest difference, parts against whole: %.2e\n", worst);
    CHECK_DONE();
}
