#!/bin/sh
# Catalog names in a baseline (issue 16): a baseline in a folder outside the repository
# names "a100-hdr" and "resnet-50" as `gcsim predict --platform/--model` accepts them; the
# build-tree gcsim reads them from its catalog (the source tree). A file of that name
# beside the baseline comes first; a name that is neither is exit 2 naming the baseline,
# the JSON path and the catalog file tried.
# usage: check_catalog.sh GCSIM SOURCE_DIR
set -eu
gcsim=$1 src=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/gcsim-check-catalog.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
case "$work" in "$src"/*) fail "$work is inside the source tree" ;; esac
cd "$work"

write() { # write FILE PLATFORM MODEL
    cat > "$1" <<JSON
{
  "format": "gcsim-baseline/1",
  "tolerance_pct": 0.001,
  "cases": [
    {"name": "resnet50-64-ring", "platform": "$2", "model": "$3", "collective": "ring",
     "gpus": 64, "scaling": "weak", "engine": "analytic"}
  ]
}
JSON
}

# 1. Catalog names: --update records, then a plain check passes.
write named.json a100-hdr resnet-50
"$gcsim" check --baseline named.json --update > update.out 2> update.err ||
    fail "--update with catalog names: exit $? ($(cat update.err))"
"$gcsim" check --baseline named.json > check.out 2> check.err ||
    fail "check with catalog names: exit $? ($(cat check.err))"

# The value recorded is the prediction on the source tree's catalog files.
recorded=$(sed -n 's/.*"expected_throughput_samples_per_s": \([0-9.e+]*\).*/\1/p' named.json)
[ -n "$recorded" ] || fail "nothing recorded: $(cat named.json)"
"$gcsim" predict --platform "$src/platforms/a100-hdr.json" --model "$src/models/resnet-50.json" \
    --collective ring --gpus 64 --scaling weak --format csv > predict.csv
awk -F, -v want="$recorded" '
    NR == 1 { for (i = 1; i <= NF; i++) if ($i == "throughput_samples_per_s") col = i; next }
    NR == 2 { if (!col) { print "no throughput_samples_per_s column"; exit 1 }
              if ($col + 0 != want + 0) { print "predict says " $col; exit 1 } }' \
    predict.csv || fail "recorded $recorded is not the prediction on the catalog's files"

# The ".json" spelling is the same catalog entry.
sed 's/"a100-hdr"/"a100-hdr.json"/; s/"resnet-50"/"resnet-50.json"/' named.json > ext.json
grep -q '"a100-hdr.json"' ext.json || fail "the .json spelling did not apply"
"$gcsim" check --baseline ext.json > /dev/null 2> ext.err ||
    fail "check with name.json: exit $? ($(cat ext.err))"

# 2. A file named a100-hdr beside the baseline comes first: its inter-node links are 100x
#    slower, so the recorded 64-GPU case drifts (exit 1).
sed 's/"bandwidth": "200Gbps"/"bandwidth": "2Gbps"/' "$src/platforms/a100-hdr.json" > a100-hdr
! cmp -s "$src/platforms/a100-hdr.json" a100-hdr || fail "the perturbation did not apply"
rc=0
"$gcsim" check --baseline named.json > shadow.out 2> shadow.err || rc=$?
[ "$rc" = 1 ] || fail "a file beside the baseline did not come first: exit $rc, expected 1"
rm a100-hdr

# 3. Neither a file nor a catalog name: exit 2, nothing on stdout, file and JSON path named.
write unknown.json a100-hdr no-such-model
rc=0
"$gcsim" check --baseline unknown.json > unknown.out 2> unknown.err || rc=$?
[ "$rc" = 2 ] || fail "unknown name: exit $rc, expected 2"
[ ! -s unknown.out ] || fail "unknown name printed on stdout"
grep -q 'unknown.json: \$.cases\[0\].model: "no-such-model" not found beside the baseline' unknown.err ||
    fail "file or JSON path not named: $(cat unknown.err)"
grep -q "nor in the catalog (no .*/models/no-such-model.json)" unknown.err ||
    fail "the catalog file tried is not named: $(cat unknown.err)"
echo "catalog names checked from $work; a file beside the baseline first; unknown name refused"
