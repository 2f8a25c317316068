#!/bin/sh
# gcsim plan searches precisions (issue 46): --precision fp32,bf16 is searched like
# --act-ckpt=LIST, each row says its precision, and a precision the model cannot run on a
# platform is a counted skip reason, never a failed run. BERT-base on a100-hdr (A100: a
# measured profile at fp32 and bf16) and on terngrad-fig5a (GTX 1080: no 16-bit profile, no
# $.gpu.speed_16bit for the roofline), GPU counts 1, 2, 4, 8, uncompressed. Checks, from the
# plan's own JSON:
# - exit 0; every row's precision is fp32 or bf16; a100-hdr has rows at both, terngrad-fig5a
#   only at fp32 (its bf16 cases are skipped.precision, naming the GPU and bf16);
# - every row's samples/s, MFU and memory per GPU are what gcsim predict prints with the
#   row's platform, GPU count, collective and --precision (the same case, built the same way);
# - on the A100 the best bf16 row is faster than the best fp32 row (bf16 runs the measured
#   bf16 profile: at 8 GPUs predict gives about 9.7k against 2.1k samples/s);
# - --best-per platform,precision keeps one row per (platform, precision): 3;
# - without the list the plan is the one-precision plan (no precision column), and a bad item
#   (fp8, a name given twice) is refused with exit 2 naming --precision.
# usage: plan_precision.sh GCSIM SOURCE_DIR WORK_DIR
set -u
gcsim=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fail=0
bad() { echo "FAIL: $*"; fail=1; }
common="--model $src/models/bert-base.json --compressors none --gpus 1,2,4,8"
pfs="--platform $src/platforms/a100-hdr.json,$src/platforms/terngrad-fig5a.json"
"$gcsim" plan $common $pfs --precision fp32,bf16 --target-throughput 1 --top 0 \
    --format json --output plan.json 2> plan.err
rc=$?
[ $rc -eq 0 ] || bad "plan exit $rc: $(cat plan.err)"
python3 - "$gcsim" "$src" > check.txt 2>&1 <<'PY' || { bad "$(cat check.txt)"; }
import json, subprocess, sys
gcsim, src = sys.argv[1], sys.argv[2]
plan = json.load(open("plan.json"))
rows, notes = plan["rows"], plan["notes"]
errors = []
def need(cond, what):
    if not cond:
        errors.append(what)
seen = {(r["platform"], r["precision"]) for r in rows}
need(seen == {("a100-hdr", "fp32"), ("a100-hdr", "bf16"), ("terngrad-fig5a", "fp32")},
     "platform x precision rows: %s" % sorted(seen))
skip = notes.get("skipped.precision", "")
need("bf16" in skip and "gtx1080" in skip, "skipped.precision note: %r" % skip)
for r in rows:
    args = [gcsim, "predict", "--model", src + "/models/bert-base.json",
            "--platform", "%s/platforms/%s.json" % (src, r["platform"]), "--gpus", str(r["gpus"]),
            "--precision", r["precision"], "--format", "json"]
    if r["gpus"] > 1:
        args += ["--collective", r["collective"]]
    p = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)["rows"][0]
    for k in ("throughput_samples_per_s", "mfu_pct", "memory_bytes_per_gpu"):
        need(abs(r[k] / p[k] - 1) < 1e-12,
             "row %d (%s, %d GPUs, %s, %s): %s %r, predict %r" %
             (r["rank"], r["platform"], r["gpus"], r["collective"], r["precision"], k, r[k], p[k]))
best = {}
for r in rows:
    if r["platform"] == "a100-hdr":
        best[r["precision"]] = max(best.get(r["precision"], 0), r["throughput_samples_per_s"])
need(best.get("bf16", 0) > 2 * best.get("fp32", 1e30), "A100 bf16 %r vs fp32 %r" % (best.get("bf16"), best.get("fp32")))
if errors:
    print("\n".join(errors))
    sys.exit(1)
print("ok: %d rows, each = predict at its precision; %s" % (len(rows), skip[:80]))
PY
# --best-per platform,precision: one row per (platform, precision) that ran
n=$("$gcsim" plan $common $pfs --precision fp32,bf16 --target-throughput 1 --top 0 \
    --best-per platform,precision --format csv 2>/dev/null | tail -n +2 | wc -l)
[ "$n" -eq 3 ] || bad "--best-per platform,precision: $n rows, expected 3"
# one precision: as before, no column
"$gcsim" plan $common $pfs --precision fp32 --target-throughput 1 --format csv > one.csv 2>/dev/null
head -1 one.csv | grep -q precision && bad "a single --precision adds a precision column"
for list in fp32,fp8 bf16,bf16; do
    "$gcsim" plan $common --precision $list --target-throughput 1 > /dev/null 2> bad.err
    rc=$?
    [ $rc -eq 2 ] && grep -q -- "--precision" bad.err || bad "--precision $list: exit $rc: $(cat bad.err)"
done
[ $fail -eq 0 ] && cat check.txt
exit $fail
