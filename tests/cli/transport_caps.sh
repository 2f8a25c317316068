#!/bin/sh
# Transports and PCIe topology (docs/formats.md, "Transports and PCIe topology"): the ring
# all-reduce's bus bandwidth at 8 GiB follows the caps the platform states, in both engines,
# with values computed by hand from the fixtures in tests/cli/transport (latencies 1 ns;
# 8 GiB, so that NCCL's per-call latency terms, e.g. the ring plateau across nodes, stay
# below the 0.1% tolerance).
# usage: transport_caps.sh GCSIM FIXTURES
set -eu
gcsim=$1 dir=$2
fail=0
# check PLATFORM GPUS EXPECTED_GBps WHY: busbw of both engines within 0.1% of EXPECTED
check() {
    "$gcsim" collective --platform "$dir/$1.json" --gpus "$2" --sizes 8GiB --engine both \
        --collective ring --protocol simple --format csv > "${TMPDIR:-/tmp}/transport_caps.$$"
    if ! awk -F, -v want="$3" -v name="$1" 'NR > 1 { got = $6 / 1e9; n++
            if (got < want * 0.999 || got > want * 1.001) { printf "%s (%s): busbw %.4f GB/s, expected %.4f\n", name, $3, got, want; bad = 1 } }
            END { exit bad || n != 2 }' "${TMPDIR:-/tmp}/transport_caps.$$"; then
        echo "FAIL: $1: $4"; fail=1
    fi
    rm -f "${TMPDIR:-/tmp}/transport_caps.$$"
}
# Socket caps: 2 channels x 2 threads x min(2 sockets x 5 Gb/s, 8 Gb/s per thread) = 32 Gb/s
# = 4 GB/s per GPU each way, below the 100 Gb/s NIC and the 16 GB/s PCIe; NCCL splits each
# transfer equally over the 2 x 2 x 2 = 8 flows, which move 8 x the slowest: by default
# flow_balance 0.846 of their mean, 3.384 GB/s.
check tcp-1gpu 4 3.384 "1 GPU per NIC: the GPU's socket connections (4 GB/s x 0.846) bound the ring"
# 8 GPUs share one NIC: one ring per NIC leaves each node from one GPU, whose connections
# carry it: the same 3.384 GB/s (P2P inside the node at 16 GB/s).
check tcp-8gpu 32 3.384 "8 GPUs per NIC, P2P: the exiting GPU's connections bound the ring"
# A stated flow_balance 0.5: the connections move 4 x 0.5 = 2 GB/s, 1 and 8 GPUs per NIC.
check tcp-1gpu-balance 4 2.0 "1 GPU per NIC: connections x flow_balance 0.5"
check tcp-8gpu-balance 32 2.0 "8 GPUs per NIC: the exiting GPU's connections x flow_balance 0.5"
# The same on 10 Gb/s: the NIC binds (1.1768531 GB/s of payload at MTU 1500, below the
# connections' 2 GB/s), and the equal split gets 0.5 of it: 0.58842655 GB/s.
check tcp-8gpu-10gbe-balance 32 0.58842655 "8 GPUs per NIC, NIC-bound: TCP payload x flow_balance 0.5"
# One flow per connection (channels 1, the proxy thread's one socket): nothing to balance,
# the NIC's 1.1768531 GB/s of payload (the proxy thread stated at 100 Gb/s, above it).
check tcp-1flow 4 1.1768531 "one flow: no equal-split loss"
# No P2P and host memory 40 GB/s (20 GB/s of staged copies: written and read): per node the
# 7 hops inside the node cross it once each, and the hop out and the hop in twice each (the
# pinned buffer's write and read, then send()/recv()'s copy to or from the socket buffers
# and the NIC's DMA): 7 + 2 x 2 = 11 crossings, 20/11 GB/s each.
check tcp-8gpu-staged 32 1.8181818 "8 GPUs per NIC, staged: host memory crossed by 7 copies and twice by each socket direction"
# Defaults: no helper thread (NCCL_SOCKET_NTHREADS 0): 2 channels of one socket each, 2
# flows at flow_balance 0.846; the GPU's proxy thread moves all its sockets' bytes, both
# directions, at one core's rate, which follows the MTU (platform_transport.c: per segment
# 0.3275 us, per byte 0.1539 ns, through 42 Gb/s at MTU 9000 and 21.05 Gb/s at 1500).
# At the default MTU 1500 a core moves 21.05 Gb/s = 2.63125 GB/s (the connections, 2 x
# 2.63125 x 0.846 = 4.452 GB/s, and the NIC's payload, 11.768531 x 0.846 = 9.956 GB/s, are
# above it). With one GPU per node the ring sends and receives through the same GPU:
# 2.63125 / 2 = 1.315625 GB/s each way.
check tcp-defaults 4 1.315625 "tcp defaults, 1 GPU per NIC, MTU 1500: the proxy thread shared by send and receive"
# 8 GPUs per NIC (P2P at 16 GB/s): the ring leaves a node from one GPU and enters it at
# another, so each proxy thread carries one direction: 2.63125 GB/s, twice the 1-GPU case
# (NVIDIA/nccl#398: "with 2+ GPUs, you will use 2x more cores for network processing").
check tcp-proxy-8gpu 16 2.63125 "tcp defaults, 8 GPUs per NIC, MTU 1500: one proxy thread per direction"
# MTU 9000: a core moves Cai et al.'s 42 Gb/s = 5.25 GB/s; 1 GPU per NIC 2.625, 8 GPUs 5.25
# (the NIC's payload at 9000, 12.5 x 8948 / 9038 x 0.846 = 10.47 GB/s, is above both).
check tcp-defaults-jumbo 4 2.625 "tcp defaults, 1 GPU per NIC, MTU 9000: 42 Gb/s shared by both directions"
check tcp-proxy-8gpu-jumbo 16 5.25 "tcp defaults, 8 GPUs per NIC, MTU 9000: 42 Gb/s per direction"
# Between the two points, MTU 4000 (3948 B of payload per segment): per segment s =
# (1/2.63125e9 - 1/5.25e9) / (1/1448 - 1/8948) = 3.27496e-7 s, per byte 1/5.25e9 - s/8948 =
# 1.53876e-10 s; 1 / (1.53876e-10 + 3.27496e-7 / 3948) = 4.22246 GB/s with 8 GPUs per NIC.
check tcp-proxy-8gpu-mtu4000 16 4.2224621 "tcp defaults, 8 GPUs per NIC, MTU 4000: per byte + per segment"
# A cloud's per-flow cap with no helper thread (NCCL's default when the interface has no PCI
# vendor, e.g. a Kubernetes pod's veth; t4-aws-g4dn-8xl-socket.json): 2 nodes x 1 GPU, 50
# Gb/s NIC, MTU 9001, stream_bandwidth 10 Gb/s. The connection is 2 channels x 1 socket x
# 1.25 GB/s x 0.846 (2 flows) = 2.115 GB/s; the proxy thread (one core at MTU 9001, 5.2501
# GB/s for both directions: 2.625 each way), the NIC's payload (6.25 x 8949 / 9039 x 0.846 =
# 5.2349 GB/s) and PCIe (16) are above it. 2 ranks: busbw = algbw = 2.115 GB/s.
check tcp-pod-flowcap 2 2.115 "socket_threads 0: 2 flows at the cloud's per-flow cap bound the ring"
# The same NIC with NCCL's AWS auto-detection (2 threads x 8 sockets per connection): 32
# flows at 10 Gb/s and 4 threads of 5.25 GB/s are far above the NIC, whose payload binds:
# 5.2349 GB/s.
check tcp-aws-autodetect 2 5.2348531 "2 threads x 8 sockets: the NIC's TCP payload x 0.846 binds"
# The same two NICs with 8 GPUs per node (P2P at 16 GB/s inside): the ring leaves each node
# from one GPU and enters it at another, so the exiting GPU's 2 flows at the per-flow cap
# bind as with one GPU (2.115 GB/s; its proxy thread now carries one direction, 5.2501 GB/s,
# still above), and with 2 threads x 8 sockets the NIC's payload binds (5.2349 GB/s): a
# shared NIC gets no more than one GPU's connections or the NIC give.
check tcp-pod-flowcap-8gpu 16 2.115 "8 GPUs per NIC, socket_threads 0: the exiting GPU's 2 capped flows bind"
check tcp-aws-autodetect-8gpu 16 5.2348531 "8 GPUs per NIC, 2 threads x 8 sockets: the NIC's TCP payload x 0.846 binds"
# Host memory 6 GB/s (3 GB/s of staged copies, written and read) under the socket path (no
# GPUDirect, P2P on): per node the bytes sent and the bytes received both cross it twice
# (GPU to pinned buffer to socket buffer to NIC, and back: 4 passes each way), whether one
# GPU does both (1 GPU per NIC) or two GPUs do (8 per NIC): 3 / 4 = 0.75 GB/s, below the
# 2.115 of the connections.
check tcp-pod-flowcap-hostmem 2 0.75 "1 GPU per NIC: host memory, 4 passes per socket byte each way"
check tcp-pod-flowcap-8gpu-hostmem 16 0.75 "8 GPUs per NIC: host memory, 4 passes per socket byte each way"
# EFA without GPUDirect (first-generation EFA, g4dn): the GPU's proxy thread progresses its
# one libfabric endpoint at the default 6.9 GB/s for sends and receives together
# (platform_transport.c, ofiwg/libfabric#5694). 2 nodes x 1 GPU, 50 Gb/s NIC: a ring's send
# and receive share it, 3.45 GB/s each way, below the NIC's 6.25 GB/s (EFA: no TCP framing).
check efa-no-gdr 2 3.45 "efa without GPUDirect, 1 GPU per node: one endpoint for both directions"
# 8 GPUs per node: the ring leaves and enters a node through different GPUs, one direction
# per proxy thread (6.9 GB/s), so the NIC binds: 6.25 GB/s.
check efa-no-gdr-8gpu 16 6.25 "efa without GPUDirect, 8 GPUs per node: the NIC binds"
# With GPUDirect RDMA (the default for efa) no endpoint cap: the NIC's 6.25 GB/s.
check efa-gdr 2 6.25 "efa with GPUDirect: the NIC alone"
# Without a transport the NIC alone: 100 Gb/s = 12.5 GB/s (the behaviour before transports).
check no-transport 4 12.5 "no transport: the NIC's line rate"
# One node, 2 sockets of 4 GPUs, P2P: the ring 0..7 crosses 3 -> 4 and 7 -> 0, one flow on
# each direction of the 5 GB/s socket link, below the 16 GB/s ports.
check pcie-2socket 8 5.0 "root complex per socket: the socket link bounds the ring"
# The same without P2P, host memory 40 GB/s: all 8 hops staged through it, 20/8 = 2.5 GB/s
# (below the socket link's 5 and PCIe's 16).
check pcie-2socket-staged 8 2.5 "no P2P: host memory shared by the node's 8 hops"
# P2P-capable GPUs on the root ports of 2 sockets at NCCL's default P2P level (pxb): no pair
# peers (PHB or SYS), all 8 hops staged through host memory as without P2P: 2.5 GB/s.
check pcie-2socket-pxb 8 2.5 "P2P level pxb, root ports on 2 sockets: all hops staged"
# TCP framing on a 10 Gb/s NIC (caps 4 GB/s above it): MTU 1500 carries 1448 payload bytes
# per 1538 on the wire, 1.25 x 1448 / 1538 GB/s; MTU 9000 8948 per 9038.
# Both with 8 flows at the default flow_balance 0.846.
check tcp-10gbe 4 0.99561772 "TCP payload per wire byte at MTU 1500, x 0.846"
check tcp-10gbe-jumbo 4 1.0469695 "TCP payload per wire byte at MTU 9000, x 0.846"
# Per-message overhead: 100 us on every hop between nodes; 8 B on 4 GPUs is 2 x 3 steps of
# latency, so the overhead adds 600 us (within 0.1%) to the same platform without it (which
# still pays NCCL's own per-call and per-hop overheads, docs/collectives.md).
sed '/"message_overhead"/d; s/"thread_bandwidth": "8Gbps",/"thread_bandwidth": "8Gbps"/' \
    "$dir/tcp-overhead.json" > "${TMPDIR:-/tmp}/transport_caps_no_overhead.$$.json"
for engine in analytic des; do
    with=$("$gcsim" collective --platform "$dir/tcp-overhead.json" --gpus 4 --sizes 8B \
        --engine $engine --collective ring --protocol simple --format csv | awk -F, 'NR == 2 { print $4 }')
    without=$("$gcsim" collective --platform "${TMPDIR:-/tmp}/transport_caps_no_overhead.$$.json" \
        --gpus 4 --sizes 8B --engine $engine --collective ring --protocol simple --format csv |
        awk -F, 'NR == 2 { print $4 }')
    awk -v a="$with" -v b="$without" -v e=$engine 'BEGIN { d = a - b
            if (d < 600e-6 * 0.999 || d > 600e-6 * 1.001) { printf "%s: overhead adds %.6g s, expected 600 us\n", e, d; exit 1 } }' ||
        { echo "FAIL: tcp-overhead: message_overhead per hop ($engine)"; fail=1; }
done
rm -f "${TMPDIR:-/tmp}/transport_caps_no_overhead.$$.json"
# EFA's default message_overhead (platform_transport.c): what aws-ofi-nccl tells NCCL a
# network step costs, 75 us with GPUDirect and 150 us without, less nic.latency (1 ns in the
# fixtures). Against the same platform stating message_overhead 1 ns, each step between nodes
# costs 75 us - 2 ns (150 us - 2 ns) more: 8 B on 2 x 1 GPUs is 2 steps. On 2 x 8 GPUs a
# ring phase pays one chunk's route (gcsim_ring_route_s): its cycle of 14 hops inside the
# nodes, kept at NCCL's net overhead across nodes (3 us with Simple, tuner_model.c), and 2
# crossings, less its shortest hop: with the default a 3 us hop (14 x 3 + 2 x 150 - 3 =
# 339 us), with 1 ns stated a 2 ns crossing (14 x 3 + 2 x 0.002 - 0.002 = 42.002 us): 296.998
# us more a phase, 593.996 us for the two (the lock-step ring paid 30 x 147 us). Within 10 ns
# (the 8 B themselves).
# efa_step PLATFORM_PATH GPUS EXPECTED_S WHY: (time as written) - (time with message_overhead
# 1 ns instead of the default, or without the line where the fixture states 1 ns)
efa_step() {
    tmp="${TMPDIR:-/tmp}/transport_caps_efa.$$.json"
    if grep -q '"message_overhead"' "$1"; then
        sed '/"message_overhead"/d; s/"gpudirect": false,/"gpudirect": false/' "$1" > "$tmp"
        a="$tmp" b="$1"
    else
        sed 's/"transport": "efa"/"transport": "efa", "message_overhead": "1ns"/' "$1" > "$tmp"
        a="$1" b="$tmp"
    fi
    for engine in analytic des; do
        ta=$("$gcsim" collective --platform "$a" --gpus "$2" --sizes 8B --engine $engine \
            --collective ring --protocol simple --format csv | awk -F, 'NR == 2 { print $4 }')
        tb=$("$gcsim" collective --platform "$b" --gpus "$2" --sizes 8B --engine $engine \
            --collective ring --protocol simple --format csv | awk -F, 'NR == 2 { print $4 }')
        awk -v a="$ta" -v b="$tb" -v want="$3" -v e=$engine 'BEGIN { d = a - b
                if (d < want - 1e-8 || d > want + 1e-8) { printf "%s: the default adds %.9g s, expected %.9g\n", e, d, want; exit 1 } }' ||
            { echo "FAIL: $(basename "$1"): $4 ($engine)"; fail=1; }
    done
    rm -f "$tmp"
}
efa_step "$dir/efa-gdr.json" 2 149.996e-6 "efa with GPUDirect: 75 us per step less nic.latency, 2 steps"
efa_step "$dir/efa-no-gdr.json" 2 299.996e-6 "efa without GPUDirect: 150 us per step less nic.latency, 2 steps"
efa_step "$dir/efa-no-gdr-8gpu.json" 16 593.996e-6 "efa without GPUDirect, 2 x 8 GPUs: 4 crossings of the ring's routes at 150 us more, less 2 x 3 us"
# A nic.latency above the plugin's figure (80 us with GPUDirect): no default overhead, so
# stating 1 ns adds 2 x 1 ns.
efa80="${TMPDIR:-/tmp}/transport_caps_efa80.$$.json"
sed '/"nic"/,/}/ s/"latency": "1ns"/"latency": "80us"/' "$dir/efa-gdr.json" > "$efa80"
efa_step "$efa80" 2 -2e-9 "efa, nic.latency 80 us, above the plugin's 75 us: no default overhead"
rm -f "$efa80"
[ "$fail" -eq 0 ] && echo "ok: socket caps and flow balance (1 and 8 GPUs per NIC), proxy thread and its MTU law, staging, defaults, framing, sockets, EFA endpoint, overhead, EFA step overhead"
exit "$fail"
