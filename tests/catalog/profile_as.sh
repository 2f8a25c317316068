#!/bin/sh
# gpu.profile_as (docs/formats.md) on the catalog's H200 cluster: a model measured on the H200
# runs from its own profile, one without an H200 profile from the H100's, and a transformer
# without a profile from the H100's efficiency fit, so that it computes as on the H100
# cluster (same peaks: platforms/h200-ndr.json).
#   profile_as.sh GCSIM SOURCE_DIR
set -eu
gcsim=$1 src=$2
compute_s() { # platform model gpus extra... -> compute_s of that row
    p=$1 m=$2 n=$3
    shift 3
    "$gcsim" predict --platform "$src/platforms/$p.json" --model "$src/models/$m.json" \
        --gpus "$n" --format csv "$@" |
        awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "compute_s") c = i }
                 NR == 2 { print $c }'
}
fail() { echo "profile_as.sh: $*" >&2; exit 1; }

# ResNet-50, batch 256: the H200's measured median step, 116.00 ms
# (bench/gpu/results/h200-models.json), not the H100's 137.67 ms
got=$(compute_s h200-ndr resnet-50 1 --batch 256)
awk -v t="$got" 'BEGIN { exit !(t > 0.11599 && t < 0.11601) }' ||
    fail "resnet-50 on h200-ndr: compute_s $got, expected the H200's 0.11600 s"
# GoogLeNet has no H200 profile: the H100's, the same time as on h100-ndr
a=$(compute_s h200-ndr googlenet 1) b=$(compute_s h100-ndr googlenet 1)
[ -n "$a" ] && [ "$a" = "$b" ] || fail "googlenet: h200-ndr $a, h100-ndr $b: expected the same"
# Llama-2-7B (no profile, bf16; FSDP over 8 GPUs, to fit 80 GB): the transformer
# efficiency fit of the H100
a=$(compute_s h200-ndr llama-2-7b 8 --sharding fsdp)
b=$(compute_s h100-ndr llama-2-7b 8 --sharding fsdp)
[ -n "$a" ] && [ "$a" = "$b" ] || fail "llama-2-7b: h200-ndr $a, h100-ndr $b: expected the same"
echo "profile_as: resnet-50 $got s from the H200's profile; googlenet and llama-2-7b as on the H100"
