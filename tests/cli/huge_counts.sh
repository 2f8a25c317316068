#!/bin/sh
# predict, plan, breakeven and collective at 2^20 GPUs answer, or refuse naming the limit,
# in 4 GiB of address space (issue 45, item 4: predict held 14.6 GB, the tuner keeping up
# to 16 listed schedules; plan did not answer in 10 minutes). No timing is asserted
# (bench/planning/huge_counts.sh measures); `timeout` only turns a hang into a failure.
# Left out under AddressSanitizer, which reserves terabytes of address space.
#   huge_counts.sh GCSIM SOURCE_DIR WORK_DIR
set -u
gcsim=$1 src=$2 work=$3
if [ -n "${ASAN_OPTIONS:-}" ]; then
    echo "PASS: skipped under AddressSanitizer (no address-space limit possible)"
    exit 0
fi
rm -rf "$work" && mkdir -p "$work" || exit 1
fail=0
say() { echo "FAIL: $*"; fail=1; }
sed 's/"nodes": 64,/"nodes": 131072,/' "$src/platforms/h100-ndr.json" >"$work/h100-2p20.json"
grep -q '"nodes": 131072,' "$work/h100-2p20.json" || say "cannot make a 131,072-node platform"
[ -d "$src/platforms/codec" ] && cp -r "$src/platforms/codec" "$work/"
model=$src/models/resnet-50.json
pf=$work/h100-2p20.json
n=0
# run EXPECT NAME ARGS...: EXPECT "answer" (exit 0, or 1 for a plan nothing meets, with
# output), "refuse" (exit 2, nothing on stdout, a message with FRAGMENT), or "either"
run() {
    expect=$1 fragment=$2 name=$3
    shift 3
    n=$((n + 1))
    timeout 600 sh -c 'ulimit -v 4194304; exec "$@"' sh "$gcsim" "$@" >"$work/$n.out" 2>"$work/$n.err"
    rc=$?
    case "$rc" in
    0 | 1) [ "$expect" = refuse ] && say "$name: exit $rc, expected a refusal"
           [ -s "$work/$n.out" ] || say "$name: exit $rc without output" ;;
    2) [ "$expect" = answer ] && { say "$name: refused, expected an answer"; cat "$work/$n.err"; }
       [ -s "$work/$n.out" ] && say "$name: refused with output"
       grep -q -- "$fragment" "$work/$n.err" || { say "$name: the refusal does not say \"$fragment\""; cat "$work/$n.err"; } ;;
    *) say "$name: exit $rc (124: hung; expected 0, 1 or 2)"; cat "$work/$n.err" ;;
    esac
}
# the stack's tuner at 2^20: one double-tree template, about 2.1 GiB
run answer "" "predict 2^20" predict --platform "$pf" --model "$model" --gpus 1048576 --format csv
run answer "" "collective 2^20" collective --platform "$pf" --gpus 1048576 --sizes 1MiB,1GiB \
    --engine analytic
# plan costs the trees up to 262,144 GPUs and says so; without them it searches 2^20
run refuse "plan costs them on up to 262144 GPUs" "plan 2^20" plan --platform "$pf" \
    --model "$model" --target-throughput 1e9 --format csv
run answer "" "plan 2^20 without trees" plan --platform "$pf" --model "$model" \
    --target-throughput 1e9 --collectives ring,halving-doubling,hierarchical,ps,allgather --format csv
run answer "" "plan 2^20, trees on up to 2^18" plan --platform "$pf" --model "$model" \
    --target-throughput 1e7 --gpus 1024,2048,4096,...,262144 --format csv
run answer "" "breakeven 2^20" breakeven --platform "$pf" --model "$model" --compressor fp16 \
    --gpus 1048576 --collective halving-doubling --format csv
[ $fail -eq 0 ] && echo "PASS: $n commands at 2^20 GPUs answered or refused in 4 GiB"
exit $fail
