#!/bin/sh
# gcsim plan trains a model at its own precision and optimizer unless told otherwise, as
# gcsim predict does: Llama 2 7B (bf16, Adam) under fsdp on 8 H100s plans the throughput
# predict gives, and --precision fp32 changes it. Until 2026-11-25 plan's defaults were
# fp32 and SGD (0 in the option struct, where -1 means the model's).
# usage: plan_model_precision.sh GCSIM SOURCE_DIR
set -eu
gcsim=$1 src=$2
fail() { echo "FAIL: $*"; exit 1; }
common="--model $src/models/llama-2-7b.json --platform $src/platforms/h100-ndr.json --sharding fsdp --format json"
samples() { python3 -c "import json,sys; print(json.load(sys.stdin)['rows'][0]['throughput_samples_per_s'])"; }
planned=$("$gcsim" plan $common --gpus 8 --target-throughput 1 | samples)
predicted=$("$gcsim" predict $common --gpus 8 | samples)
fp32=$("$gcsim" plan $common --gpus 8 --target-throughput 0.01 --precision fp32 | samples)
python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); sys.exit(0 if abs(a/b-1) < 1e-12 else 1)" \
    "$planned" "$predicted" || fail "plan gives $planned samples/s, predict $predicted"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) / 2 else 1)" \
    "$fp32" "$planned" || fail "--precision fp32 should plan below half of bf16's $planned, got $fp32"
echo "ok: plan $planned samples/s = predict's; --precision fp32 $fp32"
