/*
 * The ring all-reduce's, ring all-gather's and all-GPU reduce-scatter's flow-free classes
 * (sim/collectives/closed_ring.c) against the flow-by-flow ones (closed_compare.h):
 *   - every grid platform at every GPU count 2..40 and a sample up to 4,099 with partly
 *     filled last nodes and leaves, every collective (the reduce-scatter with group 0 and N);
 *   - the reduce-scatter over a partly filled last node: every GPU takes part;
 *   - two 2-node x 4-GPU PCIe-switch rings with 2 NICs computed by hand (8 GPUs, and 6: a
 *     half-filled last node where two rings share a PCIe link and a NIC);
 *   - 2^22 GPUs on an NVSwitch fat tree: the classes by hand, in a few MB.
 */
#include <stdlib.h>
#include <sys/resource.h>

#include "../check.h"
#include "closed_compare.h"

/* Counts 2..40, then a sample across node and leaf boundaries (the grid's nodes hold 1 to
 * 8 GPUs and its leaves 1 to 5 nodes: 47 = 5 x 8 + 7, 121 = 5 x 24 + 1, ...). */
static const int sample[] = {41, 45, 47, 48, 49, 55, 63, 64, 65, 71, 72, 73, 79, 80, 81, 95,
                             96, 97, 119, 120, 121, 127, 128, 129, 143, 150, 161, 191, 199,
                             200, 1021, 4099};

static void test_grid(void)
{
    int n_sample = (int)(sizeof sample / sizeof sample[0]), compared = 0;
    for (int k = 0; k < CLOSED_GRID_PLATFORMS; k++)
        for (int x = 2; x <= 40 + n_sample; x++) {
            int gpus = x <= 40 ? x : sample[x - 41];
            gcsim_platform p = closed_grid_platform(k, 1);
            p = closed_grid_platform(k, (gpus + p.gpus_per_node - 1) / p.gpus_per_node);
            for (int c = 0; c < 4; c++) {
                /* the grouped reduce-scatter over all GPUs (group 0 or N: FSDP's) is the
                 * ring's first phase */
                gcsim_collective coll = c == 0   ? COLLECTIVE_RING
                                        : c == 1 ? COLLECTIVE_ALLGATHER
                                                 : COLLECTIVE_REDUCE_SCATTER;
                int group = c == 3 ? gpus : 0;
                char why[2048] = "";
                int rc = closed_compare(&p, gpus, coll, 0, group, why, sizeof why);
                if (rc != 0)
                    fprintf(stderr, "platform %d, %d GPUs, %s: %s\n", k, gpus,
                            gcsim_collective_name(coll), why);
                CHECK(rc == 0);
                compared++;
            }
        }
    CHECK(compared == CLOSED_GRID_PLATFORMS * (39 + n_sample) * 4);
}

/* The reduce-scatter over all 12 GPUs of 8-GPU nodes (FSDP on a partly filled last node)
 * left the last node's 4 GPUs out of its rings: 8 intra-node flows, nothing between nodes.
 * Every GPU sends and receives in every ring. */
static void test_reduce_scatter_partial_node(void)
{
    gcsim_platform p = des_test_platform(2, 8);
    p.nic.per_node = 2;
    gcsim_topology t;
    gcsim_error err;
    gcsim_schedule s;
    CHECK(gcsim_topology_init(&t, &p, 12, &err) == 0);
    CHECK(gcsim_schedule_build_group(&s, COLLECTIVE_REDUCE_SCATTER, &t, 0, &err) == 0);
    CHECK(s.n_phases == 1 && s.phases[0].steps == 11);
    int sends[12] = {0}, receives[12] = {0}, between_nodes = 0;
    for (int f = 0; s.n_phases == 1 && f < s.phases[0].n_flows; f++) {
        const gcsim_flow *fl = &s.phases[0].flows[f];
        sends[fl->src]++;
        receives[fl->dst]++;
        between_nodes += fl->src / 8 != fl->dst / 8;
    }
    for (int g = 0; g < 12; g++)
        CHECK(sends[g] >= 1 && receives[g] >= 1);
    CHECK(between_nodes == 4); /* 2 rings, each node to the other */
    gcsim_schedule_free(&s);
}

/* Whether the phase has a class (latency, Bps, share) within 1e-12. */
static int has_class(const gcsim_phase *ph, double latency_s, double Bps, double share)
{
    for (int c = 0; c < ph->n_classes; c++)
        if (closed_near(ph->classes[c].latency_s, latency_s) &&
            closed_near(ph->classes[c].Bps, Bps) && closed_near(ph->classes[c].share, share))
            return 1;
    return 0;
}

static int closed_ring_of(gcsim_schedule *s, const gcsim_platform *p, int gpus,
                          gcsim_collective c)
{
    gcsim_topology t;
    gcsim_error err;
    if (gcsim_topology_init(&t, p, gpus, &err) != 0)
        return -1;
    return gcsim_closed_form_prepare(s, c, &t, 0, 0, &err);
}

/* Grid platform 2: nodes of 4 GPUs on a PCIe switch (12 GB/s ports, 5 us), PCIe to host
 * 31.5 GB/s, 2 NICs of 25 GB/s (GPUs 0-1 on NIC 0, 2-3 on NIC 1), 1 us, two nodes on one
 * leaf (0.13 us switches: 1 us + 2 x 0.13 us between nodes).
 *
 * 8 GPUs: two rings, s = 1/8 / 2 = 1/16 each. Rail 0's last GPU is 1, rail 1's is 3:
 *   ring 0: 2 3 0 1 | 6 7 4 5 | (5 -> 2)    ring 1: 0 1 2 3 | 4 5 6 7 | (7 -> 0)
 * Pairs 0->1 and 2->3 carry both rings (1/8), 1->2 and 3->0 one (1/16), each alone on its
 * switch ports: 12 GB/s. Hops 1->6, 3->4, 5->2, 7->0 each have their PCIe links and NICs to
 * themselves: min(31.5, 25) = 25 GB/s, 1.26 us. Classes: (5 us, 12e9, 1/8), (5 us, 12e9,
 * 1/16), (1.26 us, 25e9, 1/16). A dense 1e8-byte bucket: a step moves its bytes in
 * 1.25e7 B / 12e9 B/s; 7 steps per phase, 2 phases, and each phase pays one chunk's route
 * (gcsim_ring_route_s): either ring's cycle has 6 hops of 5 us inside nodes and 2 of
 * 1.26 us between them, less its shortest: 30 + 1.26 = 31.26 us.
 *
 * 6 GPUs: node 1 holds 4 and 5, both on NIC 0; s = 1/6 / 2 = 1/12.
 *   ring 0: 2 3 0 1 | 4 5 | (5 -> 2)        ring 1: 0 1 2 3 | 4 5 | (5 -> 0)
 * 1->4 and 3->4 share GPU 4's PCIe link down (31.5/2 GB/s) and node 1's NIC 0 down (25/2);
 * 5->2 and 5->0 share GPU 5's PCIe link up and NIC 0 up: all four hops 12.5 GB/s. Pair 4->5
 * carries both rings (1/6), 5->4 none. Classes: (5 us, 12e9, 1/6), (5 us, 12e9, 1/12),
 * (1.26 us, 12.5e9, 1/12). */
static void test_by_hand(void)
{
    gcsim_platform p = closed_grid_platform(2, 2);
    gcsim_schedule s;
    double inter_s = 1e-6 + 2 * 0.13e-6;
    CHECK(closed_ring_of(&s, &p, 8, COLLECTIVE_RING) == 0);
    CHECK(s.n_phases == 2);
    for (int k = 0; k < s.n_phases && s.n_phases == 2; k++) {
        const gcsim_phase *ph = &s.phases[k];
        CHECK(ph->steps == 7 && ph->n_classes == 3);
        CHECK(has_class(ph, 5e-6, 12e9, 1.0 / 8));
        CHECK(has_class(ph, 5e-6, 12e9, 1.0 / 16));
        CHECK(has_class(ph, inter_s, 25e9, 1.0 / 16));
        CHECK(ph->classes[0].k0 == (k == 0 ? 1 : 8));
    }
    CHECK(strcmp(s.phases[0].name, "reduce-scatter") == 0 && s.phases[0].dk == 1 &&
          s.phases[0].reduce);
    CHECK(strcmp(s.phases[1].name, "all-gather") == 0 && s.phases[1].dk == 0 &&
          !s.phases[1].reduce);
    gcsim_bucket_bytes dense = {.dense_bytes = 1e8, .payload_bytes = 1e8,
                                .aggregation = PAYLOAD_DENSE_SUMMABLE};
    for (int k = 0; k < s.n_phases; k++)
        CHECK(s.phases[k].pipelined && fabs(s.phases[k].route_latency_s - 31.26e-6) < 1e-18);
    CHECK_REL(gcsim_schedule_prepared_time_s(&s, &dense), 14 * 1.25e7 / 12e9 + 2 * 31.26e-6,
              1e-12);
    gcsim_schedule_free(&s);

    CHECK(closed_ring_of(&s, &p, 6, COLLECTIVE_RING) == 0);
    CHECK(s.n_phases == 2);
    for (int k = 0; k < s.n_phases && s.n_phases == 2; k++) {
        const gcsim_phase *ph = &s.phases[k];
        CHECK(ph->steps == 5 && ph->n_classes == 3);
        CHECK(has_class(ph, 5e-6, 12e9, 1.0 / 6));
        CHECK(has_class(ph, 5e-6, 12e9, 1.0 / 12));
        CHECK(has_class(ph, inter_s, 12.5e9, 1.0 / 12));
        /* a cycle of 4 hops of 5 us and 2 of 1.26 us, less one crossing */
        CHECK(ph->pipelined && fabs(ph->route_latency_s - 21.26e-6) < 1e-18);
    }
    gcsim_schedule_free(&s);

    /* The all-gather on 6: the same rings with a whole payload, s = 1/2. */
    CHECK(closed_ring_of(&s, &p, 6, COLLECTIVE_ALLGATHER) == 0);
    CHECK(s.n_phases == 1 && s.decodes == 5);
    if (s.n_phases == 1) {
        CHECK(strcmp(s.phases[0].name, "all-gather") == 0 && s.phases[0].steps == 5);
        CHECK(s.phases[0].n_classes == 3);
        CHECK(has_class(&s.phases[0], 5e-6, 12e9, 1.0));
        CHECK(has_class(&s.phases[0], 5e-6, 12e9, 0.5));
        CHECK(has_class(&s.phases[0], inter_s, 12.5e9, 0.5));
    }
    gcsim_schedule_free(&s);
}

/* 2^22 GPUs on grid platform 8: nodes of 8 GPUs on NVSwitch (300 GB/s), 8 NICs (one per
 * GPU, 25 GB/s), two nodes per leaf, non-blocking (a leaf link 2 x 8 x 25 = 400 GB/s for 8
 * rings: 50 GB/s each). Every pair inside a node is some rail's last GPU, so it carries 7
 * of the 8 rings (7/8 x 2^-22); every hop between nodes is alone on its links (25 GB/s),
 * every other one crossing leaves (1.52 us instead of 1.26). Three classes, whatever the
 * node count; computed without a per-GPU array. */
static void test_large(void)
{
    int gpus = 1 << 22;
    gcsim_platform p = closed_grid_platform(8, gpus / 8);
    gcsim_schedule s;
    CHECK(closed_ring_of(&s, &p, gpus, COLLECTIVE_RING) == 0);
    CHECK(s.n_phases == 2);
    double share = 1.0 / gpus / 8;
    for (int k = 0; k < s.n_phases && s.n_phases == 2; k++) {
        const gcsim_phase *ph = &s.phases[k];
        CHECK(ph->steps == gpus - 1 && ph->n_classes == 3);
        CHECK(has_class(ph, 5e-6, 300e9, 7 * share));
        CHECK(has_class(ph, 1e-6 + 2 * 0.13e-6, 25e9, share));
        CHECK(has_class(ph, 1e-6 + 4 * 0.13e-6, 25e9, share));
    }
    gcsim_schedule_free(&s);
    /* A partly filled last node and leaf: 5 GPUs in the last node, so rings 4..7 share
     * GPU 4's PCIe link and NIC 4 out of it and GPU 0's into it; still a handful. */
    CHECK(closed_ring_of(&s, &p, gpus - 3, COLLECTIVE_ALLGATHER) == 0);
    CHECK(s.n_phases == 1);
    CHECK(s.n_phases != 1 || (s.phases[0].n_classes >= 3 && s.phases[0].n_classes <= 9));
    gcsim_schedule_free(&s);
    struct rusage ru;
    CHECK(getrusage(RUSAGE_SELF, &ru) == 0);
    /* ru_maxrss in KiB (Linux): one int per GPU would be 16 MiB, a flow 128 MiB */
    CHECK(ru.ru_maxrss < 16 * 1024);
}

int main(void)
{
    test_large(); /* first: the peak memory it checks is the process's so far */
    test_by_hand();
    test_reduce_scatter_partial_node();
    test_grid();
    CHECK_DONE();
}
