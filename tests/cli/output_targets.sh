#!/bin/sh
# --output onto things that are not plain new files, and writes that fail (issue 15,
# defects 5, 9, 10 and 11):
# - a FIFO is written through and stays a FIFO (renaming over it turned /dev/null into a
#   regular file when run as root); a symbolic link stays a link and its target gets the
#   output; a dangling link and a folder are refused (exit 2);
# - a 250-byte base name works (its temporary's name used to pass the 255-byte limit);
# - a temporary left by a run that no longer exists (FILE.tmp.PID.XXXXXX) is removed by
#   the next run into FILE, a live run's is kept;
# - a full disk is reported with its reason by all 8 writing commands, standard output
#   on /dev/full; --output past the file-size limit says "File too large"; a sweep stops
#   at the first case it cannot write instead of running to its last.
#   output_targets.sh GCSIM SOURCE_DIR WORK_DIR
set -u
gcsim=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1
fail=0
say() { echo "FAIL: $*"; fail=1; }

# FIFO
mkfifo pipe
timeout 20 cat pipe >from_pipe &
reader=$!
"$gcsim" predict --gpus 2 --format csv --output pipe 2>err || say "FIFO: exit $?: $(cat err)"
wait $reader
[ -p pipe ] || say "the FIFO is no longer a FIFO"
[ "$(head -c 5 from_pipe)" = "gpus," ] || say "the FIFO's reader did not get the table"

# symbolic link to a regular file
echo old >target.csv
ln -s target.csv link.csv
"$gcsim" predict --gpus 4 --format csv --output link.csv 2>err || say "link: exit $?: $(cat err)"
[ -L link.csv ] || say "link.csv is no longer a symbolic link"
[ "$(readlink link.csv)" = target.csv ] || say "link.csv points elsewhere"
grep -q '^4,' target.csv || say "the link's target did not get the output"

# dangling link, folder
ln -s missing.csv dangling.csv
"$gcsim" predict --output dangling.csv >out 2>err
rc=$?
[ $rc -eq 2 ] && grep -q "dangling.csv: a symbolic link to a file that does not exist" err ||
    say "dangling link: exit $rc, $(cat err)"
[ -L dangling.csv ] && [ ! -e missing.csv ] || say "the dangling link was followed or replaced"
[ -s out ] && say "dangling link: something on stdout"
mkdir folder
"$gcsim" predict --output folder >out 2>err
rc=$?
[ $rc -eq 2 ] && grep -q "folder: is a folder, not a file" err || say "folder: exit $rc, $(cat err)"

# a 250-byte base name
long=$(printf '%0250d' 0)
"$gcsim" predict --gpus 2 --output "$long" 2>err || say "250-byte name: exit $?: $(cat err)"
[ -s "$long" ] || say "250-byte name: no output"

# stale temporaries: one of a finished process, one of this (live) shell
sh -c 'exit 0' &
dead=$!
wait $dead
kill -0 $dead 2>/dev/null && say "process $dead still exists (pid reused?)"
echo partial >"r.csv.tmp.$dead.abcdef"
echo partial >"r.csv.tmp.$$.ghijkl"
echo other >"r.csv.tmp.notapid"
"$gcsim" predict --gpus 2 --output r.csv 2>err || say "stale temporaries: exit $?: $(cat err)"
[ -e "r.csv.tmp.$dead.abcdef" ] && say "the dead run's temporary was not removed"
[ -e "r.csv.tmp.$$.ghijkl" ] || say "a live run's temporary was removed"
[ -e r.csv.tmp.notapid ] || say "a file not named as gcsim names temporaries was removed"
rm -f "r.csv.tmp.$$.ghijkl"

# full disk on standard output, for every command that writes
"$gcsim" sweep --gpus 1,2 --format csv --output shard.csv 2>/dev/null || say "sweep for merge failed"
trace=$src/tests/badinputs/files/npy_good.npy
for cmd in "predict --gpus 2" "sweep --gpus 1,2 --no-progress" "merge shard.csv" \
    "plan --target-throughput 1000" "check --baseline $src/tests/planning/baseline.json --engine analytic" \
    "compress --quiet --compressor none --trace $trace" "trace info $trace" \
    "train --model softmax --epochs 1 --limit-train 64 --limit-test 64"; do
    # shellcheck disable=SC2086
    "$gcsim" $cmd >/dev/full 2>err
    rc=$?
    name=${cmd%% *}
    [ $rc -ne 0 ] || say "$name: exit 0 with standard output on a full disk"
    grep -q "cannot write to standard output: No space left on device" err ||
        say "$name: no reason given: $(cat err)"
done

# --output past the file-size limit (RLIMIT_FSIZE; SIGXFSZ ignored: the write fails with
# EFBIG). stderr goes through a pipe, which the limit does not apply to.
( trap '' XFSZ; ulimit -f 0; exec "$gcsim" predict --gpus 2 --output big.csv ) 2>&1 | cat >err
grep -q "big.csv: write failed: File too large" err || say "--output over the limit: $(cat err)"
[ -e big.csv ] && say "a partial big.csv exists"
# 2 platforms' worth of cases (the default 1,2,4,...,512 for 3 compressors), 1 KiB allowed
( trap '' XFSZ; ulimit -f 2; exec "$gcsim" sweep --compressor none,fp16,terngrad --no-progress \
    --output sweep.csv ) 2>&1 | cat >err
grep -q "stopped after [0-9]* of 30 cases" err || say "sweep on a full disk: $(cat err)"
n=$(sed -n 's/.*stopped after \([0-9]*\) of 30 cases.*/\1/p' err)
[ -n "$n" ] && [ "$n" -lt 30 ] || say "the sweep ran to its last case ($n of 30)"
grep -q "sweep.csv: write failed: File too large" err || say "sweep: reason missing: $(cat err)"
ls sweep.csv* 2>/dev/null && say "the sweep left files behind"
[ $fail -eq 0 ] && echo "PASS"
exit $fail
