#!/bin/sh
# Inputs that can grow, at their documented limit and one past it (docs/reliability.md,
# "Limits gcsim enforces"), in 1 GiB of address space: at the limit the command answers
# (exit 0, one row per item), one past it is refused (exit 2, the limit named, nothing on
# standard output). Under AddressSanitizer (ASAN_OPTIONS set) the address-space limit is
# left out: ASan reserves terabytes for its shadow memory. The 100,000-layer model and the
# 200,000-tensor trace have their own tests (cli.model_many_layer_times,
# badinputs.safetensors_200k_tensors).
# usage: at_limits.sh GCSIM SOURCE_DIR WORK_DIR
set -u
gcsim=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" || exit 1
[ -n "${ASAN_OPTIONS:-}" ] || ulimit -v 1048576
bad=0
fail() { echo "FAIL: $*"; bad=$((bad + 1)); }

# at_limit NAME ROWS ARGS...: exit 0 and ROWS CSV rows.
at_limit() {
    name=$1 rows=$2
    shift 2
    "$gcsim" "$@" --format csv >"$work/$name.csv" 2>"$work/$name.err"
    rc=$?
    got=$(($(wc -l <"$work/$name.csv") - 1))
    if [ $rc -ne 0 ]; then fail "$name: exit $rc: $(head -c 300 "$work/$name.err")"
    elif [ "$got" -ne "$rows" ]; then fail "$name: $got rows, expected $rows"
    else echo "ok: $name: $rows rows"; fi
}
# past_limit NAME MESSAGE ARGS...: exit 2, MESSAGE on stderr, nothing on stdout.
past_limit() {
    name=$1 msg=$2
    shift 2
    "$gcsim" "$@" --format csv >"$work/$name.out" 2>"$work/$name.err"
    rc=$?
    if [ $rc -ne 2 ]; then fail "$name: exit $rc, expected 2"
    elif ! grep -qF "$msg" "$work/$name.err"; then fail "$name: stderr lacks \"$msg\": $(head -c 300 "$work/$name.err")"
    elif [ -s "$work/$name.out" ]; then fail "$name: wrote to standard output"
    else echo "ok: $name: refused ($msg)"; fi
}

# collective --sizes: at most 64 sizes.
sizes=$(awk 'BEGIN { for (i = 1; i <= 64; i++) printf "%s%dKiB", (i > 1 ? "," : ""), i }')
at_limit collective_64_sizes 64 collective --platform a100-hdr --gpus 8 --engine analytic --sizes "$sizes"
past_limit collective_65_sizes "more than 64 sizes" collective --platform a100-hdr --gpus 8 \
    --engine analytic --sizes "$sizes,65KiB"

# collective --gpus: at most 64 counts (each times every size).
at_limit collective_64_counts 64 collective --platform a100-hdr --gpus 2,3,4,...,65 --engine analytic --sizes 1MiB
past_limit collective_65_counts "more than 64 counts" collective --platform a100-hdr --gpus 2,3,4,...,66 \
    --engine analytic --sizes 1MiB

# predict --gpus: at most 256 counts.
at_limit predict_256_counts 256 predict --platform a100-hdr --model resnet-50 --gpus 1,2,3,...,256
past_limit predict_257_counts "more than 256 counts" predict --platform a100-hdr --model resnet-50 \
    --gpus 1,2,3,...,257

# compress: at most 64 compressors (one row each for the one trace file).
trace=$src/traces/data/fmnist_lenet/lenet_step000200_rank0.safetensors
specs=$(awk 'BEGIN { for (i = 2; i <= 65; i++) printf " --compressor qsgd:s=%d", i }')
# shellcheck disable=SC2086 # specs is a list of words
at_limit compress_64_compressors 64 compress --quiet --trace "$trace" $specs
# shellcheck disable=SC2086
past_limit compress_65_compressors "more than 64 compressors" compress --quiet --trace "$trace" \
    $specs --compressor fp16

# One GPU count at the 2^24 limit, on h100-ndr grown to 2^20 nodes of 16 GPUs and 16 NICs:
# the analytic engine costs ring, halving-doubling, hierarchical and the parameter server
# from their node shape (sim/collectives/closed_form.h), in O(1) memory, so each answers in
# the 1 GiB; one more GPU is refused by name. Schedules that list their flows (the trees,
# the DES's plan) are refused at once, naming their size, instead of running out of memory
# after seconds of work (sim/collectives/schedule_size.c; only under the address-space
# limit, which the sanitizer build leaves out).
sed -e 's/"nodes": 64,/"nodes": 1048576,/' -e 's/"gpus_per_node": 8,/"gpus_per_node": 16,/' \
    -e 's/"per_node": 8$/"per_node": 16/' \
    -e "s|\"codec_profile\": \"codec/|\"codec_profile\": \"$src/platforms/codec/|" \
    "$src/platforms/h100-ndr.json" >"$work/gpu_limit.json"
grep -q '"per_node": 16' "$work/gpu_limit.json" || fail "gpu_limit.json: h100-ndr.json changed"
for c in ring halving-doubling hierarchical ps allgather; do
    at_limit "predict_2p24_gpus_$c" 1 predict --platform "$work/gpu_limit.json" \
        --model resnet-50 --gpus 16777216 --collective $c
done
past_limit predict_2p24_plus_1_gpus "is not a GPU count (a whole number from 1 to 16777216)" \
    predict --platform "$work/gpu_limit.json" --model resnet-50 --gpus 16777217
if [ -z "${ASAN_OPTIONS:-}" ]; then
    past_limit predict_2p24_gpus_double_tree "more than the" predict \
        --platform "$work/gpu_limit.json" --model resnet-50 --gpus 16777216 --collective double-tree
    past_limit predict_2p24_gpus_des "SimGrid messages" predict --platform "$work/gpu_limit.json" \
        --model resnet-50 --gpus 16777216 --engine des
fi

[ "$bad" -eq 0 ] || { echo "$bad case(s) failed"; exit 1; }
