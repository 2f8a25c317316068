#!/bin/sh
# The analytic double tree's cost (issue 47), as ratios measured in the same run:
#   1. `predict --platform a100-hdr --model resnet-50 --gpus 1048576` (a100-hdr with 131,072
#      nodes; the default collective, tuned per call: the double tree) against the process
#      start, `gcsim --version`: CPU s of each and their ratio (the issue's target: < 1 CPU s);
#   2. the double tree's sweep cases alone (a100-hdr and h100-ndr x 5 models x 6 compressors
#      x GPU counts 1..256: 15,360 cases) in cases per CPU s, overall and after start-up (the
#      same command with --count), against the bare closed-form printf loop
#      (bench/planning/bare_sweep.c, the same number of rows) and the ratio of the two rates.
# Each figure is the median of RUNS runs of the whole process (user + sys CPU s from
# /usr/bin/time), the commands taking turns. With a second binary REF (the base, say), the
# same figures for it and NEW / REF per figure. A bench, never a test.
#
# usage: bench/planning/tree_bench.sh NEW_GCSIM [REF_GCSIM [BARE_SWEEP [SOURCE_DIR]]]
#   env: RUNS (default 5)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
new=$1
ref=${2:-}
src=${4:-$(cd "$here/../.." && pwd)}
bare=${3:-$src/build/bench/planning/bare_sweep}
runs=${RUNS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sed 's/"nodes": 64,/"nodes": 131072,/' "$src/platforms/a100-hdr.json" >"$tmp/a100-2p20.json"
grep -q '"nodes": 131072,' "$tmp/a100-2p20.json" || { echo "tree_bench: a100-hdr.json: no \"nodes\": 64" >&2; exit 2; }
[ -d "$src/platforms/codec" ] && cp -r "$src/platforms/codec" "$tmp/"
p=$src/platforms m=$src/models
set -- --platform "$p/a100-hdr.json,$p/h100-ndr.json" \
       --model "$m/resnet-50.json,$m/alexnet.json,$m/vgg-16.json,$m/googlenet.json,$m/bert-base.json" \
       --compressor none,fp16,terngrad,qsgd,dgc,powersgd --collective double-tree \
       --gpus 1,2,3,...,256 --no-progress

cpu() { # command... -> user+sys CPU seconds of the whole process
    /usr/bin/time -f "%U %S" -o "$tmp/time" "$@" >/dev/null 2>&1 || true
    awk '{printf "%.3f\n", $1 + $2}' "$tmp/time"
}
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

cases=$("$new" sweep "$@" --count | cut -d' ' -f1)
bare_cases=$("$bare" 2 5 6 1 256 2>&1 >/dev/null)
[ "$bare_cases" = "$cases" ] || { echo "tree_bench: bare loop $bare_cases cases, sweep $cases" >&2; exit 2; }
sides="new"
[ -z "$ref" ] || sides="new ref"
for s in $sides; do : >"$tmp/$s.version"; : >"$tmp/$s.predict"; : >"$tmp/$s.sweep"; : >"$tmp/$s.count"; done
: >"$tmp/bare"
i=0
while [ "$i" -lt "$runs" ]; do
    for s in $sides; do
        if [ "$s" = new ]; then g=$new; else g=$ref; fi
        cpu "$g" --version >>"$tmp/$s.version"
        cpu "$g" predict --platform "$tmp/a100-2p20.json" --model "$m/resnet-50.json" \
            --gpus 1048576 >>"$tmp/$s.predict"
        cpu "$g" sweep "$@" --output "$tmp/$s.csv" >>"$tmp/$s.sweep"
        cpu "$g" sweep "$@" --count >>"$tmp/$s.count"
    done
    cpu "$bare" 2 5 6 1 256 >>"$tmp/bare"
    i=$((i + 1))
done
if [ -n "$ref" ]; then
    cmp -s "$tmp/new.csv" "$tmp/ref.csv" && same="identical" || same="DIFFERENT"
fi
b=$(median <"$tmp/bare")
echo "runs $runs (medians), double-tree sweep cases $cases; CPU s = user + sys of the whole process"
for s in $sides; do
    v=$(median <"$tmp/$s.version") pr=$(median <"$tmp/$s.predict")
    sw=$(median <"$tmp/$s.sweep") co=$(median <"$tmp/$s.count")
    echo "$s $v $pr $sw $co" >>"$tmp/figures"
    awk -v s="$s" -v v="$v" -v pr="$pr" -v sw="$sw" -v co="$co" -v n="$cases" -v b="$b" 'BEGIN {
        if (v <= 0) v = 0.001; run = sw - co; if (run <= 0) run = 0.001; if (b <= 0) b = 0.001
        printf "%s: --version %.3f s; predict 2^20 GPUs %.3f s = %.1fx the start\n", s, v, pr, pr / v
        printf "%s: sweep %.3f s (start-up %.3f): %.0f cases/CPU-s overall, %.0f after start-up\n", s, sw, co, n / sw, n / run
        printf "%s: bare loop %.3f s, %.0f cases/CPU-s: %.1fx the sweep overall, %.1fx after start-up\n", s, b, n / b, sw / b, run / b
    }'
done
if [ -n "$ref" ]; then
    awk '{v[$1] = $2; p[$1] = $3; s[$1] = $4; c[$1] = $5} END {
        printf "new / ref: predict 2^20 %.3f, sweep %.3f, sweep after start-up %.3f\n",
            p["new"] / p["ref"], s["new"] / s["ref"],
            (s["new"] - c["new"]) / ((s["ref"] - c["ref"]) > 0 ? s["ref"] - c["ref"] : 0.001)
    }' "$tmp/figures"
    echo "sweep CSVs: $same"
fi
