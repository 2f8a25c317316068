/* A pipelined tree's template shared by the platforms of one shape (issue 47,
 * sim/collectives/schedule_memo.c: kinds from the links' capacity formulas, numbers set per
 * platform by tree_template_value), against the flow-by-flow cost of a schedule built
 * afresh on each platform (gcsim_schedule_build + gcsim_schedule_time_s): bit for bit, for
 * every chunk count from 1 to 64 (below and above the trees' depth: walked, and from the
 * steady form), tree and double tree (NVLS-tree: to 1e-9 against the fresh build, to the
 * bit against its template built on that platform alone), on platforms whose bandwidths and latencies
 * are scaled as the tuner and `gcsim calibrate` scale them, including numbers that make two
 * formerly different capacities or latencies equal (and equal ones different): the kinds
 * of the template built first must still give each platform its own cost. The platforms
 * take turns, so each template is revalued back and forth.
 *   test_tree_shape_memo SOURCE_DIR */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "schedule_memo.h"

static double fresh_time_s(const gcsim_platform *p, int gpus, gcsim_collective c, int chunks,
                           const gcsim_bucket_bytes *b, int *ok)
{
    gcsim_topology t;
    gcsim_schedule s;
    gcsim_error err;
    *ok = 0;
    if (gcsim_topology_init(&t, p, gpus, &err) != 0)
        return NAN;
    double x = NAN;
    if (gcsim_schedule_build(&s, c, &t, 0, chunks, &err) == 0) {
        x = gcsim_schedule_time_s(&s, &t, b);
        gcsim_schedule_free(&s);
        *ok = 1;
    }
    gcsim_topology_free(&t);
    return x;
}

/* Variant v of p: v 0 is p; the others scale bandwidths and latencies as a protocol and
 * NCCL's overheads do, or set capacities and latencies equal to each other. */
static void variant(const gcsim_platform *p, int v, gcsim_platform *q)
{
    *q = *p;
    switch (v) {
    case 1: /* a protocol's bandwidth factor and hop latency, an overhead per step */
        q->intra.gpu_to_gpu_Bps *= 0.917;
        q->intra.gpu_to_host_Bps *= 0.917;
        q->intra.nvlink_link_Bps *= 0.917;
        q->nic.bandwidth_Bps *= 0.917;
        q->intra.latency_s = q->intra.latency_s * 1.7 + 3.1e-6;
        q->nic.latency_s += 3.1e-6;
        break;
    case 2: /* every capacity the same, the latencies the same */
        q->intra.gpu_to_gpu_Bps = q->intra.gpu_to_host_Bps = q->nic.bandwidth_Bps;
        q->intra.nvlink_link_Bps = q->nic.bandwidth_Bps;
        q->intra.latency_s = q->nic.latency_s + 2 * q->fabric.switch_latency_s;
        break;
    case 3: /* the NIC far faster than the node's links, NVLS's switch slower */
        q->nic.bandwidth_Bps *= 40;
        q->intra.nvls_Bps *= 0.5;
        q->fabric.switch_latency_s = 2e-6;
        break;
    default:
        break;
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_tree_shape_memo SOURCE_DIR\n");
        return 2;
    }
    const char *paths[] = {"platforms/a100-hdr.json", "platforms/h100-ndr.json",
                           "platforms/dgc-fig6-10gbe.json", "platforms/cloud-v100-25gbe.json",
                           "tests/validation/nccl_logs/platforms/gb200-nvl72-ib-coreweave.json"};
    const int counts[] = {2, 5, 8, 9, 17, 48, 100, 144};
    const gcsim_bucket_bytes buckets[] = {
        {.dense_bytes = 100e6, .payload_bytes = 100e6, .aggregation = PAYLOAD_DENSE_SUMMABLE},
        {.dense_bytes = 25e6, .payload_bytes = 25e6 / 16, .aggregation = PAYLOAD_SHARED_SCALE,
         .compressed = true},
        {.dense_bytes = 40e6, .payload_bytes = 40e6 * 0.002, .aggregation = PAYLOAD_SPARSE,
         .compressed = true},
    };
    enum { VARIANTS = 4 };
    int compared = 0, bitwise = 0, moved = 0;
    for (size_t pi = 0; pi < sizeof paths / sizeof *paths; pi++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[1], paths[pi]);
        gcsim_platform p, q[VARIANTS];
        gcsim_error err;
        if (gcsim_platform_load(path, &p, &err) != 0) {
            fprintf(stderr, "%s: %s\n", path, err.message);
            return 1;
        }
        for (int v = 0; v < VARIANTS; v++)
            variant(&p, v, &q[v]);
        gcsim_collective colls[3] = {COLLECTIVE_TREE, COLLECTIVE_DOUBLE_TREE,
                                     COLLECTIVE_NVLS_TREE};
        int n_colls = p.intra.nvls_Bps > 0 ? 3 : 2;
        for (size_t ni = 0; ni < sizeof counts / sizeof *counts; ni++) {
            int n = counts[ni];
            if (n > p.nodes * p.gpus_per_node)
                continue;
            for (int ci = 0; ci < n_colls; ci++)
                for (int chunks = 1; chunks <= GCSIM_PIPELINE_MAX_CHUNKS; chunks++) {
                    /* the large GB200 counts at a few chunk counts keep it short */
                    if (n > 64 && chunks % 7 != 1)
                        continue;
                    /* NVLS-tree's template scales its node links' capacity where the built
                     * schedule scales its flows' shares (tree_nvls.c): the same to 1e-9,
                     * not to the bit, so its reference to the bit is the template built on
                     * that platform alone (the memo emptied first) */
                    bool nvls = colls[ci] == COLLECTIVE_NVLS_TREE;
                    double own[VARIANTS];
                    for (int v = 0; v < VARIANTS && nvls; v++) {
                        gcsim_schedule_memo_clear();
                        CHECK(gcsim_schedule_memo_time_s(&q[v], n, colls[ci], 0, chunks, 0,
                                                         &buckets[(chunks + v) % 3], &own[v],
                                                         &err) == 0);
                    }
                    if (nvls)
                        gcsim_schedule_memo_clear();
                    double first = NAN;
                    for (int v = 0; v < VARIANTS; v++) {
                        const gcsim_bucket_bytes *b = &buckets[(chunks + v) % 3];
                        int ok;
                        double fresh = fresh_time_s(&q[v], n, colls[ci], chunks, b, &ok), got;
                        CHECK(ok);
                        int rc = gcsim_schedule_memo_time_s(&q[v], n, colls[ci], 0, chunks, 0, b,
                                                            &got, &err);
                        CHECK(rc == 0);
                        if (rc != 0 || !ok)
                            continue;
                        CHECK_REL(got, fresh, 1e-9);
                        double want = nvls ? own[v] : fresh;
                        compared++;
                        bitwise += got == want;
                        if (got != want)
                            printf("differs: %s, %d GPUs, %s, %d chunks, variant %d: %.17g "
                                   "(%.17g)\n",
                                   paths[pi], n, gcsim_collective_name(colls[ci]), chunks, v,
                                   got, want);
                        if (v == 0)
                            first = got;
                        else
                            moved += got != first;
                    }
                }
        }
        gcsim_schedule_memo_clear();
    }
    printf("tree costs from shared templates: %d compared with fresh builds, %d bit for bit; "
           "%d differ from the unscaled platform's\n", compared, bitwise, moved);
    CHECK(compared > 3000);
    CHECK(bitwise == compared);
    CHECK(moved > compared / 2); /* the variants do move the costs */
    CHECK_DONE();
}
