#!/bin/sh
# valgrind memcheck on a representative run of every gcsim subcommand (issue 9): good
# inputs and bad ones (the error paths free what they allocated too).
#
#   tests/badinputs/valgrind_runs.sh GCSIM [WORK_DIR]
#
# Each run: valgrind --leak-check=full --error-exitcode=9; a run fails when valgrind
# reports an error or a definite/indirect leak (exit 9), or when gcsim's own exit code is
# not the expected one. Forked DES workers are followed (valgrind traces fork()s).
# Logs: WORK_DIR/<name>.vg. Slow (valgrind is 20-50x): not part of CTest; run by hand.
set -u
gcsim=$1
work=${2:-/tmp/gcsim-valgrind}
src=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work" && mkdir -p "$work" || exit 2
lenet=$src/traces/data/fmnist_lenet/lenet_step000000_rank0.safetensors
lenet10=$src/traces/data/fmnist_lenet/lenet_step000010_rank0.safetensors
bad=$src/tests/badinputs/files
cp "$src/tests/planning/baseline.json" "$work/baseline.json"
# The baseline names platforms/ and models/ relative to a folder above it.
ln -s "$src/platforms" "$work/platforms"
ln -s "$src/models" "$work/models"

failures=0
run() { # NAME EXPECTED_EXIT ARGS...
    name=$1 expected=$2
    shift 2
    valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect \
        --error-exitcode=9 --log-file="$work/$name.vg" "$gcsim" "$@" \
        >"$work/$name.out" 2>"$work/$name.err"
    rc=$?
    summary=$(grep -E "definitely lost|indirectly lost|ERROR SUMMARY|Invalid|uninitialised" \
        "$work/$name.vg" | head -3 | tr '\n' ' ')
    if [ "$rc" -eq "$expected" ]; then
        echo "ok    $name (exit $rc) $summary"
    else
        echo "FAIL  $name: exit $rc, expected $expected: $summary (see $work/$name.vg)"
        failures=$((failures + 1))
    fi
}

run predict_analytic 0 predict --gpus 1,4,16,64 --compressor terngrad
run predict_des 0 predict --engine des --gpus 1,8 --compressor qsgd:s=4 --collective ring
run predict_both_json 0 predict --engine both --gpus 4 --format json --collective hierarchical
run predict_timeline 0 predict --engine des --gpus 8 --timeline "$work/timeline.json"
run predict_bad_platform 2 predict --platform "$bad/platform_leaf_bigger_than_cluster.json"
run predict_bad_spec 2 predict --compressor qsgd:s=0
run trace_info 0 trace info "$lenet" --format json
run trace_info_bad 2 trace info "$bad/st_overlap.safetensors"
run trace_info_npy 0 trace info "$bad/npy_good.npy"
run compress 0 compress --quiet --trace "$lenet" "$lenet10" --compressor qsgd:s=4 \
    --compressor dgc:ratio=0.01 --seeds 2 --per-layer
run compress_nan 2 compress --quiet --trace "$bad/st_nan_f32.safetensors" --compressor qsgd
run sweep 0 sweep --gpus 1,2,4,8 --compressor none,terngrad --engine analytic,des \
    --no-progress --output "$work/sweep.csv"
run sweep_shard1 0 sweep --gpus 1,2,4,8 --compressor none,terngrad --shard 1/2 \
    --no-progress --output "$work/shard1.csv"
run sweep_shard2 0 sweep --gpus 1,2,4,8 --compressor none,terngrad --shard 2/2 \
    --no-progress --output "$work/shard2.csv"
run merge 0 merge --output "$work/merged.csv" "$work/shard1.csv" "$work/shard2.csv"
run merge_bad 2 merge "$work/shard1.csv" "$work/shard1.csv"
run check 0 check --baseline "$work/baseline.json" --engine analytic
run check_update 0 check --baseline "$work/baseline.json" --engine analytic --update
run check_bad 2 check --baseline "$bad/platform_good.json"
run plan 0 plan --target-throughput 2000 --compressors none,terngrad --collectives ring,ps
run plan_bad 2 plan --target-throughput -1
run train 0 train --model softmax --epochs 1 --limit-train 256 --limit-test 128 --batch 32 \
    --workers 2 --compressor qsgd
run train_bad 2 train --workers 3 --batch 32
echo "$failures failing run(s)"
[ "$failures" -eq 0 ]
