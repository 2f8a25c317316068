#!/bin/sh
# `gcsim --help` and the README list the same exit codes (issue 29: the help stopped at 2,
# the README documents 3 as well). Each code's words in the help line must appear in the
# README's "Exit codes" sentence, and the help must list 0 to 3.
#   exit_codes.sh GCSIM SOURCE_DIR
set -u
gcsim=$1 src=$2
line=$("$gcsim" --help | grep '^exit codes: ') || { echo "FAIL: no exit codes line in gcsim --help"; exit 1; }
readme=$(tr '\n' ' ' <"$src/README.md" | sed 's/  */ /g')
fail=0
for item in "0 success" "1 a check failed" "2 bad input or usage" "3 an internal error"; do
    case "$line" in *"$item"*) ;; *) echo "FAIL: gcsim --help does not list \"$item\": $line"; fail=1 ;; esac
    case "$readme" in *"$item"*) ;; *) echo "FAIL: README.md does not list \"$item\""; fail=1 ;; esac
done
[ $fail -eq 0 ] && echo "PASS: $line"
exit $fail
