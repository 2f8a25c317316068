#!/bin/sh
# PCIe switches with a shared uplink (intra_node.pcie.gpus_per_switch, switch_uplink;
# docs/formats.md, "Transports and PCIe topology"): the ring all-reduce's bus bandwidth at
# 1 GiB is the bound the links imply, in both engines, computed by hand from the fixtures in
# tests/cli/pcie_switch (latencies 1 ns, PCIe 16 GB/s per GPU).
# usage: pcie_switch_caps.sh GCSIM FIXTURES
set -eu
gcsim=$1 dir=$2
fail=0
# check PLATFORM GPUS EXPECTED_GBps WHY: busbw of both engines within 0.1% of EXPECTED
check() {
    "$gcsim" collective --platform "$dir/$1.json" --gpus "$2" --sizes 1GiB --engine both \
        --collective ring --protocol simple --format csv > "${TMPDIR:-/tmp}/pcie_switch_caps.$$"
    if ! awk -F, -v want="$3" -v name="$1" 'NR > 1 { got = $6 / 1e9; n++
            if (got < want * 0.999 || got > want * 1.001) { printf "%s (%s): busbw %.4f GB/s, expected %.4f\n", name, $3, got, want; bad = 1 } }
            END { exit bad || n != 2 }' "${TMPDIR:-/tmp}/pcie_switch_caps.$$"; then
        echo "FAIL: $1 on $2 GPUs: $4"; fail=1
    fi
    rm -f "${TMPDIR:-/tmp}/pcie_switch_caps.$$"
}
# No P2P, 2 switches of 4 GPUs, uplink 6 GB/s: every staged hop climbs its source's uplink
# and comes down its destination's, as NCCL's SHM transport's stores and loads, at the
# default pcie.shm_efficiency 0.75 of the uplink (platform_pcie_shm.c): 4.5 GB/s. Ring
# 0..7: switch 0's uplink carries up the hops out of 0, 1, 2, 3 and down the hops into
# 1, 2, 3, 0: 4 flows each way, 4.5/4 = 1.125 GB/s.
check staged-2x4 8 1.125 "staged: 4 hops share each uplink direction"
# 4 GPUs (one switch): the ring's 4 hops all cross its uplink both ways: 1.125 GB/s.
check staged-2x4 4 1.125 "staged, one switch: 4 hops share the uplink"
# 2 GPUs: 2 hops each way, 2.25 GB/s (below the PCIe links' 0.75 x 16 = 12).
check staged-2x4 2 2.25 "staged, one switch: 2 hops share the uplink"
# P2P through the switches: hops inside a switch stay below it (16 GB/s ports); the ring
# leaves switch 0 once (3 -> 4) and enters it once (7 -> 0): one flow each way, 6 GB/s.
check p2p-2x4 8 6.0 "P2P: only the hops between switches cross the uplinks"
check p2p-2x4 4 16.0 "P2P inside one switch: the ports, no uplink"
# The same GPUs at NCCL's default P2P level (pcie.p2p_level "pxb", platform_pcie_shm.c):
# only GPUs behind one switch peer; 3 -> 4 and 7 -> 0 go through host memory by SHM, at
# 0.75 of the 6 GB/s uplinks (one flow each way: 4.5 GB/s) and of the 16 GB/s PCIe links
# (12): 4.5 GB/s. On one switch every pair peers: the ports' 16.
check pxb-2x4 8 4.5 "NCCL's default P2P level: hops between switches staged (SHM)"
check pxb-2x4 4 16.0 "NCCL's default P2P level, one switch: P2P"
# No P2P, 2 sockets (link 8 GB/s), 2 GPUs per switch, uplink 10 GB/s at SHM's 0.75: each
# uplink carries 2 hops each way (7.5/2 = 3.75 GB/s); the socket link (not PCIe: not
# scaled) one hop each way (8 GB/s): the uplinks bind.
check staged-2socket-2x2 8 3.75 "staged, 2 sockets: the uplinks (2 hops each) bind before the socket link"
[ "$fail" -eq 0 ] && echo "ok: PCIe switch uplinks (staged, P2P and P2P level, 1 and 2 switches, 2 sockets)"
exit "$fail"
