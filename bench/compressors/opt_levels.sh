#!/bin/sh
# The compressors' encoders at -O3 against -O2 (issue 47): configures and builds
# bench_codec_model twice, RelWithDebInfo (-O2, the default build) and Release (-O3), runs
# the two in turn RUNS times and prints, per spec, the medians of the encode time over
# memcpy's (measured in the same process), of measured / model (the codec cost model priced
# at that process's own reference rates, bench_refs.h), and the ratio -O3 / -O2 of the
# encode time over memcpy's. Goals: -O3 / -O2 <= 1 and measured / model <= 1.5 in both
# builds; exit 1 when a median misses one (a bench, never a test: it depends on the load).
#
# usage: bench/compressors/opt_levels.sh [SOURCE_DIR]
#   env: RUNS (default 3), SPECS (default "powersgd:rank=1 powersgd:rank=4"), N (gradient
#   elements, default 16777216), O2_BUILD / O3_BUILD (default SOURCE_DIR/build-o2, -o3)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=${1:-$(cd "$here/../.." && pwd)}
runs=${RUNS:-3}
specs=${SPECS:-"powersgd:rank=1 powersgd:rank=4"}
n=${N:-16777216}
o2=${O2_BUILD:-$src/build-o2}
o3=${O3_BUILD:-$src/build-o3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for b in "$o2:RelWithDebInfo" "$o3:Release"; do
    dir=${b%:*}
    cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE="${b#*:}" > /dev/null
    cmake --build "$dir" --target bench_codec_model -j2 > /dev/null
done

# one run of one build -> lines "spec model_x_memcpy measured_x_memcpy" appended to $2
run() {
    rc=0
    # shellcheck disable=SC2086 # SPECS is a list
    "$1/bench/compressors/bench_codec_model" --n "$n" $specs > "$tmp/out" || rc=$?
    [ "$rc" -le 1 ] || { cat "$tmp/out" >&2; exit 2; } # 1: outside the bench's own factor 3
    awk -v specs=" $specs " 'index(specs, " " $1 " ") && NF >= 7 {print $1, $5, $6}' \
        "$tmp/out" >> "$2"
}
i=0
while [ "$i" -lt "$runs" ]; do
    run "$o2" "$tmp/o2"
    run "$o3" "$tmp/o3"
    i=$((i + 1))
done

median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
echo "encode at -O3 (Release) against -O2 (RelWithDebInfo), $n elements, medians of $runs runs"
printf '%-24s %12s %12s %12s %12s %8s %s\n' spec "O2 x mcpy" "O3 x mcpy" "O2 meas/mod" \
    "O3 meas/mod" "O3/O2" verdict
fail=0
for s in $specs; do
    m2=$(awk -v s="$s" '$1 == s {print $3}' "$tmp/o2" | median)
    m3=$(awk -v s="$s" '$1 == s {print $3}' "$tmp/o3" | median)
    q2=$(awk -v s="$s" '$1 == s {print $3 / $2}' "$tmp/o2" | median)
    q3=$(awk -v s="$s" '$1 == s {print $3 / $2}' "$tmp/o3" | median)
    line=$(awk -v m2="$m2" -v m3="$m3" -v q2="$q2" -v q3="$q3" -v s="$s" 'BEGIN {
        r = m3 / m2; ok = r <= 1 && q2 <= 1.5 && q3 <= 1.5
        printf "%-24s %12.3f %12.3f %12.2f %12.2f %8.3f %s\n", s, m2, m3, q2, q3, r,
               ok ? "ok" : "MISSED (goal: O3/O2 <= 1, meas/model <= 1.5)"}')
    echo "$line"
    case $line in *MISSED*) fail=1 ;; esac
done
exit "$fail"
