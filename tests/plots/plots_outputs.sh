#!/bin/sh
# The plots target (issue 16): (1) its generated build rule runs make_plots.sh in, and with
# an output folder under, the build tree, so nothing is written into the source tree (the
# script writes only its OUTPUT_DIR); (2) every plots/figures/*.png that README.md or a
# docs page shows is one of the figures make_plots.sh regenerates (--list).
# usage: plots_outputs.sh SOURCE_DIR BINARY_DIR
set -eu
src=$1 bin=$2
fail() { echo "FAIL: $*"; exit 1; }

# (1) The rule as the generator wrote it (Makefiles: build.make; Ninja: build.ninja).
rules=$(find "$bin/plots" -path '*plots.dir/build.make' 2>/dev/null | head -n 1)
[ -n "$rules" ] || rules=$bin/build.ninja
[ -f "$rules" ] || fail "no generated build rules for the plots target"
line=$(grep 'make_plots.sh' "$rules" | head -n 1)
[ -n "$line" ] || fail "the plots rule in $rules does not run make_plots.sh"
echo "rule: $line"
out=$(printf '%s\n' "$line" | sed 's/.*make_plots\.sh *[^ ]* *[^ ]* *\([^ ;&]*\).*/\1/')
case "$out" in
    "$bin"/*) ;;
    *) fail "make_plots.sh's OUTPUT_DIR $out is not under the build tree $bin" ;;
esac
case "$line" in
    *"cd $bin/"*|*"cd $bin "*) ;;
    *) fail "the plots rule does not run in the build tree: $line" ;;
esac
# make_plots.sh writes nowhere but OUTPUT_DIR: no copy or move into the source folders.
if grep -nE '(cp|mv|>|tee)[^#]*\$(PLOTS|SRC|P|M)/' "$src/plots/make_plots.sh"; then
    fail "make_plots.sh writes into the source tree (lines above)"
fi

# (2) The figures the documents show against those the script makes.
made=$(sh "$src/plots/make_plots.sh" --list)
shown=$(cd "$src" && grep -ohE 'plots/figures/[A-Za-z0-9_.-]+\.png' README.md docs/*.md |
        sed 's|.*/||; s|\.png$||' | sort -u)
[ -n "$shown" ] || fail "README.md and docs show no plots/figures/*.png"
for f in $shown; do
    printf '%s\n' "$made" | grep -qx "$f" || fail "$f.png is shown but make_plots.sh does not make it"
    [ -f "$src/plots/figures/$f.png" ] || fail "plots/figures/$f.png is shown but not committed"
done
echo "shown and regenerated under $out: $(echo $shown)"
