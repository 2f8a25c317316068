/*
 * sim/collectives/topology.c: the links of a cluster and the route between two endpoints.
 *
 * Directed links (each physical link is two, one per direction), by id:
 *   intra-node fabric: pcie-switch and nvswitch: a port per GPU (up into the switch, down
 *     out of it), C_gwd each; nvlink: one link per ordered GPU pair (links_per_pair x link
 *     bandwidth);
 *   PCIe per GPU (to host memory and to its NIC), C_cwd;
 *   NIC per node and rail, nic.bandwidth: GPU l of a node uses NIC l*R/i, as GPUs reach
 *     the NIC on their own PCIe switch on DGX-class nodes; the node's CPU uses NIC 0;
 *   fat tree: one uplink per leaf, nodes_per_leaf x R x nic.bandwidth / oversubscription;
 *     rail-optimized (fabric.placement, rail_* below): R leaves per group of nodes_per_leaf
 *     nodes, leaf g R + r holding NIC r of the group's nodes, uplink nodes_per_leaf x
 *     nic.bandwidth / oversubscription;
 * and, only where the platform describes them (docs/formats.md, "Transports and PCIe
 * topology"), after those so that no other id moves:
 *   (NIC and leaf links of the socket transport carry TCP's payload per wire byte:
 *     gcsim_platform_nic_payload_Bps)
 *   connection per GPU, up and down: what its socket connections move (nic.connection_Bps,
 *     platform_transport.c), crossed by its traffic to and from other nodes;
 *   host memory per node, one link for both directions: host_memory_bandwidth / 2 (a staged
 *     byte is written to and read from host memory), crossed by the copies staged through
 *     it: GPU to GPU without P2P, and to and from the NIC without GPUDirect (twice over
 *     sockets: socket_host_passes);
 *   socket links per node, one per ordered pair of sockets (UPI/xGMI, socket_link): GPUs
 *     are split evenly over the sockets in order, and a copy between two sockets crosses it;
 *   proxy thread per GPU, one link for both directions (tcp without helper threads, efa
 *     without GPUDirect: nic.proxy_Bps, platform_transport.c): the GPU's proxy thread moves
 *     the bytes of all its sockets, or progresses its one libfabric endpoint, so its traffic
 *     to and from other nodes shares one core.
 *   PCIe switch uplinks per node, up and down (pcie.gpus_per_switch, switch_uplink): the
 *     GPUs behind one switch reach their root complex through it, so a copy staged through
 *     host memory climbs it and comes back down it, and a peer copy between two switches
 *     crosses both (pcie_switch_hops below).
 * Links of a kind share one capacity (gcsim_topology_capacity_Bps): nothing is kept per link.
 * Latencies are end to end, as measured: intra_node.latency inside a node; between nodes
 * nic.latency plus two switch latencies per switch level (leaf, and core across leaves).
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "collectives.h"

enum { UP = 0, DOWN = 1 };

static bool pairwise(const gcsim_topology *t)
{
    return t->platform->intra.kind == INTRA_NVLINK;
}

static int intra_links(const gcsim_topology *t)
{
    int i = t->gpus_per_node;
    return pairwise(t) ? t->nodes * i * i : 2 * t->nodes * i;
}

static int pcie_base(const gcsim_topology *t) { return intra_links(t); }
static int nic_base(const gcsim_topology *t) { return pcie_base(t) + 2 * t->nodes * t->gpus_per_node; }
static int leaf_base(const gcsim_topology *t) { return nic_base(t) + 2 * t->nodes * t->nics_per_node; }

static int port_link(int gpu, int dir) { return 2 * gpu + dir; }

static int pair_link(const gcsim_topology *t, int a, int b)
{
    int i = t->gpus_per_node, node = a / i;
    return node * i * i + (a % i) * i + b % i;
}

static int pcie_link(const gcsim_topology *t, int gpu, int dir) { return pcie_base(t) + 2 * gpu + dir; }

static int nic_link(const gcsim_topology *t, int node, int nic, int dir)
{
    return nic_base(t) + 2 * (node * t->nics_per_node + nic) + dir;
}

static int leaf_link(const gcsim_topology *t, int leaf, int dir) { return leaf_base(t) + 2 * leaf + dir; }

static int rail_leaves_per_group(const gcsim_topology *t);

static int conn_link(const gcsim_topology *t, int gpu, int dir) { return t->conn_base + 2 * gpu + dir; }
static int host_link(const gcsim_topology *t, int node) { return t->host_base + node; }
static int proxy_link(const gcsim_topology *t, int gpu) { return t->proxy_base + gpu; }
static int socket_of(const gcsim_topology *t, int gpu)
{
    return gpu % t->gpus_per_node / (t->gpus_per_node / t->sockets);
}
static int socket_link(const gcsim_topology *t, int node, int a, int b)
{
    return t->socket_base + (node * t->sockets + a) * t->sockets + b;
}
/* PCIe switches with a shared uplink (intra_node.pcie.gpus_per_switch): switch of a GPU
 * within its node, and its uplink link, up (into the root complex) or down. */
static int switch_of(const gcsim_topology *t, int gpu)
{
    return gpu % t->gpus_per_node / t->platform->intra.gpus_per_switch;
}
static int uplink_link(const gcsim_topology *t, int node, int sw, int dir)
{
    return t->switch_base + 2 * (node * t->switches + sw) + dir;
}
/* Appends to links[n..] the uplinks a copy from GPU src to dst of node `node` crosses
 * before (`leg` UP: out of src's switch) or after (DOWN: into dst's switch) the root
 * complex: a copy staged through host memory always leaves its switch and comes back, a
 * peer copy only when the two GPUs sit behind different switches. Returns the new n. */
static int pcie_switch_hops(const gcsim_topology *t, int node, int src, int dst, bool staged,
                            int leg, int *links, int n)
{
    if (t->switch_base < 0)
        return n;
    int a = switch_of(t, src), b = switch_of(t, dst);
    if (!staged && a == b)
        return n;
    links[n++] = uplink_link(t, node, leg == UP ? a : b, leg);
    return n;
}
/* A copy between two GPUs of a node goes through host memory: no P2P, or NCCL's default
 * P2P level keeps it from peering across a host bridge (gcsim_platform_pair_staged,
 * platform_pcie_shm.c). */
static bool staged_intra(const gcsim_topology *t, int src, int dst)
{
    int i = t->gpus_per_node;
    return gcsim_platform_pair_staged(t->platform, src % i, dst % i);
}

bool gcsim_topology_staged_pair(const gcsim_topology *t, int src, int dst)
{
    return src < t->gpus && dst < t->gpus && src / t->gpus_per_node == dst / t->gpus_per_node &&
           staged_intra(t, src, dst);
}
/* The NIC reaches GPU memory through host memory (a transport without GPUDirect). */
static bool staged_net(const gcsim_topology *t)
{
    return t->platform->nic.transport != TRANSPORT_NONE && !t->platform->nic.gpudirect;
}

/* A byte between the NIC and a GPU without GPUDirect crosses host memory once (the GPU
 * writes or reads the pinned buffer, the NIC reads or writes it: two passes). Over
 * sockets it crosses it twice: send() and recv() copy it between that buffer and the
 * kernel's socket buffers (a read and a write more), and the NIC DMAs the socket buffer.
 * NCCL's socket transport calls plain recv() and send() with MSG_DONTWAIT, no MSG_ZEROCOPY
 * (NVIDIA/nccl src/os/linux.cc lines 346-350 at 5067397; src/transport/net_socket.cc
 * lines 400-401 at v2.4.8-1), so the kernel copies every byte (derived). */
static int socket_host_passes(const gcsim_topology *t, int node, int *links, int n)
{
    links[n++] = host_link(t, node);
    if (t->platform->nic.transport == TRANSPORT_TCP)
        links[n++] = host_link(t, node);
    return n;
}

int gcsim_topology_init(gcsim_topology *t, const gcsim_platform *p, int gpus, gcsim_error *err)
{
    *t = (gcsim_topology){0};
    int i = p->gpus_per_node;
    if (gpus < 1 || i < 1 || gpus > p->nodes * i)
        return gcsim_fail(err, "%s: %d GPUs do not fit %d nodes of %d", p->source_path, gpus,
                          p->nodes, i);
    if (p->nic.per_node < 1 || p->nic.per_node > i || i % p->nic.per_node != 0)
        return gcsim_fail(err, "%s: $.nic.per_node: %d NICs cannot be shared evenly by %d GPUs "
                               "(use 1, a divisor of gpus_per_node, or gpus_per_node)",
                          p->source_path, p->nic.per_node, i);
    if (p->fabric.topology == FABRIC_FAT_TREE &&
        (p->fabric.nodes_per_leaf < 1 || !(p->fabric.oversubscription >= 1)))
        return gcsim_fail(err, "%s: $.fabric: fat tree needs nodes_per_leaf >= 1 and "
                               "oversubscription >= 1", p->source_path);
    t->platform = p;
    t->gpus = gpus;
    t->gpus_per_node = i;
    t->nodes = (gpus + i - 1) / i;
    t->net_channels = gcsim_topology_net_channels(p);
    t->nics_per_node = gcsim_topology_channel_rails(i, t->net_channels);
    bool tree = p->fabric.topology == FABRIC_FAT_TREE;
    t->leaves = tree ? (t->nodes + p->fabric.nodes_per_leaf - 1) / p->fabric.nodes_per_leaf : 0;
    t->leaves *= rail_leaves_per_group(t);
    /* Link ids are ints; only all-pairs NVLink in very large nodes could pass that. */
    long long links = (pairwise(t) ? (long long)t->nodes * i * i : 2LL * t->nodes * i) +
                      2LL * t->nodes * i + 2LL * t->nodes * t->nics_per_node + 2LL * t->leaves;
    /* Transports and PCIe topology: after the others, where the platform has them. */
    t->conn_base = t->host_base = t->socket_base = t->proxy_base = -1;
    t->sockets = p->intra.sockets > 1 ? p->intra.sockets : 1;
    if (i % t->sockets != 0)
        return gcsim_fail(err, "%s: $.intra_node.pcie.sockets: %d sockets cannot hold %d GPUs "
                               "evenly", p->source_path, t->sockets, i);
    if (p->nic.connection_Bps > 0 && links <= INT_MAX) {
        t->conn_base = (int)links;
        links += 2LL * gpus;
    }
    if (gcsim_platform_host_staging(p) && links <= INT_MAX) {
        t->host_base = (int)links;
        links += t->nodes;
    }
    if (t->sockets > 1 && links <= INT_MAX) {
        t->socket_base = (int)links;
        links += (long long)t->nodes * t->sockets * t->sockets;
    }
    if (p->nic.proxy_Bps > 0 && links <= INT_MAX) {
        t->proxy_base = (int)links;
        links += gpus;
    }
    t->switch_base = -1;
    t->switches = p->intra.kind == INTRA_PCIE_SWITCH && p->intra.gpus_per_switch > 0
                      ? i / p->intra.gpus_per_switch : 0;
    if (t->switches > 0 && links <= INT_MAX) {
        t->switch_base = (int)links;
        links += 2LL * t->nodes * t->switches;
    }
    if (links > INT_MAX)
        return gcsim_fail(err, "%s: %d GPUs in nodes of %d have %lld links, more than the %d "
                               "gcsim numbers", p->source_path, gpus, i, links, INT_MAX);
    t->n_links = (int)links;
    return 0;
}

/* Every link of a kind has the same capacity, so none is stored per link: a topology of
 * millions of GPUs costs no memory (the closed forms of symmetric schedules need none). */
double gcsim_topology_capacity_Bps(const gcsim_topology *t, int l)
{
    const gcsim_platform *p = t->platform;
    /* PCIe links without P2P carry NCCL's SHM stores and loads, both ways at once
     * (gcsim_platform_pcie_shm_link_Bps: shm_efficiency, pcie.h2d_bidirectional, or the
     * host's measured pcie.shm_bandwidth) */
    if (t->switch_base >= 0 && l >= t->switch_base)
        return gcsim_platform_pcie_shm_link_Bps(p, p->intra.switch_uplink_Bps,
                                                p->intra.h2d_bidirectional_Bps);
    if (t->proxy_base >= 0 && l >= t->proxy_base)
        return p->nic.proxy_Bps;
    if (t->socket_base >= 0 && l >= t->socket_base)
        return p->intra.socket_link_Bps;
    if (t->host_base >= 0 && l >= t->host_base)
        return p->intra.host_memory_Bps / 2;
    if (t->conn_base >= 0 && l >= t->conn_base)
        return p->nic.connection_Bps;
    if (l < pcie_base(t))
        return p->intra.gpu_to_gpu_Bps;
    if (l < nic_base(t))
        return gcsim_platform_pcie_shm_link_Bps(p, p->intra.gpu_to_host_Bps,
                                                p->intra.h2d_bidirectional_Bps);
    double nic_share = (double)t->net_channels / t->nics_per_node;
    if (l < leaf_base(t))
        return gcsim_platform_nic_payload_Bps(p) * nic_share;
    double oversub = p->fabric.oversubscription >= 1 ? p->fabric.oversubscription : 1;
    return gcsim_topology_leaf_nics(t) * gcsim_platform_nic_payload_Bps(p) * nic_share / oversub;
}

double gcsim_topology_nic_Bps(const gcsim_topology *t)
{
    return t->platform->nic.bandwidth_Bps * t->net_channels / t->nics_per_node;
}

/* ---- NCCL's channels across nodes ----
 * NCCL's channel search (NVIDIA/nccl v2.26.2-1, src/graph/search.cc ncclTopoCompute, lines
 * 1009-1036; the same rules at 5067397) starts each channel at the GPU's best bandwidth to
 * a NIC (system->maxBw, getMaxBw lines 19-27: the GPU-to-NET path, the slower of the PCIe
 * link and the NIC) and adds channels, one NIC each, until channels x that bandwidth reach
 * the GPU's NVLink total (system->totalBw, getTotalBw lines 29-37: "if
 * (graph->nChannels*graph->bwInter >= system->totalBw) goto done"). Each channel's chain
 * through the node's GPUs also takes that bandwidth from every GPU's NVLink, so no more fit.
 * The trees and rings across nodes then leave a node through those channels' NICs only
 * (connect.cc doubles the channels over the same NICs, lines 440-452). On a DGX H100 (8
 * NICs, ~370 GB/s NVLink, 50 GB/s per NIC) that is all 8 NICs; on a GB200 NVL72 rack, which
 * NCCL merges into one node of 72 GPUs and 72 NICs, 740 / 50 -> 15 channels, 15 NICs.
 * gcsim takes NCCL's inputs from the platform: the GPU's port into the NVSwitch
 * (intra_node.gpu_to_gpu, each way) over min(nic.bandwidth, intra_node.gpu_to_host).
 * Only on NVSwitch nodes: NCCL's totalBw is the NVLink sum there; over PCIe or an NVLink
 * mesh gcsim keeps every NIC (not modelled). */
int gcsim_topology_net_channels(const gcsim_platform *p)
{
    int nics = p->nic.per_node;
    double per_channel = fmin(p->nic.bandwidth_Bps, p->intra.gpu_to_host_Bps);
    if (p->intra.kind != INTRA_NVSWITCH || nics <= 1 || !(per_channel > 0) ||
        !(p->intra.gpu_to_gpu_Bps > 0))
        return nics;
    /* the first count whose channels reach the NVLink total (1e-9: 15 x 48 = 720 exactly) */
    double c = ceil(p->intra.gpu_to_gpu_Bps / per_channel - 1e-9);
    return c < 1 ? 1 : c < nics ? (int)c : nics;
}

/* gcsim's rails divide a node's GPUs (GPU l uses NIC l R / i), so C channels that do not
 * divide them run on the next count that does, each rail at C/R of a NIC: the node's
 * bandwidth across nodes stays C NICs' (72 GPUs, 15 channels: 18 rails at 15/18). */
int gcsim_topology_channel_rails(int gpus_per_node, int channels)
{
    int r = channels < 1 ? 1 : channels;
    while (r < gpus_per_node && gpus_per_node % r != 0)
        r++;
    return r;
}

int gcsim_topology_link_type(const gcsim_topology *t, int l)
{
    /* the branches of gcsim_topology_capacity_Bps, in its order */
    if (t->switch_base >= 0 && l >= t->switch_base)
        return 0;
    if (t->proxy_base >= 0 && l >= t->proxy_base)
        return 1;
    if (t->socket_base >= 0 && l >= t->socket_base)
        return 2;
    if (t->host_base >= 0 && l >= t->host_base)
        return 3;
    if (t->conn_base >= 0 && l >= t->conn_base)
        return 4;
    if (l < pcie_base(t))
        return 5;
    if (l < nic_base(t))
        return 6;
    if (l < leaf_base(t))
        return 7;
    return 8;
}

void gcsim_topology_free(gcsim_topology *t)
{
    (void)t;
}

int gcsim_topology_endpoints(const gcsim_topology *t) { return t->gpus + t->nodes; }

int gcsim_topology_node_of(const gcsim_topology *t, int e)
{
    return e < t->gpus ? e / t->gpus_per_node : e - t->gpus;
}

int gcsim_topology_nic_of(const gcsim_topology *t, int e)
{
    if (e >= t->gpus)
        return 0;
    return (e % t->gpus_per_node) * t->nics_per_node / t->gpus_per_node;
}

int gcsim_topology_route(const gcsim_topology *t, int src, int dst, int *links,
                         double *latency_s)
{
    const gcsim_platform *p = t->platform;
    int n = 0, ns = gcsim_topology_node_of(t, src), nd = gcsim_topology_node_of(t, dst);
    bool src_gpu = src < t->gpus, dst_gpu = dst < t->gpus;
    *latency_s = 0;
    if (src == dst)
        return 0;
    if (ns == nd) {
        *latency_s = p->intra.latency_s;
        if (src_gpu && dst_gpu) {
            int a = socket_of(t, src), b = socket_of(t, dst);
            if (pairwise(t)) {
                links[n++] = pair_link(t, src, dst);
            } else if (staged_intra(t, src, dst)) { /* into host memory and out of it */
                links[n++] = pcie_link(t, src, UP);
                n = pcie_switch_hops(t, ns, src, dst, true, UP, links, n);
                if (t->host_base >= 0)
                    links[n++] = host_link(t, ns);
                if (a != b)
                    links[n++] = socket_link(t, ns, a, b);
                n = pcie_switch_hops(t, ns, src, dst, true, DOWN, links, n);
                links[n++] = pcie_link(t, dst, DOWN);
            } else {
                links[n++] = port_link(src, UP);
                n = pcie_switch_hops(t, ns, src, dst, false, UP, links, n);
                if (a != b) /* peer to peer through both root complexes */
                    links[n++] = socket_link(t, ns, a, b);
                n = pcie_switch_hops(t, ns, src, dst, false, DOWN, links, n);
                links[n++] = port_link(dst, DOWN);
            }
        } else if (src_gpu) { /* to host memory, through its switch's uplink */
            links[n++] = pcie_link(t, src, UP);
            n = pcie_switch_hops(t, ns, src, src, true, UP, links, n);
        } else if (dst_gpu) {
            n = pcie_switch_hops(t, ns, dst, dst, true, DOWN, links, n);
            links[n++] = pcie_link(t, dst, DOWN);
        }
        return n;
    }
    double sw = p->fabric.switch_latency_s;
    *latency_s = p->nic.latency_s + 2 * sw;
    if (p->nic.message_overhead_s > 0)
        *latency_s += p->nic.message_overhead_s;
    bool host = staged_net(t) && t->host_base >= 0;
    if (src_gpu) {
        links[n++] = pcie_link(t, src, UP);
        if (host)
            n = socket_host_passes(t, ns, links, n);
        if (t->conn_base >= 0)
            links[n++] = conn_link(t, src, UP);
        if (t->proxy_base >= 0)
            links[n++] = proxy_link(t, src);
    }
    links[n++] = nic_link(t, ns, gcsim_topology_nic_of(t, src), UP);
    int ls = gcsim_topology_leaf_of(t, src), ld = gcsim_topology_leaf_of(t, dst);
    if (t->leaves && ls != ld) {
        links[n++] = leaf_link(t, ls, UP);
        links[n++] = leaf_link(t, ld, DOWN);
        *latency_s += 2 * sw;
    }
    links[n++] = nic_link(t, nd, gcsim_topology_nic_of(t, dst), DOWN);
    if (dst_gpu) {
        if (t->proxy_base >= 0)
            links[n++] = proxy_link(t, dst);
        if (t->conn_base >= 0)
            links[n++] = conn_link(t, dst, DOWN);
        if (host)
            n = socket_host_passes(t, nd, links, n);
        links[n++] = pcie_link(t, dst, DOWN);
    }
    return n;
}

bool gcsim_topology_is_nic_link(const gcsim_topology *t, int l)
{
    return l >= nic_base(t) && l < leaf_base(t);
}

int gcsim_topology_node_extra_links(const gcsim_topology *t, int k, int *ids, int max)
{
    int n = 0, i = t->gpus_per_node, first = k * i, last = first + i < t->gpus ? first + i : t->gpus;
    for (int g = first; g < last && t->conn_base >= 0; g++)
        for (int d = 0; d < 2 && n < max; d++)
            ids[n++] = conn_link(t, g, d);
    if (t->host_base >= 0 && n < max)
        ids[n++] = host_link(t, k);
    for (int a = 0; a < t->sockets && t->socket_base >= 0; a++)
        for (int b = 0; b < t->sockets && n < max; b++)
            if (a != b)
                ids[n++] = socket_link(t, k, a, b);
    for (int g = first; g < last && t->proxy_base >= 0 && n < max; g++)
        ids[n++] = proxy_link(t, g);
    for (int sw = 0; sw < t->switches && t->switch_base >= 0; sw++)
        for (int d = 0; d < 2 && n < max; d++)
            ids[n++] = uplink_link(t, k, sw, d);
    return n;
}

void gcsim_topology_link_name(const gcsim_topology *t, int l, char *buf, int len)
{
    const char *dir = l % 2 == UP ? "up" : "down";
    int i = t->gpus_per_node;
    if (t->switch_base >= 0 && l >= t->switch_base) {
        int x = (l - t->switch_base) / 2;
        snprintf(buf, (size_t)len, "n%d_pcisw%d_%s", x / t->switches, x % t->switches,
                 (l - t->switch_base) % 2 == UP ? "up" : "down");
    } else if (t->proxy_base >= 0 && l >= t->proxy_base) {
        snprintf(buf, (size_t)len, "g%d_proxy", l - t->proxy_base);
    } else if (t->socket_base >= 0 && l >= t->socket_base) {
        int x = l - t->socket_base, S = t->sockets;
        snprintf(buf, (size_t)len, "n%d_upi%d_%d", x / (S * S), x % (S * S) / S, x % S);
    } else if (t->host_base >= 0 && l >= t->host_base) {
        snprintf(buf, (size_t)len, "n%d_hostmem", l - t->host_base);
    } else if (t->conn_base >= 0 && l >= t->conn_base) {
        int x = l - t->conn_base;
        snprintf(buf, (size_t)len, "g%d_conn_%s", x / 2, x % 2 == UP ? "up" : "down");
    } else if (l < intra_links(t)) {
        if (pairwise(t))
            snprintf(buf, (size_t)len, "n%d_nvl%d_%d", l / (i * i), l % (i * i) / i, l % i);
        else
            snprintf(buf, (size_t)len, "g%d_port_%s", l / 2, dir);
    } else if (l < nic_base(t)) {
        snprintf(buf, (size_t)len, "g%d_pcie_%s", (l - pcie_base(t)) / 2, dir);
    } else if (l < leaf_base(t)) {
        int k = (l - nic_base(t)) / 2;
        snprintf(buf, (size_t)len, "n%d_nic%d_%s", k / t->nics_per_node, k % t->nics_per_node, dir);
    } else {
        snprintf(buf, (size_t)len, "leaf%d_%s", (l - leaf_base(t)) / 2, dir);
    }
}

/* ---- rail-optimized placement (fabric.placement; docs/formats.md, docs/des.md) ----
 * A rail group is nodes_per_leaf consecutive nodes; its R rail leaves hold NIC r of each
 * of its nodes (one port per node each), leaf g R + r. Same-rail traffic inside a group
 * stays under its rail leaf; any other traffic between nodes (another rail: the CPU's NIC
 * 0 to a GPU's rail, a ring hop from NIC r to NIC r + 1; or another group) climbs to the
 * spine through both leaves' uplinks, as it does across leaves of a node-placed tree. No
 * PXN: a GPU's traffic leaves on its own NIC (gcsim_topology_nic_of), not relayed over
 * NVLink to the destination's rail. */

static bool rail_placed(const gcsim_topology *t)
{
    return t->platform->fabric.topology == FABRIC_FAT_TREE &&
           t->platform->fabric.placement == FABRIC_PLACEMENT_RAIL;
}

static int rail_leaves_per_group(const gcsim_topology *t)
{
    return rail_placed(t) ? t->nics_per_node : 1;
}

int gcsim_topology_leaf_nics(const gcsim_topology *t)
{
    return t->platform->fabric.nodes_per_leaf * (rail_placed(t) ? 1 : t->nics_per_node);
}

int gcsim_topology_leaf_of(const gcsim_topology *t, int e)
{
    if (!t->leaves)
        return 0;
    int group = gcsim_topology_node_of(t, e) / t->platform->fabric.nodes_per_leaf;
    return rail_placed(t) ? group * t->nics_per_node + gcsim_topology_nic_of(t, e) : group;
}

int gcsim_topology_leaf_link(const gcsim_topology *t, int leaf, int dir)
{
    return leaf_link(t, leaf, dir);
}

bool gcsim_topology_rail_placed(const gcsim_topology *t)
{
    return rail_placed(t);
}
