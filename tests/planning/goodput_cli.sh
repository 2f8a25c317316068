#!/bin/sh
# Goodput in gcsim predict and gcsim plan (issue 41), on a 16,384-GPU H100 cluster (h100-ndr
# with 2,048 nodes) training Llama 3 70B under FSDP with Llama 3's failure rate:
#   - without a goodput option the output has no goodput column (opt-in);
#   - --goodput adds, per row, goodput = throughput x the useful fraction, and the
#     checkpoint interval Daly's formula gives (recomputed here from the row's own
#     delta and MTBF: tau = sqrt(2 delta M) (1 + sqrt(x)/3 + x/9) - delta, x = delta/2M);
#   - plan --goodput picks the same interval at the GPU count it chooses, and its hours are
#     the work over goodput; --checkpoint-interval young gives sqrt(2 delta M);
#   - bad values are refused with exit 2, naming the option, nothing on stdout.
# usage: goodput_cli.sh GCSIM SOURCE_DIR WORK_DIR
set -eu
gcsim=$1 src=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
sed 's/"nodes": 64,/"nodes": 2048,/' "$src/platforms/h100-ndr.json" >"$work/h100-16k.json"
cp -R "$src/platforms/codec" "$work/codec"   # the platform's codec profile, beside it
grep -q '"nodes": 2048,' "$work/h100-16k.json" || fail "could not make the 16,384-GPU platform"
common="--platform $work/h100-16k.json --model $src/models/llama-3-70b.json --sharding fsdp --precision bf16 --optimizer adam --act-ckpt"

"$gcsim" predict $common --gpus 16384 --format json >"$work/plain.json"
"$gcsim" predict $common --gpus 16384 --format json --goodput >"$work/goodput.json"
"$gcsim" plan $common --gpus 8192,16384 --samples 1e9 --rank-by time --compressors none \
    --format json --goodput >"$work/plan.json"
"$gcsim" plan $common --gpus 16384 --samples 1e9 --compressors none --format json \
    --goodput --checkpoint-interval young >"$work/plan_young.json"
"$gcsim" predict $common --gpus 16384 --goodput >"$work/goodput.txt"
grep -q '^goodput: goodput = throughput x tau' "$work/goodput.txt" || fail "no goodput note in the table"
grep -q 'goodput/s' "$work/goodput.txt" || fail "no goodput column in the table"

python3 - "$work" <<'PY' || fail "goodput figures"
import json, math, sys
w = sys.argv[1]
plain = json.load(open(w + "/plain.json"))
gp = json.load(open(w + "/goodput.json"))
assert "goodput_samples_per_s" not in plain["rows"][0], "goodput column without the option"
assert "goodput" not in plain["meta"], "goodput meta without the option"
row = gp["rows"][0]
assert row["throughput_samples_per_s"] == plain["rows"][0]["throughput_samples_per_s"]
M = 54 * 24 * 3600 / 419                 # Llama 3: 419 failures, 16,384 GPUs, 54 days
d = 70553706496 * 14 / 2e12              # bf16 + Adam bytes at 2 TB/s
R = 150 + d
x = d / (2 * M)
tau = math.sqrt(2 * d * M) * (1 + math.sqrt(x) / 3 + x / 9) - d
f = tau / (M * math.exp(R / M) * math.expm1((tau + d) / M))
def close(a, b, what):
    assert abs(a / b - 1) < 1e-12, "%s: %r vs %r" % (what, a, b)
close(row["job_mtbf_s"], M, "job MTBF")
close(row["checkpoint_write_s"], d, "checkpoint write")
close(row["checkpoint_interval_s"], tau, "Daly interval")
close(row["useful_pct"], 100 * f, "useful %")
close(row["goodput_samples_per_s"], row["throughput_samples_per_s"] * f, "goodput")
assert gp["meta"]["goodput"]["checkpoint_interval_rule"] == "daly"
assert gp["meta"]["goodput"]["checkpoint_bytes"] == 70553706496 * 14
plan = json.load(open(w + "/plan.json"))
best = plan["rows"][0]
assert best["gpus"] == 16384, best["gpus"]
close(best["checkpoint_interval_s"], tau, "plan's Daly interval")
close(best["train_time_s"], 1e9 / best["goodput_samples_per_s"], "plan hours over goodput")
young = json.load(open(w + "/plan_young.json"))["rows"][0]
close(young["checkpoint_interval_s"], math.sqrt(2 * d * M), "Young interval")
print("ok: 16384 GPUs, %.1f samples/s, goodput %.1f (%.2f%% useful), checkpoint every %.1f s "
      "(Daly; Young %.1f s), job MTBF %.3f h" % (row["throughput_samples_per_s"],
      row["goodput_samples_per_s"], row["useful_pct"], tau, math.sqrt(2 * d * M), M / 3600))
PY

# refusals: exit 2, the option named, nothing on stdout
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
refuse "--mtbf-gpu-hours: expected a positive number" predict --mtbf-gpu-hours 0
refuse "--mtbf-gpu-hours: expected a positive number" predict --mtbf-gpu-hours -5
refuse "--mtbf-node-hours: expected a positive number" plan --samples 1e6 --mtbf-node-hours x
refuse "--storage-gb-per-s: expected a positive number" predict --storage-gb-per-s 0
refuse "--restart-s: expected seconds" predict --restart-s -1
refuse "--checkpoint-interval: expected daly, young or seconds" plan --samples 1e6 --checkpoint-interval dal
refuse "--checkpoint-interval: expected daly, young or seconds" predict --checkpoint-interval 0
refuse "both give the failure rate" predict --mtbf-gpu-hours 1000 --mtbf-node-hours 8000
refuse "not with --buckets" predict --goodput --buckets
echo "ok: refusals"
