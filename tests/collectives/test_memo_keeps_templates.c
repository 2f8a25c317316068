/*
 * tests/collectives/test_memo_keeps_templates.c: gcsim_schedule_memo_drop_schedules
 * (schedule_memo.h), what a sweep calls when it moves on to another network, keeps the
 * trees' templates, and a template kept from one platform then costs a platform of the same
 * shape (other NIC bandwidth and latency, other NVLink latency) exactly as a template built
 * for it does: the same bits at every chunk count 1-64, rising and falling (so that the steady
 * form above omax is built from the smallest and from the largest count), tree and double
 * tree, on catalog platforms with 8 and 72 GPUs per node, full and partly filled last nodes.
 * gcsim_schedule_memo_same_shape tells such platforms from ones of other links. The two
 * platforms' costs must differ in most cells, or the comparison could not catch a
 * template that kept the first platform's numbers.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../check.h"
#include "platform.h"
#include "schedule_memo.h"

enum { CHUNKS_MAX = 64 };

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_memo_keeps_templates SOURCE_DIR\n");
        return 2;
    }
    const char *names[] = {"a100-hdr", "h100-400g", "gb200-nvl72"};
    const int gpus[] = {2, 3, 8, 13, 16, 24, 63, 64, 100, 129, 144, 217};
    const gcsim_collective colls[] = {COLLECTIVE_TREE, COLLECTIVE_DOUBLE_TREE};
    const gcsim_bucket_bytes bucket = {.dense_bytes = 100e6, .payload_bytes = 100e6,
                                       .aggregation = PAYLOAD_DENSE_SUMMABLE};
    int compared = 0, differ = 0;
    for (size_t pi = 0; pi < sizeof names / sizeof *names; pi++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/platforms/%s.json", argv[1], names[pi]);
        gcsim_platform p, v;
        gcsim_error err;
        CHECK(gcsim_platform_load(path, &p, &err) == 0);
        /* the same shape: the same links and routes, other numbers (a NIC rate that keeps
         * NCCL's channel count, which the shape holds: 740 / 52 GB/s still rounds up to 15
         * on the GB200 platform) */
        v = p;
        v.nic.bandwidth_Bps *= 1.04;
        v.nic.latency_s *= 3;
        v.intra.latency_s *= 1.5;
        CHECK(gcsim_schedule_memo_same_shape(&p, &v));
        gcsim_platform halved = p; /* NCCL's channels change on GB200 (740 / 26 GB/s: 18) */
        halved.nic.bandwidth_Bps *= 0.5;
        CHECK(gcsim_schedule_memo_same_shape(&p, &halved) == (p.gpus_per_node <= 8));
        gcsim_platform more = p; /* another NIC count per node: other links */
        more.nic.per_node = p.nic.per_node > 1 ? p.nic.per_node / 2 : 2;
        CHECK(!gcsim_schedule_memo_same_shape(&p, &more));
        for (size_t gi = 0; gi < sizeof gpus / sizeof *gpus; gi++) {
            int n = gpus[gi];
            if (n > p.nodes * p.gpus_per_node)
                continue;
            for (size_t ci = 0; ci < 2; ci++)
                for (int falling = 0; falling < 2; falling++) {
                    double fresh[CHUNKS_MAX + 1], first[CHUNKS_MAX + 1], kept;
                    /* v's costs from a memo holding nothing */
                    gcsim_schedule_memo_clear();
                    for (int c = 1; c <= CHUNKS_MAX; c++)
                        CHECK(gcsim_schedule_memo_time_s(&v, n, colls[ci], 0, c, 0, &bucket,
                                                         &fresh[c], &err) == 0);
                    /* p's, whose templates (and steady forms) the memo keeps ... */
                    gcsim_schedule_memo_clear();
                    for (int k = 0; k < CHUNKS_MAX; k++) {
                        int c = falling ? CHUNKS_MAX - k : 1 + k;
                        CHECK(gcsim_schedule_memo_time_s(&p, n, colls[ci], 0, c, 0, &bucket,
                                                         &first[c], &err) == 0);
                    }
                    /* ... then v's from those templates (none built) */
                    gcsim_schedule_memo_drop_schedules();
                    size_t templates = gcsim_schedule_memo_templates();
                    CHECK(templates == 1);
                    for (int k = 0; k < CHUNKS_MAX; k++) {
                        int c = falling ? CHUNKS_MAX - k : 1 + k;
                        CHECK(gcsim_schedule_memo_time_s(&v, n, colls[ci], 0, c, 0, &bucket,
                                                         &kept, &err) == 0);
                        CHECK(kept == fresh[c]);
                        compared++;
                        differ += first[c] != fresh[c];
                    }
                    CHECK(gcsim_schedule_memo_templates() == templates);
                }
        }
    }
    gcsim_schedule_memo_clear();
    printf("%d costs from kept templates, %d of them unlike the first platform's\n", compared,
           differ);
    CHECK(compared > 3000);
    CHECK(differ > compared * 9 / 10);
    return check_failures ? 1 : 0;
}
