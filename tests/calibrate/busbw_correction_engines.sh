#!/bin/sh
# busbw_correction in both engines (docs/formats.md, "Fitted busbw bands"): the platform
# tests/calibrate/platform_busbw_bands.json is tests/badinputs/files/platform_good.json with
# one entry for all_reduce on 8 GPUs, factor 0.9 below 1 MiB and 1.1 from there. By hand:
# busbw with the entry / without = 0.9 at 1 KiB, 1.1 at 1 GiB, in the analytic and the DES
# engine, at 8 GPUs; 1 at 16 GPUs (not the entry's count); the note names the log on stderr
# at 8 GPUs only.
#   busbw_correction_engines.sh GCSIM SOURCE_DIR
set -eu
gcsim=$1
src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
status=0
for g in 8 16; do
    "$gcsim" collective --platform "$src/tests/badinputs/files/platform_good.json" --gpus $g \
        --sizes 1KiB,1GiB --engine both --format csv > "$dir/plain$g.csv" 2> "$dir/plain$g.err"
    "$gcsim" collective --platform "$src/tests/calibrate/platform_busbw_bands.json" --gpus $g \
        --sizes 1KiB,1GiB --engine both --format csv > "$dir/bands$g.csv" 2> "$dir/bands$g.err"
    # columns: size_bytes,count,engine,time_s,algbw_Bps,busbw_Bps,...
    paste -d, "$dir/plain$g.csv" "$dir/bands$g.csv" | awk -F, -v g=$g -v n=$(head -1 "$dir/plain$g.csv" | awk -F, '{print NF}') '
        NR > 1 { want = g == 16 ? 1 : ($1 < 1048576 ? 0.9 : 1.1);
                 r = $(n + 6) / $6;
                 if (r < want * (1 - 1e-9) || r > want * (1 + 1e-9)) {
                     printf "%d GPUs, %s B, %s: busbw ratio %.12g, want %g\n", g, $1, $3, r, want; bad = 1 } }
        END { exit bad }' || status=1
    if [ $g = 8 ]; then
        grep -q "busbw scaled by .*platform_busbw_bands.json's busbw_correction, 2 size bands fitted to hand.log" \
            "$dir/bands8.err" || { echo "no note at 8 GPUs"; cat "$dir/bands8.err"; status=1; }
    elif [ -s "$dir/bands16.err" ]; then
        echo "a note at 16 GPUs:"; cat "$dir/bands16.err"; status=1
    fi
    [ $(wc -l < "$dir/plain$g.csv") -eq 5 ] || { echo "expected 4 rows"; status=1; }
done
exit $status
