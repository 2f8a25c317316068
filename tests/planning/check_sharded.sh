#!/bin/sh
# A baseline case with issue 25's training settings (precision, optimizer, sharding,
# grad_accum, act_ckpt, a checkpointing policy): --update records what gcsim predict gives with the same options,
# a plain check then passes, and the same case under another strategy drifts (exit 1).
# usage: check_sharded.sh GCSIM SOURCE_DIR WORK_DIR
set -eu
gcsim=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
b="$work/baseline.json"
cat > "$b" <<JSON
{"format": "gcsim-baseline/1", "tolerance_pct": 0.01,
 "cases": [{"name": "llama7b-fsdp", "platform": "$src/platforms/h100-400g.json",
            "model": "$src/models/llama-7b.json", "collective": "ring", "gpus": 64,
            "scaling": "weak", "engine": "analytic", "precision": "bf16",
            "optimizer": "adam", "sharding": "fsdp", "grad_accum": 2, "act_ckpt": true},
           {"name": "llama3-8b-op", "platform": "$src/platforms/h100-ndr.json",
            "model": "$src/models/llama-3-8b.json", "collective": "ring", "gpus": 16,
            "scaling": "weak", "engine": "analytic", "sharding": "fsdp", "act_ckpt": "op"}]}
JSON
"$gcsim" check --baseline "$b" --update > /dev/null || fail "check --update"
"$gcsim" check --baseline "$b" > /dev/null || fail "check after --update"
recorded=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['cases'][0]['expected_throughput_samples_per_s'])" "$b")
predicted=$("$gcsim" predict --platform "$src/platforms/h100-400g.json" --model "$src/models/llama-7b.json" \
            --gpus 64 --precision bf16 --optimizer adam --sharding fsdp --grad-accum 2 --act-ckpt \
            --stack fused --format json |
            python3 -c "import json,sys; print(json.load(sys.stdin)['rows'][-1]['throughput_samples_per_s'])")
python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); sys.exit(0 if abs(a/b-1) < 1e-12 else 1)" \
    "$recorded" "$predicted" || fail "baseline recorded $recorded, predict gives $predicted"
# a policy given as a string runs as --act-ckpt=POLICY
recorded_op=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['cases'][1]['expected_throughput_samples_per_s'])" "$b")
predicted_op=$("$gcsim" predict --platform "$src/platforms/h100-ndr.json" --model "$src/models/llama-3-8b.json" \
               --gpus 16 --sharding fsdp --act-ckpt=op --stack fused --format json |
               python3 -c "import json,sys; print(json.load(sys.stdin)['rows'][-1]['throughput_samples_per_s'])")
python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); sys.exit(0 if abs(a/b-1) < 1e-12 else 1)" \
    "$recorded_op" "$predicted_op" || fail "op baseline recorded $recorded_op, predict gives $predicted_op"
sed 's/"sharding": "fsdp"/"sharding": "zero2"/' "$b" > "$work/zero2.json"
rc=0
"$gcsim" check --baseline "$work/zero2.json" > "$work/zero2.out" || rc=$?
[ "$rc" = 1 ] || fail "the same case under zero2 should drift (exit 1), got $rc"
grep -q llama7b-fsdp "$work/zero2.out" || fail "the drifting case is not named"
echo "ok: recorded $recorded and $recorded_op samples/s = predict's; zero2 drifts"
