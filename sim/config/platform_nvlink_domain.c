/*
 * sim/config/platform_nvlink_domain.c: "nvlink_domain", an NVLink domain spanning several
 * hosts (docs/formats.md, "NVLink domains across nodes").
 *
 * A GB200 NVL72 rack is 18 compute trays (hosts) of 4 Blackwell GPUs whose NVLink 5 ports
 * all go to NVLink switch trays: every GPU reaches every other of the 72 at its full
 * 900 GB/s each way, through the switch, whichever tray it sits in, and the switches reduce
 * in the fabric (NVLink SHARP: "each NVLink Switch has engines for NVIDIA SHARP for
 * in-network reductions and multicast acceleration", NVIDIA NVLink and NVLink Switch page,
 * https://www.nvidia.com/en-au/data-center/nvlink/, read 2026-11-28). Between racks the
 * trays' NICs carry the traffic.
 *
 * gcsim's node is the NVLink domain, as it is NCCL's: with multi-node NVLink (MNNVL) NCCL
 * fuses the topologies of all ranks of an NVLink clique into one system before its graph
 * search (src/graph/topo.cc, ncclTopoGetSystem, "MNNVL clique support": nLocalRanks =
 * comm->clique.size), so its rings, trees and NVLS see the clique as one node, and it counts
 * nodes from those graphs (src/init.cc: nNodes from the rings' first ranks;
 * initNvlDomainInfo: "nNvlDomains = comm->nNodes"), NVIDIA/nccl 5067397. So after loading,
 * gpus_per_node is the domain's GPUs, nodes the domains, nic.per_node the domain's NICs (each
 * host's times its hosts) and a fat tree's nodes_per_leaf domains per leaf: both engines,
 * the tuner and every schedule see the domain as one NVSwitch node with NVLS (where the file
 * gives intra_node.nvls_bandwidth) and the NICs of all its hosts as rails. The file's own
 * figures stay in p->nvlink_domain.
 *
 * Limits that follow the hardware:
 *   - intra_node.kind "nvswitch": a domain across hosts is switched (NVLink switch trays);
 *     a direct NVLink mesh does not leave its baseboard.
 *   - at most 576 GPUs in a domain: "The ability to use NVLink Switches to connect across
 *     nodes allows for scaling up to 576 GPUs" (NVIDIA NVLink Switch for GB200 NVL72, as
 *     summarised at https://www.slicast.com/article/1pl8afm; NVIDIA's Blackwell material
 *     gives the same 576).
 *   - nic.per_node stays per host, at most one NIC per GPU of the host (platform.c; a GB200
 *     compute tray has 4 ConnectX-7 for its 4 GPUs, NVIDIA DGX GB200 SuperPOD reference
 *     architecture, compute tray); the domain's NICs are the sum over its hosts (72 for an
 *     NVL72), above the 64 a single host may state.
 *   - nodes are whole domains (a cluster of racks); a fat tree's leaf holds whole domains.
 *   - no host-memory staging (intra_node.host_memory_bandwidth with a transport without
 *     GPUDirect): host memory is a host's, not the domain's, and gcsim's node is the domain.
 */
#include "platform_nvlink_domain.h"

#include <string.h>

#include "platform_transport.h"

int gcsim_platform_parse_nvlink_domain(const cJSON *root, gcsim_platform *p, json_ctx *ctx)
{
    static const char *const keys[] = {"nodes", "gpus", NULL};
    const char *path = "$.nvlink_domain";
    const cJSON *d = json_member(root, "nvlink_domain");
    if (!d)
        return 0;
    if (json_expect_object(d, path, keys, ctx))
        return -1;
    bool by_nodes = json_member(d, "nodes") != NULL, by_gpus = json_member(d, "gpus") != NULL;
    if (by_nodes == by_gpus)
        return gcsim_fail(ctx->err, "%s: %s: give exactly one of \"nodes\" (hosts per domain) "
                                    "and \"gpus\" (GPUs per domain)", ctx->origin, path);
    int i = p->gpus_per_node;
    long long hosts = 0, gpus = 0;
    if (by_nodes) {
        if (json_integer(d, path, "nodes", true, 1, 1 << 20, &hosts, ctx))
            return -1;
        gpus = hosts * i;
    } else {
        if (json_integer(d, path, "gpus", true, 1, 1 << 20, &gpus, ctx))
            return -1;
        if (gpus % i != 0)
            return gcsim_fail(ctx->err, "%s: %s.gpus: %lld GPUs are not whole nodes of %d "
                                        "(gpus_per_node)", ctx->origin, path, gpus, i);
        hosts = gpus / i;
    }
    const char *key = by_nodes ? "nodes" : "gpus";
    if (hosts < 2)
        return gcsim_fail(ctx->err, "%s: %s.%s: a domain of one node is the node's own NVLink; "
                                    "give 2 or more nodes, or leave nvlink_domain out",
                          ctx->origin, path, key);
    if (gpus > GCSIM_NVLINK_DOMAIN_MAX_GPUS)
        return gcsim_fail(ctx->err, "%s: %s.%s: %lld GPUs in one NVLink domain; NVLink switches "
                                    "join at most %d", ctx->origin, path, key, gpus,
                          GCSIM_NVLINK_DOMAIN_MAX_GPUS);
    if (p->intra.kind != INTRA_NVSWITCH)
        return gcsim_fail(ctx->err, "%s: %s: an NVLink domain across nodes is switched: "
                                    "$.intra_node.kind must be \"nvswitch\"", ctx->origin, path);
    if (p->nodes % hosts != 0)
        return gcsim_fail(ctx->err, "%s: $.nodes: %d nodes are not whole NVLink domains of %lld "
                                    "nodes ($.nvlink_domain)", ctx->origin, p->nodes, hosts);
    if (p->fabric.topology == FABRIC_FAT_TREE && p->fabric.nodes_per_leaf % hosts != 0)
        return gcsim_fail(ctx->err, "%s: $.fabric.nodes_per_leaf: %d nodes per leaf are not "
                                    "whole NVLink domains of %lld nodes ($.nvlink_domain)",
                          ctx->origin, p->fabric.nodes_per_leaf, hosts);
    if (gcsim_platform_host_staging(p))
        return gcsim_fail(ctx->err, "%s: $.intra_node.host_memory_bandwidth: staging through "
                                    "host memory is not modelled in an NVLink domain across "
                                    "nodes (a host's memory is not the domain's)", ctx->origin);
    p->nvlink_domain.hosts = (int)hosts;
    p->nvlink_domain.host_gpus = i;
    p->nvlink_domain.host_nics = p->nic.per_node;
    p->nvlink_domain.file_nodes = p->nodes;
    p->gpus_per_node = (int)gpus;
    p->nodes /= (int)hosts;
    p->nic.per_node *= (int)hosts;
    if (p->fabric.topology == FABRIC_FAT_TREE)
        p->fabric.nodes_per_leaf /= (int)hosts;
    else
        p->fabric.nodes_per_leaf = p->nodes;
    return 0;
}
