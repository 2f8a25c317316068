#!/bin/sh
# One infeasible item of a list is a row with its reason, not a failed run (issue 46):
# breakeven answers the other compressors and platforms, predict the other GPU counts,
# sweep and plan the other platforms and compressors, collective the other counts, compress
# the other compressors; only a list of which nothing can run exits 2, with every reason on
# standard error and nothing on stdout. check answers the other cases and exits 1 (a case
# not checked is no pass); check --update records nothing then (exit 2).
#   list_items.sh GCSIM SOURCE_DIR
set -u
gcsim=$1
src=$2
status=0
fail() { echo "FAIL: $*"; status=1; }
h100="$src/platforms/h100-ndr.json"
gpt2="$src/models/gpt2-xl.json"
llama="$src/models/llama-2-7b.json"
err=$(mktemp)
trap 'rm -f "$err"' EXIT

# breakeven: dgc (sparse) cannot run under zero2, qsgd (dense quantised) can.
out=$("$gcsim" breakeven --platform "$h100" --model "$gpt2" --compressor dgc,qsgd --gpus 16 \
      --sharding zero2 --format csv 2>"$err"); rc=$?
[ $rc -eq 0 ] || fail "breakeven dgc,qsgd under zero2 exited $rc: $(cat "$err")"
echo "$out" | grep '^gpt2-xl,h100-ndr,16,"dgc:' | grep -q ',infeasible,"--compressor dgc:.* does not compose with --sharding zero2' ||
    fail "the dgc row should be infeasible with its reason:
$out"
# the answered row is the one qsgd alone gets
solo=$("$gcsim" breakeven --platform "$h100" --model "$gpt2" --compressor qsgd --gpus 16 \
       --sharding zero2 --format csv | grep '^gpt2-xl')
echo "$out" | grep -qxF "$solo" || fail "the qsgd row should be what qsgd alone answers:
$solo
$out"
# JSON: the same status and reason fields
json=$("$gcsim" breakeven --platform "$h100" --model "$gpt2" --compressor dgc,qsgd --gpus 16 \
       --sharding zero2 --format json) || fail "breakeven --format json exited $?"
echo "$json" | grep -q '"status":[[:space:]]*"infeasible"' || fail "JSON should carry status infeasible"
# nothing can run: exit 2, nothing on stdout, a reason per row
out=$("$gcsim" breakeven --platform "$h100" --model "$gpt2" --compressor dgc,topk --gpus 16 \
      --sharding zero2 2>"$err"); rc=$?
[ $rc -eq 2 ] || fail "breakeven dgc,topk under zero2 should exit 2, exited $rc"
[ -z "$out" ] || fail "breakeven with nothing to answer wrote to stdout: $out"
grep -q '^gcsim breakeven: dgc:.*, 16 GPUs, gpt2-xl on h100-ndr: .*does not compose with --sharding zero2' "$err" &&
grep -q '^gcsim breakeven: topk:.*, 16 GPUs, gpt2-xl on h100-ndr: .*does not compose with --sharding zero2' "$err" &&
grep -qF 'none of the 2 rows can run' "$err" || fail "every row's reason expected:
$(cat "$err")"
# a misspelt compressor is still bad input
"$gcsim" breakeven --platform "$h100" --model "$gpt2" --compressor dgc,qsdg --gpus 16 \
    --sharding zero2 >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] || fail "a misspelt compressor should exit 2, exited $rc"

# predict: llama-2-7b under fsdp does not fit one 80 GB GPU (126.59 GB: weights 40.43 +
# gradients 13.48 + optimizer 53.91 + activations 18.78 GB, fp32 master weights with Adam);
# 8 GPUs run.
out=$("$gcsim" predict --platform "$h100" --model "$llama" --sharding fsdp --gpus 1,8 \
      --format csv 2>"$err"); rc=$?
[ $rc -eq 0 ] || fail "predict --gpus 1,8 under fsdp exited $rc: $(cat "$err")"
echo "$out" | head -1 | grep -q ',compute_source,status,why$' || fail "status and why columns expected:
$out"
echo "$out" | grep -q '^1,1,1,,.*,infeasible,"does not fit in GPU memory on 1 GPUs: .*= 126.59 GB per GPU, > 80.0 GB of gpu.memory' ||
    fail "the 1-GPU row should say why:
$out"
solo=$("$gcsim" predict --platform "$h100" --model "$llama" --sharding fsdp --gpus 8 --format csv | sed -n 2p)
echo "$out" | grep -qxF "$solo,ok," || fail "the 8-GPU row should be what --gpus 8 answers:
$solo
$out"
# the default list starts at one GPU: answered from 2 on
out=$("$gcsim" predict --platform "$h100" --model "$llama" --sharding fsdp 2>"$err"); rc=$?
[ $rc -eq 0 ] || fail "predict under fsdp with the default list exited $rc: $(cat "$err")"
echo "$out" | grep -qE '^ +1 +1 +1 .*infeasible +see notes' || fail "the table should mark 1 GPU:
$out"
echo "$out" | grep -qF 'infeasible at 1 GPUs: does not fit in GPU memory on 1 GPUs' ||
    fail "the table's note should give the reason"
# a count the sharding refuses: hsdp groups of 16 do not divide 24 GPUs
out=$("$gcsim" predict --platform "$h100" --model "$gpt2" --sharding hsdp:16 --gpus 16,24 \
      --format json 2>"$err"); rc=$?
[ $rc -eq 0 ] || fail "predict hsdp:16 on 16,24 exited $rc: $(cat "$err")"
echo "$out" | grep -q '"why":[[:space:]]*"--sharding hsdp:16 on 24 GPUs: a shard group of 16 GPUs must divide' ||
    fail "the 24-GPU row should say why in JSON:
$out"
# nothing can run: plain data parallelism never holds llama-2-7b's state on 80 GB
out=$("$gcsim" predict --platform "$h100" --model "$llama" --sharding ddp --gpus 1,8 2>"$err"); rc=$?
[ $rc -eq 2 ] || fail "predict with no count that fits should exit 2, exited $rc"
[ -z "$out" ] || fail "predict with nothing to answer wrote to stdout"
grep -q 'does not fit in GPU memory on 1 GPUs' "$err" && grep -q 'does not fit in GPU memory on 8 GPUs' "$err" &&
grep -qF 'none of the 2 GPU counts in the list can run' "$err" || fail "every count's reason expected:
$(cat "$err")"

# --- every other command that takes a list (issue 46, "tests per command") -------------
# terngrad-testbed holds 16 GPUs (4 nodes x 4), h100-ndr 512: 64 GPUs run on one only.
small="$src/platforms/terngrad-testbed.json"
r50="$src/models/resnet-50.json"
work=$(mktemp -d)
trap 'rm -f "$err"; rm -rf "$work"' EXIT

# predict: a count above the platform is that row's reason; the 8-GPU row is --gpus 8's
out=$("$gcsim" predict --platform "$h100" --model "$r50" --gpus 8,1024 --format csv 2>"$err"); rc=$?
[ $rc -eq 0 ] || fail "predict --gpus 8,1024 exited $rc: $(cat "$err")"
echo "$out" | grep -q '^1024,.*,infeasible,.*GPU count 1024 does not fit the platform: 64 nodes x 8 GPUs = 512 GPUs' ||
    fail "the 1024-GPU row should say why:
$out"
solo=$("$gcsim" predict --platform "$h100" --model "$r50" --gpus 8 --format csv | sed -n 2p)
echo "$out" | grep -qxF "$solo,ok," || fail "the 8-GPU row should be what --gpus 8 answers"
"$gcsim" predict --platform "$h100" --model "$r50" --gpus 1024 >/dev/null 2>"$err"; rc=$?
[ $rc -eq 2 ] && grep -q 'GPU count 1024 does not fit the platform' "$err" ||
    fail "predict --gpus 1024 alone should exit 2 with the reason, exited $rc"

# breakeven: a platform of the list that cannot hold the count is a row with its reason
out=$("$gcsim" breakeven --platforms "$h100,$small" --model "$r50" --compressor qsgd --gpus 64 \
      --format csv 2>"$err"); rc=$?
[ $rc -eq 0 ] || fail "breakeven --platforms h100-ndr,terngrad-testbed --gpus 64 exited $rc: $(cat "$err")"
echo "$out" | grep '^resnet-50,terngrad-testbed,64,' | grep -q ',infeasible,[^,]*terngrad-testbed.json: GPU count 64 does not fit the platform' ||
    fail "the terngrad-testbed row should be infeasible with its reason:
$out"
solo=$("$gcsim" breakeven --platform "$h100" --model "$r50" --compressor qsgd --gpus 64 --format csv | sed -n 2p)
echo "$out" | grep -qxF "$solo" || fail "the h100-ndr row should be what h100-ndr alone answers"

# sweep: the same, a status per row
out=$("$gcsim" sweep --platforms "$h100,$small" --models "$r50" --gpus 64 --format csv 2>"$err"); rc=$?
[ $rc -eq 0 ] || fail "sweep exited $rc: $(cat "$err")"
echo "$out" | grep -q ',terngrad-testbed,resnet-50,.*,64,,,[^,]*GPU count 64 does not fit the platform' ||
    fail "sweep's terngrad-testbed row should carry the reason:
$out"
echo "$out" | grep -q ',h100-ndr,resnet-50,.*,64,8,8,ok,' || fail "sweep's h100-ndr row should be ok"

# plan: the platform that cannot hold 64 GPUs is skipped with its reason, h100-ndr answers;
# a compressor the sharding refuses likewise
out=$("$gcsim" plan --model "$r50" --platforms "$h100,$small" --gpus 64 --target-throughput 100 \
      --format json 2>"$err"); rc=$?
[ $rc -eq 0 ] || fail "plan --platforms h100-ndr,terngrad-testbed exited $rc: $(cat "$err")"
echo "$out" | grep -q '"skipped":.*terngrad-testbed.json: GPU count 64 does not fit the platform' ||
    fail "plan should say why terngrad-testbed was skipped"
echo "$out" | grep -q '"platform":[[:space:]]*"h100-ndr"' || fail "plan should answer on h100-ndr"
out=$("$gcsim" plan --model "$gpt2" --platform "$h100" --compressors none,dgc --sharding zero2 \
      --gpus 16 --target-throughput 100 --format json 2>"$err"); rc=$?
[ $rc -eq 0 ] || fail "plan --compressors none,dgc --sharding zero2 exited $rc: $(cat "$err")"
echo "$out" | grep -q '"skipped":.*dgc:.*does not compose with --sharding zero2' ||
    fail "plan should say why dgc was skipped"

# collective: a count the platform cannot hold is skipped with a note; alone, exit 2
out=$("$gcsim" collective --platform "$h100" --gpus 8,1024 --sizes 1MiB --engine analytic \
      --format csv 2>"$err"); rc=$?
[ $rc -eq 0 ] || fail "collective --gpus 8,1024 exited $rc: $(cat "$err")"
[ "$(echo "$out" | sed 1d | wc -l)" -eq 1 ] && echo "$out" | sed -n 2p | grep -q ',8$' ||
    fail "collective should time 8 GPUs only:
$out"
json=$("$gcsim" collective --platform "$h100" --gpus 8,1024 --sizes 1MiB --engine analytic \
       --format json 2>/dev/null)
echo "$json" | grep -q '"skipped":[[:space:]]*"[^"]*--gpus 1024 does not fit 64 nodes x 8 GPUs' ||
    fail "collective's JSON should carry the skipped count's reason"
solo=$("$gcsim" collective --platform "$h100" --gpus 8 --sizes 1MiB --engine analytic --format csv | sed -n 2p)
echo "$out" | sed -n 2p | grep -qxF "$solo" || fail "the 8-GPU row should be what --gpus 8 answers"
"$gcsim" collective --platform "$h100" --gpus 1024 --sizes 1MiB >/dev/null 2>"$err"; rc=$?
[ $rc -eq 2 ] || fail "collective --gpus 1024 alone should exit 2, exited $rc"

# compress: a described compressor (no encoder) is skipped with its reason; alone, exit 2
trace="$src/tests/traces/fixtures/v1_f32.npy"
desc="file:$src/compressors/described/topk-like.json"
out=$("$gcsim" compress --trace "$trace" --compressor "none,$desc" --quiet --seeds 0 \
      --format json 2>"$err"); rc=$?
[ $rc -eq 0 ] || fail "compress none,described exited $rc: $(cat "$err")"
echo "$out" | grep -q '"skipped":[[:space:]]*"ef+described:.*no encoder' ||
    fail "compress should say why the described compressor was skipped:
$out"
echo "$out" | grep -q '"compressor":[[:space:]]*"none"' || fail "compress should answer none"
"$gcsim" compress --trace "$trace" --compressor "$desc" --quiet --seeds 0 >/dev/null 2>"$err"; rc=$?
[ $rc -eq 2 ] || fail "compress with only a described compressor should exit 2, exited $rc"

# check: a case the platform cannot hold is a row with its reason, the others are checked;
# a case not checked is no pass (exit 1, the check's verdict, not 2); --update records
# nothing then (exit 2, the baseline untouched)
cat > "$work/b.json" <<JSON
{"format": "gcsim-baseline/1", "tolerance_pct": 0.01,
 "cases": [{"name": "fits", "platform": "$h100", "model": "$r50", "collective": "ring",
            "gpus": 16, "scaling": "weak", "engine": "analytic"},
           {"name": "too-big", "platform": "$small", "model": "$r50", "collective": "ring",
            "gpus": 64, "scaling": "weak", "engine": "analytic", "expected_throughput_samples_per_s": 1000}]}
JSON
cp "$work/b.json" "$work/before.json"
"$gcsim" check --baseline "$work/b.json" --update >/dev/null 2>"$err"; rc=$?
[ $rc -eq 2 ] || fail "check --update with a case that cannot run should exit 2, exited $rc"
cmp -s "$work/b.json" "$work/before.json" || fail "check --update rewrote the baseline"
grep -q '$.cases\[1\] (too-big): .*GPU count 64 does not fit the platform' "$err" ||
    fail "check --update should name the case and why: $(cat "$err")"
# record the fitting case alone, then check both
sed 's/"gpus": 64/"gpus": 16/' "$work/b.json" > "$work/both.json"
"$gcsim" check --baseline "$work/both.json" --update >/dev/null 2>&1 || fail "recording both"
expected=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['cases'][0]['expected_throughput_samples_per_s'])" "$work/both.json")
cp "$work/both.json" "$work/one-bad.json"
python3 - "$work/one-bad.json" <<'PY' || fail "could not write the one-bad baseline"
import json, sys
d = json.load(open(sys.argv[1]))
d["cases"][1]["gpus"] = 64
json.dump(d, open(sys.argv[1], "w"))
PY
out=$("$gcsim" check --baseline "$work/one-bad.json" --format json 2>"$err"); rc=$?
[ $rc -eq 1 ] || fail "check with one case that cannot run should exit 1, exited $rc: $(cat "$err")"
echo "$out" | python3 -c "
import json, sys
d = json.load(sys.stdin)
rows = {r['name']: r for r in d['rows']}
assert rows['fits']['status'] == 'ok', rows['fits']
assert abs(rows['fits']['predicted_samples_per_s'] / $expected - 1) < 1e-12, rows['fits']
assert rows['too-big']['status'] == 'infeasible', rows['too-big']
assert 'GPU count 64 does not fit the platform' in rows['too-big']['why'], rows['too-big']
assert d['meta']['cases_infeasible'] == 1
" || fail "check's rows: the fitting case checked ok, the other infeasible with why:
$out"
grep -q '$.cases\[1\] (too-big) could not run: .*GPU count 64 does not fit' "$err" ||
    fail "check should say on stderr which case could not run: $(cat "$err")"
exit $status
