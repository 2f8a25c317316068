#!/bin/sh
# A FIFO given where gcsim reads a whole file (issue 29): open(2) for reading waited for a
# writer forever. Each command must refuse it at once: exit 2, "not a regular file (a
# FIFO)" naming it, nothing on stdout, no output file. `timeout` turns a hang into a
# failure in 20 s rather than at CTest's limit.
#   fifo_inputs.sh GCSIM WORK_DIR
set -u
gcsim=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work" && mkdir -p "$work" || exit 1
fifo=$work/input.fifo
mkfifo "$fifo" || exit 1
fail=0
expect() {
    timeout 20 sh "$here/../cli/expect_failure.sh" 2 "input.fifo: not a regular file (a FIFO)" \
        "$gcsim" "$@" || { echo "FAIL: gcsim $*"; fail=1; }
}
expect calibrate --log "$fifo" --platform a100-hdr --output "$work/cal.json"
expect check --baseline "$fifo" --output "$work/check.out"
expect predict --platform "$fifo" --output "$work/predict.out"
expect predict --model "$fifo" --output "$work/model.out"
expect trace info "$fifo" --output "$work/trace.out"
expect compress --quiet --trace "$fifo" --compressor qsgd --output "$work/compress.out"
exit $fail
