/*
 * tests/des/test_des_platform.c: the generated SimGrid platform and the per-hop payload
 * rules of the DES.
 *  - NVLink pairs get links_per_pair x link bandwidth; a fat tree gets one uplink per leaf
 *    with nodes_per_leaf x node bandwidth / oversubscription;
 *  - on a fat tree with oversubscription 4 (8 nodes, 4 per leaf), halving-doubling slows
 *    down exactly on the two steps that cross leaves, while the ring does not (its two
 *    cross-leaf flows use different uplink directions);
 *  - invalid platforms and GPU counts are errors naming the platform;
 *  - des_hop_bytes follows DESIGN.md's aggregation rules.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../check.h"
#include "des.h"
#include "des_internal.h"
#include "des_test_platform.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n)
        buf[n] = '\0';
    fclose(f);
    return buf;
}

int main(void)
{
    gcsim_error err;
    char dir[] = "/tmp/gcsim-des-plat-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/p.xml", dir);

    /* NVLink: 2 links of 25 GB/s per pair -> 50 GB/s per pair link. */
    gcsim_platform nv = des_test_platform(2, 4);
    nv.intra.kind = INTRA_NVLINK;
    nv.intra.nvlink_links_per_pair = 2;
    nv.intra.nvlink_link_Bps = 25e9;
    nv.intra.gpu_to_gpu_Bps = 50e9;
    CHECK(gcsim_des_write_platform(&nv, 2, path, &err) == 0);
    char *xml = slurp(path);
    CHECK_STR_CONTAINS(xml, "<link id=\"n1_nvl0_3\" bandwidth=\"50000000000Bps\"");
    CHECK_STR_CONTAINS(xml, "<host id=\"g7\" speed=\"1000000000000f\"/>");
    CHECK_STR_CONTAINS(xml, "routing=\"DijkstraCache\"");
    free(xml);

    /* Fat tree: 8 nodes, 4 per leaf, oversubscription 4: uplink 4 x 1.25e9 / 4 B/s. */
    gcsim_platform ft = des_test_platform(8, 1);
    ft.fabric.topology = FABRIC_FAT_TREE;
    ft.fabric.nodes_per_leaf = 4;
    ft.fabric.oversubscription = 4;
    CHECK(gcsim_des_write_platform(&ft, 8, path, &err) == 0);
    xml = slurp(path);
    CHECK_STR_CONTAINS(xml, "<link id=\"up1\" bandwidth=\"1250000000Bps\"");
    free(xml);
    unlink(path);
    rmdir(dir);

    /* 16 MiB over 8 GPUs. Star: ring and HD as in test_des_alphabeta (beta = 1.1548e9 B/s,
     * alpha = 286.22 us). On the fat tree, HD's first reduce-scatter step and last
     * all-gather step (partner = rank xor 4, S/2 each way) put 4 flows on each uplink
     * direction, plus 4 x 5% cross-traffic: 4.2 x the load of one flow on a 1.25e9 uplink
     * versus 1.05 on a NIC: 4x slower. Extra time: 2 steps x 3 x (S/2)/beta = 0.04359 s. */
    double S = 16777216.0, beta = 0.97 * 1.25e9 / 1.05, alpha = 13.01 * 22e-6;
    double hd_star = 6 * alpha + 2.0 * 7 / 8 * S / beta;
    double ring_star = 14 * (alpha + S / 8 / beta);
    double t = 0;
    CHECK(gcsim_des_collective_time(&ft, 8, COLLECTIVE_HALVING_DOUBLING, S, 0, NULL, &t, NULL, &err) == 0);
    CHECK_REL(t, hd_star + 2 * 3 * (S / 2) / beta, 0.01);
    CHECK(gcsim_des_collective_time(&ft, 8, COLLECTIVE_RING, S, 0, NULL, &t, NULL, &err) == 0);
    CHECK_REL(t, ring_star, 0.01);

    /* Invalid input. */
    gcsim_platform bad = ft;
    bad.fabric.nodes_per_leaf = 0;
    CHECK(gcsim_des_write_platform(&bad, 8, "/tmp/never-written.xml", &err) != 0);
    CHECK_STR_CONTAINS(err.message, "fat tree");
    CHECK(access("/tmp/never-written.xml", F_OK) != 0);
    CHECK(gcsim_des_collective_time(&ft, 9, COLLECTIVE_RING, S, 0, NULL, &t, NULL, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "9 GPUs requested");
    bad = ft;
    bad.nic.bandwidth_Bps = 0;
    CHECK(gcsim_des_collective_time(&bad, 8, COLLECTIVE_RING, S, 0, NULL, &t, NULL, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "<des test platform>");

    /* Per-hop payload sizes. A TernGrad-like bucket: 4000 fp32 elements, D = 16000 B,
     * P = 1000 B (2 bits per element). */
    gcsim_des_bucket bk = {.dense_bytes = 16000, .payload_bytes = 1000};
    des_plan plan;
    memset(&plan, 0, sizeof plan);
    plan.buckets = &bk;
    plan.n_buckets = 1;
    plan.compressed = true;
    plan.aggregation = PAYLOAD_SHARED_SCALE;
    CHECK_REL(des_hop_bytes(&plan, 0, 1.0, 1), 1000, 1e-12);          /* 3 levels in 2 bits */
    CHECK_REL(des_hop_bytes(&plan, 0, 1.0, 2), 1000 * log2(5) / 2, 1e-12); /* 2.32 bits */
    CHECK_REL(des_hop_bytes(&plan, 0, 0.25, 512), 250 * log2(1025) / 2, 1e-12);
    CHECK_REL(des_hop_bytes(&plan, 0, 1.0, 1e12), 16000, 1e-12);      /* capped at fp32 */
    /* 600 of those bytes are a layer sent in fp32 (D = 16000 includes its 600): only the
     * other 400 B, standing for 15400 dense bytes, grow: min(15400, 400 x log2(9)/2) + 600 */
    double fixed = 600;
    bk.payload_bytes = 1000;
    plan.fixed_bytes = &fixed;
    CHECK_REL(des_hop_bytes(&plan, 0, 1.0, 4), 400 * log2(9) / 2 + 600, 1e-12);
    plan.fixed_bytes = NULL;
    plan.aggregation = PAYLOAD_SPARSE;
    bk.payload_bytes = 100;
    CHECK_REL(des_hop_bytes(&plan, 0, 1.0, 4), 400, 1e-12);   /* supports may not overlap */
    CHECK_REL(des_hop_bytes(&plan, 0, 0.5, 1000), 8000, 1e-12); /* capped at dense */
    plan.aggregation = PAYLOAD_PER_WORKER_SCALE;
    CHECK_REL(des_hop_bytes(&plan, 0, 0.5, 64), 50, 1e-12);   /* re-encoded at every hop */
    plan.aggregation = PAYLOAD_DENSE_SUMMABLE;
    CHECK_REL(des_hop_bytes(&plan, 0, 0.5, 64), 50, 1e-12);
    plan.compressed = false;
    plan.aggregation = PAYLOAD_SPARSE;
    CHECK_REL(des_hop_bytes(&plan, 0, 1.0, 64), 100, 1e-12);  /* nothing grows uncompressed */
    CHECK_DONE();
}
