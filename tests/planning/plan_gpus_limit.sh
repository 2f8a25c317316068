#!/bin/sh
# gcsim plan --gpus at its limit, 65,536 listed counts, and one past it (issue 29: every
# input that grows has a documented limit and a linear-time path to it), in 1 GiB of
# address space (left out under AddressSanitizer, which reserves terabytes of shadow).
# At the limit: exit 0, one row, and the bounded search evaluates a few dozen of the
# 65,536 counts (issue 28), not all of them. One past: exit 2, the limit named, nothing on
# standard output.
#   plan_gpus_limit.sh GCSIM SOURCE_DIR WORK_DIR
set -u
gcsim=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
[ -n "${ASAN_OPTIONS:-}" ] || ulimit -v 1048576
fail=0
say() { echo "FAIL: $*"; fail=1; }
# 8,192 A100 nodes: 65,536 GPUs, so every listed count can run.
sed 's/"nodes": 64,/"nodes": 8192,/' "$src/platforms/a100-hdr.json" >"$work/a100-8192.json"
grep -q '"nodes": 8192,' "$work/a100-8192.json" || say "cannot make the 8,192-node platform"
# ring: its closed form is O(N) per count; 2e5 samples/s needs a few hundred A100s (a flat
# ring of 65,536 reaches about 295,000)
"$gcsim" plan --model "$src/models/resnet-50.json" --platform "$work/a100-8192.json" \
    --compressors none --collectives ring --target-throughput 2e5 --gpus 1,2,3,...,65536 \
    --format json >"$work/limit.json" 2>"$work/limit.err"
rc=$?
[ $rc -eq 0 ] || { say "65,536 counts: exit $rc"; head -c 300 "$work/limit.err"; }
evaluated=$(sed -n 's/^[[:space:]]*"configurations_evaluated":[[:space:]]*\([0-9]*\),*$/\1/p' "$work/limit.json")
echo "65,536 listed counts: $evaluated evaluated"
[ -n "$evaluated" ] && [ "$evaluated" -ge 10 ] && [ "$evaluated" -le 120 ] ||
    say "65,536 listed counts: '$evaluated' evaluated, expected a few dozen (at most 120)"
rows=$(grep -c '"gpus":' "$work/limit.json")
[ "$rows" -eq 1 ] || say "65,536 listed counts: $rows rows, expected 1"
"$gcsim" plan --model "$src/models/resnet-50.json" --platform "$work/a100-8192.json" \
    --compressors none --collectives ring --target-throughput 2e5 --gpus 1,2,3,...,65537 \
    --format csv >"$work/past.out" 2>"$work/past.err"
rc=$?
[ $rc -eq 2 ] || say "65,537 counts: exit $rc, expected 2"
grep -q "more than 65536 counts" "$work/past.err" || say "65,537 counts: stderr lacks the limit: $(head -c 300 "$work/past.err")"
[ -s "$work/past.out" ] && say "65,537 counts: wrote to standard output"
exit $fail
