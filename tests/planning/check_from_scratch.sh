#!/bin/sh
# A baseline created from scratch (docs/planning.md, "Creating a baseline"): cases written
# without expected values are refused by a plain check (exit 2, each named, file untouched),
# recorded by --update (exit 0; the stack of the cases that name none pinned as the
# platform's choice, a case's own "stack" kept), then checked (exit 0), and a change of the
# platform that moves the prediction makes the check fail (exit 1, the case named).
# usage: check_from_scratch.sh GCSIM SOURCE_DIR WORK_DIR
set -eu
gcsim=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work/platforms" "$work/models"
cp "$src/platforms/a100-hdr.json" "$work/platforms/"
cp "$src/models/resnet-50.json" "$work/models/"
fail() { echo "FAIL: $*"; exit 1; }

b="$work/baseline.json"
cat > "$b" <<JSON
{
  "format": "gcsim-baseline/1",
  "tolerance_pct": 1,
  "cases": [
    {"name": "resnet50-64-ring", "platform": "platforms/a100-hdr.json",
     "model": "models/resnet-50.json", "collective": "ring", "gpus": 64,
     "scaling": "weak", "engine": "analytic"},
    {"name": "resnet50-8-fp16", "platform": "platforms/a100-hdr.json",
     "model": "models/resnet-50.json", "compressor": "fp16", "collective": "ring",
     "gpus": 8, "scaling": "weak", "engine": "analytic"},
    {"name": "resnet50-64-qsgd-fused", "platform": "platforms/a100-hdr.json",
     "model": "models/resnet-50.json", "compressor": "qsgd", "stack": "fused",
     "collective": "allgather", "gpus": 64, "scaling": "weak", "engine": "analytic"}
  ]
}
JSON
cp "$b" "$work/written.json"

# 1. A plain check refuses new cases: exit 2, nothing on stdout, both named, file untouched.
rc=0
"$gcsim" check --baseline "$b" > "$work/new.out" 2> "$work/new.err" || rc=$?
[ "$rc" = 2 ] || fail "check on new cases: exit $rc, expected 2"
[ ! -s "$work/new.out" ] || fail "check on new cases printed on stdout"
grep -q '\$.cases\[0\] (resnet50-64-ring): no expected_throughput_samples_per_s yet' "$work/new.err" ||
    fail "case 0 not named: $(cat "$work/new.err")"
grep -q '\$.cases\[1\] (resnet50-8-fp16): no expected_throughput_samples_per_s yet' "$work/new.err" ||
    fail "case 1 not named: $(cat "$work/new.err")"
grep -q -- '--update' "$work/new.err" || fail "no hint to --update: $(cat "$work/new.err")"
cmp -s "$b" "$work/written.json" || fail "a refused check changed the baseline"

# 2. --update records all three: exit 0, status "recorded" (the stack column after it: the
#    default stack for the cases that name none, fused for the one that does), a positive
#    value per case; the two cases without a stack get the default pinned, the third keeps
#    its own.
"$gcsim" check --baseline "$b" --update --format csv > "$work/update.csv" ||
    fail "--update on new cases: exit $?"
[ "$(grep -c ',recorded,pytorch-ddp$' "$work/update.csv")" = 2 ] &&
    [ "$(grep -c '^resnet50-64-qsgd-fused,.*,recorded,fused$' "$work/update.csv")" = 1 ] ||
    fail "expected 3 recorded rows (2 pytorch-ddp, 1 fused): $(cat "$work/update.csv")"
[ "$(grep -c '"expected_throughput_samples_per_s": [1-9][0-9.e+]*' "$b")" = 3 ] ||
    fail "values not recorded: $(cat "$b")"
[ "$(grep -c '"stack": "pytorch-ddp"' "$b")" = 2 ] && [ "$(grep -c '"stack": "fused"' "$b")" = 1 ] ||
    fail "stacks not pinned as expected: $(cat "$b")"

# The recorded value is the prediction: gcsim predict on the same case gives the same
# double (the baseline prints the shortest digits that read back exactly, CSV %.17g).
recorded=$(sed -n 's/.*"expected_throughput_samples_per_s": \([0-9.e+]*\).*/\1/p' "$b" | head -n 1)
"$gcsim" predict --platform "$work/platforms/a100-hdr.json" --model "$work/models/resnet-50.json" \
    --collective ring --gpus 64 --scaling weak --format csv > "$work/predict.csv"
awk -F, -v want="$recorded" '
    NR == 1 { for (i = 1; i <= NF; i++) if ($i == "throughput_samples_per_s") col = i; next }
    NR == 2 { if (!col) { print "no throughput_samples_per_s column"; exit 1 }
              if ($col + 0 != want + 0) { print "predict says " $col; exit 1 } }' \
    "$work/predict.csv" || fail "recorded $recorded is not gcsim predict's throughput"

# The case naming "stack": "fused" records predict --stack fused's throughput, which is not
# the default stack's (QSGD's codec costs differ).
fused=$(sed -n 's/.*"expected_throughput_samples_per_s": \([0-9.e+]*\).*/\1/p' "$b" | sed -n 3p)
for stack in fused pytorch-ddp; do
    "$gcsim" predict --platform "$work/platforms/a100-hdr.json" --model "$work/models/resnet-50.json" \
        --compressor qsgd --stack $stack --collective allgather --gpus 64 --format csv \
        > "$work/predict-$stack.csv"
done
tput_of() { awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "throughput_samples_per_s") col = i; next }
                     NR == 2 { print $col }' "$1"; }
awk -v a="$fused" -v b="$(tput_of "$work/predict-fused.csv")" 'BEGIN { exit !(a + 0 == b + 0) }' ||
    fail "recorded $fused for the fused case, predict --stack fused says $(tput_of "$work/predict-fused.csv")"
awk -v a="$fused" -v b="$(tput_of "$work/predict-pytorch-ddp.csv")" 'BEGIN { exit !(a + 0 != b + 0) }' ||
    fail "the fused case recorded the default stack's throughput"

# 3. The new baseline passes, and a second --update leaves its bytes as they are.
"$gcsim" check --baseline "$b" > /dev/null || fail "check after --update: exit $?"
cp "$b" "$work/recorded.json"
"$gcsim" check --baseline "$b" --update > /dev/null || fail "second --update: exit $?"
cmp -s "$b" "$work/recorded.json" || fail "a second --update rewrote an up-to-date baseline"

# 4. The platform's inter-node links become 100x slower: the 64-GPU case drifts (exit 1,
#    named); the 8-GPU case, inside one NVSwitch node, does not.
sed 's/"bandwidth": "200Gbps"/"bandwidth": "2Gbps"/' "$src/platforms/a100-hdr.json" \
    > "$work/platforms/a100-hdr.json"
! cmp -s "$src/platforms/a100-hdr.json" "$work/platforms/a100-hdr.json" ||
    fail "the perturbation did not apply"
rc=0
"$gcsim" check --baseline "$b" > "$work/drift.out" 2> "$work/drift.err" || rc=$?
[ "$rc" = 1 ] || fail "check after the perturbation: exit $rc, expected 1"
grep -q 'drifted beyond tolerance: resnet50-64-ring (-' "$work/drift.err" ||
    fail "drift not named: $(cat "$work/drift.err")"
! grep -q 'resnet50-8-fp16 (' "$work/drift.err" || fail "the one-node case drifted"
echo "created, passed, drift detected"
