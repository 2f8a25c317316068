#!/bin/sh
# Transports and PCIe topology (docs/formats.md, "Transports and PCIe topology"): the ring
# all-reduce's bus bandwidth at 1 GiB follows the caps the platform states, in both engines,
# with values computed by hand from the fixtures in tests/cli/transport (latencies 1 ns).
# usage: transport_caps.sh GCSIM FIXTURES
set -eu
gcsim=$1 dir=$2
fail=0
# check PLATFORM GPUS EXPECTED_GBps WHY: busbw of both engines within 0.1% of EXPECTED
check() {
    "$gcsim" collective --platform "$dir/$1.json" --gpus "$2" --sizes 1GiB --engine both \
        --collective ring --protocol simple --format csv > "${TMPDIR:-/tmp}/transport_caps.$$"
    if ! awk -F, -v want="$3" -v name="$1" 'NR > 1 { got = $6 / 1e9; n++
            if (got < want * 0.999 || got > want * 1.001) { printf "%s (%s): busbw %.4f GB/s, expected %.4f\n", name, $3, got, want; bad = 1 } }
            END { exit bad || n != 2 }' "${TMPDIR:-/tmp}/transport_caps.$$"; then
        echo "FAIL: $1: $4"; fail=1
    fi
    rm -f "${TMPDIR:-/tmp}/transport_caps.$$"
}
# Socket caps: 2 channels x 2 threads x min(2 sockets x 5 Gb/s, 8 Gb/s per thread) = 32 Gb/s
# = 4 GB/s per GPU each way, below the 100 Gb/s NIC and the 16 GB/s PCIe.
check tcp-1gpu 4 4.0 "1 GPU per NIC: the GPU's socket connections (4 GB/s) bound the ring"
# 8 GPUs share one NIC: one ring per NIC leaves each node from one GPU, whose connections
# carry it: the same 4 GB/s (P2P inside the node at 16 GB/s).
check tcp-8gpu 32 4.0 "8 GPUs per NIC, P2P: the exiting GPU's connections bound the ring"
# No P2P and host memory 40 GB/s (20 GB/s of staged copies: written and read): per node the
# 7 hops inside the node, the hop out and the hop in all cross it: 9 flows, 20/9 GB/s each.
check tcp-8gpu-staged 32 2.2222222 "8 GPUs per NIC, staged: host memory shared by 9 flows"
# Defaults: 2 channels x 1 thread x min(1 x 42 Gb/s, 42 Gb/s) = 84 Gb/s = 10.5 GB/s.
check tcp-defaults 4 10.5 "tcp defaults: 2 channels x one 42 Gb/s core"
# Without a transport the NIC alone: 100 Gb/s = 12.5 GB/s (the behaviour before transports).
check no-transport 4 12.5 "no transport: the NIC's line rate"
# One node, 2 sockets of 4 GPUs, P2P: the ring 0..7 crosses 3 -> 4 and 7 -> 0, one flow on
# each direction of the 5 GB/s socket link, below the 16 GB/s ports.
check pcie-2socket 8 5.0 "root complex per socket: the socket link bounds the ring"
# The same without P2P, host memory 40 GB/s: all 8 hops staged through it, 20/8 = 2.5 GB/s
# (below the socket link's 5 and PCIe's 16).
check pcie-2socket-staged 8 2.5 "no P2P: host memory shared by the node's 8 hops"
# TCP framing on a 10 Gb/s NIC (caps 4 GB/s above it): MTU 1500 carries 1448 payload bytes
# per 1538 on the wire, 1.25 x 1448 / 1538 GB/s; MTU 9000 8948 per 9038.
check tcp-10gbe 4 1.1768531 "TCP payload per wire byte at MTU 1500"
check tcp-10gbe-jumbo 4 1.2375526 "TCP payload per wire byte at MTU 9000"
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
[ "$fail" -eq 0 ] && echo "ok: socket caps (1 and 8 GPUs per NIC), staging, defaults, framing, sockets, overhead"
exit "$fail"
