#!/bin/sh
# NVLink domains across nodes (issue 42) through the command line, on the shipped
# platforms/gb200-nvl72.json (18 trays of 4 GPUs per 72-GPU domain, docs/formats.md):
#   nvlink_domain.sh GCSIM SOURCE_DIR
# - all-reduce of 8 GiB in one domain: NCCL's tuner picks NVLS (in-switch reduction across
#   the 18 trays), busbw = 8 GiB / (8 GiB / 477 GB/s + 35 us) x 2 x 71/72 = 938.93 GB/s,
#   both engines; over 2 domains NVLS-tree (reported as nvls-tree: the NICs between
#   domains, NVLS inside), the engines within 0.5% (0.455% at NCCL's loop count, 29 chunks:
#   the DES's blocks of identical steps take their latencies once before the bytes and the
#   rest after, sim/des/des_blocks.c; step by step 1.5e-6. 3.0% when a block could hold a
#   pair's stretches of different sizes, issue 42);
# - NCCL's 15 channels on a domain's 72 NICs: hierarchical over 2 domains, hand value;
# - an LLM trains on 72 and 144 GPUs in both engines, within 3% of each other;
# - a platform whose nodes are not whole domains is refused: exit 2, the file and field
#   named, nothing on stdout.
set -u
gcsim=$1
src=$2
plat=$src/platforms/gb200-nvl72.json
status=0
out=$("$gcsim" collective --platform "$plat" --gpus 72,144 --sizes 8GiB --engine both \
      --format csv) || { echo "FAIL: collective exited $?"; status=1; }
echo "$out" | awk -F, '
  NR == 1 { next }
  $10 == 72 && $8 != "nvls" { print "FAIL: 72 GPUs run " $8 ", not nvls"; bad = 1 }
  $10 == 72 && ($6 / 938.93e9 - 1 > 1e-5 || 1 - $6 / 938.93e9 > 1e-5) {
    print "FAIL: 72 GPUs busbw " $6 " B/s, hand value 938.93e9"; bad = 1 }
  $10 == 144 && $8 != "nvls-tree" { print "FAIL: 144 GPUs run " $8 ", not nvls-tree"; bad = 1 }
  $3 == "analytic" { ana[$10] = $4 }
  $3 == "des" { des[$10] = $4 }
  END {
    for (g in ana) { d = des[g] / ana[g] - 1; if (d > 0.005 || d < -0.005) {
      print "FAIL: " g " GPUs: DES " des[g] " s vs analytic " ana[g] " s"; bad = 1 } }
    if (length(ana) != 2 || length(des) != 2) { print "FAIL: rows missing"; bad = 1 }
    exit bad }' || { echo "$out"; status=1; }

# NCCL's channel limit (topology.c, gcsim_topology_net_channels): a 72-GPU domain's NICs
# carry 740 / 50 -> 15 channels, on 18 rails at 15/18 of 50 GB/s. Hierarchical over 2
# domains, Simple, 8 GiB: 2 x 71 x (S/72 / 740 GB/s + 5 us) in the domains, and each GPU's
# S/144 twice across at 50 GB/s x 15/72 (4 GPUs a rail) + 1.26 us: 35.0594 ms, both engines
# (the DES's NIC links are the topology's).
out=$("$gcsim" collective --platform "$plat" --gpus 144 --sizes 8GiB --collective hierarchical \
      --protocol simple --engine both --format csv) || { echo "FAIL: hierarchical exited $?"; status=1; }
echo "$out" | awk -F, '
  NR == 1 { next }
  { S = 8589934592; want = 2 * 71 * (S / 72 / 740e9 + 5e-6) + 2 * (S / 144 / (50e9 * 15 / 72) + 1.26e-6)
    d = $4 / want - 1; n++
    if (d > 1e-3 || d < -1e-3) { print "FAIL: " $3 " hierarchical " $4 " s, hand value " want; bad = 1 } }
  END { if (n != 2) { print "FAIL: rows missing"; bad = 1 } exit bad }' || { echo "$out"; status=1; }

out=$("$gcsim" predict --platform "$plat" --model "$src/models/llama-3-8b.json" --gpus 72,144 \
      --engine both --format csv) || { echo "FAIL: predict exited $?"; status=1; }
echo "$out" | awk -F, '
  NR == 1 { next }
  $18 == "analytic" { ana[$1] = $5; m[$1] = $2 }
  $18 == "des" { des[$1] = $5 }
  END {
    if (m[72] != 1 || m[144] != 2) { print "FAIL: 72 and 144 GPUs should be 1 and 2 domains"; bad = 1 }
    for (g in ana) { d = des[g] / ana[g] - 1; if (d > 0.03 || d < -0.03) {
      print "FAIL: " g " GPUs: DES " des[g] " s vs analytic " ana[g] " s"; bad = 1 } }
    if (length(ana) != 2 || length(des) != 2) { print "FAIL: rows missing"; bad = 1 }
    exit bad }' || { echo "$out"; status=1; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
sed 's/"nodes": 144,/"nodes": 35,/' "$plat" > "$tmp/bad.json"
"$gcsim" predict --platform "$tmp/bad.json" --model "$src/models/llama-3-8b.json" --gpus 72 \
    > "$tmp/out" 2> "$tmp/err"
rc=$?
[ "$rc" -eq 2 ] || { echo "FAIL: a bad nvlink_domain exited $rc, not 2"; status=1; }
[ -s "$tmp/out" ] && { echo "FAIL: output on stdout for a refused platform"; status=1; }
grep -qF "$tmp/bad.json: \$.nodes: 35 nodes are not whole NVLink domains of 18 nodes" "$tmp/err" ||
    { echo "FAIL: the refusal does not name the file and field:"; cat "$tmp/err"; status=1; }
exit $status
