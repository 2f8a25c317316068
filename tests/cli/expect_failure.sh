#!/bin/sh
# Runs a gcsim command that must fail: checks its exit code, that stderr contains the
# expected message, that nothing was printed on stdout, and that no output file appeared.
#   expect_failure.sh EXIT_CODE "MESSAGE" gcsim ARGS...
# An --output FILE in ARGS must not exist afterwards.
set -u
expected_code=$1
expected_message=$2
shift 2
out=$(mktemp) && err=$(mktemp) || exit 1
trap 'rm -f "$out" "$err"' EXIT
"$@" >"$out" 2>"$err"
code=$?
status=0
if [ "$code" -ne "$expected_code" ]; then
    echo "FAIL: exit code $code, expected $expected_code"; status=1
fi
if ! grep -qF -- "$expected_message" "$err"; then
    echo "FAIL: stderr does not contain: $expected_message"; status=1
fi
if [ -s "$out" ]; then
    echo "FAIL: something was printed on stdout:"; head -5 "$out"; status=1
fi
prev=""
for a in "$@"; do
    if [ "$prev" = "--output" ] && [ -e "$a" ]; then
        echo "FAIL: output file $a exists"; status=1
    fi
    prev=$a
done
echo "--- stderr:"; cat "$err"
exit $status
