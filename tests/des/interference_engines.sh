#!/bin/sh
# Compute-communication interference (issues 41, 43; sim/step/interference.c): with
# gpu.comm_interference stated, the DES (a bounded execution on the GPU's host while a call
# is in flight) and the analytic timeline agree within 0.01% on plain data parallelism (one
# compute actor), ZeRO-3 (gated blocks, a compute actor per GPU), a compressed exchange
# (codec work beside compute) and Horovod (deferred decode, fused groups overlapping
# backward: BERT-Large, whose gradient fills several 128 MiB groups; issue 43: ResNet-50's
# one group now starts after backward, nothing to interfere with); every case is
# slower than with the field 0 (off). A share outside [0, 0.9] is refused with exit 2, the
# field named, nothing on stdout.
# usage: interference_engines.sh GCSIM SOURCE_DIR WORK_DIR
set -eu
gcsim=$1 src=$(cd "$2" && pwd) work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
python3 - "$src" "$work" <<'PY'
import json, sys
src, work = sys.argv[1], sys.argv[2]
d = json.load(open(src + "/platforms/h100-ndr.json"))
d["gpu"]["codec_profile"] = src + "/platforms/codec/h100-pytorch.json"
for name, s in (("off", 0), ("on", 0.25), ("bad", 0.95)):
    d["gpu"]["comm_interference"] = s
    json.dump(d, open("%s/%s.json" % (work, name), "w"))
PY
i=0
for extra in "--model gpt2-xl --precision bf16" \
             "--model gpt2-xl --precision bf16 --sharding zero3" \
             "--model resnet-50 --compressor qsgd:s=4" \
             "--model bert-large --compressor topk:ratio=0.01 --stack horovod"; do
    i=$((i + 1))
    for s in off on; do
        "$gcsim" predict --platform "$work/$s.json" $extra --gpus 16 --engine both \
            --format json >"$work/$s$i.json"
    done
    python3 - "$work" "$i" "$extra" <<'PY' || fail "case $i ($extra)"
import json, sys
w, i, what = sys.argv[1], sys.argv[2], sys.argv[3]
t = {}
for s in ("off", "on"):
    rows = json.load(open("%s/%s%s.json" % (w, s, i)))["rows"]
    t[s] = {r["engine"]: r["iteration_s"] for r in rows}
for s in ("off", "on"):
    gap = t[s]["des"] / t[s]["analytic"] - 1
    assert abs(gap) < 1e-4, "%s: DES vs analytic %+.2e with interference %s" % (what, gap, s)
for e in ("analytic", "des"):
    assert t["on"][e] > t["off"][e], "%s: %s not slower with interference" % (what, e)
print("ok: %s: analytic %.6f -> %.6f s, DES %.6f -> %.6f s" % (
    what, t["off"]["analytic"], t["on"]["analytic"], t["off"]["des"], t["on"]["des"]))
PY
done
set +e
"$gcsim" predict --platform "$work/bad.json" --gpus 16 >"$work/out" 2>"$work/err"
rc=$?
set -e
[ "$rc" = 2 ] || fail "comm_interference 0.95 exited $rc, not 2"
[ ! -s "$work/out" ] || fail "comm_interference 0.95 printed on stdout"
grep -q 'gpu.comm_interference: 0.94999999999999996 is out of range \[0, 0.9\]' "$work/err" ||
    fail "stderr: $(cat "$work/err")"
echo "ok: refusal"
