/*
 * sim/des/des_platform.c: a gcsim_platform as a SimGrid platform XML file.
 *
 * Layout (docs/des.md has the picture):
 *   root zone "fabric" (DijkstraCache): one zone per node, one zone per switch;
 *   node zone "n<k>" (Full): GPU hosts g<..>, the host memory/CPU host c<k>, router
 *     n<k>_gw where the node meets its NIC;
 *     - each GPU has a PCIe link to host memory and the NIC (C_cwd, intra latency);
 *     - GPU to GPU: pcie-switch: a p2p link per GPU (C_gwd, half the intra latency each);
 *       nvlink: one link per pair (links_per_pair x link bandwidth, intra latency);
 *       nvswitch: a port link per GPU (C_gwd, half the intra latency each);
 *     - c<k> to the gateway: a host bus that is never the bottleneck (1 TB/s, 0 s);
 *   NIC: one link per node with the node's aggregate bandwidth (nic.bandwidth x per_node,
 *     i.e. perfect striping over several NICs) and half of C_ncost plus one switch latency
 *     (its switch port), so that a node-to-node route through one switch costs
 *     C_ncost + 2 x switch_latency, the analytic engine's convention;
 *   star: every NIC ends at switch zone "sw";
 *   fat-tree: NICs end at leaf switches (nodes_per_leaf nodes each); every leaf has one
 *     uplink to a core switch with nodes_per_leaf x node bandwidth / oversubscription and
 *     one switch latency (its core port), so crossing leaves adds 2 x switch_latency.
 * All links are SPLITDUPLEX (independent directions), every route is written in both
 * directions.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "des.h"

/* The host bus between host memory and the NIC is not modelled as a bottleneck: 1 TB/s is
 * far above any PCIe or NIC rate in the platform files. */
#define HOSTBUS_Bps 1e12

static void link_line(FILE *f, const char *id, double bw_Bps, double lat_s)
{
    fprintf(f, "    <link id=\"%s\" bandwidth=\"%.17gBps\" latency=\"%.17gs\" sharing_policy=\"SPLITDUPLEX\"/>\n",
            id, bw_Bps, lat_s);
}

static void route(FILE *f, const char *src, const char *dst, int n, const char *const *links,
                  const char *const *dirs)
{
    fprintf(f, "    <route src=\"%s\" dst=\"%s\" symmetrical=\"NO\">", src, dst);
    for (int k = 0; k < n; k++)
        fprintf(f, "<link_ctn id=\"%s\" direction=\"%s\"/>", links[k], dirs[k]);
    fprintf(f, "</route>\n");
}

static void write_node(FILE *f, const gcsim_platform *p, int node)
{
    int i = p->gpus_per_node;
    double speed = p->gpu.speed_flops;
    double lat = p->intra.latency_s;
    char a[64], b[64], c[64], gw[64], l1[64], l2[64];

    fprintf(f, "  <zone id=\"n%d\" routing=\"Full\">\n", node);
    for (int g = 0; g < i; g++)
        fprintf(f, "    <host id=\"g%d\" speed=\"%.17gf\"/>\n", node * i + g, speed);
    fprintf(f, "    <host id=\"c%d\" speed=\"%.17gf\"/>\n", node, speed);
    fprintf(f, "    <router id=\"n%d_gw\"/>\n", node);

    for (int g = 0; g < i; g++) {
        snprintf(l1, sizeof l1, "n%d_pcie%d", node, g);
        link_line(f, l1, p->intra.gpu_to_host_Bps, lat);
        if (p->intra.kind == INTRA_PCIE_SWITCH) {
            snprintf(l1, sizeof l1, "n%d_p2p%d", node, g);
            link_line(f, l1, p->intra.gpu_to_gpu_Bps, lat / 2);
        } else if (p->intra.kind == INTRA_NVSWITCH) {
            snprintf(l1, sizeof l1, "n%d_nvs%d", node, g);
            link_line(f, l1, p->intra.gpu_to_gpu_Bps, lat / 2);
        } else {
            for (int h = g + 1; h < i; h++) {
                snprintf(l1, sizeof l1, "n%d_nvl%d_%d", node, g, h);
                link_line(f, l1, p->intra.gpu_to_gpu_Bps, lat);
            }
        }
    }
    snprintf(l1, sizeof l1, "n%d_bus", node);
    link_line(f, l1, HOSTBUS_Bps, 0.0);

    snprintf(c, sizeof c, "c%d", node);
    snprintf(gw, sizeof gw, "n%d_gw", node);
    for (int g = 0; g < i; g++) {
        snprintf(a, sizeof a, "g%d", node * i + g);
        snprintf(l1, sizeof l1, "n%d_pcie%d", node, g);
        const char *pl[1] = {l1};
        const char *up[1] = {"UP"}, *down[1] = {"DOWN"};
        route(f, a, c, 1, pl, up);
        route(f, c, a, 1, pl, down);
        route(f, a, gw, 1, pl, up);
        route(f, gw, a, 1, pl, down);
        for (int h = 0; h < i; h++) {
            if (h == g)
                continue;
            snprintf(b, sizeof b, "g%d", node * i + h);
            if (p->intra.kind == INTRA_NVLINK) {
                int lo = g < h ? g : h, hi = g < h ? h : g;
                snprintf(l1, sizeof l1, "n%d_nvl%d_%d", node, lo, hi);
                const char *ll[1] = {l1};
                const char *d[1] = {g < h ? "UP" : "DOWN"};
                route(f, a, b, 1, ll, d);
            } else {
                const char *kind = p->intra.kind == INTRA_PCIE_SWITCH ? "p2p" : "nvs";
                snprintf(l1, sizeof l1, "n%d_%s%d", node, kind, g);
                snprintf(l2, sizeof l2, "n%d_%s%d", node, kind, h);
                const char *ll[2] = {l1, l2};
                const char *d[2] = {"UP", "DOWN"};
                route(f, a, b, 2, ll, d);
            }
        }
    }
    snprintf(l1, sizeof l1, "n%d_bus", node);
    const char *bl[1] = {l1};
    const char *up[1] = {"UP"}, *down[1] = {"DOWN"};
    route(f, c, gw, 1, bl, up);
    route(f, gw, c, 1, bl, down);
    fprintf(f, "  </zone>\n");
}

/* A zone holding one switch router, so that zone routes can reach it. */
static void switch_zone(FILE *f, const char *name)
{
    fprintf(f, "  <zone id=\"%s\" routing=\"Full\"><router id=\"%s_r\"/></zone>\n", name, name);
}

static void zone_route(FILE *f, const char *src, const char *gw_src, const char *dst,
                       const char *gw_dst, const char *link, const char *dir)
{
    fprintf(f,
            "  <zoneRoute src=\"%s\" dst=\"%s\" gw_src=\"%s\" gw_dst=\"%s\" symmetrical=\"NO\">"
            "<link_ctn id=\"%s\" direction=\"%s\"/></zoneRoute>\n",
            src, dst, gw_src, gw_dst, link, dir);
}

int gcsim_des_write_platform(const gcsim_platform *p, int nodes, const char *path,
                             gcsim_error *err)
{
    if (nodes < 1 || p->gpus_per_node < 1)
        return gcsim_fail(err, "%s: cannot generate a SimGrid platform with %d node(s) of %d GPU(s)",
                          p->source_path, nodes, p->gpus_per_node);
    if (!(p->gpu.speed_flops > 0) || !(p->intra.gpu_to_host_Bps > 0) ||
        !(p->intra.gpu_to_gpu_Bps > 0) || !(p->nic.bandwidth_Bps > 0) || p->nic.per_node < 1 ||
        p->nic.latency_s < 0 || p->intra.latency_s < 0 || p->fabric.switch_latency_s < 0)
        return gcsim_fail(err, "%s: platform has a non-positive speed, bandwidth or NIC count",
                          p->source_path);
    bool tree = p->fabric.topology == FABRIC_FAT_TREE;
    if (tree && (p->fabric.nodes_per_leaf < 1 || !(p->fabric.oversubscription >= 1)))
        return gcsim_fail(err, "%s: $.fabric: fat tree needs nodes_per_leaf >= 1 and oversubscription >= 1",
                          p->source_path);

    FILE *f = fopen(path, "w");
    if (!f)
        return gcsim_fail(err, "%s: cannot write the SimGrid platform", path);

    double node_Bps = p->nic.bandwidth_Bps * p->nic.per_node;
    double sw_lat = p->fabric.switch_latency_s;
    fprintf(f, "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n");
    fprintf(f, "<!-- generated by gcsim from %s (%s) -->\n", p->source_path, p->name);
    fprintf(f, "<platform version=\"4.1\">\n<zone id=\"fabric\" routing=\"DijkstraCache\">\n");
    for (int n = 0; n < nodes; n++)
        write_node(f, p, n);

    int leaves = tree ? (nodes + p->fabric.nodes_per_leaf - 1) / p->fabric.nodes_per_leaf : 0;
    char name[64], gw[64], sw[64], swr[80], link[64];
    if (!tree) {
        switch_zone(f, "sw");
    } else {
        switch_zone(f, "core");
        for (int l = 0; l < leaves; l++) {
            snprintf(name, sizeof name, "leaf%d", l);
            switch_zone(f, name);
        }
    }
    for (int n = 0; n < nodes; n++) {
        snprintf(link, sizeof link, "nic%d", n);
        link_line(f, link, node_Bps, p->nic.latency_s / 2 + sw_lat);
    }
    for (int l = 0; l < leaves; l++) {
        snprintf(link, sizeof link, "up%d", l);
        link_line(f, link, p->fabric.nodes_per_leaf * node_Bps / p->fabric.oversubscription,
                  sw_lat);
    }
    for (int n = 0; n < nodes; n++) {
        snprintf(name, sizeof name, "n%d", n);
        snprintf(gw, sizeof gw, "n%d_gw", n);
        if (tree)
            snprintf(sw, sizeof sw, "leaf%d", n / p->fabric.nodes_per_leaf);
        else
            snprintf(sw, sizeof sw, "sw");
        snprintf(swr, sizeof swr, "%s_r", sw);
        snprintf(link, sizeof link, "nic%d", n);
        zone_route(f, name, gw, sw, swr, link, "UP");
        zone_route(f, sw, swr, name, gw, link, "DOWN");
    }
    for (int l = 0; l < leaves; l++) {
        snprintf(sw, sizeof sw, "leaf%d", l);
        snprintf(swr, sizeof swr, "leaf%d_r", l);
        snprintf(link, sizeof link, "up%d", l);
        zone_route(f, sw, swr, "core", "core_r", link, "UP");
        zone_route(f, "core", "core_r", sw, swr, link, "DOWN");
    }
    fprintf(f, "</zone>\n</platform>\n");
    if (ferror(f) | (fclose(f) != 0))
        return gcsim_fail(err, "%s: write error while generating the SimGrid platform", path);
    return 0;
}

const char *gcsim_des_default_network_model(const gcsim_platform *p)
{
    return p->nic.kind == NIC_INFINIBAND ? "IB" : "LV08";
}
