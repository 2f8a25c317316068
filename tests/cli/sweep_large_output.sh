#!/bin/sh
# A sweep of at least 16,384 cases writes its rows through a 1 MiB buffer (cmd_sweep.c,
# issue 47); this checks what that buffer must not change:
# - the rows are the same bytes whether they go to --output or to standard output through
#   a pipe (both buffered), and each row of shard 1/2 (8,192 cases: unbuffered) is the
#   same case's row of the whole sweep;
# - a full disk still stops the sweep at the first buffer it cannot write (issue 15):
#   with 1 MiB allowed, it stops after more than 0 and fewer than all 16,384 cases, says
#   why and leaves no file behind.
#   sweep_large_output.sh GCSIM WORK_DIR
set -u
gcsim=$1 work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1
fail=0
say() { echo "FAIL: $*"; fail=1; }

# 4 models x 4 compressors x 4 collectives x 256 GPU counts = 16,384 cases
grid="--model resnet-50,alexnet,vgg-16,googlenet --compressor none,fp16,terngrad,qsgd
      --collective ring,hierarchical,halving-doubling,double-tree --no-progress"
# shellcheck disable=SC2086
n=$("$gcsim" sweep $grid --gpus 1,2,3,...,256 --count | cut -d' ' -f1)
[ "$n" = 16384 ] || say "the grid has $n cases, not 16384"

# shellcheck disable=SC2086
"$gcsim" sweep $grid --gpus 1,2,3,...,256 --output big.csv 2>/dev/null || say "sweep --output: exit $?"
# shellcheck disable=SC2086
"$gcsim" sweep $grid --gpus 1,2,3,...,256 2>/dev/null | cat >piped.csv
cmp -s big.csv piped.csv || say "--output and standard output differ"
[ "$(wc -l <big.csv)" -eq 16385 ] || say "big.csv has $(wc -l <big.csv) lines, not 16,385"

# Shard 1/2 (8,192 cases: under the threshold, unbuffered): each of its rows is the row of
# the same case in the buffered sweep, byte for byte (the case column is the unsharded
# index and the cases column the unsharded total).
# shellcheck disable=SC2086
"$gcsim" sweep $grid --gpus 1,2,3,...,256 --shard 1/2 --output half.csv 2>/dev/null ||
    say "shard 1/2: exit $?"
[ "$(($(wc -l <half.csv) - 1))" -eq 8192 ] || say "shard 1/2 has $(wc -l <half.csv) lines"
tail -n +2 big.csv | sort >big.sorted
tail -n +2 half.csv | sort >half.sorted
[ -z "$(comm -23 half.sorted big.sorted | head -n 1)" ] ||
    say "a row of the unbuffered shard is not the buffered sweep's"

# full disk: 2,048 blocks of 512 bytes allowed (RLIMIT_FSIZE; SIGXFSZ ignored: EFBIG)
# shellcheck disable=SC2086
( trap '' XFSZ; ulimit -f 2048; exec "$gcsim" sweep $grid --gpus 1,2,3,...,256 \
    --output full.csv ) 2>&1 | cat >err
grep -q "stopped after [0-9]* of 16384 cases" err || say "sweep on a full disk: $(cat err)"
k=$(sed -n 's/.*stopped after \([0-9]*\) of 16384 cases.*/\1/p' err)
[ -n "$k" ] && [ "$k" -gt 0 ] && [ "$k" -lt 16384 ] || say "the sweep ran to case $k of 16384"
grep -q "full.csv: write failed: File too large" err || say "reason missing: $(cat err)"
ls full.csv* 2>/dev/null && say "the sweep left files behind"
[ $fail -eq 0 ] && echo "PASS"
exit $fail
