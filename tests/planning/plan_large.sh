#!/bin/sh
# gcsim plan on platforms of 600, 800 and 66,000 GPUs (issue 15, defects 1 and 2).
#   plan_large.sh GCSIM SOURCE_DIR WORK_DIR
# 1. The default search on 600 and 800 GPUs finishes (it read freed memory and crashed:
#    the sanitizer suite runs this under ASan) and answers the same as an explicit --gpus
#    list of every count, whose search keeps no pointer into a growing array either.
# 2. On 66,000 GPUs (8,250 A100 nodes, past the old 65,536 stop) a target that only counts near 66,000 reach is
#    met: the search goes beyond 65,536 GPUs and always includes the whole platform.
set -u
gcsim=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
fail=0
say() { echo "FAIL: $*"; fail=1; }
platform() { # NODES -> a100-hdr.json with that many nodes
    sed "s/\"nodes\": 64,/\"nodes\": $1,/" "$src/platforms/a100-hdr.json" >"$work/a100-$1.json"
    grep -q "\"nodes\": $1," "$work/a100-$1.json" || say "cannot make a $1-node platform"
}
model=$src/models/resnet-50.json
# Collectives whose closed form is O(N) or O(N log N) per GPU count (the parameter server's
# is O(N x shards)): the defects are in the search, not in any collective.
collectives=ring,hierarchical,halving-doubling,allgather

for nodes in 75 100; do
    platform $nodes
    gpus=$((nodes * 8))
    # --partial-nodes: the bounded search of every count (whole nodes are the default),
    # compared with the list of every count, which the bounded search treats the same way.
    # A target of 40 x one A100 (about 41,000 samples/s): dozens of GPUs, so many feasible
    # candidates, and with them the array that was reallocated under the winner pointer.
    "$gcsim" plan --model "$model" --platform "$work/a100-$nodes.json" --target-throughput 41000 \
        --collectives $collectives --top 0 --format csv --partial-nodes >"$work/default-$nodes.csv" 2>"$work/err"
    rc=$?
    [ $rc -eq 0 ] || { say "$gpus GPUs: exit $rc"; cat "$work/err"; }
    "$gcsim" plan --model "$model" --platform "$work/a100-$nodes.json" --target-throughput 41000 \
        --collectives $collectives --top 0 --format csv --gpus "1,2,3,...,$gpus" >"$work/list-$nodes.csv" 2>"$work/err"
    rc=$?
    [ $rc -eq 0 ] || { say "$gpus GPUs, --gpus list: exit $rc"; cat "$work/err"; }
    rows=$(($(wc -l <"$work/default-$nodes.csv") - 1))
    # 3 compressors x 4 collectives, less the one group that cannot reach the target:
    # TernGrad through the all-gather, where every GPU receives and decodes N-1 payloads,
    # so that its throughput hardly grows with the GPUs (issue 13; 34,000 samples/s at 600
    # GPUs under the default stack, pytorch-ddp). fp16 through the all-gather reaches it
    # under pytorch-ddp (42,900 samples/s at 48 GPUs): DDP decodes each payload as one
    # decode-and-add per 25 MiB bucket, where the fused stack's codec model, which every
    # case used before stacks, decodes it tensor by tensor (22,000 at 48 GPUs).
    [ "$rows" -eq 11 ] ||
        say "$gpus GPUs: $rows rows, expected 11 (3 compressors x 4 collectives, less terngrad by all-gather)"
    grep -q '^[0-9]*,[^,]*,[0-9]*,[0-9]*,"terngrad[^"]*",allgather,' "$work/default-$nodes.csv" &&
        say "$gpus GPUs: terngrad by all-gather is not expected to reach the target"
    grep -q '^[0-9]*,[^,]*,[0-9]*,[0-9]*,fp16,allgather,' "$work/default-$nodes.csv" ||
        say "$gpus GPUs: fp16 by all-gather is expected to reach the target under pytorch-ddp"
    cmp -s "$work/default-$nodes.csv" "$work/list-$nodes.csv" ||
        say "$gpus GPUs: the default search and the list of every count disagree"
done

# 66,000 GPUs (8,250 nodes, past the old 65,536 stop) with halving-doubling, which stays
# bandwidth-bound at that scale (a flat ring pays 2(N-1) step latencies). The target is
# between what gcsim predicts for 65,536 and for all 66,000 GPUs, so only counts above 65,536
# meet it: the default search must reach the platform's size.
platform 8250
full=$("$gcsim" predict --model "$model" --platform "$work/a100-8250.json" --collective halving-doubling \
           --gpus 66000 --format csv | awk -F, 'NR == 2 { print $10 }')
# 65,536 GPUs (a power of two, which halving-doubling favours, and on the bounded search's
# grid) reach 0.4% less; the target lies halfway between, so only counts above 65,536
# meet it (the 1% grid of earlier versions missed 65,536 itself).
p2=$("$gcsim" predict --model "$model" --platform "$work/a100-8250.json" --collective halving-doubling \
         --gpus 65536 --format csv | awk -F, 'NR == 2 { print $10 }')
target=$(awk -v f="$full" -v p="$p2" 'BEGIN { printf "%.0f", (f + p) / 2 }')
awk -v f="$full" -v p="$p2" 'BEGIN { exit !(p < f) }' || say "65,536 GPUs ($p2) not slower than 66,000 ($full)"
# One search (JSON: the exact numbers and the note on how GPU counts were searched).
"$gcsim" plan --model "$model" --platform "$work/a100-8250.json" --compressors none \
    --collectives halving-doubling --target-throughput $target --format json \
    >"$work/plan-66000.json" 2>"$work/err"
rc=$?
[ $rc -eq 0 ] || { say "66,000 GPUs: exit $rc, expected 0 (feasible)"; cat "$work/err"; }
# The first row's member (meta, before "rows", has a target throughput of its own).
field() { sed -n "/\"rows\"/,\$ s/^[[:space:]]*\"$1\":[[:space:]]*\([^,]*\),*$/\1/p" "$work/plan-66000.json" | head -n 1; }
gpus=$(field gpus)
tput=$(field throughput_samples_per_s)
echo "66,000-GPU platform, target $target samples/s: $gpus GPUs, $tput samples/s"
[ -n "$gpus" ] && [ "$gpus" -gt 65536 ] && [ "$gpus" -le 66000 ] && [ $((gpus % 8)) -eq 0 ] ||
    say "66,000 GPUs: answer '$gpus' GPUs, expected a whole-node count in (65536, 66000]"
awk -v t="$tput" -v need=$target 'BEGIN { exit !(t >= need) }' ||
    say "the answer's throughput $tput is below the target $target"
# The same count through predict gives the same throughput.
p=$("$gcsim" predict --model "$model" --platform "$work/a100-8250.json" --collective halving-doubling \
        --gpus "$gpus" --format csv | awk -F, 'NR == 2 { print $10 }')
[ "$p" = "$tput" ] || say "plan says $tput samples/s at $gpus GPUs, predict says $p"
# The searched note says how the counts were searched (issue 28: a grid refined around the
# best, not every count).
grep -q "searched on a grid of 2 counts per doubling refined around the best" "$work/plan-66000.json" ||
    say "the output does not say how the GPU counts were searched"
exit $fail
