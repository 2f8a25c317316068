#!/bin/sh
# The stated limits of gcsim calibrate's log reader: a log over 16 MiB and a log of more
# than 10,000 rows are refused (exit 2, a message naming the file and line, no output).
#   limits.sh GCSIM EXPECT_FAILURE_SH PLATFORM
set -eu
gcsim=$1
expect=$2
platform=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
status=0
# A sparse file of 17 MiB: nothing to write, the size alone is refused.
truncate -s 17M "$dir/huge.log"
sh "$expect" 2 "huge.log: larger than 16777216 bytes; not an nccl-tests log" \
    "$gcsim" calibrate --log "$dir/huge.log" --platform "$platform" --output "$dir/out.json" || status=1
# 10,001 consistent rows (2 GPUs: busbw = algbw): row 10,001 (line 10,002) is refused.
awk 'BEGIN { print "#  Rank  0 Group  0 Pid 1 on h device  0 [0x07] G";
             print "#  Rank  1 Group  0 Pid 1 on h device  1 [0x08] G";
             for (i = 1; i <= 10001; i++) {
                 s = 4 * i; t = 100; a = sprintf("%.2f", s / t / 1e3);
                 printf "%d %d float sum -1 %.2f %s %s 0 %.2f %s %s 0\n", s, i, t, a, a, t, a, a } }' \
    > "$dir/rows.log"
sh "$expect" 2 "rows.log: line 10003: more than 10000 data rows; not an nccl-tests log" \
    "$gcsim" calibrate --log "$dir/rows.log" --platform "$platform" --output "$dir/out.json" || status=1
exit $status
