#!/bin/sh
# The sweep's per-case path against its floor (issue 47): `gcsim sweep` over a grid of
# platforms x models x compressors x collectives x GPU counts 1..256, against bare_sweep
# (bench/planning/bare_sweep.c: the same number of cases, each an alpha-beta closed form and
# one printf'd CSV row of the sweep's 36 columns). Runs the sweep, the sweep with --count
# (start-up: inputs and payload plans) and the bare loop in turn RUNS times, CPU seconds
# (user+sys, /usr/bin/time) of each whole process, and prints the medians, the rates in
# cases per CPU-second and the ratio of the bare loop's rate to the sweep's after start-up
# (how many times the floor's cost a case pays). A bench, never a test.
#
# With REF=OTHER_GCSIM (the base binary, say), the same figures for it, the commands of
# both binaries taking turns in each run, then NEW / REF per figure and whether the two
# CSVs are byte-identical (cmp).
#
# With SPLIT=1, the same grid once more in two parts, each with its own --count, in turn
# in each run: the double tree's quarter of the cases and the other three collectives'
# three quarters, and the double tree's share of the CPU seconds after start-up (the part
# of the per-case path that the trees' costing in sim/collectives decides).
#
# usage: bench/planning/sweep_vs_bare.sh [GCSIM [BARE_SWEEP [SOURCE_DIR]]]
#   env: RUNS (default 3); FULL=1 for the 307,200-case grid of sweep_307k.sh (10 platforms),
#   else its first 2 platforms (61,440 cases); OUT=FILE keeps the last sweep's CSV;
#   REF=GCSIM a second binary to compare with; SPLIT=1 the split by collective.
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
models="$m/resnet-50.json,$m/alexnet.json,$m/vgg-16.json,$m/googlenet.json,$m/bert-base.json"
set -- --platform "$plats" --model "$models" \
       --compressor none,fp16,terngrad,qsgd,dgc,powersgd \
       --collective ring,hierarchical,halving-doubling,double-tree \
       --gpus 1,2,3,...,256 --no-progress
on_grid() { # COLLECTIVES COMMAND... -> COMMAND with the grid's arguments for COLLECTIVES
    k=$1
    shift
    "$@" --platform "$plats" --model "$models" --compressor none,fp16,terngrad,qsgd,dgc,powersgd \
         --collective "$k" --gpus 1,2,3,...,256 --no-progress
}

cpu() { # command... -> user+sys CPU seconds of the whole process
    /usr/bin/time -f "%U %S" -o "$tmp/time" "$@" > /dev/null 2>&1
    awk '{printf "%.3f\n", $1 + $2}' "$tmp/time"
}
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

cases=$("$gcsim" sweep "$@" --count | cut -d' ' -f1)
ref=${REF:-}
sides="new"
[ -z "$ref" ] || sides="new ref"
for d in $sides; do : > "$tmp/$d.sweep"; : > "$tmp/$d.count"; done
: > "$tmp/bare"
i=0
while [ "$i" -lt "$runs" ]; do
    for d in $sides; do
        if [ "$d" = new ]; then g=$gcsim; else g=$ref; fi
        cpu "$g" sweep "$@" --output "$tmp/$d.csv" >> "$tmp/$d.sweep"
        cpu "$g" sweep "$@" --count >> "$tmp/$d.count"
    done
    cpu "$bare" "$np" 5 6 4 256 >> "$tmp/bare"
    if [ "${SPLIT:-0}" = 1 ]; then
        for part in tree rest; do
            if [ "$part" = tree ]; then k=double-tree; else k=ring,hierarchical,halving-doubling; fi
            on_grid "$k" cpu "$gcsim" sweep --output "$tmp/$part.csv" >> "$tmp/$part.sweep"
            on_grid "$k" cpu "$gcsim" sweep --count >> "$tmp/$part.count"
        done
    fi
    i=$((i + 1))
done
[ -z "${OUT:-}" ] || cp "$tmp/new.csv" "$OUT"
bare_cases=$("$bare" "$np" 5 6 4 256 2>&1 > /dev/null)
[ "$bare_cases" = "$cases" ] || { echo "bare loop: $bare_cases cases, sweep: $cases" >&2; exit 2; }
b=$(median < "$tmp/bare")
printf "cases                          %d\n" "$cases"
for d in $sides; do
    s=$(median < "$tmp/$d.sweep") l=$(median < "$tmp/$d.count")
    echo "$d $s $l" >> "$tmp/figures"
    awk -v d="$d" -v n="$cases" -v s="$s" -v l="$l" -v b="$b" -v r="$runs" 'BEGIN {
        run = s - l; if (run <= 0) run = 0.001; if (b <= 0) b = 0.001
        printf "%s: sweep, CPU s (median of %d)     %.3f  -> %.0f cases per CPU-s overall\n", d, r, s, n / s
        printf "%s:   start-up (--count)           %.3f\n", d, l
        printf "%s:   after start-up               %.3f  -> %.0f cases per CPU-s\n", d, run, n / run
        printf "%s: ratio bare / sweep (per case)  %.1f overall, %.1f after start-up\n", d, (n / b) / (n / s), (n / b) / (n / run)
    }'
done
awk -v n="$cases" -v b="$b" 'BEGIN { if (b <= 0) b = 0.001
    printf "bare loop, CPU s               %.3f  -> %.0f cases per CPU-s\n", b, n / b }'
if [ "${SPLIT:-0}" = 1 ]; then
    ts=$(median < "$tmp/tree.sweep") tc=$(median < "$tmp/tree.count")
    rs=$(median < "$tmp/rest.sweep") rc=$(median < "$tmp/rest.count")
    awk -v n="$cases" -v ts="$ts" -v tc="$tc" -v rs="$rs" -v rc="$rc" 'BEGIN {
        t = ts - tc; r = rs - rc; if (t <= 0) t = 0.001; if (r <= 0) r = 0.001
        printf "split: double tree (%d cases)   %.3f - %.3f start-up = %.3f CPU s -> %.0f cases per CPU-s\n", n / 4, ts, tc, t, n / 4 / t
        printf "split: the other three (%d)     %.3f - %.3f start-up = %.3f CPU s -> %.0f cases per CPU-s\n", n * 3 / 4, rs, rc, r, n * 3 / 4 / r
        printf "split: double tree share of the CPU after start-up  %.0f%%\n", 100 * t / (t + r)
    }'
fi
if [ -n "$ref" ]; then
    awk '{s[$1] = $2; c[$1] = $3} END {
        rn = s["new"] - c["new"]; rr = s["ref"] - c["ref"]; if (rr <= 0) rr = 0.001
        printf "new / ref CPU: sweep %.3f, start-up %.3f, after start-up %.3f\n",
            s["new"] / s["ref"], c["new"] / (c["ref"] > 0 ? c["ref"] : 0.001), rn / rr
    }' "$tmp/figures"
    cmp -s "$tmp/new.csv" "$tmp/ref.csv" && echo "sweep CSVs: identical" || echo "sweep CSVs: DIFFERENT"
fi
