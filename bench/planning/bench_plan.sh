#!/bin/sh
# gcsim plan's search (issue 28): the catalog's a100-hdr + ResNet-50 plan (90 ImageNet
# epochs in 4 h within $500, the default 3 compressors x 7 collectives), and the same on
# copies of a100-hdr with 150 nodes (1,200 GPUs) and 12,500 nodes (100,000 GPUs). For
# each: CPU seconds (user+sys of the whole process, /usr/bin/time; median of RUNS), peak
# resident memory (MiB), the configurations evaluated, and whether the answer (the CSV) is
# the exhaustive search's (--search exhaustive, run once; skipped with EXHAUSTIVE=0 or
# above 1,200 GPUs, where it takes minutes). COLLECTIVES overrides the collective list.
#
# usage: bench/planning/bench_plan.sh [GCSIM [SOURCE_DIR]]   (env: RUNS=3, SIZES="64 150 12500",
#        EXHAUSTIVE=1, COLLECTIVES=LIST)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${2:-$(cd "$here/../.." && pwd)}
gcsim=${1:-$src/build/sim/cli/gcsim}
runs=${RUNS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
echo "nodes gpus cpu_s(median of $runs) peak_mib evaluated same_as_exhaustive"
for nodes in ${SIZES:-64 150 12500}; do
    sed "s/\"nodes\": 64,/\"nodes\": $nodes,/" "$src/platforms/a100-hdr.json" >"$tmp/p.json"
    set -- plan --model "$src/models/resnet-50.json" --platform "$tmp/p.json" --epochs 90 \
        --dataset-size 1281167 --deadline 4 --budget 500 --top 0
    [ -n "${COLLECTIVES:-}" ] && set -- "$@" --collectives "$COLLECTIVES"
    : >"$tmp/cpu"
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "%U %S %M" -o "$tmp/time" "$gcsim" "$@" --format csv >"$tmp/b.csv" 2>/dev/null || true
        awk '{printf "%.2f\n", $1 + $2}' "$tmp/time" >>"$tmp/cpu"
        mib=$(awk '{printf "%.0f", $3 / 1024}' "$tmp/time")
    done
    evaluated=$("$gcsim" "$@" --format json 2>/dev/null |
        sed -n 's/^[[:space:]]*"configurations_evaluated":[[:space:]]*\([0-9]*\),*$/\1/p')
    same=skipped
    if [ "${EXHAUSTIVE:-1}" = 1 ] && [ "$nodes" -le 150 ]; then
        "$gcsim" "$@" --format csv --search exhaustive >"$tmp/e.csv" 2>/dev/null || true
        if cmp -s "$tmp/b.csv" "$tmp/e.csv"; then same=yes; else same=no; fi
    fi
    echo "$nodes $((nodes * 8)) $(median <"$tmp/cpu") $mib $evaluated $same"
done
