/*
 * sim/config/platform_transport.c: what drives a NIC (nic.transport and its costs) and the
 * PCIe topology of a node (intra_node.pcie, intra_node.host_memory_bandwidth), read from
 * platform JSON (docs/formats.md, "Transports and PCIe topology").
 *
 * Defaults per transport, with their sources (measured / derived / assumed):
 *   channels 2 (derived): NCCL doubles the channels its topology search finds
 *     (src/graph/connect.cc, ncclTopoPostset: "nChannels = comm->nChannels =
 *     std::min(MAXCHANNELS, nChannels * 2)", NVIDIA/nccl 5067397, 2026-06-11); one NIC
 *     driven by sockets gives the search one channel. Each channel opens its own network
 *     connection per peer.
 *   tcp socket_threads 0, sockets_per_thread 1 (derived): NCCL_SOCKET_NTHREADS and
 *     NCCL_NSOCKS_PERTHREAD default to an auto-detection (src/transport/net_socket.cc,
 *     ncclNetSocketGetNsockNthread: "int autoNt=0, autoNs=1; // By default, we only use the
 *     main thread and do not spawn extra threads") that gives 2 threads x 8 sockets on AWS
 *     (PCI vendor 0x1d0f), 4 x 1 on GCP (0x1ae0) and otherwise no helper thread, since NCCL
 *     2.5 (v2.5.6-1 to today; v2.4.8-1 had "autoNt=1": one helper thread, so a platform of
 *     NCCL 2.4 states socket_threads 1). Limits: at most 16 threads (MAX_THREADS) and 64
 *     sockets (MAX_SOCKETS) per connection.
 *   The proxy thread (socket_threads 0, derived from NCCL's source): without helper threads
 *     a request's bytes are moved by the caller ("progress request using main thread":
 *     ncclNetSocketTest calls ncclSocketProgress on the connection's one socket), and the
 *     caller is the GPU's proxy progress thread, one per GPU (src/proxy.cc: one
 *     persistentThread per communicator rank, v2.7.8-1), which serves every network
 *     connection of that GPU: all its channels, sends and receives alike. So one core's
 *     socket throughput (thread_bandwidth) bounds a GPU's network traffic in both directions
 *     together (proxy_Bps), while each channel's socket is one stream (stream_bandwidth).
 *     NCCL's maintainer on the consequence: "with 2+ GPUs, you will use 2x more cores for
 *     network processing compared to using a single GPU as each GPU has its own set of
 *     network threads" (sjeaugey, NVIDIA/nccl#398, 2020-10-05): with one GPU per node the
 *     ring's send and receive share one proxy thread, with several they do not. With helper
 *     threads (socket_threads >= 1) each connection has its own threads for its bytes and
 *     the proxy thread only posts requests: no shared cap (connection_Bps per direction).
 *   tcp stream_bandwidth and thread_bandwidth: one core's rate at the platform's MTU
 *     (gcsim_tcp_core_Bps; 21.05 Gb/s at MTU 1500, 20.7 at 1460, 42 at 9000, 42.0 at 9001):
 *     - 42 Gb/s at MTU 9000 (measured, a tuned best case): "modern Linux network stack can
 *       achieve ~42Gbps throughput-per-core" for one long TCP flow at 100 Gb/s with TSO/GRO,
 *       jumbo frames (9000 B) and aRFS (Cai et al., "Understanding Host Network Stack
 *       Overheads", SIGCOMM 2021, https://www.cs.cornell.edu/~ragarwal/pubs/network-stack.pdf),
 *       where the receiver's copy to the application is the core's bottleneck;
 *     - 21.05 Gb/s at MTU 1500 (measured on a GPU cluster's LAN; the MTU is assumed): two
 *       concurrent iperf3 flows between two 100 GbE hosts of 8 V100 moved 42.1 Gb/s
 *       together, far below the NIC (8 flows moved 86.62), so each flow, one process and
 *       core each, moved 21.05 on average (shjwudp, NVIDIA/nccl#450, 2021-01-10: the
 *       measurement flow_balance comes from). No MTU is stated there; Linux's default 1500
 *       is assumed (ESnet's fasterdata, "MTU Issues", says jumbo frames lower the packet
 *       rate, "requiring less CPU for packet processing", and measured single streams 2.5-3x
 *       faster with them across its wide-area paths, where loss recovery also gains: not
 *       used, as it is not a per-core LAN figure);
 *     - between and beyond those (derived): time per payload byte = per byte + per segment /
 *       (mtu - 52), the line through the two points (per segment 0.33 us, per byte 0.154 ns:
 *       6.5 GB/s of copying at an unbounded MTU).
 *     A stream is processed by one core, so a stream gets what a core gets. A best case:
 *     clouds cap a flow lower (AWS: 5 Gb/s per flow outside a cluster placement group, 10
 *     inside, https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/ec2-instance-network-bandwidth.html),
 *     which a platform states with stream_bandwidth.
 *   gpudirect: true for ib, roce, efa and tcpxo (GPUDirect RDMA / GPUDirect-TCPXO move the
 *     payload between NIC and GPU memory), false for tcp (sockets copy through host memory);
 *     an EFA instance without GPUDirect RDMA (g4dn) states "gpudirect": false.
 *   tcp mtu 1500 (derived): Ethernet's default MTU. A TCP segment of an MTU carries mtu - 52
 *     bytes of payload (20 IP + 20 TCP + 12 timestamp option, RFC 791, RFC 9293, RFC 7323:
 *     Linux sends timestamps by default) in mtu + 38 bytes of wire time (14 Ethernet header,
 *     4 FCS, 8 preamble and 12 inter-frame gap, IEEE 802.3): 1448 / 1538 = 94.1% of the
 *     line rate at 1500 (the "TCP goodput ~941 Mb/s" of 1 GbE the shipped platforms cite),
 *     99.0% at 9000. Charged to the NIC and fabric links of the socket transport only.
 *   message_overhead 0 (assumed) for ib, roce, tcp and tcpxo: nic.latency is the measured
 *     end-to-end latency of the transport; a per-message cost beyond it is charged only where
 *     a platform states it.
 *   efa message_overhead: 75 us per network step with GPUDirect, 150 us without, less
 *     nic.latency (derived from the plugin's own figure; at least 0): what aws-ofi-nccl tells
 *     NCCL one network step costs. Its platform table (aws/aws-ofi-nccl a21f4df,
 *     src/platform-aws.c, platform_data_map and platform_init) sets net_latency 75.0 us on
 *     p4d.24xlarge, p4de.24xlarge and p5.48xlarge (the GPUDirect RDMA instances), 150.0 us on
 *     p3dn.24xlarge (no GPUDirect RDMA) and 150 us on any other EFA instance ("For historical
 *     reasons, default value for EFA is 150 us"), and reports it as the device's latency
 *     (src/nccl_ofi_net.c, "props->latency = net_latency"). It covers what a step between
 *     nodes costs beyond the wire: NCCL's proxy thread posting the request, libfabric's EFA
 *     provider (segmentation of a message into MTU-sized packets, bounce buffers and the
 *     RDMA-read handshake of long messages), the completion and, with GPUDirect, the flush
 *     before the GPU may read. gcsim already charges nic.latency per message, so the default
 *     is the difference. AWS does not say how the figures were obtained (they are not
 *     published measurements); a platform with its own measurement states message_overhead.
 *     Measurements of the mechanism agree in order of magnitude (not used for the value):
 *     osu_latency over EFA between two hpc6a (Intel MPI 2021.6 on libfabric, host memory)
 *     took 9.87 us at 1 B, 18.43 us at 64 KiB, 46.34 us at 128 KiB (a jump read here, as
 *     an inference, as the provider leaving its eager protocol), 104.86 us at 512 KiB
 *     (stefan-vaisala, aws/aws-parallelcluster#6449, 2025-08-20): a message of NCCL's
 *     step sizes (tens to hundreds of KiB) costs tens of us beyond the 100 Gb/s wire time;
 *     hpc6a is another instance type than the logs' p4d and g4dn. The plugin's table is
 *     newer than some EFA runs (NCCL 2.9.9 in 2021); the default describes the transport's
 *     step cost as AWS states it, not one plugin version's tuning.
 *     Both engines charge it on every message between nodes (a schedule step: a ring's
 *     2(N-1) steps, a pipelined tree's chunk steps), as a stated one. A pipelined tree's
 *     chunk steps each pay it whole, where NCCL keeps up to NCCL_STEPS (8) messages in
 *     flight per connection and overlaps their costs: the pessimistic side there.
 *   efa proxy_bandwidth 6.9 GB/s without GPUDirect (measured), none with it: what one core
 *     moves through libfabric's EFA endpoint, sends and receives together. aws-ofi-nccl opens
 *     one endpoint per device and process, bound to one completion queue for FI_SEND |
 *     FI_RECV (src/nccl_ofi_net.c at v1.4.0, create_nccl_ofi_component: nccl_ofi_component
 *     [dev]->ep), and NCCL's proxy thread of the GPU progresses it. On first-generation EFA
 *     (c5n, p3dn, g4dn: no GPUDirect RDMA, no RDMA read) the EFA provider segments and
 *     reassembles messages in software ("The EFA provider provides segmentation, reassembly
 *     of out-of-order packets", fi_efa(7)), and one endpoint pair is CPU-bound: fabtests'
 *     fi_rdm_tagged_bw (tagged send/receive, as aws-ofi-nccl's fi_tsend / fi_trecv) between
 *     two c5n.18xlarge (100 Gb/s EFA, one placement group) moved 6,892.86 MB/s at 1 MiB,
 *     6,899.89 at 1.5 MiB, 6,851.09 at 4 MiB, below the NIC, while two endpoint pairs on the
 *     same hosts reached 100 Gb/s (zarzen, ofiwg/libfabric#5694, 2020-03-03, who reads it as
 *     the one endpoint's CPU). That test sends on one core and receives on the other; a GPU's proxy
 *     thread does both on one endpoint, so gcsim charges its sends and receives against the
 *     one 6.9 GB/s (assumed: a byte costs the core as much to send as to receive; the
 *     receiver's copies make sending the cheaper side, so this is the pessimistic end: with
 *     one GPU per node each direction gets between 3.45 and 6.9 GB/s). c5n's 3.0 GHz
 *     Skylake cores are assumed no slower than other instances' of that generation. With
 *     GPUDirect RDMA (p4d on) large messages are read by the device (RDMA read), no
 *     per-byte CPU work: no cap.
 *   tcp flow_balance 0.846 with two or more flows per connection (measured), 1 with one:
 *     NCCL splits every transfer equally over its channels and, within a connection, over
 *     its sockets (src/transport/net_socket.cc, ncclNetSocketTest: "taskSize =
 *     std::max(MinTaskSize, DIVUP(size, nSocks))", a request done when all its tasks are),
 *     so a connection moves flows x its slowest flow's rate, not the sum of the flows'.
 *     NCCL's maintainer: "the NCCL bandwidth will be the minimum speed of the sockets
 *     multiplied by the number of sockets" (sjeaugey, NVIDIA/nccl-tests#83, 2021-05-17; and
 *     "the speed will be limited by the socket having the lowest bandwidth", NVIDIA/nccl#438,
 *     2020-12). TCP flows between one pair of hosts do not get equal rates: iperf3 between
 *     two 100 GbE hosts (fq qdisc) gave 2, 4 and 8 concurrent flows totals of 42.1, 72.2 and
 *     86.62 Gb/s with slowest flows 17.8, 16 and 7.63 Gb/s (shjwudp, NVIDIA/nccl#450,
 *     2021-01-10, who found "min_bw * flow_num ~ nccl-test performance"): slowest / mean
 *     = 0.846, 0.886 and 0.705; the default is their median. One host pair, one kernel:
 *     a platform with its own measurement states it.
 */
#include "platform_transport.h"

#include <math.h>
#include <string.h>

#define TCP_CORE_JUMBO_Bps (42e9 / 8) /* Cai et al. 2021 at MTU 9000, see above */
#define TCP_JUMBO_MTU 9000
#define TCP_STANDARD_MTU 1500
#define TCP_CORE_STANDARD_Bps (42.1e9 / 2 / 8) /* NVIDIA/nccl#450: 2 iperf3 flows, 42.1 Gb/s */
#define TCP_FLOW_BALANCE 0.846   /* NVIDIA/nccl#450's iperf3 flows, see above */
#define NCCL_MAX_THREADS 16
#define NCCL_MAX_SOCKETS 64
#define EFA_NO_GDR_ENDPOINT_Bps 6.9e9 /* ofiwg/libfabric#5694: one c5n endpoint pair, see above */
#define EFA_GDR_STEP_S 75e-6     /* aws-ofi-nccl platform-aws.c: p4d, p4de, p5, see above */
#define EFA_NO_GDR_STEP_S 150e-6 /* aws-ofi-nccl platform-aws.c: p3dn and the EFA default */

/* What one core moves through the socket stack, one direction, at a given MTU (derived, see
 * above): the time per payload byte is a per-byte cost (the copies) plus a per-segment cost
 * over the segment's payload (mtu - 52), the two set by 42 Gb/s at MTU 9000 and 21.05 Gb/s
 * at MTU 1500. */
double gcsim_tcp_core_Bps(int mtu)
{
    double mss_jumbo = TCP_JUMBO_MTU - 52, mss_std = TCP_STANDARD_MTU - 52;
    double s_jumbo = 1 / TCP_CORE_JUMBO_Bps, s_std = 1 / TCP_CORE_STANDARD_Bps;
    double per_segment_s = (s_std - s_jumbo) / (1 / mss_std - 1 / mss_jumbo);
    double per_byte_s = s_jumbo - per_segment_s / mss_jumbo;
    return 1 / (per_byte_s + per_segment_s / (mtu - 52));
}

/* EFA's default per-message overhead (see above): the plugin's per-step figure less the
 * platform's nic.latency, never negative. */
double gcsim_efa_message_overhead_s(bool gpudirect, double nic_latency_s)
{
    double step_s = gpudirect ? EFA_GDR_STEP_S : EFA_NO_GDR_STEP_S;
    return step_s > nic_latency_s ? step_s - nic_latency_s : 0;
}

static int boolean(const cJSON *o, const char *path, const char *key, bool *out, json_ctx *ctx)
{
    const cJSON *v = json_member(o, key);
    char got[96];
    if (!v)
        return 0;
    if (!cJSON_IsBool(v))
        return gcsim_fail(ctx->err, "%s: %s.%s: expected true or false, got %s", ctx->origin,
                          path, key, json_describe(v, got, sizeof got));
    *out = cJSON_IsTrue(v);
    return 0;
}

static const char *first_present(const cJSON *o, const char *const *keys)
{
    for (int k = 0; keys[k]; k++)
        if (json_member(o, keys[k]))
            return keys[k];
    return NULL;
}

int gcsim_platform_parse_transport(const cJSON *nic, gcsim_platform *p, json_ctx *ctx)
{
    static const char *const names[] = {"ib", "roce", "efa", "tcp", "tcpxo", NULL};
    static const char *const with_transport[] = {"gpudirect", "channels", "message_overhead",
                                                 NULL};
    static const char *const tcp_only[] = {"socket_threads", "sockets_per_thread",
                                           "stream_bandwidth", "thread_bandwidth", "mtu",
                                           "flow_balance", NULL};
    static const char *const efa_only[] = {"proxy_bandwidth", NULL};
    const char *path = "$.nic";
    if (!json_member(nic, "transport")) {
        const char *bad = first_present(nic, with_transport);
        if (!bad)
            bad = first_present(nic, tcp_only);
        if (!bad)
            bad = first_present(nic, efa_only);
        if (bad)
            return gcsim_fail(ctx->err, "%s: %s.%s: only used with $.nic.transport", ctx->origin,
                              path, bad);
        p->nic.transport = TRANSPORT_NONE;
        return 0;
    }
    int which = 0;
    if (json_choice(nic, path, "transport", true, names, &which, ctx))
        return -1;
    gcsim_transport tr = (gcsim_transport)(which + 1);
    p->nic.transport = tr;
    p->nic.gpudirect = tr != TRANSPORT_TCP;
    p->nic.channels = 2;
    p->nic.message_overhead_s = 0;
    long long channels = 2;
    if (boolean(nic, path, "gpudirect", &p->nic.gpudirect, ctx) ||
        json_integer(nic, path, "channels", false, 1, 64, &channels, ctx) ||
        json_time_at_most(nic, path, "message_overhead", false, 1.0, "a message overhead",
                          &p->nic.message_overhead_s, ctx))
        return -1;
    p->nic.channels = (int)channels;
    if (tr == TRANSPORT_TCP && p->nic.gpudirect)
        return gcsim_fail(ctx->err, "%s: %s.gpudirect: the socket transport (\"tcp\") always "
                                    "copies through host memory", ctx->origin, path);
    if (tr != TRANSPORT_TCP) {
        const char *bad = first_present(nic, tcp_only);
        if (bad)
            return gcsim_fail(ctx->err, "%s: %s.%s: only used with transport \"tcp\"",
                              ctx->origin, path, bad);
        p->nic.connection_Bps = 0;
        p->nic.proxy_Bps = 0;
        if (tr != TRANSPORT_EFA) {
            if (json_member(nic, "proxy_bandwidth"))
                return gcsim_fail(ctx->err, "%s: %s.proxy_bandwidth: only used with transport "
                                            "\"efa\"", ctx->origin, path);
            return 0;
        }
        /* What aws-ofi-nccl says a network step costs, less the wire's latency charged
         * already; a stated message_overhead replaces it. */
        if (!json_member(nic, "message_overhead"))
            p->nic.message_overhead_s = gcsim_efa_message_overhead_s(p->nic.gpudirect,
                                                                     p->nic.latency_s);
        /* The GPU's proxy thread progresses its one libfabric endpoint, both directions. */
        p->nic.proxy_Bps = p->nic.gpudirect ? 0 : EFA_NO_GDR_ENDPOINT_Bps;
        return json_rate_Bps(nic, path, "proxy_bandwidth", false, &p->nic.proxy_Bps, ctx);
    }
    if (json_member(nic, "proxy_bandwidth"))
        return gcsim_fail(ctx->err, "%s: %s.proxy_bandwidth: only used with transport \"efa\" "
                                    "(the socket transport's proxy thread is thread_bandwidth)",
                          ctx->origin, path);
    long long threads = 0, socks = 1, mtu = TCP_STANDARD_MTU;
    if (json_integer(nic, path, "mtu", false, 576, 65535, &mtu, ctx))
        return -1;
    /* A stream is processed by one core, so both default to one core's rate at this MTU. */
    p->nic.stream_Bps = gcsim_tcp_core_Bps((int)mtu);
    p->nic.thread_Bps = p->nic.stream_Bps;
    if (json_integer(nic, path, "socket_threads", false, 0, NCCL_MAX_THREADS, &threads, ctx) ||
        json_integer(nic, path, "sockets_per_thread", false, 1, NCCL_MAX_SOCKETS, &socks, ctx) ||
        json_rate_Bps(nic, path, "stream_bandwidth", false, &p->nic.stream_Bps, ctx) ||
        json_rate_Bps(nic, path, "thread_bandwidth", false, &p->nic.thread_Bps, ctx))
        return -1;
    p->nic.mtu_bytes = (int)mtu;
    if (threads * socks > NCCL_MAX_SOCKETS)
        return gcsim_fail(ctx->err, "%s: %s: socket_threads x sockets_per_thread = %lld "
                                    "sockets; NCCL opens at most %d per connection",
                          ctx->origin, path, threads * socks, NCCL_MAX_SOCKETS);
    if (threads == 0 && json_member(nic, "sockets_per_thread"))
        return gcsim_fail(ctx->err, "%s: %s.sockets_per_thread: with socket_threads 0 (the "
                                    "default: no helper thread) the proxy thread sends over "
                                    "one socket per channel", ctx->origin, path);
    p->nic.socket_threads = (int)threads;
    p->nic.sockets_per_thread = threads == 0 ? 1 : (int)socks;
    /* With no helper thread the proxy thread sends over one socket (nSocks 0). */
    p->nic.flows = p->nic.channels * (threads == 0 ? 1 : (int)(threads * socks));
    p->nic.flow_balance = p->nic.flows > 1 ? TCP_FLOW_BALANCE : 1.0;
    if (json_number(nic, path, "flow_balance", false, 0.01, 1.0, &p->nic.flow_balance, ctx))
        return -1;
    if (p->nic.flows == 1 && json_member(nic, "flow_balance"))
        return gcsim_fail(ctx->err, "%s: %s.flow_balance: one flow per connection (channels 1, "
                                    "one socket): nothing to balance", ctx->origin, path);
    p->nic.connection_Bps = gcsim_platform_connection_Bps(p);
    /* No helper thread: the GPU's proxy thread moves all its sockets' bytes, both ways. */
    p->nic.proxy_Bps = threads == 0 ? p->nic.thread_Bps : 0;
    return 0;
}

double gcsim_platform_connection_Bps(const gcsim_platform *p)
{
    if (p->nic.transport != TRANSPORT_TCP)
        return 0;
    /* socket_threads 0: one socket per channel, the thread cap is the proxy link's */
    if (p->nic.socket_threads == 0)
        return p->nic.flow_balance * p->nic.channels * p->nic.stream_Bps;
    double per_thread = fmin(p->nic.sockets_per_thread * p->nic.stream_Bps, p->nic.thread_Bps);
    return p->nic.flow_balance * p->nic.channels * (p->nic.socket_threads * per_thread);
}

double gcsim_platform_nic_payload_Bps(const gcsim_platform *p)
{
    if (p->nic.transport != TRANSPORT_TCP || p->nic.mtu_bytes <= 0)
        return p->nic.bandwidth_Bps;
    double mtu = p->nic.mtu_bytes;
    /* The slowest flow's share times the flows: what NCCL's equal split gets of the NIC. */
    return p->nic.flow_balance * p->nic.bandwidth_Bps * ((mtu - 52) / (mtu + 38));
}

/* PCIe switches under a root complex: GPUs behind one switch share its uplink (issue 42,
 * "PCIe topology"). Each switch holds GPUs of one socket only, so gpus_per_switch divides
 * a socket's share. */
static int parse_pcie_switches(const cJSON *pc, const char *path, gcsim_platform *p,
                               json_ctx *ctx)
{
    long long per = 0;
    if (json_integer(pc, path, "gpus_per_switch", false, 1, 256, &per, ctx))
        return -1;
    if (per == 0) {
        if (json_member(pc, "switch_uplink"))
            return gcsim_fail(ctx->err, "%s: %s.switch_uplink: only used with gpus_per_switch",
                              ctx->origin, path);
        return 0;
    }
    int per_socket = p->gpus_per_node / p->intra.sockets;
    if (per_socket % per != 0)
        return gcsim_fail(ctx->err, "%s: %s.gpus_per_switch: %lld GPUs per switch do not "
                                    "divide the %d GPUs of a socket",
                          ctx->origin, path, per, per_socket);
    p->intra.gpus_per_switch = (int)per;
    return json_rate_Bps(pc, path, "switch_uplink", true, &p->intra.switch_uplink_Bps, ctx);
}

int gcsim_platform_parse_pcie(const cJSON *in, gcsim_platform *p, json_ctx *ctx)
{
    static const char *const keys[] = {"sockets", "socket_link", "p2p", "p2p_level",
                                       "gpus_per_switch", "switch_uplink", "shm_efficiency",
                                       "h2d_bidirectional", "shm_bandwidth", NULL};
    const char *path = "$.intra_node.pcie";
    p->intra.sockets = 1;
    p->intra.socket_link_Bps = 0;
    p->intra.p2p_off = false;
    p->intra.p2p_switch_only = false;
    p->intra.host_memory_Bps = 0;
    p->intra.gpus_per_switch = 0;
    p->intra.switch_uplink_Bps = 0;
    if (json_rate_Bps(in, "$.intra_node", "host_memory_bandwidth", false,
                      &p->intra.host_memory_Bps, ctx))
        return -1;
    const cJSON *pc = json_member(in, "pcie");
    if (!pc)
        return gcsim_platform_parse_shm(NULL, path, p, ctx);
    if (p->intra.kind != INTRA_PCIE_SWITCH)
        return gcsim_fail(ctx->err, "%s: %s: only used with kind \"pcie-switch\"", ctx->origin,
                          path);
    long long sockets = 1;
    bool p2p = true;
    if (json_expect_object(pc, path, keys, ctx) ||
        json_integer(pc, path, "sockets", false, 1, 8, &sockets, ctx) ||
        boolean(pc, path, "p2p", &p2p, ctx))
        return -1;
    p->intra.p2p_off = !p2p;
    p->intra.sockets = (int)sockets;
    if (sockets > 1 && json_rate_Bps(pc, path, "socket_link", true, &p->intra.socket_link_Bps,
                                     ctx))
        return -1;
    if (sockets == 1 && json_member(pc, "socket_link"))
        return gcsim_fail(ctx->err, "%s: %s.socket_link: only used with sockets > 1",
                          ctx->origin, path);
    if (p->gpus_per_node % p->intra.sockets != 0)
        return gcsim_fail(ctx->err, "%s: %s.sockets: %d sockets cannot hold %d GPUs evenly",
                          ctx->origin, path, p->intra.sockets, p->gpus_per_node);
    if (parse_pcie_switches(pc, path, p, ctx) || gcsim_platform_parse_p2p_level(pc, path, p, ctx))
        return -1;
    return gcsim_platform_parse_shm(pc, path, p, ctx);
}

bool gcsim_platform_host_staging(const gcsim_platform *p)
{
    bool staged = gcsim_platform_intra_shm(p) ||
                  (p->nic.transport != TRANSPORT_NONE && !p->nic.gpudirect);
    return staged && p->intra.host_memory_Bps > 0;
}

bool gcsim_platform_has_transport_links(const gcsim_platform *p)
{
    return p->nic.connection_Bps > 0 || p->nic.proxy_Bps > 0 || p->nic.message_overhead_s > 0 ||
           gcsim_platform_host_staging(p) || p->intra.sockets > 1 || gcsim_platform_intra_shm(p) ||
           p->intra.gpus_per_switch > 0;
}
