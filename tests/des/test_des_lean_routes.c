/*
 * tests/des/test_des_lean_routes.c: the links des_platform.c leaves off a node's routes
 * (issue 47: SimGrid's full max-min update walks every link of every flow in progress at
 * each event, binding or not).
 *  - one GPU per NIC on NVSwitch (a100-hdr's shape): the fabric helper fab<k> is on no
 *    route and is not declared; its 1 ns is on each GPU's port up, so that every
 *    GPU-to-GPU route's latency is the same sum as with the helper, bit for bit;
 *  - without node CPUs, a GPU's route out of its node is its NIC alone and in from it too
 *    (PCIe latency 0, 31.5 GB/s against the NIC's 25 GB/s: it can never limit a flow);
 *    with them (parameter server) the PCIe link carries the GPU's flows to its own CPU as
 *    well and stays;
 *  - two GPUs per NIC: same-rail routes have no fabric helper, so it stays on the others;
 *    a PCIe link as slow as its NIC stays (the two would fill at one level).
 * The simulated times are unchanged: tests/golden/compare.sh against the base gave the same
 * bytes on every DES command (docs/des.md, "Lean routes").
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "des_internal.h"
#include "des_platform.h"
#include "des_test_platform.h"

#define MAX_LINKS 4096
#define MAX_ROUTES 8192

typedef struct {
    char link[MAX_LINKS][40];
    double latency[MAX_LINKS];
    int n_links;
    char src[MAX_ROUTES][40], dst[MAX_ROUTES][40];
    char names[MAX_ROUTES][8][40];
    int n_names[MAX_ROUTES];
    int n_routes;
} record;

static void r_zone_open(void *ctx, const char *id) { (void)ctx, (void)id; }
static void r_zone_close(void *ctx) { (void)ctx; }
static void r_host(void *ctx, const char *id, double f) { (void)ctx, (void)id, (void)f; }
static void r_router(void *ctx, const char *id) { (void)ctx, (void)id; }

static void r_link(void *ctx, const char *id, double bw, double lat, bool fatpipe)
{
    record *r = ctx;
    (void)bw, (void)fatpipe;
    if (r->n_links < MAX_LINKS) {
        snprintf(r->link[r->n_links], sizeof r->link[0], "%s", id);
        r->latency[r->n_links++] = lat;
    }
}

static void r_route(void *ctx, bool zone_route, const char *src, const char *dst,
                    const char *gw_src, const char *gw_dst, const char *const *links, int n)
{
    record *r = ctx;
    (void)zone_route, (void)gw_src, (void)gw_dst;
    if (r->n_routes >= MAX_ROUTES)
        return;
    int k = r->n_routes++;
    snprintf(r->src[k], sizeof r->src[0], "%s", src);
    snprintf(r->dst[k], sizeof r->dst[0], "%s", dst);
    r->n_names[k] = n < 8 ? n : 8;
    for (int x = 0; x < r->n_names[k]; x++)
        snprintf(r->names[k][x], sizeof r->names[k][0], "%s", links[x]);
}

static int describe(const gcsim_platform *p, bool cpus, record *r)
{
    gcsim_topology t;
    gcsim_error err;
    memset(r, 0, sizeof *r);
    if (gcsim_topology_init(&t, p, p->nodes * p->gpus_per_node, &err))
        return -1;
    des_platform_sink sink = {r, r_zone_open, r_zone_close, r_host, r_router, r_link, r_route};
    int rc = des_platform_describe(&t, cpus, &sink, &err);
    gcsim_topology_free(&t);
    return rc;
}

/* The route from src to dst (-1: none). */
static int route_of(const record *r, const char *src, const char *dst)
{
    for (int k = 0; k < r->n_routes; k++)
        if (!strcmp(r->src[k], src) && !strcmp(r->dst[k], dst))
            return k;
    return -1;
}

static double latency_of(const record *r, const char *id)
{
    for (int x = 0; x < r->n_links; x++)
        if (!strcmp(r->link[x], id))
            return r->latency[x];
    return NAN;
}

/* Whether a node's fabric helper "fab<k>" is declared (not the group helpers "fabric_h<c>"). */
static bool declares_fab(const record *r)
{
    for (int x = 0; x < r->n_links; x++)
        if (!strncmp(r->link[x], "fab", 3) && r->link[x][3] >= '0' && r->link[x][3] <= '9')
            return true;
    return false;
}

/* SimGrid's route latency: the links' latencies added in order from 0. */
static double route_latency(const record *r, int k, const char *fab, double fab_s)
{
    double lat = 0;
    for (int x = 0; x < r->n_names[k]; x++)
        lat += !strcmp(r->names[k][x], fab) ? fab_s : latency_of(r, r->names[k][x]);
    return lat;
}

/* a100-hdr's node: 8 GPUs on NVSwitch, 8 NICs of 200 Gb/s, PCIe 4.0 x16. */
static gcsim_platform dgx(int nodes)
{
    gcsim_platform p = des_test_platform(nodes, 8);
    p.intra.kind = INTRA_NVSWITCH;
    p.intra.gpu_to_host_Bps = 31.5e9;
    p.intra.gpu_to_gpu_Bps = 227.3e9;
    p.intra.latency_s = 10.8288089e-6;
    p.nic.kind = NIC_INFINIBAND;
    p.nic.bandwidth_Bps = 25e9;
    p.nic.latency_s = 1e-6;
    p.nic.per_node = 8;
    return p;
}

int main(void)
{
    static record r, with_cpus;
    gcsim_platform p = dgx(2);
    CHECK(describe(&p, false, &r) == 0);
    CHECK(r.n_routes < MAX_ROUTES && r.n_links < MAX_LINKS);
    /* no fabric helper; GPU 0 -> GPU 1 is port up, port down, with the helper's 1 ns on the
     * port up: (intra/2 + 1 ns) + intra/2, the sum port up + fab + port down gave */
    CHECK(!declares_fab(&r));
    int k = route_of(&r, "g0", "g1");
    CHECK(k >= 0 && r.n_names[k] == 2);
    double half = p.intra.latency_s / 2;
    CHECK(k >= 0 && latency_of(&r, r.names[k][0]) == half + 1e-9);
    CHECK(k >= 0 && latency_of(&r, r.names[k][1]) == half);
    CHECK(k >= 0 && route_latency(&r, k, "", 0) == (0 + half + 1e-9) + half);
    /* out of and into the node: the NIC alone */
    k = route_of(&r, "g3", "n0x_r");
    CHECK(k >= 0 && r.n_names[k] == 1);
    k = route_of(&r, "n1x_r", "g12");
    CHECK(k >= 0 && r.n_names[k] == 1);

    /* with the node CPUs the PCIe links stay on the way out (GPU -> own CPU shares them) */
    CHECK(describe(&p, true, &with_cpus) == 0);
    k = route_of(&with_cpus, "g3", "n0x_r");
    CHECK(k >= 0 && with_cpus.n_names[k] == 2);
    k = route_of(&with_cpus, "n1x_r", "g12");
    CHECK(k >= 0 && with_cpus.n_names[k] == 2);

    /* PCIe no faster than the NIC: kept */
    gcsim_platform slow = dgx(2);
    slow.intra.gpu_to_host_Bps = 25e9;
    CHECK(describe(&slow, false, &r) == 0);
    k = route_of(&r, "g3", "n0x_r");
    CHECK(k >= 0 && r.n_names[k] == 2);

    /* two GPUs per NIC: the helper stays on cross-rail routes, with its own 1 ns */
    gcsim_platform two = dgx(2);
    two.nic.per_node = 4;
    CHECK(describe(&two, false, &r) == 0);
    CHECK(declares_fab(&r));
    k = route_of(&r, "g0", "g2"); /* rails 0 and 1 */
    CHECK(k >= 0 && r.n_names[k] == 3 && !strcmp(r.names[k][1], "fab0"));
    CHECK(k >= 0 && latency_of(&r, r.names[k][0]) == half);
    k = route_of(&r, "g0", "g1"); /* one rail */
    CHECK(k >= 0 && r.n_names[k] == 2);
    CHECK_DONE();
}
