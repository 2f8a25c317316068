#!/bin/sh
# issue 46: a baseline case may name a described compressor (file:PATH.json,
# docs/compressors.md) like a built-in: PATH found beside the baseline (or above it), as a
# platform file is. --update records what gcsim predict --compressor file:PATH gives, a
# plain check passes; a missing file is bad input naming the baseline and the field (exit 2,
# nothing on stdout).
# usage: check_described.sh GCSIM SOURCE_DIR WORK_DIR
set -eu
gcsim=$1 src=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
cp "$src/compressors/described/terngrad-like.json" "$work/tern.json"
b="$work/baseline.json"
cat > "$b" <<JSON
{"format": "gcsim-baseline/1", "tolerance_pct": 0.01,
 "cases": [{"name": "resnet50-described", "platform": "$src/platforms/h100-ndr.json",
            "model": "$src/models/resnet-50.json", "compressor": "file:tern.json",
            "collective": "ring", "gpus": 16, "scaling": "weak", "engine": "analytic",
            "stack": "fused"}]}
JSON
"$gcsim" check --baseline "$b" --update > /dev/null || fail "check --update"
"$gcsim" check --baseline "$b" > /dev/null || fail "check after --update"
grep -q '"compressor": "file:tern.json"' "$b" || fail "--update rewrote the compressor member"
recorded=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['cases'][0]['expected_throughput_samples_per_s'])" "$b")
predicted=$(cd "$work" && "$gcsim" predict --platform "$src/platforms/h100-ndr.json" \
            --model "$src/models/resnet-50.json" --gpus 16 --compressor file:tern.json \
            --collective ring --stack fused --format json |
            python3 -c "import json,sys; print(json.load(sys.stdin)['rows'][-1]['throughput_samples_per_s'])")
python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); sys.exit(0 if abs(a/b-1) < 1e-12 else 1)" \
    "$recorded" "$predicted" || fail "baseline recorded $recorded, predict gives $predicted"
# a missing description: exit 2, the baseline, the case and the field named, stdout empty
sed 's/file:tern.json/file:nowhere.json/' "$b" > "$work/missing.json"
rc=0
"$gcsim" check --baseline "$work/missing.json" > "$work/missing.out" 2> "$work/missing.err" || rc=$?
[ "$rc" = 2 ] || fail "a missing description file: exit $rc, expected 2"
[ ! -s "$work/missing.out" ] || fail "a missing description file printed on stdout"
grep -q 'missing.json: \$.cases\[0\].compressor: "nowhere.json" not found' "$work/missing.err" ||
    fail "message does not name the baseline and field: $(cat "$work/missing.err")"
# a description that is bad JSON content: the file's own message, under the baseline's field
printf '{"schema": "gcsim-compressor/1", "name": "x"}\n' > "$work/bad.json"
sed 's/file:tern.json/file:bad.json/' "$b" > "$work/badfile.json"
rc=0
"$gcsim" check --baseline "$work/badfile.json" > /dev/null 2> "$work/bad.err" || rc=$?
[ "$rc" = 2 ] || fail "a bad description file: exit $rc, expected 2"
grep -q 'badfile.json: \$.cases\[0\].compressor: .*bad.json' "$work/bad.err" ||
    fail "message does not name the baseline, field and description: $(cat "$work/bad.err")"
echo "ok: a described compressor in a baseline records $recorded samples/s = predict's"
