#!/bin/sh
# Sweep rate: a 10,000-case analytic sweep timed with /usr/bin/time, reported in cases per
# second; against two references measured in the same run: the same command with --count
# (loading the inputs and building the payload plans, no case run) and `gcsim predict` over
# 256 GPU counts (the one-scenario path).
#
# usage: bench/planning/bench_sweep.sh [GCSIM [SOURCE_DIR]]
#   (defaults: build/sim/cli/gcsim and the folder above this script)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${2:-$(cd "$here/../.." && pwd)}
gcsim=${1:-$src/build/sim/cli/gcsim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 2 platforms x 5 models x 2 compressors x 5 collectives x 100 GPU counts = 10,000 cases.
set -- --platform "$src/platforms/a100-hdr.json,$src/platforms/cloud-v100-25gbe.json" \
       --model "$src/models/resnet-50.json,$src/models/alexnet.json,$src/models/vgg-16.json,$src/models/googlenet.json,$src/models/bert-base.json" \
       --compressor none,terngrad \
       --collective ring,hierarchical,halving-doubling,double-tree,terngrad \
       --gpus 1,2,3,...,100 --no-progress

seconds() { # command... -> elapsed seconds (from /usr/bin/time)
    /usr/bin/time -f %e -o "$tmp/time" "$@" > /dev/null
    cat "$tmp/time"
}

cases=$("$gcsim" sweep "$@" --count | cut -d' ' -f1)
best_sweep= best_load= best_predict=
for run in 1 2 3; do
    s=$(seconds "$gcsim" sweep "$@" --output "$tmp/sweep.csv")
    l=$(seconds "$gcsim" sweep "$@" --count)
    p=$(seconds "$gcsim" predict --platform "$src/platforms/a100-hdr.json" \
        --model "$src/models/resnet-50.json" --gpus 1,2,3,...,256 --collective ring --format csv)
    best_sweep=$(echo "$s $best_sweep" | awk '{print ($2 == "" || $1 < $2) ? $1 : $2}')
    best_load=$(echo "$l $best_load" | awk '{print ($2 == "" || $1 < $2) ? $1 : $2}')
    best_predict=$(echo "$p $best_predict" | awk '{print ($2 == "" || $1 < $2) ? $1 : $2}')
done
rows=$(($(wc -l < "$tmp/sweep.csv") - 1))
awk -v n="$cases" -v rows="$rows" -v s="$best_sweep" -v l="$best_load" -v p="$best_predict" 'BEGIN {
    run = s - l; if (run <= 0) run = 0.01
    printf "cases                      %d (rows written: %d)\n", n, rows
    printf "sweep, wall (best of 3)    %.2f s  -> %.0f cases/s overall\n", s, n / s
    printf "  inputs only (--count)    %.2f s\n", l
    printf "  cases only               %.2f s  -> %.0f cases/s\n", run, n / run
    printf "predict, 256 counts        %.2f s  -> %.0f cases/s (reference)\n", p, 256 / p
    printf "ratio sweep/predict rate   %.1f (overall)\n", (n / s) / (256 / p)
}'
