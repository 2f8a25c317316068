/*
 * sim/des/des_platform.c: the SimGrid platform of a topology (sim/collectives), with the
 * same directed links, capacities and latencies the analytic engine costs.
 *
 * Layout (docs/des.md has the picture):
 *   root zone "fabric" (DijkstraCache), whose children are
 *   - one zone per node and NIC rail, "n<k>r<r>" (Full): the GPU hosts g<..> of that rail,
 *     router n<k>r<r>_io where their PCIe links meet the NIC and the host bus, router
 *     n<k>r<r>_nv where their ports meet the node's NVSwitch / PCIe switch;
 *   - one zone per node CPU, "cz<k>", holding host c<k> (parameter-server shards and the
 *     TernGrad pattern's host-side steps run there);
 *   - the switches: "sw" (star) or "leaf<l>" and "core" (fat tree).
 * Every directed link of the topology is one SHARED SimGrid link "L<id>" (one per
 * direction), so that both engines see the same capacities. Latencies: a port
 * intra_node.latency / 2 (two per route), an NVLink pair intra_node.latency, PCIe 0, a NIC
 * nic.latency / 2 + one switch latency, a leaf uplink one switch latency: a route's sum is
 * the topology's end-to-end latency. Helper links that are never a
 * bottleneck (1 TB/s to every flow: FATPIPE): the host bus of a node (CPU to a rail's GPUs, intra_node.latency),
 * the CPU's own attachment (0 s), and the NVSwitch fabric between the rails of a node
 * (1 ns, so that no shortest path ever detours through it).
 *
 * The description is written once, to a des_platform_sink (des_platform.h): the XML writer
 * here (gcsim_des_write_topology, for SMPI and for reading), or des_platform_sg.cpp, which
 * builds the same zones, links and routes in the simulation child through SimGrid's own
 * platform API (SimGrid 3.32's XML loader resolves every <link_ctn> by a search through all
 * zones: quadratic in the platform's size, 72% of a 4,096-GPU run).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives.h"
#include "des.h"
#include "des_fabric.h"
#include "des_platform.h"

/* Helper links (group routes, host bus, NVSwitch fabric, CPU attachment) must never limit
 * a flow. They are shared links whose capacity no sum of flows can reach: 1e18 B/s is 10^4
 * times 16,384 GPUs at 6 TB/s each. Not FATPIPE: SimGrid 3.32's max-min solver rescans
 * every flow of a FATPIPE link each time it fixes the rate of one of them (lmm's
 * maxmin_solve), quadratic in the flows crossing it, and a group's helper is crossed by
 * every flow between its children (a 256-GPU parameter server spent 43 s there). */
#define HELPER_Bps 1e18
#define FABRIC_LATENCY_S 1e-9

static double link_latency_s(const gcsim_topology *t, int id)
{
    const gcsim_platform *p = t->platform;
    char name[64];
    gcsim_topology_link_name(t, id, name, sizeof name);
    if (strstr(name, "_port_"))
        return p->intra.latency_s / 2;
    if (strstr(name, "_nvl"))
        return p->intra.latency_s;
    if (strstr(name, "_pcie_") || strstr(name, "_conn_") || strstr(name, "_hostmem") ||
        strstr(name, "_upi") || strstr(name, "_proxy") || strstr(name, "_pcisw"))
        return 0; /* transports and PCIe topology: the route's latency is the NICs' */
    if (strstr(name, "_nic"))
        return p->nic.latency_s / 2 + p->fabric.switch_latency_s +
               (p->nic.message_overhead_s > 0 ? p->nic.message_overhead_s / 2 : 0);
    return p->fabric.switch_latency_s; /* leaf uplink */
}

typedef struct {
    const des_platform_sink *sink;
    const gcsim_topology *t;
    bool cpus; /* the node CPUs are endpoints: their hosts, links and routes are described */
    bool out_of_memory;
    /* ECMP (des_fabric.h): spines per leaf (0: off, the aggregate leaf links), the hash's
     * seed, and the leaf whose spine links the next group zone declares (-1: none). */
    int spines;
    unsigned long long seed;
    int spine_leaf;
} writer;

/* Leaf l's link to (d 0) or from (d 1) spine s. */
static void spine_name(char *buf, size_t len, int l, int d, int s)
{
    snprintf(buf, len, "S%d%c%d", l, d ? 'd' : 'u', s);
}

static void link_line(const writer *w, const char *id, double bw_Bps, double lat_s)
{
    w->sink->link(w->sink->ctx, id, bw_Bps, lat_s, false);
}

/* A helper link: a latency on a route, never a bandwidth limit (HELPER_Bps). */
static void helper_line(const writer *w, const char *id, double lat_s)
{
    w->sink->link(w->sink->ctx, id, HELPER_Bps, lat_s, false);
}

/* A route through the topology's links given by id (and optionally one named link first).
 * zone_route: between child zones through the gateways gw_src and gw_dst. */
static void route(const writer *w, bool zone_route, const char *src, const char *dst,
                  const char *gw_src, const char *gw_dst, const int *ids, int n,
                  const char *named)
{
    char names[GCSIM_ROUTE_MAX_LINKS + 1][32];
    const char *list[GCSIM_ROUTE_MAX_LINKS + 1];
    int k = 0;
    if (named)
        snprintf(names[k], sizeof names[k], "%s", named), list[k] = names[k], k++;
    for (int x = 0; x < n && k <= GCSIM_ROUTE_MAX_LINKS; x++)
        snprintf(names[k], sizeof names[k], "L%d", ids[x]), list[k] = names[k], k++;
    w->sink->route(w->sink->ctx, zone_route, src, dst, gw_src, gw_dst, list, k);
}

/* Children of a grouping zone, at most this many: its Full routing table holds (F+1)^2
 * routes, and a route crosses one zone per level, log_F(nodes) levels. */
#define GROUP_FANOUT 32

/* The NIC link of node k's rail r in direction d (0 up, 1 down), read from the route of
 * the rail's first GPU (rail r, 0 <= r < R, is present) to another node's CPU and back:
 * [pcie up, nic up, ..] and [.., nic down, pcie down] (topology.c). */
static int nic_link(const gcsim_topology *t, int k, int r, int d)
{
    int links[GCSIM_ROUTE_MAX_LINKS];
    double lat;
    int other = t->gpus + (k + 1) % t->nodes;
    int gpu = k * t->gpus_per_node + r * (t->gpus_per_node / t->nics_per_node);
    int n = d == 0 ? gcsim_topology_route(t, gpu, other, links, &lat)
                   : gcsim_topology_route(t, other, gpu, links, &lat);
    /* the route's first NIC link going out, its last coming in (transports add links on
     * the GPU's side: topology.c) */
    for (int x = 0; x < n; x++)
        if (gcsim_topology_is_nic_link(t, links[d == 0 ? x : n - 1 - x]))
            return links[d == 0 ? x : n - 1 - x];
    return -1;
}

/* The NIC link node k's CPU uses (NIC 0), from its route to another node's CPU. */
static int cpu_nic_link(const gcsim_topology *t, int k, int d)
{
    int links[GCSIM_ROUTE_MAX_LINKS];
    double lat;
    int here = t->gpus + k, other = t->gpus + (k + 1) % t->nodes;
    if (d == 0) {
        gcsim_topology_route(t, here, other, links, &lat);
        return links[0];
    }
    int n = gcsim_topology_route(t, other, here, links, &lat);
    return links[n - 1];
}

/* A leaf's uplink (d 0) or downlink (d 1), from a route across leaves. */
static int leaf_link(const gcsim_topology *t, int l, int d)
{
    int links[GCSIM_ROUTE_MAX_LINKS];
    double lat;
    int per = t->platform->fabric.nodes_per_leaf;
    int here = t->gpus + l * per, there = t->gpus + (l + 1 < t->leaves ? (l + 1) * per : 0);
    int n = d == 0 ? gcsim_topology_route(t, here, there, links, &lat)
                   : gcsim_topology_route(t, there, here, links, &lat);
    return d == 0 ? links[1] : links[n - 2];
}

static bool rail_present(const gcsim_topology *t, int k, int r)
{
    return k * t->gpus_per_node + r * (t->gpus_per_node / t->nics_per_node) < t->gpus;
}

/* A route being put together: link names in the order a message crosses them. */
#define PATH_MAX_LINKS (2 * GCSIM_ROUTE_MAX_LINKS + 2)
typedef struct {
    char names[PATH_MAX_LINKS][32];
    const char *list[PATH_MAX_LINKS];
    int n;
} path;

static void path_name(path *q, const char *name)
{
    if (q->n < PATH_MAX_LINKS) {
        snprintf(q->names[q->n], sizeof q->names[q->n], "%s", name);
        q->list[q->n] = q->names[q->n];
        q->n++;
    }
}

static void path_id(path *q, int id)
{
    char name[32];
    snprintf(name, sizeof name, "L%d", id);
    path_name(q, name);
}

/* Appends the links of the topology's route from endpoint src to endpoint dst. */
static void path_topology(path *q, const gcsim_topology *t, int src, int dst)
{
    int links[GCSIM_ROUTE_MAX_LINKS];
    double lat;
    int n = gcsim_topology_route(t, src, dst, links, &lat);
    for (int x = 0; x < n; x++)
        path_id(q, links[x]);
}

/* GPU g's way out of its node (its route to another node's CPU up to its NIC link) and in
 * (from its NIC link on): PCIe and NIC, and the transport's links between them. */
static void path_exit(path *out, path *in, const gcsim_topology *t, int g, int cpu)
{
    int links[GCSIM_ROUTE_MAX_LINKS];
    double lat;
    int other = t->gpus + (cpu - t->gpus + 1) % t->nodes;
    int n = gcsim_topology_route(t, g, other, links, &lat);
    for (int x = 0; x < n; x++) {
        path_id(out, links[x]);
        if (gcsim_topology_is_nic_link(t, links[x]))
            break;
    }
    n = gcsim_topology_route(t, other, g, links, &lat);
    int from = n - 1;
    while (from > 0 && !gcsim_topology_is_nic_link(t, links[from]))
        from--;
    for (int x = from; x < n; x++)
        path_id(in, links[x]);
}

static void path_route(const writer *w, const char *src, const char *dst, const path *q)
{
    w->sink->route(w->sink->ctx, false, src, dst, NULL, NULL, q->list, q->n);
}

/* Node k: one Full zone "n<k>" with its GPU hosts g<..>, its CPU host c<k>, and (when there
 * are other nodes) the router "n<k>x_r", its gateway to the rest of the fabric. Every route
 * between them is listed, one way each (links in the order a message crosses them):
 *   GPU g -> GPU h, same rail:  the topology's route (NVLink pair, or ports);
 *   GPU g -> GPU h, other rail: g's port up, the node's NVSwitch fabric "fab<k>", h's port down;
 *   GPU g -> CPU:  g's PCIe up, the host bus "bus<k>";  CPU -> GPU h: the CPU's attachment
 *                  "cpu<k>", the bus, h's PCIe down;
 *   GPU g -> exit: g's PCIe up, the NIC of g's rail up;  exit -> GPU h: that NIC down, PCIe down;
 *   CPU -> exit:   "cpu<k>", NIC 0 up;                   exit -> CPU: NIC 0 down.
 * One zone per node, not one per rail and per CPU: SimGrid 3.32 seals every zone by
 * scanning every host of the platform, so the number of zones must not grow with the GPUs
 * faster than it must (this was 87% of a 16,384-GPU run with 11 zones per node). */
static void node_zone(writer *w, int k, bool exit)
{
    const des_platform_sink *sk = w->sink;
    const gcsim_topology *t = w->t;
    const gcsim_platform *p = t->platform;
    int i = t->gpus_per_node, R = t->nics_per_node, per_rail = i / R;
    int first = k * i, last = first + i < t->gpus ? first + i : t->gpus;
    int cpu = t->gpus + k;
    char name[48], a[32], b[32], c[32], xr[40], bus[32], fab[32], cpul[32];
    snprintf(name, sizeof name, "n%d", k);
    snprintf(c, sizeof c, "c%d", k);
    snprintf(xr, sizeof xr, "n%dx_r", k);
    snprintf(bus, sizeof bus, "bus%d", k);
    snprintf(fab, sizeof fab, "fab%d", k);
    snprintf(cpul, sizeof cpul, "cpu%d", k);
    sk->zone_open(sk->ctx, name);
    for (int g = first; g < last; g++) {
        snprintf(a, sizeof a, "g%d", g);
        sk->host(sk->ctx, a, p->gpu.speed_flops);
    }
    if (w->cpus)
        sk->host(sk->ctx, c, p->gpu.speed_flops);
    if (exit)
        sk->router(sk->ctx, xr);
    /* ECMP: the gateway of traffic to and from other leaves, whose routes add the spine link
     * each endpoint hashes to (intra-leaf traffic keeps n<k>x_r: it crosses no spine) */
    char yr[40], spine[32];
    int leaf = w->spines ? k / p->fabric.nodes_per_leaf : -1;
    snprintf(yr, sizeof yr, "n%dy_r", k);
    if (exit && w->spines)
        sk->router(sk->ctx, yr);

    /* Links: per GPU its PCIe pair and its ports or NVLink pairs; then the node's. */
    for (int g = first; g < last; g++) {
        int links[GCSIM_ROUTE_MAX_LINKS], n;
        double lat;
        char id[32];
        n = gcsim_topology_route(t, g, cpu, links, &lat);
        for (int d = 0; d < 2 && n >= 1; d++) { /* its PCIe link comes first (then, behind
                                                    a PCIe switch, the switch's uplink) */
            snprintf(id, sizeof id, "L%d", links[0] + d);
            link_line(w, id, gcsim_topology_capacity_Bps(t, links[0] + d), link_latency_s(t, links[0] + d));
        }
        for (int h = first; h < last && p->intra.kind == INTRA_NVLINK; h++) {
            if (h == g)
                continue;
            gcsim_topology_route(t, g, h, links, &lat);
            snprintf(id, sizeof id, "L%d", links[0]);
            link_line(w, id, gcsim_topology_capacity_Bps(t, links[0]), link_latency_s(t, links[0]));
        }
        if (p->intra.kind != INTRA_NVLINK)
            for (int d = 0; d < 2; d++) {
                snprintf(id, sizeof id, "L%d", 2 * g + d);
                link_line(w, id, gcsim_topology_capacity_Bps(t, 2 * g + d), link_latency_s(t, 2 * g + d));
            }
    }
    /* transports and PCIe topology: the node's connections, host memory and socket links */
    bool extra = gcsim_platform_has_transport_links(p);
    int ext[3 * 256 + 1 + 8 * 7 + 2 * 256], n_ext = gcsim_topology_node_extra_links(t, k, ext, (int)(sizeof ext / sizeof *ext));
    for (int x = 0; x < n_ext; x++) {
        char id[32];
        snprintf(id, sizeof id, "L%d", ext[x]);
        link_line(w, id, gcsim_topology_capacity_Bps(t, ext[x]), link_latency_s(t, ext[x]));
    }
    /* A copy staged through host memory crosses PCIe links (latency 0): its
     * intra_node.latency is this helper's, as the ports' halves are a P2P copy's. */
    bool staged = p->intra.p2p_off && p->intra.kind != INTRA_NVLINK;
    char stg[32];
    snprintf(stg, sizeof stg, "stg%d", k);
    if (staged && last - first > 1)
        helper_line(w, stg, p->intra.latency_s);
    if (w->cpus)
        helper_line(w, cpul, 0);
    if (exit)
        for (int r = 0; r < R; r++)
            for (int d = 0; d < 2 && rail_present(t, k, r); d++) {
                int l = nic_link(t, k, r, d);
                snprintf(name, sizeof name, "L%d", l);
                link_line(w, name, des_fabric_capacity_Bps(t, l, true), link_latency_s(t, l));
            }
    if (w->cpus)
        helper_line(w, bus, p->intra.latency_s);
    /* the NVSwitch fabric joins GPUs of different rails: only a node with several has it */
    bool cross_rail = last - first > per_rail;
    if (cross_rail)
        helper_line(w, fab, FABRIC_LATENCY_S);

    for (int g = first; g < last; g++) {
        int rg = (g - first) / per_rail;
        snprintf(a, sizeof a, "g%d", g);
        for (int h = first; h < last; h++) {
            if (h == g)
                continue;
            snprintf(b, sizeof b, "g%d", h);
            path q = {.n = 0};
            if ((h - first) / per_rail == rg || extra) {
                path_topology(&q, t, g, h);
                if (staged)
                    path_name(&q, stg);
            } else { /* ports (an NVLink mesh has one rail: checked in describe) */
                path_id(&q, 2 * g);
                path_name(&q, fab);
                path_id(&q, 2 * h + 1);
            }
            path_route(w, a, b, &q);
        }
        if (w->cpus) {
            path up = {.n = 0}, down = {.n = 0};
            path_topology(&up, t, g, cpu);
            path_name(&up, bus);
            path_route(w, a, c, &up);
            path_name(&down, cpul);
            path_name(&down, bus);
            path_topology(&down, t, cpu, g);
            path_route(w, c, a, &down);
        }
        if (exit) {
            path out = {.n = 0}, in = {.n = 0};
            path_exit(&out, &in, t, g, cpu);
            path_route(w, a, xr, &out);
            path_route(w, xr, a, &in);
            if (w->spines) {
                spine_name(spine, sizeof spine, leaf, 0, des_fabric_spine(w->seed, g, 0, w->spines));
                path_name(&out, spine);
                path_route(w, a, yr, &out);
                path down = {.n = 0};
                spine_name(spine, sizeof spine, leaf, 1, des_fabric_spine(w->seed, g, 1, w->spines));
                path_name(&down, spine);
                for (int x = 0; x < in.n; x++)
                    path_name(&down, in.names[x]);
                path_route(w, yr, a, &down);
            }
        }
    }
    if (exit && w->cpus) {
        path out = {.n = 0}, in = {.n = 0};
        path_name(&out, cpul);
        path_id(&out, cpu_nic_link(t, k, 0));
        path_route(w, c, xr, &out);
        if (w->spines) {
            path o2 = out, d2 = {.n = 0};
            spine_name(spine, sizeof spine, leaf, 0, des_fabric_spine(w->seed, cpu, 0, w->spines));
            path_name(&o2, spine);
            for (int x = 0; x < o2.n; x++)
                o2.list[x] = o2.names[x];
            path_route(w, c, yr, &o2);
            spine_name(spine, sizeof spine, leaf, 1, des_fabric_spine(w->seed, cpu, 1, w->spines));
            path_name(&d2, spine);
            path_id(&d2, cpu_nic_link(t, k, 1));
            path_route(w, yr, c, &d2);
        }
        path_id(&in, cpu_nic_link(t, k, 1));
        path_route(w, xr, c, &in);
    }
    sk->zone_close(sk->ctx);
}

/* Items of a grouping level: nodes, or leaves of a fat tree (each a group of its nodes). */
typedef enum { ITEM_NODE, ITEM_LEAF } item_kind;

static void group_zone(writer *w, item_kind kind, int lo, int hi, const char *id, bool exit);

static void item_names(const gcsim_topology *t, item_kind kind, int x, char *zone, char *gw)
{
    (void)t;
    if (kind == ITEM_NODE) {
        snprintf(zone, 32, "n%d", x);
        snprintf(gw, 40, "n%dx_r", x);
    } else {
        snprintf(zone, 32, "leaf%d", x);
        snprintf(gw, 40, "leaf%dx_r", x);
    }
}

static void item_zone(writer *w, item_kind kind, int x)
{
    const gcsim_topology *t = w->t;
    if (kind == ITEM_NODE) {
        node_zone(w, x, t->nodes > 1);
        return;
    }
    int per = t->platform->fabric.nodes_per_leaf, lo = x * per, hi = lo + per;
    char id[32];
    snprintf(id, sizeof id, "leaf%d", x);
    if (w->spines)
        w->spine_leaf = x;
    group_zone(w, ITEM_NODE, lo, hi < t->nodes ? hi : t->nodes, id, true);
}

/* A zone over items [lo, hi) with Full routing between its children: the items
 * themselves when they are few, else sub-groups. Only routes between leaves carry links
 * of the topology (the leaves' up- and downlinks); the others carry the zone's helper
 * link "<id>_h" (no bandwidth limit, no latency: SimGrid forbids empty routes). An exit
 * zone "<id>x" with router "<id>x_r" is the group's gateway to its parent. */
static void group_zone(writer *w, item_kind kind, int lo, int hi, const char *id, bool exit)
{
    const des_platform_sink *sk = w->sink;
    int n = hi - lo;
    int per_child = n <= GROUP_FANOUT ? 1 : (n + GROUP_FANOUT - 1) / GROUP_FANOUT;
    int children = (n + per_child - 1) / per_child;
    /* with ECMP the spine links replace the leaves' aggregate links */
    bool leaf_links = kind == ITEM_LEAF && per_child == 1 && !w->spines;
    sk->zone_open(sk->ctx, id);
    if (w->spine_leaf >= 0) { /* a leaf's zone: its spine links, before its nodes' routes */
        int l = w->spine_leaf;
        w->spine_leaf = -1;
        for (int d = 0; d < 2; d++) {
            int ll = leaf_link(w->t, l, d);
            double bw = des_fabric_capacity_Bps(w->t, ll, false) / w->spines;
            for (int sp = 0; sp < w->spines; sp++) {
                char name[32];
                spine_name(name, sizeof name, l, d, sp);
                link_line(w, name, bw, link_latency_s(w->t, ll));
            }
        }
    }
    char (*zone)[32] = malloc(sizeof *zone * (size_t)children);
    char (*gw)[40] = malloc(sizeof *gw * (size_t)children);
    int *up = malloc(sizeof(int) * (size_t)children), *down = malloc(sizeof(int) * (size_t)children);
    if (!zone || !gw || !up || !down) {
        free(zone), free(gw), free(up), free(down);
        w->out_of_memory = true;
        return;
    }
    for (int c = 0; c < children; c++) {
        int a = lo + c * per_child, b = a + per_child < hi ? a + per_child : hi;
        if (per_child == 1) {
            item_zone(w, kind, a);
            item_names(w->t, kind, a, zone[c], gw[c]);
        } else {
            snprintf(zone[c], sizeof zone[c], "%s_%d", id, c);
            snprintf(gw[c], sizeof gw[c], "%s_%dx_r", id, c);
            group_zone(w, kind, a, b, zone[c], true);
        }
        up[c] = leaf_links ? leaf_link(w->t, a, 0) : -1;
        down[c] = leaf_links ? leaf_link(w->t, a, 1) : -1;
    }
    char x[48], xr[56], h[64];
    snprintf(x, sizeof x, "%sx", id);
    snprintf(xr, sizeof xr, "%sx_r", id);
    if (exit) {
        sk->zone_open(sk->ctx, x);
        sk->router(sk->ctx, xr);
        sk->zone_close(sk->ctx);
    }
    for (int c = 0; c < children && leaf_links; c++)
        for (int d = 0; d < 2; d++) {
            int l = d ? down[c] : up[c];
            char name[32];
            snprintf(name, sizeof name, "L%d", l);
            link_line(w, name, des_fabric_capacity_Bps(w->t, l, false), link_latency_s(w->t, l));
        }
    /* Without leaf links, a route still needs a link (SimGrid forbids empty routes): child
     * c's helper "<id>_h<c>" carries what leaves c, "<id>_hx" what enters from outside.
     * One helper per child, not one per group: a link crossed by every flow of the group
     * makes SimGrid's max-min solver slow (a FATPIPE link is rescanned for each flow it
     * fixes) or inexact (a shared link sums 1/latency over its flows: with thousands of
     * flows the sum's rounding exceeds the solver's absolute precision and it aborts). */
    bool helpers = !leaf_links && (children > 1 || exit);
    for (int c = 0; c < children && helpers; c++) {
        snprintf(h, sizeof h, "%s_h%d", id, c);
        helper_line(w, h, 0);
    }
    if (helpers && exit) {
        snprintf(h, sizeof h, "%s_hx", id);
        helper_line(w, h, 0);
    }
    for (int c = 0; c < children; c++) {
        snprintf(h, sizeof h, "%s_h%d", id, c);
        for (int e = 0; e < children; e++) {
            if (e == c)
                continue;
            int ids[2] = {up[c], down[e]};
            if (leaf_links)
                route(w, true, zone[c], zone[e], gw[c], gw[e], ids, 2, NULL);
            else
                route(w, true, zone[c], zone[e], gw[c], gw[e], NULL, 0, h);
        }
        if (!exit)
            continue;
        if (leaf_links) {
            route(w, true, zone[c], x, gw[c], xr, &up[c], 1, NULL);
            route(w, true, x, zone[c], xr, gw[c], &down[c], 1, NULL);
        } else {
            char hx[64], yg[40];
            snprintf(hx, sizeof hx, "%s_hx", id);
            /* ECMP: a node leaves its leaf through its spine gateway (node_zone) */
            snprintf(yg, sizeof yg, "n%dy_r", lo + c);
            const char *g = w->spines && kind == ITEM_NODE ? yg : gw[c];
            route(w, true, zone[c], x, g, xr, NULL, 0, h);
            route(w, true, x, zone[c], xr, g, NULL, 0, hx);
        }
    }
    sk->zone_close(sk->ctx);
    free(zone), free(gw), free(up), free(down);
}

int des_platform_describe(const gcsim_topology *t, bool with_cpus, const des_platform_sink *sink,
                          gcsim_error *err)
{
    const gcsim_platform *p = t->platform;
    if (!(p->gpu.speed_flops > 0))
        return gcsim_fail(err, "%s: $.gpu.speed must be positive", p->source_path);
    for (int l = 0; l < t->n_links; l++)
        if (!(gcsim_topology_capacity_Bps(t, l) > 0) ||
            !isfinite(gcsim_topology_capacity_Bps(t, l)))
            return gcsim_fail(err, "%s: a link of the platform has no positive bandwidth",
                              p->source_path);
    if (p->intra.kind == INTRA_NVLINK && t->nics_per_node > 1)
        return gcsim_fail(err, "%s: $.nic.per_node: an NVLink mesh with several NICs per node is "
                               "not supported by the DES (use nvswitch, or one NIC per node)",
                          p->source_path);
    writer w = {sink, t, with_cpus, false, 0, 0, -1};
    if (t->leaves > 1 && p->ecmp.spines > 0) {
        /* the spine gateways are the nodes' own, in their leaf's zone (node_zone) */
        if (p->fabric.nodes_per_leaf > GROUP_FANOUT)
            return gcsim_fail(err, "%s: ECMP spines in the DES need at most %d nodes per leaf "
                                   "($.fabric.nodes_per_leaf is %d)",
                              p->source_path, GROUP_FANOUT, p->fabric.nodes_per_leaf);
        /* a spine link is at least one uplink port (one NIC's rate): an endpoint's flows
         * then share nothing tighter than its own NIC on the spine it hashes to */
        double up = gcsim_topology_capacity_Bps(t, leaf_link(t, 0, 0));
        double nic = gcsim_topology_capacity_Bps(t, nic_link(t, 0, 0, 0));
        int ports = (int)floor(up / nic * (1 + 1e-9));
        if (p->ecmp.spines > ports)
            return gcsim_fail(err, "%s: --ecmp-spines %d: a leaf has %d uplink ports of one "
                                   "NIC's rate (nodes_per_leaf x NICs / oversubscription): at "
                                   "most that many spines",
                              p->source_path, p->ecmp.spines, ports);
        w.spines = p->ecmp.spines;
        w.seed = p->ecmp.seed;
    }
    if (t->leaves > 1)
        group_zone(&w, ITEM_LEAF, 0, t->leaves, "fabric", false);
    else
        group_zone(&w, ITEM_NODE, 0, t->nodes, "fabric", false);
    if (w.out_of_memory)
        return gcsim_fail(err, "%s: out of memory while describing the SimGrid platform",
                          p->source_path);
    return 0;
}

/* ---- the XML writer ---- */

typedef struct {
    FILE *f;
    int depth; /* open zones: the indentation */
} xml_sink;

static void xml_indent(xml_sink *x)
{
    fprintf(x->f, "%*s", x->depth, "");
}

static void xml_zone_open(void *ctx, const char *id)
{
    xml_sink *x = ctx;
    xml_indent(x);
    fprintf(x->f, "<zone id=\"%s\" routing=\"Full\">\n", id);
    x->depth++;
}

static void xml_zone_close(void *ctx)
{
    xml_sink *x = ctx;
    x->depth--;
    xml_indent(x);
    fprintf(x->f, "</zone>\n");
}

static void xml_host(void *ctx, const char *id, double speed_flops)
{
    xml_sink *x = ctx;
    xml_indent(x);
    fprintf(x->f, "<host id=\"%s\" speed=\"%.17gf\"/>\n", id, speed_flops);
}

static void xml_router(void *ctx, const char *id)
{
    xml_sink *x = ctx;
    xml_indent(x);
    fprintf(x->f, "<router id=\"%s\"/>\n", id);
}

static void xml_link(void *ctx, const char *id, double bw_Bps, double lat_s, bool fatpipe)
{
    xml_sink *x = ctx;
    xml_indent(x);
    fprintf(x->f, "<link id=\"%s\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" sharing_policy=\"%s\"/>\n",
            id, bw_Bps, lat_s, fatpipe ? "FATPIPE" : "SHARED");
}

static void xml_route(void *ctx, bool zone_route, const char *src, const char *dst,
                      const char *gw_src, const char *gw_dst, const char *const *links, int n)
{
    xml_sink *x = ctx;
    const char *tag = zone_route ? "zoneRoute" : "route";
    xml_indent(x);
    if (zone_route)
        fprintf(x->f, "<%s src=\"%s\" dst=\"%s\" gw_src=\"%s\" gw_dst=\"%s\" symmetrical=\"NO\">",
                tag, src, dst, gw_src, gw_dst);
    else
        fprintf(x->f, "<%s src=\"%s\" dst=\"%s\" symmetrical=\"NO\">", tag, src, dst);
    for (int k = 0; k < n; k++)
        fprintf(x->f, "<link_ctn id=\"%s\"/>", links[k]);
    fprintf(x->f, "</%s>\n", tag);
}

int gcsim_des_write_topology(const gcsim_topology *t, const char *path, gcsim_error *err)
{
    const gcsim_platform *p = t->platform;
    FILE *f = fopen(path, "w");
    if (!f)
        return gcsim_fail(err, "%s: cannot write the SimGrid platform", path);
    fprintf(f, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n");
    fprintf(f, "<!-- generated by gcsim from %s (%s) -->\n", p->source_path, p->name);
    fprintf(f, "<platform version=\"4.1\">\n");
    xml_sink x = {f, 0};
    des_platform_sink sink = {&x,       xml_zone_open, xml_zone_close, xml_host,
                              xml_router, xml_link,    xml_route};
    int rc = des_platform_describe(t, true, &sink, err);
    fprintf(f, "</platform>\n");
    if (ferror(f) | (fclose(f) != 0)) {
        remove(path);
        return rc != 0 ? -1 : gcsim_fail(err, "%s: write error while generating the SimGrid platform", path);
    }
    if (rc != 0)
        remove(path);
    return rc;
}

const char *gcsim_des_default_network_model(const gcsim_platform *p)
{
    (void)p;
    return "alpha-beta";
}
