/*
 * tests/des/test_des_platform.c: the generated SimGrid platform and the per-hop payload
 * rules of the DES.
 *  - NVLink pairs get links_per_pair x link bandwidth; a fat tree gets one uplink per leaf
 *    with nodes_per_leaf x node bandwidth / oversubscription;
 *  - on a fat tree with oversubscription 4 (8 nodes, 4 per leaf), halving-doubling slows
 *    down exactly on the two steps that cross leaves, while the ring does not (its two
 *    cross-leaf flows use different uplink directions);
 *  - zones of at most 32 children: on 70 nodes the routes grow linearly, a ring and, on a
 *    fat tree of 64 leaves, halving-doubling cost their closed forms;
 *  - invalid platforms and GPU counts are errors naming the platform;
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../check.h"
#include "des.h"
#include "des_internal.h"
#include "des_test_platform.h"
#include "../bare_topology.h"

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
    CHECK(bare_des_write_platform(&nv, 2, path, &err) == 0);
    char *xml = slurp(path);
    CHECK_STR_CONTAINS(xml, "<link id=\"L19\" bandwidth=\"50000000000Bps\""); /* node 1, pair 0->3 */
    CHECK_STR_CONTAINS(xml, "<host id=\"g7\" speed=\"1000000000000f\"/>");
    CHECK(strstr(xml, "Dijkstra") == NULL); /* every zone has a full table of its own */
    CHECK_STR_CONTAINS(xml, "<zone id=\"n1\" routing=\"Full\">");
    free(xml);

    /* Fat tree: 8 nodes, 4 per leaf, oversubscription 4: uplink 4 x 1.25e9 / 4 B/s. */
    gcsim_platform ft = des_test_platform(8, 1);
    ft.fabric.topology = FABRIC_FAT_TREE;
    ft.fabric.nodes_per_leaf = 4;
    ft.fabric.oversubscription = 4;
    CHECK(bare_des_write_platform(&ft, 8, path, &err) == 0);
    xml = slurp(path);
    CHECK_STR_CONTAINS(xml, "<zone id=\"leaf1\"");
    CHECK_STR_CONTAINS(xml, "bandwidth=\"1250000000Bps\" latency=\"0s\""); /* the uplinks */
    free(xml);
    unlink(path);
    rmdir(dir);

    /* 16 MiB over 8 GPUs. Star: ring and HD as in test_des_alphabeta (beta = 1.25e9 B/s,
     * alpha = 20 us, the NIC's latency; PCIe adds none). On the fat tree, HD's first
     * reduce-scatter step and last all-gather step (partner = rank xor 4, S/2 each way)
     * put 4 flows on each uplink direction of 1.25e9 B/s: 4x slower than on a NIC.
     * Extra time: 2 steps x 3 x (S/2)/beta = 0.04027 s. */
    double S = 16777216.0, beta = 1.25e9, alpha = 20e-6;
    double hd_star = 6 * alpha + 2.0 * 7 / 8 * S / beta;
    double ring_star = 14 * (alpha + S / 8 / beta);
    double t = 0;
    CHECK(bare_des_collective_time(&ft, 8, COLLECTIVE_HALVING_DOUBLING, S, 0, NULL, &t, NULL, &err) == 0);
    CHECK_REL(t, hd_star + 2 * 3 * (S / 2) / beta, 0.01);
    CHECK(bare_des_collective_time(&ft, 8, COLLECTIVE_RING, S, 0, NULL, &t, NULL, &err) == 0);
    CHECK_REL(t, ring_star, 0.01);

    /* More nodes than a zone's children (32): nodes are grouped in zones of at most 32,
     * and the routes written grow linearly with the nodes (a flat table would hold
     * 70 x 69). A ring over 70 GPUs costs 2 x 69 x (alpha + S/70/beta), each hop on its
     * NICs alone whichever groups its two nodes lie in. */
    gcsim_platform big = des_test_platform(70, 1);
    snprintf(path, sizeof path, "%s/big.xml", dir);
    CHECK(mkdir(dir, 0700) == 0 || access(dir, F_OK) == 0);
    CHECK(bare_des_write_platform(&big, 70, path, &err) == 0);
    xml = slurp(path);
    CHECK_STR_CONTAINS(xml, "<zone id=\"fabric_0\" routing=\"Full\">");
    int routes = 0;
    for (const char *c = xml; (c = strstr(c, "<zoneRoute")); c++)
        routes++;
    CHECK(routes > 0 && routes < 70 * 40);
    free(xml);
    unlink(path);
    rmdir(dir);
    CHECK(bare_des_collective_time(&big, 70, COLLECTIVE_RING, S, 0, NULL, &t, NULL, &err) == 0);
    CHECK_REL(t, 2 * 69 * (alpha + S / 70 / beta), 0.01);

    /* A fat tree of 64 leaves of one node, uplinks a quarter of a NIC (oversubscription 4):
     * every halving-doubling step crosses leaves, so its bandwidth term is 4x the star's
     * (2 x 63/64 x S/beta) while its latency stays 12 alpha: the leaves' links lie on every
     * route, also between leaves of different groups. */
    gcsim_platform wide = des_test_platform(64, 1);
    wide.fabric.topology = FABRIC_FAT_TREE;
    wide.fabric.nodes_per_leaf = 1;
    wide.fabric.oversubscription = 4;
    CHECK(bare_des_collective_time(&wide, 64, COLLECTIVE_HALVING_DOUBLING, S, 0, NULL, &t, NULL,
                                   &err) == 0);
    CHECK_REL(t, 12 * alpha + 4 * 2.0 * 63 / 64 * S / beta, 0.01);

    /* Lanes (des_collectives.c): with one GPU per node the parameter server has a shard per
     * GPU, and in each phase every GPU has a flow to (then from) every shard and every
     * shard one from (then to) every GPU: replayed, n flows in progress per endpoint, so one
     * lane up to 32 GPUs and ceil(n / 32) above. Solved (des_ps.c: every node full, a shard
     * per machine) the phases send no message and need one lane. The ring never has more
     * than two. */
    int sizes[] = {32, 33, 64, 65};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        int n = sizes[k];
        gcsim_platform star = des_test_platform(n, 1);
        des_plan plan;
        gcsim_topology topo; /* the plan is handed its topology (by its caller) */
        CHECK(gcsim_topology_init(&topo, &star, n, &err) == 0);
        CHECK(des_plan_collective(&plan, &topo, GCSIM_OP_ALLREDUCE, COLLECTIVE_PARAMETER_SERVER,
                                  S, 0, NULL, &err) == 0);
        CHECK(plan.endpoints == 2 * n);
        int *lanes = des_plan_lanes(&plan);
        CHECK(lanes != NULL);
        int wrong = 0;
        for (int e = 0; lanes && e < plan.endpoints; e++)
            wrong += lanes[e] != 1;
        CHECK(wrong == 0);
        free(lanes);
        plan.replay = true; /* GCSIM_DES_REPLAY=1 */
        lanes = des_plan_lanes(&plan);
        CHECK(lanes != NULL);
        wrong = 0;
        for (int e = 0; lanes && e < plan.endpoints; e++)
            wrong += lanes[e] != (n + 31) / 32;
        CHECK(wrong == 0);
        free(lanes);
        des_plan_free(&plan);
        CHECK(des_plan_collective(&plan, &topo, GCSIM_OP_ALLREDUCE, COLLECTIVE_RING, S, 0, NULL,
                                  &err) == 0);
        lanes = des_plan_lanes(&plan);
        CHECK(lanes != NULL);
        wrong = 0;
        for (int e = 0; lanes && e < plan.endpoints; e++)
            wrong += lanes[e] != 1;
        CHECK(wrong == 0);
        free(lanes);
        des_plan_free(&plan);
    }

    /* Invalid input. */
    gcsim_platform bad = ft;
    bad.fabric.nodes_per_leaf = 0;
    CHECK(bare_des_write_platform(&bad, 8, "/tmp/never-written.xml", &err) != 0);
    CHECK_STR_CONTAINS(err.message, "fat tree");
    CHECK(access("/tmp/never-written.xml", F_OK) != 0);
    /* more GPUs than the platform has: its topology is refused before the engine is asked */
    CHECK(bare_des_collective_time(&ft, 9, COLLECTIVE_RING, S, 0, NULL, &t, NULL, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "9 GPUs do not fit 8 nodes of 1");
    bad = ft;
    bad.nic.bandwidth_Bps = 0;
    CHECK(bare_des_collective_time(&bad, 8, COLLECTIVE_RING, S, 0, NULL, &t, NULL, &err) != 0);
    CHECK_STR_CONTAINS(err.message, "<des test platform>");

    CHECK_DONE();
}
