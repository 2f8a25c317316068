#!/bin/sh
# Runs every libFuzzer target of tests/fuzz/ for a given time and reports executions.
#
#   tests/fuzz/run_all.sh SECONDS_PER_TARGET [BUILD_DIR] [JOBS] [TARGET...]
#
# BUILD_DIR (default build-fuzz next to the sources) must be configured with
#   cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DGCSIM_FUZZ=ON
# and is built here. JOBS targets run at the same time (default 1; the machine is shared).
# Each target starts from a scratch copy of its committed corpus (the committed one is
# never modified); findings (crash-*, leak-*, timeout-*, oom-*) land in
# BUILD_DIR/fuzz-runs/<target>/artifacts/. Exit status 1 when any target found something.
# libFuzzer also saves inputs slower than -report_slow_units there (slow-unit-*): they are
# reported, but they are not findings.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
secs=${1:?usage: run_all.sh SECONDS_PER_TARGET [BUILD_DIR] [JOBS] [TARGET...]}
build=${2:-$src/build-fuzz}
jobs=${3:-1}
[ $# -gt 3 ] && shift 3 || set --
targets=${*:-"platform model spec decode safetensors npy baseline nccl_log size_list options"}

for t in $targets; do
    cmake --build "$build" -j2 --target "fuzz_$t" >"$build/fuzz-build-$t.log" 2>&1 ||
        echo "$t: fuzz_$t does not build (see $build/fuzz-build-$t.log)"
done

run_one() {
    t=$1
    bin=$build/tests/fuzz/fuzz_$t
    if [ ! -x "$bin" ]; then
        echo "$t: no $bin (target not built in this tree)"; return 0
    fi
    dir=$build/fuzz-runs/$t
    rm -rf "$dir" && mkdir -p "$dir/corpus" "$dir/artifacts"
    cp "$here/corpus/$t"/* "$dir/corpus/" 2>/dev/null
    dict=""
    [ -f "$here/dict/$t.dict" ] && dict="-dict=$here/dict/$t.dict"
    # -timeout: one input over 10 s is a hang; -rss_limit_mb: leave room for other agents.
    "$bin" "$dir/corpus" $dict -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$dir/artifacts/" \
        >"$dir/log" 2>&1
    rc=$?
    runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1/p' "$dir/log" | tail -1)
    took=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\2/p' "$dir/log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$dir/log" | tail -1)
    finds=$(sh "$here/count_findings.sh" "$dir/artifacts")
    slow=$(ls "$dir/artifacts" | grep -c '^slow-unit-')
    if [ -n "$runs" ] && [ "${took:-0}" -gt 0 ]; then
        echo "$t: $runs executions in $took s = $((runs / took)) exec/s, $cov, corpus $(ls "$dir/corpus" | wc -l) files, findings $finds, slow units $slow, exit $rc"
    else
        echo "$t: stopped early (exit $rc), findings $finds: see $dir/log"
        grep -m3 -E 'ERROR|SUMMARY|contract broken' "$dir/log"
    fi
    [ "$rc" -eq 0 ] && [ "$finds" -eq 0 ]
}

status=0
running=0
pids=""
for t in $targets; do
    run_one "$t" &
    pids="$pids $!"
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        for p in $pids; do wait "$p" || status=1; done
        pids=""; running=0
    fi
done
for p in $pids; do wait "$p" || status=1; done
exit $status
