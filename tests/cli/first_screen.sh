#!/bin/sh
# The README's run command, `gcsim predict` with no option (issue 29): it prints exactly the
# block README.md shows between its first-screen markers, every line fits 100 columns, and
# its numbers are predict's own: each row's fp32 and terngrad img/s, speedup and MFU equal
# `predict --format csv` without and with --compressor terngrad, rounded as printed.
# usage: first_screen.sh GCSIM SOURCE_DIR WORK_DIR
set -eu
gcsim=$1 src=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$work"
"$gcsim" predict > "$work/screen.txt" || fail "gcsim predict: exit $?"
# the lines between the marker lines, less the code fence around them
awk '/<!-- first-screen:end/ { on = 0 } on { print } /<!-- first-screen:begin/ { on = 1 }' \
    "$src/README.md" | sed '1d;$d' > "$work/readme.txt"
[ -s "$work/readme.txt" ] || fail "README.md has no first-screen block"
diff -u "$work/readme.txt" "$work/screen.txt" ||
    fail "README.md's first screen differs from gcsim predict's output (update the README block)"
wide=$(awk '{ if (length($0) > 100) print NR ": " length($0) }' "$work/screen.txt")
[ -z "$wide" ] || fail "lines over 100 columns: $wide"
"$gcsim" predict --format csv > "$work/fp32.csv"
"$gcsim" predict --compressor terngrad --format csv > "$work/terngrad.csv"
# screen rows: GPUs nodes | comm ms img/s speedup MFU | comm ms img/s speedup MFU | ratio
awk -F, 'FNR == 1 { file++; next }
         { key = file ":" $1; tput[key] = sprintf("%.1f", $10); sp[key] = sprintf("%.2f", $11);
           mfu[key] = sprintf("%.1f", $14); comm[key] = sprintf("%.3f", $7 * 1e3) }
         END { for (k in tput) print k, comm[k], tput[k], sp[k], mfu[k] }' \
    "$work/fp32.csv" "$work/terngrad.csv" | sort > "$work/csv.txt"
awk '$1 ~ /^[0-9]+$/ && NF == 11 { print "1:" $1, $3, $4, $5, $6; print "2:" $1, $7, $8, $9, $10 }' \
    "$work/screen.txt" | sort > "$work/rows.txt"
[ -s "$work/rows.txt" ] || fail "no table rows on the first screen"
diff -u "$work/csv.txt" "$work/rows.txt" || fail "first-screen numbers differ from predict --format csv"
echo "first screen: $(wc -l < "$work/screen.txt") lines, matches README.md and predict's CSV"
