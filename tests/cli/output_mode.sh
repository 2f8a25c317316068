#!/bin/sh
# An atomically written output gets the mode a plain open would give it (0666 less the
# umask), not mkstemp's 0600.
set -eu
gcsim=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
umask 022
"$gcsim" predict --gpus 1,8 --output "$dir/out.txt"
mode=$(stat -c %a "$dir/out.txt")
[ "$mode" = 644 ] || { echo "FAIL: mode $mode, expected 644"; exit 1; }
echo "mode $mode"
