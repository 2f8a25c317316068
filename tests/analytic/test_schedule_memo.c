/* The analytic engine's memoized schedules (sim/analytic/schedule_memo.h), costed from their
 * prepared classes alone (pipelined trees prepared interval after interval), against the
 * flow-by-flow closed form of a freshly built, unprepared schedule (gcsim_schedule_time_s):
 * catalog platforms, GPU counts from 1 to 256 (partly filled nodes among them), every
 * all-reduce collective and the grouped ones, payloads of every aggregation class. The
 * same numbers are expected: relative 1e-9, and in fact bit for bit (counted and checked).
 * Pipelined trees, prepared from one template per topology for every chunk count
 * (sim/collectives/tree_cost.h), are checked for every chunk count from 1 to 64 on GPU
 * counts with and without partly filled nodes, one node and many, in rising and then (the
 * memo cleared) falling order: chunk counts above the trees' depth come from a steady
 * form built by the first of them, the smallest in one pass and 64 in the other.
 *   test_schedule_memo SOURCE_DIR */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "schedule_memo.h"
#include "../collectives/catalog_platform.h"

static double fresh_time_s(const gcsim_platform *p, int gpus, gcsim_collective c, int chunks,
                           int group, const gcsim_bucket_bytes *b, int *ok)
{
    gcsim_topology t;
    gcsim_schedule s;
    gcsim_error err;
    *ok = 0;
    if (gcsim_topology_init(&t, p, gpus, &err) != 0)
        return NAN;
    int rc = group > 0 || c > COLLECTIVE_COUNT ? gcsim_schedule_build_group(&s, c, &t, group, &err)
                                               : gcsim_schedule_build(&s, c, &t, 0, chunks, &err);
    double x = NAN;
    if (rc == 0) {
        x = gcsim_schedule_time_s(&s, &t, b); /* unprepared: flow by flow */
        gcsim_schedule_free(&s);
        *ok = 1;
    }
    gcsim_topology_free(&t);
    return x;
}

/* Every tree chunk count from 1 to 64 (falling: from 64 down) on a few platforms and GPU
 * counts, from the memo against the flow-by-flow form; counts into *compared, *bitwise.
 * Returns -1 when a platform does not load. */
static int check_trees(const char *source_dir, const gcsim_bucket_bytes buckets[4], int falling,
                       int *compared, int *bitwise)
{
    const char *tree_platforms[] = {"a100-hdr", "cloud-v100-25gbe", "h100-ndr", "dgc-fig6-10gbe"};
    const int tree_counts[] = {2, 3, 5, 8, 9, 15, 17, 31, 48, 67, 100, 129};
    for (size_t pi = 0; pi < sizeof tree_platforms / sizeof *tree_platforms; pi++) {
        gcsim_platform p;
        gcsim_error err;
        if (catalog_platform(source_dir, tree_platforms[pi], &p) != 0)
            return -1;
        for (size_t ni = 0; ni < sizeof tree_counts / sizeof *tree_counts; ni++) {
            int n = tree_counts[ni];
            if (n > p.nodes * p.gpus_per_node)
                continue;
            for (int step = 0; step < GCSIM_PIPELINE_MAX_CHUNKS; step++)
                for (int dbl = 0; dbl < 2; dbl++)
                    for (size_t bi = 0; bi < 4; bi++) {
                        int chunks = falling ? GCSIM_PIPELINE_MAX_CHUNKS - step : step + 1;
                        /* half of the bucket kinds per chunk count keeps it short */
                        if ((size_t)(chunks + dbl) % 2 != bi % 2)
                            continue;
                        gcsim_collective c = dbl ? COLLECTIVE_DOUBLE_TREE : COLLECTIVE_TREE;
                        int ok;
                        double want = fresh_time_s(&p, n, c, chunks, 0, &buckets[bi], &ok), got;
                        CHECK(ok);
                        int rc = gcsim_schedule_memo_time_s(&p, n, c, 0, chunks, 0, &buckets[bi],
                                                            &got, &err);
                        CHECK(rc == 0);
                        if (rc != 0 || !ok)
                            continue;
                        CHECK_REL(got, want, 1e-9);
                        (*compared)++;
                        *bitwise += got == want;
                    }
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_schedule_memo SOURCE_DIR\n");
        return 2;
    }
    const char *names[] = {"a100-hdr", "cloud-v100-25gbe", "dgc-fig6-10gbe", "h100-ndr",
                           "terngrad-fig5b"};
    const int counts[] = {1, 2, 3, 4, 7, 8, 12, 16, 24, 33, 64, 100, 128, 200, 256};
    const gcsim_collective colls[] = {COLLECTIVE_RING, COLLECTIVE_HIERARCHICAL,
                                      COLLECTIVE_HALVING_DOUBLING, COLLECTIVE_TREE,
                                      COLLECTIVE_DOUBLE_TREE, COLLECTIVE_PARAMETER_SERVER,
                                      COLLECTIVE_ALLGATHER, COLLECTIVE_REDUCE_SCATTER};
    const gcsim_bucket_bytes *buckets = test_payload_kinds;
    int compared = 0, bitwise = 0;
    for (size_t pi = 0; pi < sizeof names / sizeof *names; pi++) {
        gcsim_platform p;
        gcsim_error err;
        if (catalog_platform(argv[1], names[pi], &p) != 0)
            return 1;
        for (size_t ni = 0; ni < sizeof counts / sizeof *counts; ni++) {
            int n = counts[ni];
            if (n > p.nodes * p.gpus_per_node)
                continue;
            for (size_t ci = 0; ci < sizeof colls / sizeof *colls; ci++)
                for (size_t bi = 0; bi < TEST_PAYLOAD_KINDS; bi++) {
                    gcsim_collective c = colls[ci];
                    const gcsim_bucket_bytes *b = &buckets[bi];
                    int chunks = gcsim_pipeline_chunks(c, b->dense_bytes);
                    int group = c == COLLECTIVE_REDUCE_SCATTER ? n : 0;
                    int ok;
                    double want = fresh_time_s(&p, n, c, chunks, group, b, &ok);
                    double got;
                    /* twice: built, then from the memo */
                    for (int again = 0; again < 2 && ok; again++) {
                        int rc = gcsim_schedule_memo_time_s(&p, n, c, 0, chunks, group, b,
                                                            &got, &err);
                        CHECK(rc == 0);
                        if (rc != 0)
                            break;
                        CHECK_REL(got, want, 1e-9);
                        compared++;
                        bitwise += got == want;
                    }
                }
        }
    }
    /* trees: every chunk count, from the template, against the flow-by-flow form */
    int tree_compared = 0, tree_bitwise = 0;
    for (int falling = 0; falling < 2; falling++) {
        gcsim_schedule_memo_clear();
        if (check_trees(argv[1], buckets, falling, &tree_compared, &tree_bitwise) != 0)
            return 1;
    }
    /* Platforms are interned by their network (issue 47): one that differs only in its GPU,
     * names and price shares the schedules and costs what a fresh build costs; one with
     * another NIC bandwidth does not share; a refusal names the caller's file. */
    {
        char path[4096];
        snprintf(path, sizeof path, "%s/platforms/h100-ndr.json", argv[1]);
        gcsim_platform p, q, r;
        gcsim_error err;
        CHECK(gcsim_platform_load(path, &p, &err) == 0);
        q = p;
        snprintf(q.name, sizeof q.name, "other-gpu");
        snprintf(q.source_path, sizeof q.source_path, "other-gpu.json");
        snprintf(q.gpu.type, sizeof q.gpu.type, "other");
        q.gpu.speed_flops *= 2;
        r = p;
        r.nic.bandwidth_Bps /= 2;
        const gcsim_collective cs[] = {COLLECTIVE_RING, COLLECTIVE_DOUBLE_TREE};
        const int ns[] = {16, 64, 256};
        int shared = 0, differ = 0;
        for (int ci = 0; ci < 2; ci++)
            for (int ni = 0; ni < 3; ni++) {
                int chunks = gcsim_pipeline_chunks(cs[ci], buckets[0].dense_bytes), ok;
                double tp, tq, tr;
                CHECK(gcsim_schedule_memo_time_s(&p, ns[ni], cs[ci], 0, chunks, 0, &buckets[0],
                                                 &tp, &err) == 0);
                CHECK(gcsim_schedule_memo_time_s(&q, ns[ni], cs[ci], 0, chunks, 0, &buckets[0],
                                                 &tq, &err) == 0);
                CHECK(gcsim_schedule_memo_time_s(&r, ns[ni], cs[ci], 0, chunks, 0, &buckets[0],
                                                 &tr, &err) == 0);
                double fq = fresh_time_s(&q, ns[ni], cs[ci], chunks, 0, &buckets[0], &ok);
                CHECK(ok && tq == fq && tq == tp);
                double fr = fresh_time_s(&r, ns[ni], cs[ci], chunks, 0, &buckets[0], &ok);
                CHECK(ok && tr == fr);
                differ += tr != tp; /* not all: a 256-GPU ring is not bound by its NICs */
                shared++;
            }
        CHECK(shared == 6 && differ >= 4);
        double t;
        int too_many = q.nodes * q.gpus_per_node + 1;
        CHECK(gcsim_schedule_memo_time_s(&q, too_many, COLLECTIVE_DOUBLE_TREE, 0, 4, 0,
                                         &buckets[0], &t, &err) != 0);
        CHECK_STR_CONTAINS(err.message, "other-gpu.json");
    }
    printf("%d memoized costs compared, %d bit for bit; trees at every chunk count: %d, %d bit "
           "for bit\n", compared, bitwise, tree_compared, tree_bitwise);
    CHECK(tree_compared > 10000);
    CHECK(tree_bitwise == tree_compared);
    CHECK(compared > 1000);
    CHECK(bitwise == compared);
    gcsim_schedule_memo_clear();
    CHECK_DONE();
}
