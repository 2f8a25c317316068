#!/bin/sh
# The analytic engine's network jitter through the CLI (issue 41; sim/analytic/fabric_expect.h):
# every step of the closed form waits for the largest of its n messages' Exp(M) delays,
# M H(n) expected. Hand values on platforms/h100-ndr.json, M = 10 us:
#   all-gather over 2 GPUs: one step of 2 messages, +1.5 M = +15 us;
#   ring all-reduce over 8 GPUs: 14 steps of 8 messages, +14 H(8) M = +38.05 M = +380.5 us.
# predict --engine analytic now takes --jitter-us and --ecmp-spines (their notes say what the
# analytic engine does), and still refuses --background-load (DES only).
# usage: fabric_analytic.sh GCSIM SOURCE_DIR WORK_DIR
set -eu
gcsim=$1 src=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
p="--platform $src/platforms/h100-ndr.json --engine analytic --format json"
"$gcsim" collective $p --gpus 2 --op allgather --sizes 1MiB >"$work/ag0.json"
"$gcsim" collective $p --gpus 2 --op allgather --sizes 1MiB --jitter-us 10 >"$work/ag1.json"
"$gcsim" collective $p --gpus 8 --collective ring --sizes 1MiB >"$work/r0.json"
"$gcsim" collective $p --gpus 8 --collective ring --sizes 1MiB --jitter-us 10 >"$work/r1.json"
python3 - "$work" <<'PY' || fail "jitter hand values"
import json, sys
w = sys.argv[1]
t = lambda k: json.load(open("%s/%s.json" % (w, k)))["rows"][0]["time_s"]
ag, ring = t("ag1") - t("ag0"), t("r1") - t("r0")
assert abs(ag / 15e-6 - 1) < 1e-9, "all-gather, 2 GPUs: +%.9g s, hand 15 us" % ag
assert abs(ring / 380.5e-6 - 1) < 1e-9, "ring, 8 GPUs: +%.9g s, hand 380.5 us" % ring
note = json.load(open("%s/r1.json" % w))["notes"]["network jitter"]
assert "analytic engine adds" in note and "upper estimate" in note, note
print("ok: all-gather +%.3f us (hand 15), ring +%.3f us (hand 380.5)" % (ag * 1e6, ring * 1e6))
PY
m="predict --platform $src/platforms/h100-ndr.json --model resnet-50 --gpus 16 --engine analytic"
"$gcsim" $m --jitter-us 5 --format json >"$work/pj.json" || fail "predict --engine analytic --jitter-us refused"
grep -q "analytic engine adds" "$work/pj.json" || fail "predict's jitter note"
"$gcsim" $m --ecmp-spines 2 --format json >"$work/pe.json" || fail "predict --engine analytic --ecmp-spines refused"
grep -q "expectation over" "$work/pe.json" || fail "predict's ECMP note"
set +e
"$gcsim" $m --background-load 0.5 >"$work/bl.out" 2>"$work/bl.err"
rc=$?
set -e
[ "$rc" = 2 ] || fail "--background-load with --engine analytic: exit $rc, expected 2"
[ ! -s "$work/bl.out" ] || fail "--background-load refusal wrote stdout"
grep -q "simulated by the DES only" "$work/bl.err" || fail "--background-load refusal message"
echo "ok: predict --engine analytic takes --jitter-us and --ecmp-spines, refuses --background-load"
