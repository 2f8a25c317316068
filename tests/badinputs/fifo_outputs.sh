#!/bin/sh
# A FIFO given as an output (issue 45): opening it for writing waited for a reader
# forever, so `gcsim ... --output FIFO` with nobody reading hung. Now gcsim waits a few
# seconds for a reader, before any work, then refuses: exit 2, "a FIFO that no process
# reads" naming it, nothing on stdout, the FIFO still a FIFO. A reader that opens it
# while gcsim starts (`gcsim ... --output p & reader <p`) still gets the whole output.
# `timeout` turns a hang into a failure in 30 s rather than at CTest's limit.
#   fifo_outputs.sh GCSIM WORK_DIR
set -u
gcsim=$1 work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1
mkfifo out.fifo || exit 1
fail=0
say() { echo "FAIL: $*"; fail=1; }

no_reader() { # ARGS...: gcsim ARGS writing into out.fifo, which nobody reads
    timeout 30 "$gcsim" "$@" >out 2>err
    rc=$?
    [ $rc -eq 2 ] || say "gcsim $*: exit $rc, expected 2: $(head -c 300 err)"
    grep -qF "out.fifo: a FIFO that no process reads" err ||
        say "gcsim $*: stderr: $(head -c 300 err)"
    [ -s out ] && say "gcsim $*: something on stdout"
    [ -p out.fifo ] || say "gcsim $*: out.fifo is no longer a FIFO"
}
no_reader predict --gpus 2 --output out.fifo
no_reader sweep --gpus 1,2 --no-progress --output out.fifo

# The reader opens the FIFO after gcsim has started.
timeout 30 "$gcsim" sweep --gpus 1,2,4 --no-progress --format csv --output out.fifo 2>err &
writer=$!
timeout 30 cat out.fifo >got
wait $writer || say "sweep into a FIFO read late: exit $?: $(head -c 300 err)"
[ "$(wc -l <got)" -eq 4 ] && head -n 1 got | grep -q '^case,cases,id,' ||
    say "the late reader got: $(head -c 300 got)"
exit $fail
