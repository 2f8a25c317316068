#!/bin/sh
# Kills a long `gcsim sweep --output FILE` half-way and checks that FILE is then either
# the previous complete output, byte for byte, or absent: never a partial file.
#
#   sweep_killed.sh GCSIM WORK_DIR
#
# "Half-way" is observed, not guessed: the kill comes once the sweep's temporary file
# beside FILE holds rows (it has computed and written some cases), and the test fails if
# the sweep finishes before it could be killed. SIGTERM and SIGINT must also remove the
# temporary file (cmd_sweep.c handles them); SIGKILL cannot be handled, so a leftover
# temporary file is expected there and is only reported.
set -u
gcsim=$1
dir=$2
rm -rf "$dir" && mkdir -p "$dir" || exit 1
out=$dir/sweep.csv
status=0
fail() { echo "FAIL: $*"; status=1; }

# Control: a short sweep completes, header plus one row per case, so a sweep that never
# writes its file cannot pass the checks below.
"$gcsim" sweep --gpus 1,2,4 --no-progress --output "$out" || fail "short sweep failed"
lines=$(wc -l <"$out" 2>/dev/null || echo 0)
[ "$lines" -eq 4 ] || fail "short sweep wrote $lines lines, expected 4 (header + 3 cases)"
cp "$out" "$dir/old.csv"

# 384 cases: for each of 3 compressors, 64 analytic ones (milliseconds: their rows fill
# the first buffer at once) then 64 DES ones (tens of seconds in all if left to run).
long_sweep() {
    "$gcsim" sweep --engine analytic,des --gpus 1,2,3,...,64 --compressor none,qsgd,terngrad \
        --no-progress --output "$out" 2>"$dir/stderr" &
    pid=$!
    waited=0
    while :; do
        tmp=$(ls "$out".tmp.* 2>/dev/null | head -1)
        [ -n "$tmp" ] && [ -s "$tmp" ] && break # rows are being written
        if ! kill -0 "$pid" 2>/dev/null; then
            fail "the sweep ended before it could be killed (make it longer)"; return 1
        fi
        if [ "$waited" -ge 1200 ]; then # 120 s without a row: something is stuck
            kill -KILL "$pid"; fail "no row written after 120 s"; return 1
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
    echo "killing the sweep with SIG$1 while its temporary file holds $(wc -c <"$tmp") bytes"
    kill -"$1" "$pid"
    wait "$pid"
    echo "  it exited with status $?"
    return 0
}

for sig in TERM INT KILL; do
    # With an old complete file: it must survive unchanged.
    cp "$dir/old.csv" "$out"
    if long_sweep "$sig"; then
        cmp -s "$out" "$dir/old.csv" || fail "SIG$sig: $out is not the old file any more"
        left=$(ls "$out".tmp.* 2>/dev/null)
        if [ -n "$left" ]; then
            if [ "$sig" = KILL ]; then
                echo "  SIGKILL left the temporary file $(basename "$left") (expected)"
            else
                fail "SIG$sig left the temporary file $left"
            fi
            rm -f "$out".tmp.*
        fi
    fi
done

for sig in KILL; do
    # Without an old file: none may appear.
    rm -f "$out"
    if long_sweep "$sig"; then
        [ -e "$out" ] && fail "SIG$sig: a partial $out appeared ($(wc -c <"$out") bytes)"
        rm -f "$out".tmp.*
    fi
done

[ "$status" -eq 0 ] && echo "PASS: the output was the old file or absent after every kill"
exit $status
