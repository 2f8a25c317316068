#!/bin/sh
# Byte-identity of two gcsim binaries on the commands whose numbers come from the pipelined
# trees' prepared schedules (issue 47: the tree's cost over its chunk count must not move a
# bit): predict (the platform's default collective and the double tree, GPU counts 2 .. 2^20
# on a grown h100-ndr, both engines at small counts), sweep (trees and the rest, every
# compressor), collective (tree, double tree and the default, analytic and DES) and
# calibrate (the small logs, and the GB200 ones with CAL_BIG=1: minutes each before issue
# 47). Prints one line per command: "same" or "DIFFERENT" (then both outputs are kept under
# $KEEP when set); exits 1 when any differs. A check run by hand, not a ctest (it needs a
# second binary).
#
# usage: bench/planning/compare_outputs.sh NEW_GCSIM REF_GCSIM [SOURCE_DIR]
set -u
new=$1 ref=$2
here=$(cd "$(dirname "$0")" && pwd)
src=${3:-$(cd "$here/../.." && pwd)}
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
p=$src/platforms m=$src/models v=$src/tests/validation/nccl_logs
sed 's/"nodes": 64,/"nodes": 131072,/' "$p/h100-ndr.json" >"$work/h100-2p20.json"
[ -d "$p/codec" ] && cp -r "$p/codec" "$work/"
big=$work/h100-2p20.json
fails=0 n=0

# compare NAME ARGS...: runs both binaries (stdout, stderr and the exit status; an --output
# file named @OUT@ is compared too)
compare() {
    name=$1
    shift
    n=$((n + 1))
    for side in new ref; do
        if [ "$side" = new ]; then g=$new; else g=$ref; fi
        out=$work/$side.$n.file
        rm -f "$out"
        args=""
        for a in "$@"; do
            [ "$a" = @OUT@ ] && a=$out
            args="$args '$a'"
        done
        eval "\"$g\" $args" >"$work/$side.$n.out" 2>"$work/$side.$n.err"
        echo "exit $?" >>"$work/$side.$n.out"
        [ -f "$out" ] && cat "$out" >>"$work/$side.$n.out"
        # the binary's own path and the output file's may appear in messages
        sed -i -e "s#$g#GCSIM#g" -e "s#$out#OUTPUT#g" "$work/$side.$n.err"
        sed -i "s#$out#OUTPUT#g" "$work/$side.$n.out"
    done
    if cmp -s "$work/new.$n.out" "$work/ref.$n.out" && cmp -s "$work/new.$n.err" "$work/ref.$n.err"; then
        printf "same       %s\n" "$name"
    else
        printf "DIFFERENT  %s\n" "$name"
        fails=$((fails + 1))
        if [ -n "${KEEP:-}" ]; then
            mkdir -p "$KEEP"
            cp "$work/new.$n.out" "$KEEP/$n.new.out"
            cp "$work/ref.$n.out" "$KEEP/$n.ref.out"
        fi
    fi
}

for pf in a100-hdr h100-ndr cloud-v100-25gbe dgc-fig6-10gbe h100-400g terngrad-fig5b; do
    for model in resnet-50 bert-base vgg-16; do
        compare "predict $pf $model (default collective, 1..)" predict --platform "$p/$pf.json" \
            --model "$m/$model.json" --format csv
        compare "predict $pf $model double-tree" predict --platform "$p/$pf.json" \
            --model "$m/$model.json" --collective double-tree --format csv
        compare "predict $pf $model tree dgc" predict --platform "$p/$pf.json" \
            --model "$m/$model.json" --collective tree --compressor dgc --format csv
    done
    compare "predict $pf des 2,3,8,16 double-tree" predict --platform "$p/$pf.json" \
        --model "$m/resnet-50.json" --collective double-tree --engine des --gpus 2,3,8,16 --format csv
    compare "collective $pf tree/double-tree" collective --platform "$pf" --gpus 2,3,5,8,9,17,64,100 \
        --collective double-tree --sizes 4KiB,1MiB,7MiB,64MiB,1GiB --engine analytic
    compare "collective $pf tree" collective --platform "$pf" --gpus 16 \
        --collective tree --sizes 4KiB,1MiB,7MiB,64MiB,1GiB
done
for g in 2 3 4 1000 65536 1048576; do
    compare "predict 2^20-node h100 $g GPUs (default)" predict --platform "$big" \
        --model "$m/resnet-50.json" --gpus "$g" --format csv
done
compare "predict 2^20-node h100 1,2,4..2^20 double-tree" predict --platform "$big" \
    --model "$m/resnet-50.json" --collective double-tree --format csv
for f in "$v"/platforms/*.json; do
    compare "collective $(basename "$f") default" collective --platform "$f" --gpus 16,72,128 \
        --sizes 8B,64KiB,1MiB,32MiB,1GiB,8GiB --engine analytic
done
compare "sweep trees x compressors 1..64" sweep \
    --platform "$p/a100-hdr.json,$p/h100-ndr.json,$p/cloud-v100-25gbe.json,$p/ecq-fig6.json" \
    --model "$m/resnet-50.json,$m/bert-base.json,$m/alexnet.json" \
    --compressor none,fp16,terngrad,qsgd,dgc,powersgd \
    --collective ring,double-tree,tree,hierarchical --gpus 1,2,3,...,64 --no-progress --output @OUT@
# what-if copies of one platform (other NIC rates, the same shape): the sweep keeps the
# trees' templates from one to the next (sim/planning/sweep_run.c)
sed 's/"200Gbps"/"100Gbps"/' "$p/a100-hdr.json" >"$work/a100-hdr-100g.json"
sed 's/"200Gbps"/"400Gbps"/' "$p/a100-hdr.json" >"$work/a100-hdr-400g.json"
compare "sweep trees, same-shape platforms" sweep \
    --platform "$p/a100-hdr.json,$work/a100-hdr-100g.json,$work/a100-hdr-400g.json" \
    --model "$m/resnet-50.json,$m/bert-base.json" --compressor none,fp16,dgc \
    --collective double-tree,tree --gpus 1,2,3,...,130 --no-progress --output @OUT@
compare "sweep des trees" sweep --platform "$p/a100-hdr.json" --model "$m/resnet-50.json" \
    --compressor none,terngrad --collective double-tree --engine des --gpus 2,4,16 \
    --no-progress --output @OUT@
# calibrate as tests/validation/nccl_logs.py runs it (its --gpus, --nodes, and the algorithm
# and protocol a log was run with)
tab=$(printf '\t')
while IFS=$tab read -r file platform gpus kind gmodel per_node nodes nics transport ver source \
    date note algo proto; do
    [ "$file" = file ] && continue
    case $file in gb200-*) [ "${CAL_BIG:-0}" = 1 ] || continue ;; esac
    set -- calibrate --log "$v/$file"
    case ${algo:--} in -|"") ;; *) set -- "$@" --collective "$algo" ;; esac
    case ${proto:--} in -|"") ;; *) set -- "$@" --protocol "$proto" ;; esac
    compare "calibrate $file" "$@" --gpus "$gpus" --nodes "$nodes" --platform "$v/$platform" \
        --output @OUT@ --wide
done <"$v/SOURCES.tsv"
echo "$n commands, $fails different"
[ "$fails" = 0 ]
