#!/bin/sh
# The CGX validation platform (tests/validation/platforms/cgx-rtx3090-pcie.json: 8 GeForce
# RTX 3090, no P2P, two PCIe 3.0 switches of 4) after session 24 (h-cgx): its links are
# PCIe 3.0 x16's nominal 15.75 GB/s per direction with NCCL's SHM share 0.571, as the
# AutoDL 2 x RTX 2080 Ti platform whose NCCL all_reduce log it predicts within 12.5%. The ring
# all-reduce's bus bandwidth at 1 GiB, both engines, against the bound by hand:
# uplink by SHM U = 15.75 x 0.571 = 8.99325 GB/s each way; staged hops climb their source's
# uplink and come down their destination's (docs/collectives.md, "PCIe-only servers").
# usage: cgx_platform_caps.sh GCSIM REPO
set -eu
gcsim=$1 repo=$2
fail=0
out="${TMPDIR:-/tmp}/cgx_platform_caps.$$"
# check PLATFORM GPUS EXPECTED_GBps WHY: busbw of both engines within 0.1% of EXPECTED
# (the platform's 15 us latency costs under 0.03% at 1 GiB)
check() {
    "$gcsim" collective --platform "$repo/$1" --gpus "$2" --sizes 1GiB --engine both \
        --collective ring --protocol simple --format csv > "$out"
    if ! awk -F, -v want="$3" 'NR > 1 { got = $6 / 1e9; n++
            if (got < want * 0.999 || got > want * 1.001) { printf "busbw %.4f GB/s, expected %.4f\n", got, want; bad = 1 } }
            END { exit bad || n != 2 }' "$out"; then
        echo "FAIL: $1 on $2 GPUs: $4"; fail=1
    fi
    rm -f "$out"
}
cgx=tests/validation/platforms/cgx-rtx3090-pcie.json
# 2 GPUs, one switch: 2 hops share each direction of its uplink: U / 2 = 4.4966 GB/s
# (the GPUs' own links carry one hop each way at 8.99: not binding).
check "$cgx" 2 4.49663 "one switch, 2 hops per uplink direction"
# 4 GPUs, one switch: 4 hops: U / 4 = 2.2483 GB/s.
check "$cgx" 4 2.24831 "one switch, 4 hops per uplink direction"
# 8 GPUs, ring 0..7 over both switches: each uplink carries the hops out of and into its 4
# GPUs, 4 each way: U / 4 = 2.2483 GB/s.
check "$cgx" 8 2.24831 "two switches, 4 hops per uplink direction"
# The AutoDL box (same PCIe 3.0 switch, same staged p2p figure 6.1 GB/s) under the same
# treatment: the same 2-GPU bound, which its nccl-tests log measured at 4.00 GB/s.
check tests/validation/nccl_logs/platforms/rtx2080ti-pcie-nop2p-autodl.json 2 4.49663 \
    "the AutoDL platform the CGX links follow"
[ "$fail" -eq 0 ] && echo "ok: CGX platform's staged ring bounds (2, 4, 8 GPUs) and the AutoDL platform's"
exit "$fail"
