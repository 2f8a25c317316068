#!/bin/sh
# The same command under `ulimit -v` 600 MB, 2 GB and no limit prints the same bytes, or
# refuses (exit 2, a message, nothing on stdout) (issue 45, item 1). The stacks' tuner
# turned a schedule it could not build within the memory budget into an infinite time, so
# the ring was timed instead of the double tree: predict at 131,072 GPUs printed three
# throughputs (639,156, 3,143,064 and 174,627,914 samples/s) under these three limits.
# At least the unlimited run must answer, so that refusing everywhere cannot pass.
# Left out under AddressSanitizer, which reserves terabytes of address space.
#   memory_independent.sh GCSIM SOURCE_DIR WORK_DIR
set -u
gcsim=$1 src=$2 work=$3
if [ -n "${ASAN_OPTIONS:-}" ]; then
    echo "PASS: skipped under AddressSanitizer (no address-space limit possible)"
    exit 0
fi
rm -rf "$work" && mkdir -p "$work" || exit 1
fail=0
say() { echo "FAIL: $*"; fail=1; }
# h100-ndr with 131,072 nodes (2^20 GPUs), its codec profiles beside it
sed 's/"nodes": 64,/"nodes": 131072,/' "$src/platforms/h100-ndr.json" >"$work/h100-2p20.json"
grep -q '"nodes": 131072,' "$work/h100-2p20.json" || say "cannot make a 131,072-node platform"
[ -d "$src/platforms/codec" ] && cp -r "$src/platforms/codec" "$work/"
model=$src/models/resnet-50.json
pf=$work/h100-2p20.json
n=0
check() { # NAME ARGS...: the command under the three limits
    name=$1
    shift
    n=$((n + 1))
    for limit in 600000 2000000 unlimited; do
        timeout 300 sh -c 'ulimit -v "$0"; exec "$@"' "$limit" "$gcsim" "$@" \
            >"$work/$n.$limit.out" 2>"$work/$n.$limit.err"
        echo $? >"$work/$n.$limit.rc"
    done
    [ "$(cat "$work/$n.unlimited.rc")" -eq 0 ] && [ -s "$work/$n.unlimited.out" ] ||
        { say "$name: exit $(cat "$work/$n.unlimited.rc") without a limit"; cat "$work/$n.unlimited.err"; }
    for limit in 600000 2000000; do
        rc=$(cat "$work/$n.$limit.rc")
        if [ "$rc" -eq 0 ]; then
            cmp -s "$work/$n.$limit.out" "$work/$n.unlimited.out" ||
                say "$name: under ulimit -v $limit another answer than without a limit"
        elif [ "$rc" -eq 2 ]; then
            [ -s "$work/$n.$limit.out" ] && say "$name: refused under ulimit -v $limit with output"
            [ -s "$work/$n.$limit.err" ] || say "$name: refused under ulimit -v $limit without a message"
        else
            say "$name: exit $rc under ulimit -v $limit (expected 0 or 2)"
            cat "$work/$n.$limit.err"
        fi
    done
}
# The stack's tuner (pytorch-ddp, no collective named) per call
check "predict 131072 GPUs" predict --platform "$pf" --model "$model" --gpus 131072 --format csv
# 2^19 GPUs: the double tree's template (about 1.1 GiB) is refused under 600 MB, as it must be
check "predict 524288 GPUs" predict --platform "$pf" --model "$model" --gpus 524288 --format csv
check "predict 2..131072 GPUs, fp16" predict --platform "$pf" --model "$model" --compressor fp16 \
    --gpus 2,1024,16384,131072 --format csv
check "sweep" sweep --platform "$pf" --model "$model" --compressor none,fp16 --gpus 65536,131072
# plan skipped the double tree it could not build as it skips what the input rules out, and
# answered "no feasible configuration" under 600 MB (the ring's 639,578 samples/s)
check "plan" plan --platform "$pf" --model "$model" --target-throughput 1e8 --gpus 8,262144 \
    --collectives ring,double-tree --format csv
check "collective" collective --platform "$pf" --gpus 131072 --sizes 8B,1MiB,1GiB --engine analytic
[ $fail -eq 0 ] && echo "PASS: $n commands print the same bytes under ulimit -v 600 MB, 2 GB and none, or refuse"
exit $fail
