#!/bin/sh
# One infeasible item of a list is a row with its reason, not a failed run (issue 46):
# breakeven answers the other compressors, predict the other GPU counts; only a list of
# which nothing can run exits 2, with every reason on standard error and nothing on stdout.
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
exit $status
