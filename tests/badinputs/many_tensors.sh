#!/bin/sh
# A safetensors trace with 200,000 one-element tensors (issue 15, defect 8: the duplicate-
# name check compared every pair and took 96 s; the 100 MB header limit allowed about an
# hour). `trace info` must list them all, and the same file with the last name repeated
# must be refused naming the duplicate (exit 2, nothing on stdout). CTest's TIMEOUT (60 s)
# catches a quadratic check; sorted, it takes well under a second.
#   many_tensors.sh GCSIM WORK_DIR
set -u
gcsim=$1 work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
fail=0
say() { echo "FAIL: $*"; fail=1; }
n=200000

# FILE LAST_NAME: header {"t0": {...}, ..., "t199998": ..., LAST_NAME: ...}, n x 4 zero bytes
make_trace() {
    awk -v n=$n -v last="$2" 'BEGIN {
        printf "{"
        for (i = 0; i < n; i++) {
            name = i < n - 1 ? "t" i : last
            printf "%s\"%s\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[%d,%d]}",
                   i ? "," : "", name, 4 * i, 4 * i + 4
        }
        printf "}"
    }' >"$work/header"
    while [ $(($(wc -c <"$work/header") % 8)) -ne 0 ]; do printf ' ' >>"$work/header"; done
    len=$(wc -c <"$work/header")
    # 8-byte little-endian length (the header is under 2^24 bytes: three bytes suffice)
    printf "$(printf '\\%03o\\%03o\\%03o' $((len % 256)) $((len / 256 % 256)) $((len / 65536)))" >"$1"
    printf '\0\0\0\0\0' >>"$1"
    cat "$work/header" >>"$1"
    head -c $((4 * n)) /dev/zero >>"$1"
}

make_trace "$work/many.safetensors" "t$((n - 1))"
"$gcsim" trace info --format csv "$work/many.safetensors" >"$work/out" 2>"$work/err"
rc=$?
[ $rc -eq 0 ] || say "trace info on $n tensors: exit $rc: $(head -c 300 "$work/err")"
rows=$(grep -c '^[^,]*,t[0-9]*,' "$work/out")
[ "$rows" -eq $n ] || say "trace info listed $rows tensors, expected $n"

make_trace "$work/dup.safetensors" "t77777"
"$gcsim" trace info "$work/dup.safetensors" >"$work/out" 2>"$work/err"
rc=$?
[ $rc -eq 2 ] || say "duplicate name: exit $rc, expected 2"
grep -q "dup.safetensors: tensor 't77777' appears twice in the header" "$work/err" ||
    say "duplicate name: message was: $(cat "$work/err")"
[ -s "$work/out" ] && say "duplicate name: something on stdout"
[ $fail -eq 0 ] && echo "PASS: $n tensors listed; a repeated name refused: $(cat "$work/err")"
exit $fail
