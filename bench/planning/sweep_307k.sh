#!/bin/sh
# The 307,200-case analytic sweep of issue 28: 10 catalog platforms x 5 models x
# 6 compressors x 4 collectives x GPU counts 1..256. Prints the CPU time (user+sys, from
# /usr/bin/time) of the sweep and of the same command with --count (start-up: loading the
# inputs and building the payload plans), median of RUNS runs each, and the rate after
# start-up in cases per CPU-second. With OUT set, the last run's CSV is kept there (for
# `cmp` against another binary's).
#
# usage: bench/planning/sweep_307k.sh [GCSIM [SOURCE_DIR]]   (env: RUNS=3, OUT=FILE)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${2:-$(cd "$here/../.." && pwd)}
gcsim=${1:-$src/build/sim/cli/gcsim}
runs=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

p=$src/platforms m=$src/models
set -- --platform "$p/a100-40g-400g.json,$p/a100-hdr.json,$p/cloud-v100-100gbe.json,$p/cloud-v100-25gbe.json,$p/dgc-fig6-10gbe.json" \
       --platform "$p/ecq-fig6.json,$p/h100-400g.json,$p/h100-ndr.json,$p/h200-ndr.json,$p/terngrad-fig5b.json" \
       --model "$m/resnet-50.json,$m/alexnet.json,$m/vgg-16.json,$m/googlenet.json,$m/bert-base.json" \
       --compressor none,fp16,terngrad,qsgd,dgc,powersgd \
       --collective ring,hierarchical,halving-doubling,double-tree \
       --gpus 1,2,3,...,256 --no-progress

cpu() { # command... -> user+sys CPU seconds of the whole process (from /usr/bin/time)
    /usr/bin/time -f "%U %S" -o "$tmp/time" "$@" > /dev/null
    awk '{printf "%.2f\n", $1 + $2}' "$tmp/time"
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

cases=$("$gcsim" sweep "$@" --count | cut -d' ' -f1)
: > "$tmp/sweep" ; : > "$tmp/count"
i=0
while [ "$i" -lt "$runs" ]; do
    cpu "$gcsim" sweep "$@" --output "$tmp/sweep.csv" >> "$tmp/sweep"
    cpu "$gcsim" sweep "$@" --count >> "$tmp/count"
    i=$((i + 1))
done
[ -z "${OUT:-}" ] || cp "$tmp/sweep.csv" "$OUT"
s=$(median < "$tmp/sweep") l=$(median < "$tmp/count")
awk -v n="$cases" -v s="$s" -v l="$l" -v r="$runs" 'BEGIN {
    run = s - l; if (run <= 0) run = 0.01
    printf "cases                        %d\n", n
    printf "sweep, CPU s (median of %d)   %.2f  -> %.0f cases per CPU-s overall\n", r, s, n / s
    printf "  start-up (--count)         %.2f\n", l
    printf "  after start-up             %.2f  -> %.0f cases per CPU-s\n", run, n / run
}'
