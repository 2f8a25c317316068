#!/bin/sh
# The sweep's per-case path against its floor (issue 47): `gcsim sweep` over a grid of
# platforms x models x compressors x collectives x GPU counts 1..256, against bare_sweep
# (bench/planning/bare_sweep.c: the same number of cases, each an alpha-beta closed form and
# one printf'd CSV row of the sweep's 30 columns). Runs the sweep, the sweep with --count
# (start-up: inputs and payload plans) and the bare loop in turn RUNS times, CPU seconds
# (user+sys, /usr/bin/time) of each whole process, and prints the medians, the rates in
# cases per CPU-second and the ratio of the bare loop's rate to the sweep's after start-up
# (how many times the floor's cost a case pays). A bench, never a test.
#
# usage: bench/planning/sweep_vs_bare.sh [GCSIM [BARE_SWEEP [SOURCE_DIR]]]
#   env: RUNS (default 3); FULL=1 for the 307,200-case grid of sweep_307k.sh (10 platforms),
#   else its first 2 platforms (61,440 cases); OUT=FILE keeps the last sweep's CSV.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${3:-$(cd "$here/../.." && pwd)}
gcsim=${1:-$src/build/sim/cli/gcsim}
bare=${2:-$src/build/bench/planning/bare_sweep}
runs=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

p=$src/platforms m=$src/models
if [ "${FULL:-0}" = 1 ]; then
    plats="$p/a100-40g-400g.json,$p/a100-hdr.json,$p/cloud-v100-100gbe.json,$p/cloud-v100-25gbe.json,$p/dgc-fig6-10gbe.json,$p/ecq-fig6.json,$p/h100-400g.json,$p/h100-ndr.json,$p/h200-ndr.json,$p/terngrad-fig5b.json"
    np=10
else
    plats="$p/a100-hdr.json,$p/h100-ndr.json"
    np=2
fi
set -- --platform "$plats" \
       --model "$m/resnet-50.json,$m/alexnet.json,$m/vgg-16.json,$m/googlenet.json,$m/bert-base.json" \
       --compressor none,fp16,terngrad,qsgd,dgc,powersgd \
       --collective ring,hierarchical,halving-doubling,double-tree \
       --gpus 1,2,3,...,256 --no-progress

cpu() { # command... -> user+sys CPU seconds of the whole process
    /usr/bin/time -f "%U %S" -o "$tmp/time" "$@" > /dev/null 2>&1
    awk '{printf "%.3f\n", $1 + $2}' "$tmp/time"
}
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

cases=$("$gcsim" sweep "$@" --count | cut -d' ' -f1)
: > "$tmp/sweep"; : > "$tmp/count"; : > "$tmp/bare"
i=0
while [ "$i" -lt "$runs" ]; do
    cpu "$gcsim" sweep "$@" --output "$tmp/sweep.csv" >> "$tmp/sweep"
    cpu "$gcsim" sweep "$@" --count >> "$tmp/count"
    cpu "$bare" "$np" 5 6 4 256 >> "$tmp/bare"
    i=$((i + 1))
done
[ -z "${OUT:-}" ] || cp "$tmp/sweep.csv" "$OUT"
bare_cases=$("$bare" "$np" 5 6 4 256 2>&1 > /dev/null)
[ "$bare_cases" = "$cases" ] || { echo "bare loop: $bare_cases cases, sweep: $cases" >&2; exit 2; }
s=$(median < "$tmp/sweep") l=$(median < "$tmp/count") b=$(median < "$tmp/bare")
awk -v n="$cases" -v s="$s" -v l="$l" -v b="$b" -v r="$runs" 'BEGIN {
    run = s - l; if (run <= 0) run = 0.001; if (b <= 0) b = 0.001
    printf "cases                          %d\n", n
    printf "sweep, CPU s (median of %d)     %.3f  -> %.0f cases per CPU-s overall\n", r, s, n / s
    printf "  start-up (--count)           %.3f\n", l
    printf "  after start-up               %.3f  -> %.0f cases per CPU-s\n", run, n / run
    printf "bare loop, CPU s               %.3f  -> %.0f cases per CPU-s\n", b, n / b
    printf "ratio bare / sweep (per case)  %.1f overall, %.1f after start-up\n", (n / b) / (n / s), (n / b) / (n / run)
}'
