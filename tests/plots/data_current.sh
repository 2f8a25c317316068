#!/bin/sh
# The committed figures show what this gcsim predicts: every analytic data table a paper
# figure draws, regenerated now (make_plots.sh, analytic engine, no train sweep), has the
# checksum recorded in plots/figures/data.sha256 when the committed PNGs were made. A
# change of an engine, a model or a platform that moves a curve fails here until the
# figures are regenerated and committed (docs/reproduction.md, "Figures").
# usage: data_current.sh GCSIM SOURCE_DIR WORK_DIR
set -eu
gcsim=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
PLOTS_ENGINES=analytic PLOTS_SKIP_TRAIN=1 sh "$src/plots/make_plots.sh" "$gcsim" "$src" "$work" \
    > "$work/log" 2>&1 || { cat "$work/log"; exit 1; }
committed=$src/plots/figures/data.sha256
[ -s "$committed" ] || { echo "FAIL: $committed is missing"; exit 1; }
n=0 bad=0
while read -r sum name; do
    n=$((n + 1))
    want=$(awk -v f="$name" '$2 == f { print $1 }' "$committed")
    if [ -z "$want" ]; then
        echo "FAIL: $name is drawn but not in plots/figures/data.sha256"; bad=$((bad + 1))
    elif [ "$want" != "$sum" ]; then
        echo "FAIL: $name differs from the committed figure's data"; bad=$((bad + 1))
    fi
done < "$work/data.sha256"
[ "$n" -gt 30 ] || { echo "FAIL: only $n analytic tables regenerated"; exit 1; }
[ "$bad" -eq 0 ] || { echo "$bad of $n tables differ: regenerate the figures (cmake --build build --target plots) and commit them with data.sha256"; exit 1; }
echo "ok: $n analytic tables equal the committed figures' data"
