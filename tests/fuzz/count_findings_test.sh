#!/bin/sh
# count_findings.sh counts crash, leak, timeout and oom artifacts and nothing else (issue
# 15: run_all.sh counted libFuzzer's slow-unit-* files as findings).
#   count_findings_test.sh WORK_DIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
work=$1
rm -rf "$work" && mkdir -p "$work" || exit 1
touch "$work/slow-unit-1234" "$work/slow-unit-5678" "$work/notes.txt"
n=$(sh "$here/count_findings.sh" "$work")
[ "$n" -eq 0 ] || { echo "FAIL: slow units counted: $n"; exit 1; }
touch "$work/crash-aa" "$work/leak-bb" "$work/timeout-cc" "$work/oom-dd"
n=$(sh "$here/count_findings.sh" "$work")
[ "$n" -eq 4 ] || { echo "FAIL: $n findings counted, expected 4"; exit 1; }
echo "PASS: 4 findings, 2 slow units and a note told apart"
