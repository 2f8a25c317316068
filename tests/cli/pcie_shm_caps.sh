#!/bin/sh
# NCCL's SHM transport on PCIe without P2P (intra_node.pcie.shm_efficiency;
# sim/config/platform_pcie_shm.c): the ring all-reduce's bus bandwidth at 1 GiB is the bound
# the PCIe links imply at shm_efficiency of their rate, in both engines, computed by hand
# from the fixtures in tests/cli/pcie_shm (latencies 1 ns, PCIe 16 GB/s per GPU, 4 GPUs).
# usage: pcie_shm_caps.sh GCSIM FIXTURES
set -eu
gcsim=$1 dir=$2
fail=0
# check PLATFORM GPUS EXPECTED_GBps WHY: busbw of both engines within 0.1% of EXPECTED
check() {
    "$gcsim" collective --platform "$dir/$1.json" --gpus "$2" --sizes 1GiB --engine both \
        --collective ring --protocol simple --format csv > "${TMPDIR:-/tmp}/pcie_shm_caps.$$"
    if ! awk -F, -v want="$3" -v name="$1" 'NR > 1 { got = $6 / 1e9; n++
            if (got < want * 0.999 || got > want * 1.001) { printf "%s (%s): busbw %.4f GB/s, expected %.4f\n", name, $3, got, want; bad = 1 } }
            END { exit bad || n != 2 }' "${TMPDIR:-/tmp}/pcie_shm_caps.$$"; then
        echo "FAIL: $1 on $2 GPUs: $4"; fail=1
    fi
    rm -f "${TMPDIR:-/tmp}/pcie_shm_caps.$$"
}
# Each staged hop leaves its sender's PCIe link (stores into host memory) and enters its
# receiver's (loads from it): one hop each way per GPU link, at 0.5 x 16 = 8 GB/s.
check shm-half 4 8.0 "SHM at half the PCIe rate, own root ports"
check shm-half 2 8.0 "SHM at half the PCIe rate, 2 GPUs"
# No shm_efficiency with p2p false: NCCL#406's 9 of 12 GB/s, 0.75 x 16 = 12 GB/s.
check shm-default 4 12.0 "SHM's default share of a DMA rate"
# Two switches of 2 GPUs, uplink 10 GB/s: 2 GPUs on one switch put both hops on each
# direction of its uplink: 0.5 x 10 / 2 = 2.5 GB/s; 4 GPUs: the ring 0->1->2->3->0 climbs
# switch 0's uplink from 0 and 1 and comes down it into 1 and 0: 2 hops each way, 2.5.
check shm-switch 2 2.5 "SHM through a shared switch uplink, 2 GPUs"
check shm-switch 4 2.5 "SHM through shared switch uplinks, 4 GPUs"
# With P2P the copies are the switch's DMA: the ports' 16 GB/s, no SHM share.
check p2p-on 4 16.0 "P2P (p2p_level sys): no SHM"
# P2P-capable GPUs on root ports at NCCL's default P2P level (pxb): every pair crosses a
# host bridge, so NCCL uses SHM as without P2P: 0.75 x 16 = 12 GB/s.
check rootports-pxb 4 12.0 "P2P level pxb, root ports: SHM"
# Both directions at once (pcie.h2d_bidirectional): a staged link's rate is capped by the
# host's bidirectional host-to-GPU rate before the SHM share: 0.5 x min(16, 10) = 5 GB/s on
# own root ports; a cap above the link's rate changes nothing (0.5 x 16 = 8); the default
# share of a 12 GB/s bidirectional rate, 0.75 x 12 = 9; two switches of 2 behind 10 GB/s
# uplinks capped at 6: 0.5 x 6 / 2 hops = 1.5 GB/s (the GPUs' own links, 0.5 x 6 = 3 for
# one hop each way, do not bind).
check shm-bidir 4 5.0 "SHM with a bidirectional cap below the link"
check shm-bidir 2 5.0 "SHM with a bidirectional cap below the link, 2 GPUs"
check shm-bidir-above 4 8.0 "SHM with a bidirectional cap above the link"
check shm-default-bidir 4 9.0 "SHM's default share of a bidirectional rate"
check shm-switch-bidir 2 1.5 "SHM with a bidirectional cap on shared uplinks, 2 GPUs"
check shm-switch-bidir 4 1.5 "SHM with a bidirectional cap on shared uplinks, 4 GPUs"
# The host's SHM rate measured (pcie.shm_bandwidth): every staged link carries min(its rate,
# shm_bandwidth) each way, no share taken: 5 GB/s on own root ports (2 and 4 GPUs); above the
# link's 16 GB/s the link binds; two switches of 2 behind 10 GB/s uplinks, measured 6:
# min(10, 6) / 2 hops = 3 GB/s (the GPUs' own links, 6 for one hop each way, do not bind).
check shm-measured 4 5.0 "SHM at a measured rate below the link"
check shm-measured 2 5.0 "SHM at a measured rate below the link, 2 GPUs"
check shm-measured-above 4 16.0 "SHM at a measured rate above the link"
check shm-switch-measured 2 3.0 "SHM at a measured rate on shared uplinks, 2 GPUs"
check shm-switch-measured 4 3.0 "SHM at a measured rate on shared uplinks, 4 GPUs"
[ "$fail" -eq 0 ] && echo "ok: SHM transport on PCIe (own ports, default, shared uplinks, P2P, P2P level, bidirectional cap, measured rate)"
exit "$fail"
