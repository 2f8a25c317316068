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
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "collectives.h"
#include "des.h"

#define HELPER_Bps 1e12
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
    if (strstr(name, "_pcie_"))
        return 0;
    if (strstr(name, "_nic"))
        return p->nic.latency_s / 2 + p->fabric.switch_latency_s;
    return p->fabric.switch_latency_s; /* leaf uplink */
}

static void link_line(FILE *f, const char *id, double bw_Bps, double lat_s)
{
    fprintf(f, "  <link id=\"%s\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" sharing_policy=\"SHARED\"/>\n",
            id, bw_Bps, lat_s);
}

/* A helper link: every flow crossing it gets its whole bandwidth (no sharing). */
static void helper_line(FILE *f, const char *id, double lat_s)
{
    fprintf(f, "  <link id=\"%s\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" sharing_policy=\"FATPIPE\"/>\n",
            id, HELPER_Bps, lat_s);
}

static void route_open(FILE *f, const char *tag, const char *src, const char *dst,
                       const char *gw_src, const char *gw_dst)
{
    if (gw_src)
        fprintf(f, "  <%s src=\"%s\" dst=\"%s\" gw_src=\"%s\" gw_dst=\"%s\" symmetrical=\"NO\">",
                tag, src, dst, gw_src, gw_dst);
    else
        fprintf(f, "    <%s src=\"%s\" dst=\"%s\" symmetrical=\"NO\">", tag, src, dst);
}

/* A route through the topology's links given by id (and optionally one named link). */
static void route(FILE *f, const char *tag, const char *src, const char *dst, const char *gw_src,
                  const char *gw_dst, const int *ids, int n, const char *named)
{
    route_open(f, tag, src, dst, gw_src, gw_dst);
    if (named)
        fprintf(f, "<link_ctn id=\"%s\"/>", named);
    for (int k = 0; k < n; k++)
        fprintf(f, "<link_ctn id=\"L%d\"/>", ids[k]);
    fprintf(f, "</%s>\n", tag);
}

static void rail_zone(FILE *f, const gcsim_topology *t, int node, int rail)
{
    const gcsim_platform *p = t->platform;
    int i = t->gpus_per_node, per_rail = i / t->nics_per_node;
    int first = node * i + rail * per_rail, last = first + per_rail;
    if (last > t->gpus)
        last = t->gpus;
    char zone[32], io[48], nv[48], a[32], b[32];
    snprintf(zone, sizeof zone, "n%dr%d", node, rail);
    snprintf(io, sizeof io, "%s_io", zone);
    snprintf(nv, sizeof nv, "%s_nv", zone);
    fprintf(f, " <zone id=\"%s\" routing=\"Full\">\n", zone);
    for (int g = first; g < last; g++)
        fprintf(f, "    <host id=\"g%d\" speed=\"%.17gf\"/>\n", g, p->gpu.speed_flops);
    fprintf(f, "    <router id=\"%s\"/>\n    <router id=\"%s\"/>\n", io, nv);
    /* The zone's own links (XML wants them before its routes): ports or NVLink pairs, and
     * PCIe, both directions. */
    for (int g = first; g < last; g++) {
        int links[GCSIM_ROUTE_MAX_LINKS], n;
        double lat;
        char id[32];
        n = gcsim_topology_route(t, g, t->gpus + node, links, &lat);
        for (int d = 0; d < 2 && n == 1; d++) {
            snprintf(id, sizeof id, "L%d", links[0] + d);
            link_line(f, id, t->capacity_Bps[links[0] + d], link_latency_s(t, links[0] + d));
        }
        for (int h = node * i; h < (node + 1) * i && h < t->gpus; h++) {
            if (h == g)
                continue;
            n = gcsim_topology_route(t, g, h, links, &lat);
            if (p->intra.kind == INTRA_NVLINK) {
                snprintf(id, sizeof id, "L%d", links[0]);
                link_line(f, id, t->capacity_Bps[links[0]], link_latency_s(t, links[0]));
            }
        }
        if (p->intra.kind != INTRA_NVLINK)
            for (int d = 0; d < 2; d++) {
                snprintf(id, sizeof id, "L%d", 2 * g + d);
                link_line(f, id, t->capacity_Bps[2 * g + d], link_latency_s(t, 2 * g + d));
            }
    }
    for (int g = first; g < last; g++) {
        int links[GCSIM_ROUTE_MAX_LINKS], n;
        double lat;
        int cpu = t->gpus + node;
        snprintf(a, sizeof a, "g%d", g);
        /* PCIe: the GPU -> own CPU route is [pcie up]; the bus adds the latency outside. */
        n = gcsim_topology_route(t, g, cpu, links, &lat);
        route(f, "route", a, io, NULL, NULL, links, n, NULL);
        n = gcsim_topology_route(t, cpu, g, links, &lat);
        route(f, "route", io, a, NULL, NULL, links, n, NULL);
        if (p->intra.kind != INTRA_NVLINK) {
            int up = 2 * g, down = 2 * g + 1; /* the port ids (topology.c) */
            route(f, "route", a, nv, NULL, NULL, &up, 1, NULL);
            route(f, "route", nv, a, NULL, NULL, &down, 1, NULL);
        }
        for (int h = first; h < last; h++) {
            if (h == g)
                continue;
            snprintf(b, sizeof b, "g%d", h);
            n = gcsim_topology_route(t, g, h, links, &lat);
            route(f, "route", a, b, NULL, NULL, links, n, NULL);
        }
    }
    fprintf(f, " </zone>\n");
}

int gcsim_des_write_platform(const gcsim_platform *p, int nodes, const char *path,
                             gcsim_error *err)
{
    if (nodes < 1 || p->gpus_per_node < 1 || nodes > p->nodes)
        return gcsim_fail(err, "%s: cannot generate a SimGrid platform with %d node(s) of %d GPU(s)",
                          p->source_path, nodes, p->gpus_per_node);
    gcsim_topology t;
    if (gcsim_topology_init(&t, p, nodes * p->gpus_per_node, err) != 0)
        return -1;
    int rc = gcsim_des_write_topology(&t, path, err);
    gcsim_topology_free(&t);
    return rc;
}

int gcsim_des_write_topology(const gcsim_topology *t, const char *path, gcsim_error *err)
{
    const gcsim_platform *p = t->platform;
    if (!(p->gpu.speed_flops > 0))
        return gcsim_fail(err, "%s: $.gpu.speed must be positive", p->source_path);
    for (int l = 0; l < t->n_links; l++)
        if (!(t->capacity_Bps[l] > 0) || !isfinite(t->capacity_Bps[l]))
            return gcsim_fail(err, "%s: a link of the platform has no positive bandwidth",
                              p->source_path);
    if (p->intra.kind == INTRA_NVLINK && t->nics_per_node > 1)
        return gcsim_fail(err, "%s: $.nic.per_node: an NVLink mesh with several NICs per node is "
                               "not supported by the DES (use nvswitch, or one NIC per node)",
                          p->source_path);
    FILE *f = fopen(path, "w");
    if (!f)
        return gcsim_fail(err, "%s: cannot write the SimGrid platform", path);

    int R = t->nics_per_node, i = t->gpus_per_node;
    fprintf(f, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n");
    fprintf(f, "<!-- generated by gcsim from %s (%s) -->\n", p->source_path, p->name);
    fprintf(f, "<platform version=\"4.1\">\n<zone id=\"fabric\" routing=\"DijkstraCache\">\n");
    char name[64], a[64], b[64], ga[64], gb[64];
    for (int k = 0; k < t->nodes; k++) {
        for (int r = 0; r < R; r++)
            if (k * i + r * (i / R) < t->gpus)
                rail_zone(f, t, k, r);
        fprintf(f, " <zone id=\"cz%d\" routing=\"Full\"><host id=\"c%d\" speed=\"%.17gf\"/>"
                   "<router id=\"c%d_gw\"/>\n",
                k, k, p->gpu.speed_flops, k);
        snprintf(name, sizeof name, "cpu%d", k);
        helper_line(f, name, 0);
        fprintf(f, "  <route src=\"c%d\" dst=\"c%d_gw\"><link_ctn id=\"cpu%d\"/></route></zone>\n",
                k, k, k);
    }
    if (t->leaves == 0) {
        fprintf(f, " <zone id=\"sw\" routing=\"Full\"><router id=\"sw_r\"/></zone>\n");
    } else {
        fprintf(f, " <zone id=\"core\" routing=\"Full\"><router id=\"core_r\"/></zone>\n");
        for (int l = 0; l < t->leaves; l++)
            fprintf(f, " <zone id=\"leaf%d\" routing=\"Full\"><router id=\"leaf%d_r\"/></zone>\n", l, l);
    }
    /* The links between zones: NICs, leaf uplinks, and the helpers. */
    for (int l = 0; l < t->n_links; l++) {
        gcsim_topology_link_name(t, l, name, sizeof name);
        if (strstr(name, "_port_") || strstr(name, "_nvl") || strstr(name, "_pcie_"))
            continue;
        snprintf(name, sizeof name, "L%d", l);
        link_line(f, name, t->capacity_Bps[l], link_latency_s(t, l));
    }
    for (int k = 0; k < t->nodes; k++) {
        snprintf(name, sizeof name, "bus%d", k);
        helper_line(f, name, p->intra.latency_s);
        snprintf(name, sizeof name, "fab%d", k);
        helper_line(f, name, FABRIC_LATENCY_S);
    }
    /* The links of routes between zones come from the topology: a GPU's route to a GPU of
     * another node is [pcie up, nic up, (leaf up, leaf down), nic down, pcie down], of which
     * the NIC and leaf links lie between zones. */
    int up_id, down_id;
    for (int k = 0; k < t->nodes; k++) {
        const char *sw = "sw";
        char swn[32], swr[40], cz[32], cgw[40];
        if (t->leaves)
            snprintf(swn, sizeof swn, "leaf%d", k / p->fabric.nodes_per_leaf);
        else
            snprintf(swn, sizeof swn, "%s", sw);
        snprintf(swr, sizeof swr, "%s_r", swn);
        snprintf(cz, sizeof cz, "cz%d", k);
        snprintf(cgw, sizeof cgw, "c%d_gw", k);
        int nic_base = 0;
        {
            /* The NIC link ids: the second link of a GPU -> other-node route starts at the
             * NIC; take them from a route of this node's CPU (it uses NIC 0). */
            int links[GCSIM_ROUTE_MAX_LINKS];
            double lat;
            int other = t->gpus + (k + 1) % t->nodes;
            if (t->nodes > 1) {
                gcsim_topology_route(t, t->gpus + k, other, links, &lat);
                nic_base = links[0];
            }
        }
        for (int r = 0; r < R; r++) {
            if (k * i + r * (i / R) >= t->gpus)
                continue;
            snprintf(a, sizeof a, "n%dr%d", k, r);
            snprintf(ga, sizeof ga, "n%dr%d_io", k, r);
            if (t->nodes > 1) {
                up_id = nic_base + 2 * r;
                down_id = up_id + 1;
                route(f, "zoneRoute", a, swn, ga, swr, &up_id, 1, NULL);
                route(f, "zoneRoute", swn, a, swr, ga, &down_id, 1, NULL);
            }
            /* CPU <-> rail: the host bus (intra latency); the PCIe link lies inside. */
            snprintf(name, sizeof name, "bus%d", k);
            route(f, "zoneRoute", cz, a, cgw, ga, NULL, 0, name);
            route(f, "zoneRoute", a, cz, ga, cgw, NULL, 0, name);
            for (int r2 = 0; r2 < R; r2++) {
                if (r2 == r || k * i + r2 * (i / R) >= t->gpus)
                    continue;
                snprintf(b, sizeof b, "n%dr%d", k, r2);
                snprintf(ga, sizeof ga, "n%dr%d_nv", k, r);
                snprintf(gb, sizeof gb, "n%dr%d_nv", k, r2);
                snprintf(name, sizeof name, "fab%d", k);
                route(f, "zoneRoute", a, b, ga, gb, NULL, 0, name);
                snprintf(ga, sizeof ga, "n%dr%d_io", k, r);
            }
        }
        if (t->nodes > 1) {
            up_id = nic_base;
            down_id = nic_base + 1;
            route(f, "zoneRoute", cz, swn, cgw, swr, &up_id, 1, NULL);
            route(f, "zoneRoute", swn, cz, swr, cgw, &down_id, 1, NULL);
        }
    }
    for (int l = 0; l < t->leaves; l++) {
        int links[GCSIM_ROUTE_MAX_LINKS];
        double lat;
        /* A route from a node of leaf l to a node of another leaf crosses [.., leaf up, leaf
         * down, ..]; read the uplink ids from such a route. */
        int n_per = p->fabric.nodes_per_leaf, src = t->gpus + l * n_per;
        int dst = t->gpus + (l + 1 < t->leaves ? (l + 1) * n_per : 0);
        if (t->leaves < 2)
            break;
        int n = gcsim_topology_route(t, src, dst, links, &lat);
        (void)n;
        snprintf(a, sizeof a, "leaf%d", l);
        snprintf(ga, sizeof ga, "leaf%d_r", l);
        up_id = links[1];
        down_id = links[1] + 1;
        route(f, "zoneRoute", a, "core", ga, "core_r", &up_id, 1, NULL);
        route(f, "zoneRoute", "core", a, "core_r", ga, &down_id, 1, NULL);
    }
    fprintf(f, "</zone>\n</platform>\n");
    if (ferror(f) | (fclose(f) != 0))
        return gcsim_fail(err, "%s: write error while generating the SimGrid platform", path);
    return 0;
}

const char *gcsim_des_default_network_model(const gcsim_platform *p)
{
    (void)p;
    return "alpha-beta";
}
