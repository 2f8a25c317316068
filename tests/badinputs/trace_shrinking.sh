#!/bin/sh
# A trace truncated by another program while gcsim reads it (issue 15, defect 7): gcsim
# used to memory-map traces and died of SIGBUS (exit 135, no message). Now it reads the
# file: every run either succeeds on a complete file or fails with exit 2 and a message
# naming the file, never a signal. A second process truncates and restores a 32 MiB trace
# in a loop while `gcsim trace info` runs 20 times.
#   trace_shrinking.sh GCSIM WORK_DIR
set -u
gcsim=$1 work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
fail=0
say() { echo "FAIL: $*"; fail=1; }

# A safetensors file: 8-byte little-endian header length, the JSON header (padded with
# spaces to a multiple of 8), then 8,388,608 F32 zeros (32 MiB).
header='{"g":{"dtype":"F32","shape":[8388608],"data_offsets":[0,33554432]}}'
while [ $((${#header} % 8)) -ne 0 ]; do header="$header "; done
len=${#header}
printf "$(printf '\\%03o' $((len % 256)) $((len / 256)))\0\0\0\0\0\0" >"$work/whole.safetensors"
printf '%s' "$header" >>"$work/whole.safetensors"
head -c 33554432 /dev/zero >>"$work/whole.safetensors"
cp "$work/whole.safetensors" "$work/t.safetensors"
"$gcsim" trace info "$work/t.safetensors" >/dev/null || say "the complete trace is not read"

# The truncator: cut the file to 100 bytes, write it back, leave it whole a moment, until
# told to stop.
(
    while [ ! -e "$work/stop" ]; do
        truncate -s 100 "$work/t.safetensors"
        sleep 0.01
        cat "$work/whole.safetensors" >"$work/t.safetensors"
        sleep 0.05
    done
) &
cutter=$!
ok=0 refused=0
i=0
while [ $i -lt 20 ]; do
    "$gcsim" trace info "$work/t.safetensors" >"$work/out" 2>"$work/err"
    rc=$?
    case $rc in
    0) ok=$((ok + 1)) ;;
    2)
        refused=$((refused + 1))
        grep -q "t.safetensors" "$work/err" || say "run $i: exit 2 without naming the file: $(cat "$work/err")"
        [ -s "$work/out" ] && say "run $i: exit 2 but something on stdout"
        ;;
    *) say "run $i: exit $rc ($(cat "$work/err"))" ;;
    esac
    i=$((i + 1))
done
touch "$work/stop"
wait $cutter
echo "20 runs on a trace truncated and restored meanwhile: $ok read it whole, $refused refused it (exit 2)"
exit $fail
