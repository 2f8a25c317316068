#!/bin/sh
# CPU seconds and peak memory of predict, collective, breakeven and plan at 2^20 GPUs
# (h100-ndr with 131,072 nodes; issue 45, item 4: the goal is an answer or a refusal within
# 60 CPU-s and 4 GiB). A measurement, not a test: prints one line per command.
#   bench/planning/huge_counts.sh GCSIM SOURCE_DIR
set -u
gcsim=$1 src=$2
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
sed 's/"nodes": 64,/"nodes": 131072,/' "$src/platforms/h100-ndr.json" >"$work/h100-2p20.json"
[ -d "$src/platforms/codec" ] && cp -r "$src/platforms/codec" "$work/"
pf=$work/h100-2p20.json model=$src/models/resnet-50.json
measure() { # NAME ARGS...
    name=$1
    shift
    /usr/bin/time -f "%U %S %M %x" -o "$work/time" \
        sh -c 'ulimit -v 4194304; exec "$@"' sh "$gcsim" "$@" >/dev/null 2>&1
    # the last line: time writes "Command exited with non-zero status N" before it
    # shellcheck disable=SC2046 # four numbers
    set -- $(tail -n 1 "$work/time")
    user=$1 sys=$2 kib=$3 rc=$4
    awk -v n="$name" -v u="$user" -v s="$sys" -v k="$kib" -v rc="$rc" \
        'BEGIN { printf "%-40s exit %s  %6.1f CPU-s  %6.0f MiB max RSS\n", n, rc, u + s, k / 1024 }'
}
measure "predict --gpus 2^20 (tuned)" predict --platform "$pf" --model "$model" --gpus 1048576
measure "predict (1, 2, 4, ..., 2^20)" predict --platform "$pf" --model "$model"
measure "collective 2^20 (analytic)" collective --platform "$pf" --gpus 1048576 --sizes 1MiB,1GiB --engine analytic
measure "collective 2^20 (both engines)" collective --platform "$pf" --gpus 1048576 --sizes 1MiB,1GiB
measure "breakeven fp16 2^20 (tuned)" breakeven --platform "$pf" --model "$model" --compressor fp16 --gpus 1048576
measure "plan 1e9 samples/s (default)" plan --platform "$pf" --model "$model" --target-throughput 1e9
measure "plan 1e9, no trees" plan --platform "$pf" --model "$model" --target-throughput 1e9 \
    --collectives ring,halving-doubling,hierarchical,ps,allgather
