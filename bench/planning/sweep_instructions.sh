#!/bin/sh
# Instructions per sweep case, counted by valgrind's callgrind (issue 47): on a 2-core
# machine shared with other jobs, CPU seconds of paired runs move by 10-20% from one run
# to the next, so a change of a few percent on the per-case path cannot be seen in them;
# an instruction count can (it does not depend on the load). Runs a small grid
# (a100-hdr x 5 models x none,fp16,terngrad x 4 collectives x GPU counts 1..MAX_GPUS:
# no data-dependent compressor, whose payload plans would be most of the count) once as
# a sweep and once with --count (start-up), and prints both counts, the instructions per
# case after start-up and the functions with the most inclusive instructions (TOP of
# them). With REF=OTHER_GCSIM, the same for it and NEW / REF. A bench, never a test
# (valgrind: about 50x slower than a plain run).
#
# usage: bench/planning/sweep_instructions.sh [GCSIM [SOURCE_DIR]]
#   env: MAX_GPUS (default 64), TOP (default 25), REF=GCSIM, COLLECTIVES (default
#   ring,hierarchical,halving-doubling,double-tree: the grid without the double tree, or the
#   double tree alone, to see its share)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${2:-$(cd "$here/../.." && pwd)}
gcsim=${1:-$src/build/sim/cli/gcsim}
max=${MAX_GPUS:-64}
top=${TOP:-25}
command -v valgrind > /dev/null || { echo "sweep_instructions: valgrind is not installed" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
p=$src/platforms m=$src/models
set -- --platform "$p/a100-hdr.json" \
       --model "$m/resnet-50.json,$m/alexnet.json,$m/vgg-16.json,$m/googlenet.json,$m/bert-base.json" \
       --compressor none,fp16,terngrad \
       --collective "${COLLECTIVES:-ring,hierarchical,halving-doubling,double-tree}" \
       --gpus "1,2,3,...,$max" --no-progress

# instructions G ARGS... -> the total instructions of `G ARGS...` (callgrind's "Collected")
instructions() {
    g=$1
    shift
    valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$g" "$@" 2> "$tmp/vg.err" > /dev/null
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/vg.err"
}

cases=$("$gcsim" sweep "$@" --count | cut -d' ' -f1)
echo "cases                        $cases"
sides=new
[ -z "${REF:-}" ] || sides="new ref"
for d in $sides; do
    if [ "$d" = new ]; then g=$gcsim; else g=$REF; fi
    c=$(instructions "$g" sweep "$@" --count)
    s=$(instructions "$g" sweep "$@" --output "$tmp/$d.csv")
    cp "$tmp/cg.out" "$tmp/$d.cg"
    echo "$d $s $c" >> "$tmp/figures"
    awk -v d="$d" -v n="$cases" -v s="$s" -v c="$c" 'BEGIN {
        printf "%s: sweep %d instructions, start-up (--count) %d, after start-up %.0f per case\n",
            d, s, c, (s - c) / n }'
done
if [ -n "${REF:-}" ]; then
    awk '{s[$1] = $2; c[$1] = $3} END {
        printf "new / ref instructions: sweep %.4f, after start-up %.4f\n", s["new"] / s["ref"],
            (s["new"] - c["new"]) / (s["ref"] - c["ref"]) }' "$tmp/figures"
    cmp -s "$tmp/new.csv" "$tmp/ref.csv" && echo "sweep CSVs: identical" || echo "sweep CSVs: DIFFERENT"
fi
echo "new: the $top functions with the most inclusive instructions (the sweep's run)"
callgrind_annotate --inclusive=yes "$tmp/new.cg" 2> /dev/null |
    awk '/^-+$/ {rule++; next} rule >= 4 && NF >= 3 && $1 ~ /^[0-9,]+$/ {print}' |
    sed 's/ \[[^]]*\]$//' | head -n "$top"
