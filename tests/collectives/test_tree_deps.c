/*
 * The pipelined trees' interval walk with the flow kinds to re-cost listed per changed pair
 * kind from the template's kind_dep lists (sim/collectives/tree_walk.c, what the memo's
 * preparations use since issue 47) against the walk that lists them as before, from
 * kind_sig and the link_sig of each link kind whose load changed
 * (tree_walk_prepare_with(..., false)). Both must give the same prepared phase: the same
 * steps, intervals and number of classes, in each interval the same set of class values
 * (latency, bandwidth, share, sums, window: bit for bit; their order is free, a step costs
 * their maximum), and the same cost, bit for bit, for four kinds of bucket (dense,
 * TernGrad's shared scale, sparse, per-worker scale with a hop codec). Where the chunk
 * count is above the trees' deepest offset D (the memo prepares those from the steady form,
 * tree_steady.c), the steady form's cost must be the same bits too.
 * Grid: a100-hdr (NVSwitch, rails), cloud-v100-25gbe (one NIC), h100-ndr; GPU counts 1, 2,
 * 3, 17, 100, 255, 256 and 1,000; tree and double tree; chunk counts 1, 2, D - 1, D, D + 1
 * and 64 (GCSIM_PIPELINE_MAX_CHUNKS).
 *   test_tree_deps SOURCE_DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "tree_internal.h"
#include "catalog_platform.h"

static int class_cmp(const void *a, const void *b)
{
    const gcsim_flow_class *x = a, *y = b;
#define CMP(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
    CMP(latency_s);
    CMP(Bps);
    CMP(share);
    CMP(k0);
    CMP(first);
    CMP(last);
#undef CMP
    return 0;
}

/* The two walks' phases the same (class sets per interval sorted); 1 when they are. */
static int same_phase(const gcsim_phase *x, const gcsim_phase *y)
{
    int before = check_failures;
    CHECK(x->steps == y->steps && x->n_intervals == y->n_intervals &&
          x->n_classes == y->n_classes && x->n_flows == y->n_flows);
    if (check_failures != before)
        return 0;
    size_t room = (size_t)x->n_classes + 1;
    gcsim_flow_class *a = malloc(sizeof *a * room), *b = malloc(sizeof *b * room);
    CHECK(a && b);
    for (int k = 0; a && b && k < x->n_intervals; k++) {
        CHECK(x->interval_from[k] == y->interval_from[k] &&
              x->interval_to[k] == y->interval_to[k] &&
              x->interval_class[k] == y->interval_class[k]);
        int n = x->interval_class[k + 1] - x->interval_class[k];
        memcpy(a, x->classes + x->interval_class[k], sizeof *a * (size_t)n);
        memcpy(b, y->classes + y->interval_class[k], sizeof *b * (size_t)n);
        qsort(a, (size_t)n, sizeof *a, class_cmp);
        qsort(b, (size_t)n, sizeof *b, class_cmp);
        CHECK(memcmp(a, b, sizeof *a * (size_t)n) == 0);
    }
    free(a);
    free(b);
    return check_failures == before;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_tree_deps SOURCE_DIR\n");
        return 2;
    }
    const char *names[] = {"a100-hdr", "cloud-v100-25gbe", "h100-ndr"};
    const int counts[] = {1, 2, 3, 17, 100, 255, 256, 1000};
    int phases = 0, costs = 0, steady_costs = 0, not_windowed = 0;
    for (size_t pi = 0; pi < sizeof names / sizeof *names; pi++) {
        gcsim_platform p;
        if (catalog_platform(argv[1], names[pi], &p) != 0)
            return 1;
        p.nodes = (1000 + p.gpus_per_node - 1) / p.gpus_per_node;
        for (size_t ni = 0; ni < sizeof counts / sizeof *counts; ni++) {
            gcsim_topology t;
            if (catalog_topology(&p, names[pi], counts[ni], &t) != 0) {
                CHECK(0);
                continue;
            }
            for (int dbl = 0; dbl < 2; dbl++) {
                gcsim_tree_template *tt =
                    gcsim_tree_template_new(&t, dbl ? COLLECTIVE_DOUBLE_TREE : COLLECTIVE_TREE);
                CHECK(tt != NULL);
                if (!tt)
                    continue;
                int d = tt->omax;
                const int chunk_counts[] = {1, 2, d - 1, d, d + 1, GCSIM_PIPELINE_MAX_CHUNKS};
                for (size_t ci = 0; ci < sizeof chunk_counts / sizeof *chunk_counts; ci++) {
                    int chunks = chunk_counts[ci];
                    if (chunks < 1 || (ci > 0 && chunks == chunk_counts[ci - 1]))
                        continue;
                    gcsim_schedule by_deps, by_links;
                    int ra = tree_walk_prepare_with(tt, chunks, &by_deps, true);
                    int rb = tree_walk_prepare_with(tt, chunks, &by_links, false);
                    CHECK(ra == rb && ra >= 0);
                    if (ra != 0 || rb != 0) {
                        not_windowed += ra == 1 && rb == 1; /* one GPU per tree: built */
                        if (ra == 0)
                            gcsim_schedule_free(&by_deps);
                        if (rb == 0)
                            gcsim_schedule_free(&by_links);
                        continue;
                    }
                    if (same_phase(&by_deps.phases[0], &by_links.phases[0]))
                        phases++;
                    else
                        fprintf(stderr, "%s, %d GPUs, %s, %d chunks: the walks differ\n",
                                names[pi], counts[ni], dbl ? "double tree" : "tree", chunks);
                    gcsim_schedule steady;
                    bool above = chunks > d && gcsim_tree_template_prepare(tt, chunks, &steady) == 0;
                    CHECK(chunks <= d || above);
                    for (int bi = 0; bi < TEST_PAYLOAD_KINDS; bi++) {
                        double x =
                            gcsim_schedule_prepared_time_s(&by_deps, &test_payload_kinds[bi]);
                        double y =
                            gcsim_schedule_prepared_time_s(&by_links, &test_payload_kinds[bi]);
                        CHECK(x > 0 && memcmp(&x, &y, sizeof x) == 0);
                        costs += memcmp(&x, &y, sizeof x) == 0;
                        if (above) {
                            double z =
                                gcsim_schedule_prepared_time_s(&steady, &test_payload_kinds[bi]);
                            CHECK(memcmp(&x, &z, sizeof x) == 0);
                            steady_costs += memcmp(&x, &z, sizeof x) == 0;
                        }
                    }
                    if (above)
                        gcsim_schedule_free(&steady);
                    gcsim_schedule_free(&by_deps);
                    gcsim_schedule_free(&by_links);
                }
                gcsim_tree_template_free(tt);
            }
            gcsim_topology_free(&t);
        }
    }
    printf("%d prepared phases the same in both walks, %d costs bit for bit (%d against the "
           "steady form too); %d chunk counts not windowed in either\n",
           phases, costs, steady_costs, not_windowed);
    CHECK(phases >= 200);
    CHECK(costs == 4 * phases);
    CHECK(steady_costs >= 4 * 80);
    CHECK_DONE();
}
