/*
 * tests/collectives/test_closed_hier.c: the hierarchical all-reduce's and hierarchical
 * reduce-scatter's flow-free classes (sim/collectives/closed_hier.c) against the ones
 * gcsim_schedule_prepare finds flow by flow, on every grid platform (closed_compare.h) at
 * 2 .. 40 GPUs and a sample up to 200 (partial last nodes and leaves, windowed phases); a
 * hand-computed case; a larger fat tree of 32 nodes per leaf; and 2^22 GPUs in bounded
 * memory.
 */
#include <math.h>
#include <stdio.h>
#include <sys/resource.h>

#include "../check.h"
#include "closed_compare.h"
#include "test_platforms.h"

static int windowed_phases; /* how many windowed phases the comparisons met */

static void compare(const gcsim_platform *p, int gpus, gcsim_collective c, int group)
{
    char why[2048];
    int rc = closed_compare(p, gpus, c, 0, group, why, sizeof why);
    if (rc != 0)
        fprintf(stderr, "%s (group %d), %d GPUs of %d per node, %d NICs, %d nodes per leaf: %s\n",
                gcsim_collective_name(c), group, gpus, p->gpus_per_node, p->nic.per_node,
                p->fabric.nodes_per_leaf, why);
    CHECK(rc == 0);
    /* the closed form's intervals, to count that windowed phases were compared */
    gcsim_topology t;
    gcsim_schedule s;
    gcsim_error err;
    if (gcsim_topology_init(&t, p, gpus, &err) == 0 &&
        gcsim_closed_form_prepare(&s, c, &t, 0, group, &err) == 0) {
        for (int k = 0; k < s.n_phases; k++)
            windowed_phases += s.phases[k].n_intervals > 0;
        gcsim_schedule_free(&s);
    }
}

static const gcsim_flow_class *find_class(const gcsim_flow_class *v, int n, double share,
                                          double Bps)
{
    for (int k = 0; k < n; k++)
        if (v[k].share == share && fabs(v[k].Bps - Bps) <= 1e-12 * Bps)
            return &v[k];
    return NULL;
}

/* Platform U (4 GPUs per node on a 10 GB/s PCIe switch, 12.5 GB/s PCIe to host, 5 us; one
 * 125e6 B/s NIC per node, 50 us, star) at 14 GPUs: 4 nodes, the last with 2 GPUs.
 *   node reduce-scatter, 3 steps: full nodes' rings of 4 (share 1/4, steps 0..2) and the
 *     last node's ring of 2 (1/2, step 0), each flow alone on its switch ports: 10e9 B/s,
 *     5 us. Intervals [0,0] {both}, [1,2] {the ring of 4}.
 *   rail reduce-scatter, 3 steps, k0 = 4: rails 0, 1 over 4 nodes (share 1/16, steps
 *     0..2), rails 2, 3 over nodes 0..2 (1/12, steps 0..1), all on the one NIC, 50 us.
 *     Steps 0..1: a NIC of nodes 0..2 carries 2/16 + 2/12 = 7/24 each way, node 3's 2/16
 *     (out, and in from node 2); node 0 receives rails 2, 3 from node 2 and 0, 1 from node 3:
 *     7/24. Rails 0, 1: every flow meets a 7/24 NIC: 125e6 x (1/16)/(7/24) = 26.785714e6
 *     B/s; rails 2, 3: 125e6 x (1/12)/(7/24) = 35.714286e6 B/s. Step 2: rails 0, 1 alone,
 *     2/16 per NIC: 125e6 x (1/16)/(2/16) = 62.5e6 B/s. PCIe (12.5e9) never binds.
 *   rail all-gather, node all-gather: the same with k0 = 14, dk = 0. */
static void hand_case(void)
{
    gcsim_platform p = platform_u();
    gcsim_topology t;
    gcsim_schedule s;
    gcsim_error err;
    CHECK(gcsim_topology_init(&t, &p, 14, &err) == 0);
    CHECK(gcsim_closed_form_prepare(&s, COLLECTIVE_HIERARCHICAL, &t, 0, 0, &err) == 0);
    CHECK(s.n_phases == 4);
    if (s.n_phases != 4)
        return;
    const char *names[4] = {"node reduce-scatter", "rail reduce-scatter", "rail all-gather",
                            "node all-gather"};
    const double k0[4] = {1, 4, 14, 14}, dk[4] = {1, 4, 0, 0};
    for (int ph = 0; ph < 4; ph++) {
        const gcsim_phase *x = &s.phases[ph];
        CHECK(strcmp(x->name, names[ph]) == 0);
        CHECK(x->steps == 3 && x->dk == dk[ph] && x->n_intervals == 2);
        if (x->n_intervals != 2)
            continue;
        bool node = ph == 0 || ph == 3;
        CHECK(x->interval_from[0] == 0 && x->interval_to[0] == (node ? 0 : 1));
        CHECK(x->interval_from[1] == (node ? 1 : 2) && x->interval_to[1] == 2);
        const gcsim_flow_class *a = x->classes + x->interval_class[0];
        const gcsim_flow_class *b = x->classes + x->interval_class[1];
        int na = x->interval_class[1] - x->interval_class[0];
        int nb = x->interval_class[2] - x->interval_class[1];
        CHECK(na == 2 && nb == 1);
        const gcsim_flow_class *c;
        if (node) {
            CHECK((c = find_class(a, na, 0.25, 10e9)) && c->last == 2 && c->latency_s == 5e-6);
            CHECK((c = find_class(a, na, 0.5, 10e9)) && c->last == 0 && c->k0 == k0[ph]);
            CHECK((c = find_class(b, nb, 0.25, 10e9)) && c->last == 2 && c->k0 == k0[ph]);
        } else {
            CHECK((c = find_class(a, na, 1.0 / 16, 125e6 * 3 / 14)) && c->last == 2 &&
                  c->latency_s == 50e-6 && c->k0 == k0[ph]);
            CHECK((c = find_class(a, na, 1.0 / 12, 125e6 * 2 / 7)) && c->last == 1);
            CHECK((c = find_class(b, nb, 1.0 / 16, 62.5e6)) && c->last == 2);
        }
    }
    gcsim_schedule_free(&s);
}

/* Platform R (2 nodes of 8 GPUs on a 300 GB/s NVSwitch, 5 us; a 25 GB/s NIC per GPU,
 * 1 us, star with 0.13 us switches) at 16 GPUs: no window. Node rings of 8: share 1/8 at
 * 300e9 B/s, 5 us. Rail rings of 2 nodes: share 1/16, each GPU's flow alone on its NIC:
 * min(31.5e9 PCIe, 25e9 NIC) = 25e9 B/s, 1 + 2 x 0.13 = 1.26 us. */
static void hand_case_rails(void)
{
    gcsim_platform p = platform_r();
    gcsim_topology t;
    gcsim_schedule s;
    gcsim_error err;
    CHECK(gcsim_topology_init(&t, &p, 16, &err) == 0);
    CHECK(gcsim_closed_form_prepare(&s, COLLECTIVE_HIER_REDUCE_SCATTER, &t, 0, 16, &err) == 0);
    CHECK(s.n_phases == 2 && s.group == 16);
    if (s.n_phases != 2)
        return;
    const gcsim_phase *a = &s.phases[0], *b = &s.phases[1];
    CHECK(a->steps == 7 && a->n_intervals == 0 && a->n_classes == 1);
    CHECK(a->classes[0].Bps == 300e9 && a->classes[0].share == 1.0 / 8 &&
          a->classes[0].latency_s == 5e-6 && a->classes[0].last == 6);
    CHECK(b->steps == 1 && b->dk == 8 && b->n_intervals == 0 && b->n_classes == 1);
    CHECK(b->classes[0].Bps == 25e9 && b->classes[0].share == 1.0 / 16 &&
          b->classes[0].k0 == 8 && b->classes[0].last == 0);
    CHECK_REL(b->classes[0].latency_s, 1.26e-6, 1e-12);
    gcsim_schedule_free(&s);
}

/* Resident memory bound of the 2^22-GPU case (KB, as Linux gives ru_maxrss): about 1 MB
 * measured, 8 MB under AddressSanitizer (tests/sanitize.sh). It runs first: the sanitizer
 * keeps the grid's freed schedules in quarantine (180 MB after it). */
#define RSS_BOUND_KB (40 * 1024)

/* 2^22 GPUs (2^19 NVSwitch nodes of 8, 8 NICs, 2 nodes per leaf) and 3 fewer (a partial
 * last node): a handful of classes, in memory independent of N. The flows alone would take
 * 2^22 x 4 phases x 32 B = 512 MiB. */
static void huge_case(void)
{
    gcsim_platform huge = closed_grid_platform(8, 1 << 19);
    const int huge_counts[2] = {1 << 22, (1 << 22) - 3};
    for (int k = 0; k < 2; k++) {
        gcsim_topology t;
        gcsim_schedule s;
        gcsim_error err;
        CHECK(gcsim_topology_init(&t, &huge, huge_counts[k], &err) == 0);
        CHECK(gcsim_closed_form_prepare(&s, COLLECTIVE_HIERARCHICAL, &t, 0, 0, &err) == 0);
        CHECK(s.n_phases == 4);
        for (int ph = 0; ph < s.n_phases; ph++)
            CHECK(s.phases[ph].n_classes >= 1 && s.phases[ph].n_classes <= 16);
        gcsim_bucket_bytes b = {.dense_bytes = 1e8, .payload_bytes = 1e8};
        double x = gcsim_schedule_prepared_time_s(&s, &b);
        CHECK(x > 0 && isfinite(x));
        gcsim_schedule_free(&s);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("max resident set after 2^22 GPUs: %ld KB\n", ru.ru_maxrss);
    CHECK(ru.ru_maxrss < RSS_BOUND_KB);
}

int main(void)
{
    huge_case();
    hand_case();
    hand_case_rails();

    /* the grid: every GPU count to 40, then a sample with partial nodes and leaves */
    const int sample[] = {41, 45, 47, 48, 50, 56, 63, 64, 65, 71, 77, 90, 96, 97, 100, 113,
                          121, 127, 128, 129, 143, 150, 161, 175, 191, 199, 200};
    int counts[40 + sizeof sample / sizeof *sample], nc = 0;
    for (int g = 2; g <= 40; g++)
        counts[nc++] = g;
    for (size_t k = 0; k < sizeof sample / sizeof *sample; k++)
        counts[nc++] = sample[k];
    for (int k = 0; k < CLOSED_GRID_PLATFORMS; k++) {
        gcsim_platform p = closed_grid_platform(k, 256);
        for (int c = 0; c < nc; c++) {
            compare(&p, counts[c], COLLECTIVE_HIERARCHICAL, 0);
            compare(&p, counts[c], COLLECTIVE_HIER_REDUCE_SCATTER, 0);
            compare(&p, counts[c], COLLECTIVE_HIER_REDUCE_SCATTER, counts[c]);
        }
    }
    CHECK(windowed_phases > 0);
    printf("grid: %d GPU counts on %d platforms, %d windowed phases compared\n", nc,
           CLOSED_GRID_PLATFORMS, windowed_phases);

    /* leaves of 32 nodes (DGX SuperPOD scalable units), blocking 2:1, 4 NICs for 8 GPUs:
     * many alike leaves between the first and the partial last, a partial last node */
    gcsim_platform big = closed_grid_platform(9, 1024);
    big.fabric.nodes_per_leaf = 32;
    const int big_counts[] = {8 * 32 * 7 + 8 * 5 + 3, 8 * 32 * 9 + 8, 8 * 32 * 6 + 1, 8 * 33};
    for (size_t k = 0; k < sizeof big_counts / sizeof *big_counts; k++) {
        compare(&big, big_counts[k], COLLECTIVE_HIERARCHICAL, 0);
        compare(&big, big_counts[k], COLLECTIVE_HIER_REDUCE_SCATTER, 0);
    }

    CHECK_DONE();
}
