#!/bin/sh
# An output that is one of the command's inputs (issue 45): outputs are renamed into place
# at the end of a run, so `--output` naming the model, the platform, the stack, the
# baseline, a log, a merge shard or a trace replaced that input with the report. Every
# command that writes a file must refuse it before any work: exit 2, a message naming both
# options and the path, nothing on stdout, and the input byte-identical. Each output
# option is pointed at each input of each writing command (copies here), spelled as
# given, through a symbolic link, a hard link and "./"; then the files a platform or a
# baseline names (a codec profile, a stack, a case's platform and model), and two outputs
# of one run naming one file. gcsim before issue 45 replaced the input in 33 of the 34
# input cases (all but the hard link, whose other name kept the old file; 2 of them need
# the DES) and the trace dump in the last case.
#   output_is_input.sh GCSIM SOURCE_DIR WORK_DIR
set -u
gcsim=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
cd "$work" || exit 1
fail=0 cases=0
say() { echo "FAIL: $*"; fail=1; }

# refused INPUT FRAGMENT ARGS...: in a fresh copy of the inputs, gcsim ARGS must exit 2
# with FRAGMENT on stderr, print nothing on stdout and leave INPUT as it was.
refused() {
    input=$1 fragment=$2
    shift 2
    cases=$((cases + 1))
    rm -rf "$work/case" && cp -a "$work/inputs" "$work/case" && cd "$work/case" || exit 1
    before=$(cksum <"$input")
    "$gcsim" "$@" >../out 2>../err
    rc=$?
    cd "$work" || exit 1
    [ $rc -eq 2 ] || say "gcsim $*: exit $rc, expected 2: $(head -c 300 err)"
    [ -s out ] && say "gcsim $*: something on stdout"
    cmp -s "inputs/$input" "case/$input" || say "gcsim $*: $input was replaced"
    [ "$(cksum <"case/$input")" = "$before" ] || say "gcsim $*: $input changed"
    grep -qF -- "$fragment" err || say "gcsim $*: stderr lacks \"$fragment\": $(head -c 300 err)"
}

# The inputs, copied afresh for each case. The platform names a codec profile and a stack
# file beside it.
mkdir inputs && cd inputs || exit 1
cp "$src/models/resnet-50.json" m.json
mkdir codec
cp "$src/platforms/codec/h100-pytorch.json" codec/h100-pytorch.json
sed 's/^  "name": "h100-ndr",$/  "name": "h100-ndr", "stack": "platform-stack.json",/' \
    "$src/platforms/h100-ndr.json" >p.json
grep -q '"stack": "platform-stack.json"' p.json || say "the platform copy names no stack"
cp "$src/platforms/stacks/pytorch-ddp.json" platform-stack.json
cp "$src/platforms/stacks/pytorch-ddp.json" s.json
cp "$src/tests/calibrate/logs/h100_1x8_mpirun_pasted.log" l.log
cp "$src/tests/badinputs/files/npy_good.npy" t.npy
mkdir digits
cp "$src/traces/datasets/digits/digits.csv.gz" digits/
ln -s m.json link.json
ln m.json hard.json
printf '{"format": "gcsim-baseline/1", "cases": [{"name": "c1", "platform": "p.json", "model": "m.json", "compressor": "none", "collective": "ring", "gpus": 8, "scaling": "weak", "engine": "analytic", "expected_throughput_samples_per_s": 1}]}\n' >b.json
"$gcsim" sweep --platform p.json --gpus 1,2,4,8 --shard 1/2 --no-progress --output shard1.csv 2>err &&
    "$gcsim" sweep --platform p.json --gpus 1,2,4,8 --shard 2/2 --no-progress --output shard2.csv 2>>err ||
    say "the shards: $(cat err)"
cp shard1.csv shard.png
ln -s shard1.csv link.csv
# The inputs are usable: the same run with another output file works.
"$gcsim" predict --platform p.json --model m.json --stack s.json --gpus 8 --output ../ok.txt 2>err ||
    say "predict with these inputs: $(cat err)"
rm -f err
cd "$work" || exit 1

same="name the same file"
# predict
refused m.json "--output and --model $same, m.json" predict --model m.json --gpus 8 --output m.json
refused p.json "--output and --platform $same, p.json" predict --platform p.json --gpus 8 --output p.json
refused s.json "--output and --stack $same, s.json" predict --stack s.json --gpus 8 --output s.json
refused m.json "--output and --model $same, ./m.json" predict --model m.json --gpus 8 --output ./m.json
refused m.json "--output and --model $same, link.json" predict --model m.json --gpus 8 --output link.json
refused m.json "--output and --model $same, hard.json" predict --model m.json --gpus 8 --output hard.json
refused m.json "--output and --model $same, m.json" predict --model "$work/case/m.json" --gpus 8 --output m.json
refused codec/h100-pytorch.json "--output and the gpu.codec_profile of --platform $same" \
    predict --platform p.json --gpus 8 --output codec/h100-pytorch.json
refused platform-stack.json "--output and the stack of --platform $same" \
    predict --platform p.json --gpus 8 --output platform-stack.json
if "$gcsim" --version | grep -q "engines: analytic, des"; then
    refused m.json "--timeline and --model $same" \
        predict --engine des --model m.json --gpus 8 --timeline m.json
    refused p.json "--timeline and --platform $same" \
        predict --engine des --platform p.json --gpus 8 --timeline p.json --output t.out
fi
# sweep
refused p.json "--output and --platform $same" sweep --platform a100-hdr,p.json --output p.json
refused m.json "--output and --model $same" sweep --model alexnet --model m.json --output m.json
refused s.json "--output and --stack $same" sweep --stack pytorch-ddp,s.json --output s.json
refused codec/h100-pytorch.json "the gpu.codec_profile of --platform" \
    sweep --platform p.json --output codec/h100-pytorch.json
# plan
refused m.json "--output and --model $same" plan --model m.json --target-throughput 1000 --output m.json
refused p.json "--output and --platform $same" plan --platform p.json --target-throughput 1000 --output p.json
refused s.json "--output and --stack $same" plan --stacks fused,s.json --target-throughput 1000 --output s.json
# breakeven
refused m.json "--output and --model $same" breakeven --compressor terngrad --model m.json --output m.json
refused p.json "--output and --platform $same" breakeven --compressor terngrad --platform p.json --output p.json
refused s.json "--output and --stack $same" breakeven --compressor terngrad --stack s.json --output s.json
# check: the baseline, with and without --update, and the files its case names
refused b.json "--output and --baseline $same" check --baseline b.json --output b.json
refused b.json "--output and --baseline $same" check --baseline b.json --update --output b.json
refused m.json "--output and the model of --baseline's case c1 $same" check --baseline b.json --output m.json
refused p.json "--output and the platform of --baseline's case c1 $same" check --baseline b.json --output p.json
refused platform-stack.json "--output and the stack of the platform of --baseline's case c1 $same" \
    check --baseline b.json --output platform-stack.json
# calibrate
refused l.log "--output and --log $same" calibrate --log l.log --platform p.json --output l.log
refused p.json "--output and --platform $same" calibrate --log l.log --platform p.json --output p.json
# merge
refused shard1.csv "--output and a shard file $same" merge shard1.csv shard2.csv --output shard1.csv
refused shard2.csv "--output and a shard file $same" merge --output shard2.csv shard1.csv shard2.csv
# compress, trace info
refused t.npy "--output and --trace $same" compress --quiet --compressor none --trace t.npy --output t.npy
refused t.npy "--output and a trace file $same" trace info t.npy --output t.npy
# train: the data set's files
refused digits/digits.csv.gz "--output and a file of --data $same" \
    train --data digits --model softmax --epochs 1 --limit-train 64 --limit-test 64 \
    --output digits/digits.csv.gz
# collective
refused p.json "--output and --platform $same" collective --platform p.json --gpus 8 --output p.json

# plot: the picture (an input named .png, so the extension is accepted) and the script
refused shard.png "--output and the input file $same" plot shard.png --output ./shard.png
refused shard1.csv "--script and the input file $same" plot shard1.csv --output pic.png --script shard1.csv
refused shard1.csv "--script and the input file $same" plot shard1.csv --output pic.png --script link.csv

# Two outputs of one run: train's trace dump and its report.
cases=$((cases + 1))
rm -rf case && cp -a inputs case && mkdir case/dumps && cd case || exit 1
"$gcsim" train --data digits --model softmax --epochs 1 --limit-train 64 --limit-test 64 \
    --dump-trace dumps --dump-steps 0 --output dumps/softmax-step000000.safetensors >../out 2>../err
rc=$?
cd "$work" || exit 1
[ $rc -eq 2 ] && grep -qF -- "--dump-trace and --output $same" err ||
    say "train: the dump named as --output: exit $rc: $(head -c 300 err)"
[ -s out ] && say "train: the dump named as --output: something on stdout"
[ -e case/dumps/softmax-step000000.safetensors ] && say "train: the dump named as --output: written"

echo "$cases cases"
exit $fail
