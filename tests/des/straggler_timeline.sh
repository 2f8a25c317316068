#!/bin/sh
# The DES timeline under variable compute marks the straggler (issue 41; docs/des.md,
# "Timeline"): with --slow-rank 5:2 alone every GPU's factor is fixed, so GPU 5 sets the pace
# in every iteration and every other GPU waits for it exactly the nominal compute C (its own
# backward ends at C, GPU 5's at 2C): hand-computed from the compute column. With
# --compute-cv the straggler changes between iterations: the list has one entry per simulated
# iteration, the iteration shown is the last, its instant event matches the list, and every
# other GPU's "waiting for GPU r" slice ends where the straggler's compute does. A
# deterministic run's timeline has neither track 6 nor the list.
# usage: straggler_timeline.sh GCSIM SOURCE_DIR WORK_DIR
set -eu
gcsim=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
# Compute-communication interference off (gpu.comm_interference 0): the hand-computed waits
# are those of compute alone on its GPU; with it each GPU's backward is slowed by its own
# calls as well (tests/des/interference_engines.sh checks that effect).
python3 - "$src/platforms/cloud-v100-25gbe.json" "$work/platform.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); p["gpu"]["comm_interference"] = 0
json.dump(p, open(sys.argv[2], "w"))
PY
run="predict --platform $work/platform.json --model $src/models/resnet-50.json --gpus 8 --engine des --compressor none --format json"
"$gcsim" $run --slow-rank 5:2 --iterations 3 --timeline "$work/slow.json" >"$work/slow.out"
"$gcsim" $run --compute-cv 0.1 --seed 7 --iterations 4 --timeline "$work/cv.json" >"$work/cv.out"
"$gcsim" $run --timeline "$work/plain.json" >"$work/plain.out"
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
def load(k):
    return json.load(open("%s/%s.json" % (w, k))), json.load(open("%s/%s.out" % (w, k)))
def marks(tl):
    ev = tl["traceEvents"]
    wait = {e["pid"] - 1: e for e in ev if e.get("ph") == "X" and e.get("tid") == 6}
    inst = [e for e in ev if e.get("ph") == "i" and e.get("cat") == "straggler"]
    return wait, inst
# a fixed slow rank: hand-computed waits
tl, out = load("slow")
row = out["rows"][0]
C = row["compute_s"]
S = tl["stragglers"]
assert len(S) == 3 and [s["iteration"] for s in S] == [0, 1, 2], S
for s in S:
    assert s["rank"] == 5 and s["factor"] == 2, s
    assert abs(s["max_wait_s"] - C) < 1e-9 * C, (s["max_wait_s"], C)
    assert abs(s["compute_end_s"] - 2 * C) < 1e-9 * C, (s["compute_end_s"], C)
wait, inst = marks(tl)
assert len(inst) == 1 and inst[0]["args"]["rank"] == 5 and inst[0]["pid"] == 6, inst
assert sorted(wait) == list(range(8)), sorted(wait)
assert wait[5]["args"]["kind"] == "straggler" and wait[5]["name"] == "straggler: sets the pace"
for g in range(8):
    if g != 5:
        a = wait[g]["args"]
        assert a["kind"] == "straggler_wait" and a["peer"] == 5 and abs(a["wait_s"] - C) < 1e-9 * C, a
print("ok: rank 5 at 2x: straggler 5 in 3/3 iterations, every wait %.6f s = C" % C)
# variable compute: the straggler per iteration
tl, out = load("cv")
S = tl["stragglers"]
iters = out["rows"][0]["iterations"]
assert len(S) == iters == 4, (len(S), iters)
wait, inst = marks(tl)
last = S[-1]
a = inst[0]["args"]
assert a["iteration"] == last["iteration"] == 3 and a["rank"] == last["rank"], (a, last)
assert abs(a["max_wait_s"] - last["max_wait_s"]) < 1e-12, (a, last)
r = last["rank"]
end_ns = round(last["compute_end_s"] * 1e9)
longest = 0
for g, e in wait.items():
    if g == r:
        continue
    assert e["args"]["peer"] == r
    assert abs(round((e["ts"] + e["dur"]) * 1000) - end_ns) <= 1, (e, end_ns)
    longest = max(longest, e["args"]["wait_s"])
assert abs(longest - last["max_wait_s"]) < 1e-12, (longest, last)
assert all(s["max_wait_s"] > 0 for s in S)
print("ok: CV 0.1: stragglers per iteration", [s["rank"] for s in S],
      "longest waits ms", ["%.3f" % (1e3 * s["max_wait_s"]) for s in S])
# deterministic: unchanged layout
tl, _ = load("plain")
assert "stragglers" not in tl
assert not any(e.get("tid") == 6 or e.get("cat") == "straggler" for e in tl["traceEvents"])
print("ok: deterministic timeline without straggler marks")
PY
