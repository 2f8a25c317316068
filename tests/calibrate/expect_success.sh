#!/bin/sh
# Runs a gcsim command that must succeed with a note or warning: exit 0, stderr contains the
# expected text, the --output file exists and something was printed on stdout.
#   expect_success.sh "MESSAGE" gcsim ARGS...
set -u
expected_message=$1
shift
out=$(mktemp) && err=$(mktemp) || exit 1
trap 'rm -f "$out" "$err"' EXIT
prev=""
for a in "$@"; do
    [ "$prev" = "--output" ] && rm -f "$a"
    prev=$a
done
"$@" >"$out" 2>"$err"
code=$?
status=0
[ "$code" -eq 0 ] || { echo "FAIL: exit code $code, expected 0"; status=1; }
grep -qF -- "$expected_message" "$err" || { echo "FAIL: stderr does not contain: $expected_message"; status=1; }
[ -s "$out" ] || { echo "FAIL: nothing on stdout"; status=1; }
prev=""
for a in "$@"; do
    if [ "$prev" = "--output" ] && [ ! -s "$a" ]; then
        echo "FAIL: output file $a was not written"; status=1
    fi
    prev=$a
done
echo "--- stderr:"; cat "$err"
exit $status
