#!/bin/sh
# compare.sh finds what it is there to find (issue 44): given a gcsim and a copy of it whose
# predict usage line is patched in place (the same number of bytes), on a six-line list
#   - predict --help is reported as differing, with the patched line shown, and so is the
#     file a line writes it to;
#   - a line writing into its inputs (platforms/) is reported;
#   - predict --version and predict --format csv are identical;
#   - a line expecting exit 2 from a command that exits 0 is an unexpected exit code;
# and compare.sh exits 1. The same binary on both sides over the same list but the wrong
# expectation removed exits 0.
#   self_test.sh COMPARE_SH GCSIM WORK_DIR
set -u
compare=$1 gcsim=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work" || exit 1
LC_ALL=C sed 's/usage: gcsim predict \[/usage: gcsim PREDICT [/' "$gcsim" >"$work/patched" &&
    chmod +x "$work/patched" || fail "cannot write the patched copy"
cmp -s "$gcsim" "$work/patched" && fail "the patch changed nothing (usage line moved?)"
cat >"$work/list.txt" <<'LIST'
# self test
gcsim predict --help
gcsim --version
gcsim predict --gpus 2,4 --format csv
!2 gcsim collective --gpus 2 --sizes 1MiB --engine analytic
gcsim predict --help >help.txt
gcsim predict --gpus 2 --format csv --output platforms/x.csv
LIST
bash "$compare" "$gcsim" "$work/patched" --list "$work/list.txt" --keep "$work/out" --quiet >"$work/log" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "compare.sh exit $rc, expected 1: $(tail -n 5 "$work/log")"
grep -q '^golden: 6 commands, 3 identical, 3 differ, 1 unexpected exit codes' "$work/log" ||
    fail "summary: $(grep '^golden:' "$work/log")"
grep -q '^DIFFER line 2: gcsim predict --help' "$work/log" || fail "predict --help not reported"
grep -q '^    stdout:' "$work/log" || fail "no stdout difference shown"
grep -q 'usage: gcsim PREDICT' "$work/log" || fail "the differing line is not shown"
grep -q '^UNEXPECTED EXIT line 5: expected 2, old 0, new 0' "$work/log" || fail "unexpected exit not reported"
grep -q '^    file help.txt:' "$work/log" || fail "the differing file is not reported"
grep -q '^    old wrote into its inputs: prefix/share/gcsim/platforms' "$work/log" ||
    fail "the write into platforms/ is not reported"
# Without the wrong expectation, the same binary twice: everything identical, exit 0.
sed -e 's/^!2 gcsim collective/gcsim collective/' -e '/platforms.x.csv/d' "$work/list.txt" >"$work/list0.txt"
bash "$compare" "$gcsim" "$gcsim" --list "$work/list0.txt" --keep "$work/out0" --quiet >"$work/log0" 2>&1 ||
    fail "same binary: exit $?: $(tail -n 5 "$work/log0")"
grep -q '^golden: 5 commands, 5 identical, 0 differ, 0 unexpected exit codes' "$work/log0" ||
    fail "same binary summary: $(grep '^golden:' "$work/log0")"
echo "PASS: a patched usage line, a write into the inputs and a wrong exit code are reported; the same binary is identical"
