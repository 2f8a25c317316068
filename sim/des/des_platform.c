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

/* A leaf's uplink (d 0) or downlink (d 1), as the topology numbers them (a node's leaf,
 * or a rail leaf of a rail-optimized tree). */
static int leaf_link(const gcsim_topology *t, int l, int d)
{
    return gcsim_topology_leaf_link(t, l, d);
}

static bool rail_present(const gcsim_topology *t, int k, int r)
{
    return k * t->gpus_per_node + r * (t->gpus_per_node / t->nics_per_node) < t->gpus;
}

/* A route being put together: link names in the order a message crosses them. */
#define PATH_MAX_LINKS (2 * GCSIM_ROUTE_MAX_LINKS + 2)
typedef struct {
    char names[PATH_MAX_LINKS][64];
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
/* The links of GPUs [first, last) of one node: per GPU its PCIe pair (its route to the
 * node's CPU starts with it; behind a PCIe switch the switch's uplink follows, listed with
 * the node's extra links), then its switch ports or its NVLink pairs. Node and rail zones
 * both declare them. */
static void gpu_link_lines(const writer *w, int first, int last, int cpu, double port_up_extra_s)
{
    const gcsim_topology *t = w->t;
    bool nvlink = t->platform->intra.kind == INTRA_NVLINK;
    for (int g = first; g < last; g++) {
        int links[GCSIM_ROUTE_MAX_LINKS];
        double lat;
        char id[32];
        int n = gcsim_topology_route(t, g, cpu, links, &lat);
        for (int d = 0; d < 2 && n >= 1; d++) {
            snprintf(id, sizeof id, "L%d", links[0] + d);
            link_line(w, id, gcsim_topology_capacity_Bps(t, links[0] + d), link_latency_s(t, links[0] + d));
        }
        for (int h = first; h < last && nvlink; h++) {
            if (h == g)
                continue;
            gcsim_topology_route(t, g, h, links, &lat);
            snprintf(id, sizeof id, "L%d", links[0]);
            link_line(w, id, gcsim_topology_capacity_Bps(t, links[0]), link_latency_s(t, links[0]));
        }
        for (int d = 0; d < 2 && !nvlink; d++) {
            snprintf(id, sizeof id, "L%d", 2 * g + d);
            link_line(w, id, gcsim_topology_capacity_Bps(t, 2 * g + d),
                      link_latency_s(t, 2 * g + d) + (d == 0 ? port_up_extra_s : 0));
        }
    }
}

/* Leaner node routes (issue 47). SimGrid's full max-min update re-solves every flow in
 * progress at each event, and the solve walks every link of every flow's route, binding or
 * not. Two kinds of link are left off a node's routes where leaving them changes neither a
 * route's latency (SimGrid adds a route's link latencies in order from 0) nor any flow's
 * share (a link that can never be the tightest of its flows takes no part in max-min):
 *   - node_folds_fabric: the NVSwitch fabric helper "fab<k>" (1e18 B/s) where every GPU of
 *     the node is on a rail of its own (one GPU per NIC), so that every GPU-to-GPU route is
 *     port up, fab<k>, port down and nothing else crosses the ports: the helper's 1 ns is
 *     added to each port up instead ((a + 1 ns) + b is the same sum, bit for bit);
 *   - exit_skips_pcie: a GPU's PCIe pair on its way out of and into the node, where the
 *     route there is PCIe then NIC with no link between, the PCIe links have no latency and
 *     more capacity than the NIC, and nothing else crosses them (no CPU endpoints, GPU-to-GPU
 *     routes over NVSwitch ports or NVLink): every flow on the PCIe link crosses the NIC,
 *     which fills first.
 * On a100-hdr's double tree the intra-node chains' routes go from 3 links to 2 and an
 * inter-node route loses 2 of its 6-9 (an estimate of a quarter to a third of the
 * elements the solver walks, from the route lengths; docs/des.md step 15 has the CPU). */
static bool node_folds_fabric(const gcsim_topology *t, bool extra, bool staged)
{
    const gcsim_platform *p = t->platform;
    return p->intra.kind == INTRA_NVSWITCH && !extra && !staged &&
           t->gpus_per_node / t->nics_per_node == 1;
}

static bool node_exits_skip_pcie(const writer *w, bool extra, bool staged)
{
    gcsim_intra_kind kind = w->t->platform->intra.kind;
    return !w->cpus && !extra && !staged && (kind == INTRA_NVSWITCH || kind == INTRA_NVLINK);
}

/* PCIe link l has no latency and more capacity than NIC link nic as the node declares it
 * (a margin, so that the two never fill at the same level). */
static bool pcie_slack(const gcsim_topology *t, int l, int nic)
{
    return link_latency_s(t, l) == 0 && !gcsim_topology_is_nic_link(t, l) &&
           gcsim_topology_is_nic_link(t, nic) &&
           gcsim_topology_capacity_Bps(t, l) > 1.01 * des_fabric_capacity_Bps(t, nic, true);
}

static bool exit_skips_pcie(const gcsim_topology *t, int g, int cpu)
{
    int links[GCSIM_ROUTE_MAX_LINKS];
    double lat;
    int other = t->gpus + (cpu - t->gpus + 1) % t->nodes;
    int n = gcsim_topology_route(t, g, other, links, &lat);
    if (n < 2 || !pcie_slack(t, links[0], links[1]))
        return false;
    n = gcsim_topology_route(t, other, g, links, &lat);
    return n >= 2 && pcie_slack(t, links[n - 1], links[n - 2]);
}

/* Leaves link x off path q. */
static void path_drop(path *q, int x)
{
    for (int y = x; y + 1 < q->n; y++)
        snprintf(q->names[y], sizeof q->names[y], "%s", q->names[y + 1]);
    q->n--;
    for (int y = 0; y < q->n; y++)
        q->list[y] = q->names[y];
}

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

    /* transports and PCIe topology: the node's connections, host memory and socket links */
    bool extra = gcsim_platform_has_transport_links(p);
    bool staged = gcsim_platform_intra_shm(p); /* some GPU pairs copy through host memory */
    bool cross_rail = last - first > per_rail;
    /* Links that never limit a flow are left off the routes where leaving them changes
     * neither a route's latency nor any flow's max-min share (see node_folds_fabric). */
    bool fold_fab = cross_rail && node_folds_fabric(t, extra, staged);
    bool no_pcie = exit && node_exits_skip_pcie(w, extra, staged);

    /* Links: the GPUs' own; then the node's. */
    gpu_link_lines(w, first, last, cpu, fold_fab ? FABRIC_LATENCY_S : 0);
    int ext[3 * 256 + 1 + 8 * 7 + 2 * 256], n_ext = gcsim_topology_node_extra_links(t, k, ext, (int)(sizeof ext / sizeof *ext));
    for (int x = 0; x < n_ext; x++) {
        char id[32];
        snprintf(id, sizeof id, "L%d", ext[x]);
        link_line(w, id, gcsim_topology_capacity_Bps(t, ext[x]), link_latency_s(t, ext[x]));
    }
    /* A copy staged through host memory crosses PCIe links (latency 0): its
     * intra_node.latency is this helper's, as the ports' halves are a P2P copy's. */
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
    if (cross_rail && !fold_fab)
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
                if (gcsim_topology_staged_pair(t, g, h))
                    path_name(&q, stg);
            } else { /* ports (an NVLink mesh has one rail: checked in describe) */
                path_id(&q, 2 * g);
                if (!fold_fab) /* else its latency is g's port up's */
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
            if (no_pcie && out.n == 2 && in.n == 2 && exit_skips_pcie(t, g, cpu)) {
                path_drop(&out, 0);
                path_drop(&in, 1);
            }
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

/* Items of a grouping level: nodes, or leaves of a fat tree (each a group of its nodes), or
 * rail groups of a rail-optimized one (below). */
typedef enum { ITEM_NODE, ITEM_LEAF, ITEM_RAIL_GROUP } item_kind;

static void group_zone(writer *w, item_kind kind, int lo, int hi, const char *id, bool exit);

/* ---- rail-optimized fat tree (fabric.placement "rail-optimized"; topology.c) ----
 * The route between two nodes depends on both endpoints' rails, which a zone route between
 * two node zones cannot see (one route, one pair of gateways per pair of zones). So each
 * rail group "su<g>" holds, per node k, one zone per present rail "n<k>r<r>" (the GPUs on
 * NIC r) and one for the CPU "cz<k>" (NIC 0), and lists the route between every two of
 * them (Full), each through the gateways ("<zone>_<v|b|x|y>") the pair needs:
 *   same node, two rails:    _v: port up, "fab<k>", port down;
 *   same node, GPU and CPU:  _b: PCIe up, "bus<k>"; "cpu<k>", "bus<k>", PCIe down;
 *   two nodes, same rail:    _x: PCIe, NIC r up; a helper; NIC r down, PCIe;
 *   two nodes, two rails:    _x and the two rail leaves' uplink and downlink (ECMP: _y,
 *                            whose routes add the endpoint's hashed spine link, and a helper);
 *   out of the group:        its rail leaf's uplink (ECMP: _y and a helper), in: its downlink.
 * Groups are joined as leaves are (group_zone, helpers only). This costs R + 1 zones per node
 * (node placement: 1) and (nodes_per_leaf (R + 1))^2 routes per group: slower to build.
 * Transport and PCIe-topology links (staging without P2P included) are refused here
 * (rail_describe): their routes inside a node cross links this layout does not place. */

/* A member of a rail group: a rail's GPUs of a node, or its CPU (rail -1). */
typedef struct {
    int node, rail;
} rail_member;

static void rail_zone_name(const rail_member *m, char *buf, size_t len)
{
    if (m->rail < 0)
        snprintf(buf, len, "cz%d", m->node);
    else
        snprintf(buf, len, "n%dr%d", m->node, m->rail);
}

static void rail_gw_name(const rail_member *m, char tag, char *buf, size_t len)
{
    char z[32];
    rail_zone_name(m, z, sizeof z);
    snprintf(buf, len, "%s_%c", z, tag);
}

static void path_zone_route(const writer *w, const char *src, const char *dst, const char *gs,
                            const char *gd, const path *q)
{
    w->sink->route(w->sink->ctx, true, src, dst, gs, gd, q->list, q->n);
}

static void rail_spine(const writer *w, path *q, int leaf, int endpoint, int d)
{
    char spine[32];
    spine_name(spine, sizeof spine, leaf, d, des_fabric_spine(w->seed, endpoint, d, w->spines));
    path_name(q, spine);
}

/* Zone n<k>r<r>: the GPUs of node k on NIC r, their links, routes and gateways. */
static void rail_gpu_zone(writer *w, int k, int r)
{
    const des_platform_sink *sk = w->sink;
    const gcsim_topology *t = w->t;
    const gcsim_platform *p = t->platform;
    int i = t->gpus_per_node, R = t->nics_per_node, per_rail = i / R;
    int end = k * i + i < t->gpus ? k * i + i : t->gpus;
    int first = k * i + r * per_rail, last = first + per_rail < end ? first + per_rail : end;
    int cpu = t->gpus + k;
    bool exit = t->nodes > 1;
    rail_member m = {k, r};
    char name[32], v[48], b[48], x[48], y[48], a[32], h[32];
    rail_zone_name(&m, name, sizeof name);
    rail_gw_name(&m, 'v', v, sizeof v);
    rail_gw_name(&m, 'b', b, sizeof b);
    rail_gw_name(&m, 'x', x, sizeof x);
    rail_gw_name(&m, 'y', y, sizeof y);
    sk->zone_open(sk->ctx, name);
    for (int g = first; g < last; g++) {
        snprintf(a, sizeof a, "g%d", g);
        sk->host(sk->ctx, a, p->gpu.speed_flops);
    }
    if (R > 1)
        sk->router(sk->ctx, v);
    if (w->cpus)
        sk->router(sk->ctx, b);
    if (exit)
        sk->router(sk->ctx, x);
    if (exit && w->spines)
        sk->router(sk->ctx, y);
    gpu_link_lines(w, first, last, cpu, 0);
    for (int d = 0; d < 2 && exit; d++) {
        int l = nic_link(t, k, r, d);
        snprintf(h, sizeof h, "L%d", l);
        link_line(w, h, des_fabric_capacity_Bps(t, l, true), link_latency_s(t, l));
    }
    int leaf = gcsim_topology_leaf_of(t, first);
    for (int g = first; g < last; g++) {
        snprintf(a, sizeof a, "g%d", g);
        for (int hh = first; hh < last; hh++) {
            if (hh == g)
                continue;
            char bb[32];
            snprintf(bb, sizeof bb, "g%d", hh);
            path q = {.n = 0};
            path_topology(&q, t, g, hh);
            path_route(w, a, bb, &q);
        }
        if (R > 1) {
            path up = {.n = 0}, down = {.n = 0};
            path_id(&up, 2 * g);
            path_route(w, a, v, &up);
            path_id(&down, 2 * g + 1);
            path_route(w, v, a, &down);
        }
        if (w->cpus) {
            path up = {.n = 0}, down = {.n = 0};
            path_topology(&up, t, g, cpu);
            path_route(w, a, b, &up);
            path_topology(&down, t, cpu, g);
            path_route(w, b, a, &down);
        }
        if (exit) {
            path out = {.n = 0}, in = {.n = 0};
            path_exit(&out, &in, t, g, cpu);
            path_route(w, a, x, &out);
            path_route(w, x, a, &in);
            if (w->spines) {
                path down = {.n = 0};
                rail_spine(w, &out, leaf, g, 0);
                path_route(w, a, y, &out);
                rail_spine(w, &down, leaf, g, 1);
                for (int z = 0; z < in.n; z++)
                    path_name(&down, in.names[z]);
                path_route(w, y, a, &down);
            }
        }
    }
    sk->zone_close(sk->ctx);
}

/* Zone cz<k>: node k's CPU (NIC 0). */
static void rail_cpu_zone(writer *w, int k)
{
    const des_platform_sink *sk = w->sink;
    const gcsim_topology *t = w->t;
    bool exit = t->nodes > 1;
    int cpu = t->gpus + k;
    rail_member m = {k, -1};
    char name[32], b[48], x[48], y[48], c[32], cpul[32], cin[32];
    rail_zone_name(&m, name, sizeof name);
    rail_gw_name(&m, 'b', b, sizeof b);
    rail_gw_name(&m, 'x', x, sizeof x);
    rail_gw_name(&m, 'y', y, sizeof y);
    snprintf(c, sizeof c, "c%d", k);
    snprintf(cpul, sizeof cpul, "cpu%d", k);
    snprintf(cin, sizeof cin, "cin%d", k);
    sk->zone_open(sk->ctx, name);
    sk->host(sk->ctx, c, t->platform->gpu.speed_flops);
    sk->router(sk->ctx, b);
    if (exit)
        sk->router(sk->ctx, x);
    if (exit && w->spines)
        sk->router(sk->ctx, y);
    path q = {.n = 0};
    path_name(&q, cpul);
    path_route(w, c, b, &q);
    q.n = 0;
    path_name(&q, cin);
    path_route(w, b, c, &q);
    if (exit) {
        int leaf = gcsim_topology_leaf_of(t, cpu);
        path out = {.n = 0}, in = {.n = 0};
        path_name(&out, cpul);
        path_id(&out, cpu_nic_link(t, k, 0));
        path_route(w, c, x, &out);
        path_id(&in, cpu_nic_link(t, k, 1));
        path_route(w, x, c, &in);
        if (w->spines) {
            path down = {.n = 0};
            rail_spine(w, &out, leaf, cpu, 0);
            path_route(w, c, y, &out);
            rail_spine(w, &down, leaf, cpu, 1);
            path_id(&down, cpu_nic_link(t, k, 1));
            path_route(w, y, c, &down);
        }
    }
    sk->zone_close(sk->ctx);
}

/* Rail group x (nodes [x npl, (x + 1) npl)): its members' zones and every route between them
 * (see above); exit: the gateway "<id>x_r" to the other groups. */
static void rail_group_zone(writer *w, int x, const char *id, bool exit)
{
    const des_platform_sink *sk = w->sink;
    const gcsim_topology *t = w->t;
    const gcsim_platform *p = t->platform;
    int R = t->nics_per_node, npl = p->fabric.nodes_per_leaf;
    int lo = x * npl, hi = lo + npl < t->nodes ? lo + npl : t->nodes;
    char name[48];
    sk->zone_open(sk->ctx, id);
    /* the group's rail leaves' uplinks and downlinks (ECMP: their spine links) */
    for (int r = 0; r < R && t->leaves > 1; r++)
        for (int d = 0; d < 2; d++) {
            int leaf = x * R + r, ll = leaf_link(t, leaf, d);
            if (!w->spines) {
                snprintf(name, sizeof name, "L%d", ll);
                link_line(w, name, des_fabric_capacity_Bps(t, ll, false), link_latency_s(t, ll));
                continue;
            }
            double bw = des_fabric_capacity_Bps(t, ll, false) / w->spines;
            for (int sp = 0; sp < w->spines; sp++) {
                spine_name(name, sizeof name, leaf, d, sp);
                link_line(w, name, bw, link_latency_s(t, ll));
            }
        }
    /* the nodes' helpers: NVSwitch fabric between rails, host bus, CPU */
    for (int k = lo; k < hi; k++) {
        snprintf(name, sizeof name, "fab%d", k);
        if (R > 1)
            helper_line(w, name, FABRIC_LATENCY_S);
        if (!w->cpus)
            continue;
        snprintf(name, sizeof name, "bus%d", k);
        helper_line(w, name, p->intra.latency_s);
        snprintf(name, sizeof name, "cpu%d", k);
        helper_line(w, name, 0);
        snprintf(name, sizeof name, "cin%d", k);
        helper_line(w, name, 0);
    }
    int cap = (hi - lo) * (R + 1), n = 0;
    rail_member *m = malloc(sizeof *m * (size_t)(cap > 0 ? cap : 1));
    if (!m) {
        w->out_of_memory = true;
        sk->zone_close(sk->ctx);
        return;
    }
    for (int k = lo; k < hi; k++) {
        for (int r = 0; r < R && rail_present(t, k, r); r++) {
            rail_gpu_zone(w, k, r);
            m[n++] = (rail_member){k, r};
        }
        if (w->cpus) {
            rail_cpu_zone(w, k);
            m[n++] = (rail_member){k, -1};
        }
    }
    char xz[56], xr[64], hx[64];
    snprintf(xz, sizeof xz, "%sx", id);
    snprintf(xr, sizeof xr, "%sx_r", id);
    snprintf(hx, sizeof hx, "%s_hx", id);
    if (exit) {
        sk->zone_open(sk->ctx, xz);
        sk->router(sk->ctx, xr);
        sk->zone_close(sk->ctx);
        helper_line(w, hx, 0);
    }
    bool between = t->nodes > 1;
    for (int c = 0; c < n && between; c++) {
        snprintf(name, sizeof name, "%s_h%d", id, c);
        helper_line(w, name, 0);
    }
    for (int c = 0; c < n; c++) {
        char za[32], zb[32], ga[48], gb[48], hc[64];
        rail_zone_name(&m[c], za, sizeof za);
        snprintf(hc, sizeof hc, "%s_h%d", id, c);
        int ra = m[c].rail < 0 ? 0 : m[c].rail, la = x * R + ra;
        for (int e = 0; e < n; e++) {
            if (e == c)
                continue;
            rail_zone_name(&m[e], zb, sizeof zb);
            int rb = m[e].rail < 0 ? 0 : m[e].rail, lb = x * R + rb;
            path q = {.n = 0};
            char tag;
            if (m[c].node == m[e].node && m[c].rail >= 0 && m[e].rail >= 0) {
                tag = 'v';
                snprintf(name, sizeof name, "fab%d", m[c].node);
                path_name(&q, name);
            } else if (m[c].node == m[e].node) {
                tag = 'b';
                snprintf(name, sizeof name, "bus%d", m[c].node);
                path_name(&q, name);
            } else if (ra == rb || w->spines) {
                tag = ra == rb ? 'x' : 'y';
                path_name(&q, hc);
            } else {
                tag = 'x';
                path_id(&q, leaf_link(t, la, 0));
                path_id(&q, leaf_link(t, lb, 1));
            }
            rail_gw_name(&m[c], tag, ga, sizeof ga);
            rail_gw_name(&m[e], tag, gb, sizeof gb);
            path_zone_route(w, za, zb, ga, gb, &q);
        }
        if (!exit)
            continue;
        rail_gw_name(&m[c], w->spines ? 'y' : 'x', ga, sizeof ga);
        path out = {.n = 0}, in = {.n = 0};
        if (w->spines) {
            path_name(&out, hc);
            path_name(&in, hx);
        } else {
            path_id(&out, leaf_link(t, la, 0));
            path_id(&in, leaf_link(t, la, 1));
        }
        path_zone_route(w, za, xz, ga, xr, &out);
        path_zone_route(w, xz, za, xr, ga, &in);
    }
    free(m);
    sk->zone_close(sk->ctx);
}

/* The whole platform of a rail-optimized tree: one rail group as the root, or the groups
 * joined as group_zone joins leaves. */
static int rail_describe(writer *w, gcsim_error *err)
{
    const gcsim_topology *t = w->t;
    const gcsim_platform *p = t->platform;
    if (gcsim_platform_has_transport_links(p))
        return gcsim_fail(err, "%s: $.fabric.placement: a rail-optimized fat tree with transport "
                               "or PCIe-topology links (connections, host memory, sockets, proxy "
                               "threads) is not supported by the DES (the analytic engine costs it)",
                          p->source_path);
    if (t->leaves > 1 && p->ecmp.spines > 0) {
        double up = gcsim_topology_capacity_Bps(t, leaf_link(t, 0, 0));
        double nic = gcsim_topology_capacity_Bps(t, nic_link(t, 0, 0, 0));
        int ports = (int)floor(up / nic * (1 + 1e-9));
        if (p->ecmp.spines > ports)
            return gcsim_fail(err, "%s: --ecmp-spines %d: a rail leaf has %d uplink ports of one "
                                   "NIC's rate (nodes_per_leaf / oversubscription): at most that "
                                   "many spines",
                              p->source_path, p->ecmp.spines, ports);
        w->spines = p->ecmp.spines;
        w->seed = p->ecmp.seed;
    }
    int groups = t->leaves / t->nics_per_node;
    if (groups <= 1)
        rail_group_zone(w, 0, "fabric", false);
    else
        group_zone(w, ITEM_RAIL_GROUP, 0, groups, "fabric", false);
    if (w->out_of_memory)
        return gcsim_fail(err, "%s: out of memory while describing the SimGrid platform",
                          p->source_path);
    return 0;
}

static void item_names(const gcsim_topology *t, item_kind kind, int x, char *zone, char *gw)
{
    (void)t;
    if (kind == ITEM_NODE) {
        snprintf(zone, 32, "n%d", x);
        snprintf(gw, 40, "n%dx_r", x);
    } else if (kind == ITEM_RAIL_GROUP) {
        snprintf(zone, 32, "su%d", x);
        snprintf(gw, 40, "su%dx_r", x);
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
    if (kind == ITEM_RAIL_GROUP) {
        char su[32];
        snprintf(su, sizeof su, "su%d", x);
        rail_group_zone(w, x, su, true);
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
    if (gcsim_topology_rail_placed(t))
        return rail_describe(&w, err);
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
