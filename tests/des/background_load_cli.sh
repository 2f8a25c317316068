#!/bin/sh
# gcsim collective --background-load (issue 41): the DES rows slow by the bound's 1/(1-f)
# where the loaded links set the time (the NICs of a 2-node h100-ndr ring); the analytic
# rows stay the unloaded fabric's, byte for byte, and a note says the analytic engine does
# not include the load; without the option no note or meta member appears; bad values are
# refused with exit 2, the option named, nothing on stdout.
# usage: background_load_cli.sh GCSIM SOURCE_DIR WORK_DIR
set -eu
gcsim=$1 src=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
run="collective --platform $src/platforms/h100-ndr.json --gpus 16 --sizes 8GiB --collective ring --protocol simple --engine both --format json"
"$gcsim" $run >"$work/plain.json"
"$gcsim" $run --background-load 0.5 --background-links nic >"$work/nic.json"
"$gcsim" $run --background-load 0.5 >"$work/leaf.json"
python3 - "$work" <<'PY' || fail "background load figures"
import json, sys
w = sys.argv[1]
plain, nic, leaf = (json.load(open("%s/%s.json" % (w, k))) for k in ("plain", "nic", "leaf"))
t = lambda d, e: [r["time_s"] for r in d["rows"] if r["engine"] == e][0]
assert "background load" not in plain["notes"] and "background_load" not in plain["meta"]
assert t(nic, "analytic") == t(plain, "analytic"), "the analytic row moved"
ratio = t(nic, "des") / t(plain, "des")
assert abs(ratio / 2.0 - 1) < 0.01, "NICs at half capacity: DES x%.4f, bound 2" % ratio
assert "analytic engine does not include it" in nic["notes"]["background load"]
assert nic["meta"]["background_load"] == 0.5
# h100-ndr's leaf uplinks (32 nodes per leaf, 1:1) are not the 2-node ring's bottleneck
ratio_leaf = t(leaf, "des") / t(plain, "des")
assert abs(ratio_leaf - 1) < 0.01, "leaf links not the bottleneck: DES x%.4f" % ratio_leaf
print("ok: NICs at 0.5 load: DES x%.4f (bound 2); leaf links: x%.4f" % (ratio, ratio_leaf))
PY
refuse() {
    want=$1; shift
    set +e
    "$gcsim" "$@" >"$work/out" 2>"$work/err"
    rc=$?
    set -e
    [ "$rc" = 2 ] || fail "$* exited $rc, not 2"
    [ ! -s "$work/out" ] || fail "$* printed on stdout"
    grep -q -- "$want" "$work/err" || fail "$*: stderr lacks \"$want\": $(cat "$work/err")"
}
refuse "--background-load: expected a fraction" collective --gpus 4 --background-load 1
refuse "--background-load: expected a fraction" collective --gpus 4 --background-load -0.1
refuse "--background-load: expected a fraction" collective --gpus 4 --background-load half
refuse "--background-links: expected leaf or nic" collective --gpus 4 --background-load 0.2 --background-links spine
refuse "--background-links needs --background-load" collective --gpus 4 --background-links nic
refuse "has no leaf switches" collective --platform "$src/platforms/cloud-v100-25gbe.json" --gpus 4 --background-load 0.2 --background-links leaf
echo "ok: refusals"

# predict: a ResNet-50 iteration on 16 GPUs of a 25 GbE star with half of every NIC taken.
# Communication slows by at most 1/(1-f) = 2 (every collective's bound), the iteration by at
# most that extra communication; the analytic row is the unloaded fabric's.
pred="predict --platform $src/platforms/cloud-v100-25gbe.json --model $src/models/resnet-50.json --gpus 16 --engine both --compressor none --collective ring --format json"
"$gcsim" $pred >"$work/p0.json"
"$gcsim" $pred --background-load 0.5 >"$work/p5.json"
python3 - "$work" <<'PY' || fail "predict with background load"
import json, sys
w = sys.argv[1]
p0, p5 = json.load(open(w + "/p0.json")), json.load(open(w + "/p5.json"))
row = lambda d, e: [r for r in d["rows"] if r["engine"] == e][0]
assert row(p5, "analytic") == row(p0, "analytic"), "the analytic row moved"
a, b = row(p0, "des"), row(p5, "des")
f = 0.5
assert a["comm_s"] < b["comm_s"] <= a["comm_s"] / (1 - f) * (1 + 1e-9), (a["comm_s"], b["comm_s"])
assert a["iteration_s"] < b["iteration_s"] <= a["iteration_s"] + a["comm_s"] * f / (1 - f) * (1 + 1e-9)
assert "analytic engine does not include it" in p5["notes"]["background load"]
assert "background load" not in p0["notes"]
print("ok: predict, NICs at 0.5: DES comm x%.3f (bound 2), iteration x%.3f" %
      (b["comm_s"] / a["comm_s"], b["iteration_s"] / a["iteration_s"]))
PY
refuse "simulated by the DES only" predict --background-load 0.5
refuse "has no leaf switches" predict --platform "$src/platforms/cloud-v100-25gbe.json" --engine des --gpus 16 --background-load 0.2 --background-links leaf
refuse "--background-load: expected a fraction" predict --engine des --background-load 2
echo "ok: predict"
