#!/bin/sh
# sweep and plan skip configurations that do not fit in GPU memory, with the arithmetic in
# the output, and still evaluate the ones that fit (issue 17).
#   memory_skips.sh GCSIM SOURCE_DIR
# GPT-2 XL, fp32, Adam: 1,557,611,200 x 16 B = 24.92 GB; activations 5,553,590,272 B per
# sequence: batch 4 -> 47.14 GB fits 80 GB, batch 16 -> 113.78 GB does not.
set -u
gcsim=$1
src=$2
status=0
out=$("$gcsim" sweep --platform "$src/platforms/h100-ndr.json" --model "$src/models/gpt2-xl.json" \
      --gpus 8 --batch 4,16 --no-progress) || { echo "FAIL: sweep exited $?"; status=1; }
echo "$out" | grep -q ',gpt2-xl,none,tuned:nvls,weak,4,analytic,8,1,8,ok,' ||
    { echo "FAIL: batch 4 should run:"; echo "$out"; status=1; }
echo "$out" | grep -F ',weak,16,analytic,8,1,8,' | grep -qF \
    'does not fit in GPU memory on 8 GPUs: gpt2-xl' ||
    { echo "FAIL: batch 16 should be skipped as out of memory:"; echo "$out"; status=1; }
echo "$out" | grep -qF '= 113.78 GB per GPU, > 80.0 GB of gpu.memory' ||
    { echo "FAIL: the skip does not show the arithmetic:"; echo "$out"; status=1; }
# plan: at batch 16 plain data parallelism fits nowhere: with --sharding ddp no feasible
# configuration, and the reason says why and what would fit.
err=$("$gcsim" plan --model "$src/models/gpt2-xl.json" --platform "$src/platforms/h100-ndr.json" \
      --target-throughput 10 --gpus 8 --batch 16 --compressors none --collectives ring \
      --sharding ddp 2>&1 >/dev/null)
echo "$err" | grep -qF 'no configuration could be evaluated: does not fit in GPU memory on 8 GPUs: gpt2-xl' ||
    { echo "FAIL: plan should name the memory limit:"; echo "$err"; status=1; }
echo "$err" | grep -qF 'would fit: ' ||
    { echo "FAIL: plan should say what would fit:"; echo "$err"; status=1; }
# without --sharding, plan searches the sharded strategies (here only with activation
# checkpointing: 16 x 5.55 GB of activations exceed 80 GB whatever is sharded) and says so.
out=$("$gcsim" plan --model "$src/models/gpt2-xl.json" --platform "$src/platforms/h100-ndr.json" \
      --target-throughput 10 --gpus 8 --batch 16 --compressors none --collectives ring \
      --format csv) || { echo "FAIL: plan with sharding exited $?"; status=1; }
echo "$out" | grep -q ',\(fsdp\|zero2\|zero1\|hsdp\),' ||
    { echo "FAIL: plan should find a sharded configuration:"; echo "$out"; status=1; }
# plan at batch 4: runs, and says nothing was skipped.
out=$("$gcsim" plan --model "$src/models/gpt2-xl.json" --platform "$src/platforms/h100-ndr.json" \
      --target-throughput 10 --gpus 8 --batch 4 --compressors none --collectives ring) ||
    { echo "FAIL: plan at batch 4 exited $?"; status=1; }
echo "$out" | grep -q '^skipped' && { echo "FAIL: nothing should be skipped at batch 4"; status=1; }
exit $status
