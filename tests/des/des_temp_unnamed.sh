#!/bin/sh
# A DES run creates no named file in $TMPDIR, not even for an instant (issue 29): the
# child's stderr file was created with mkstemp and unlinked right after, and a gcsim
# SIGKILLed between the two left gcsim-des-stderr-XXXXXX behind (des.killed_parent failed
# once on a loaded machine). strace shows every file gcsim and its child open: none may be
# created under a name in $TMPDIR (an O_TMPFILE open of the folder itself is what is
# wanted). Needs strace (.ci/setup.sh installs it); fails, never skips, without it.
#   des_temp_unnamed.sh GCSIM WORK_DIR
set -u
gcsim=$1 work=$2
command -v strace >/dev/null || { echo "FAIL: strace is not installed (.ci/setup.sh)"; exit 1; }
rm -rf "$work" && mkdir -p "$work/tmp" || exit 1
# LeakSanitizer cannot run under ptrace (tests/sanitize.sh sets ASAN_OPTIONS): leaks are
# checked by every other DES test.
[ -z "${ASAN_OPTIONS:-}" ] || ASAN_OPTIONS=$ASAN_OPTIONS:detect_leaks=0
TMPDIR=$work/tmp strace -f -o "$work/trace" -e trace=open,openat,creat \
    "$gcsim" predict --engine des --gpus 4 >/dev/null 2>"$work/err" ||
    { echo "FAIL: gcsim predict --engine des: exit $?: $(cat "$work/err")"; exit 1; }
named=$(grep -F "\"$work/tmp/" "$work/trace" | grep -E 'O_CREAT|creat\(')
if [ -n "$named" ]; then
    echo "FAIL: named files created in TMPDIR:"
    echo "$named"
    exit 1
fi
opens=$(grep -cF "\"$work/tmp\"" "$work/trace")
[ "$opens" -ge 1 ] || { echo "FAIL: no unnamed temporary file opened in TMPDIR"; exit 1; }
echo "PASS: $opens unnamed temporary file(s) in TMPDIR, none named"
