#!/bin/sh
# Issue 41's done-when: "16,384 GPUs, 10 iterations with variable compute in under 60 CPU-s
# and 2 GiB (a benchmark against the deterministic run in the same invocation, not a timed
# test)". Runs the DES on the same case twice in this invocation, deterministic (one
# iteration) and with variable compute (lognormal CV 0.05, 10 iterations), and prints each
# run's CPU seconds (user + system of the whole gcsim process, /usr/bin/time) and peak
# resident memory, their ratios, and the load average before and after (the machine is
# shared: absolute seconds move with the load, the ratio much less).
#
# Case: ResNet-50, hierarchical all-reduce, platforms/a100-hdr.json with 12,500 nodes (the
# scale runs of docs/des.md), --engine des.
#
# usage: bench/des/variability_bench.sh GCSIM [GPUS] [ITERATIONS] [CV]
set -eu
GCSIM=$1
GPUS=${2:-16384}
ITERS=${3:-10}
CV=${4:-0.05}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
. "$SRC/bench/des/bench_lib.sh"
widen_platform
run() {
    timed_predict "$GCSIM" --model "$SRC/models/resnet-50.json" --collective hierarchical \
        --gpus "$GPUS" --engine des "$@"
}
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
set -- $(run)
det_cpu=$1; det_mib=$2; det_wall=$3; det_iter=$4
set -- $(run --compute-cv "$CV" --iterations "$ITERS")
var_cpu=$1; var_mib=$2; var_wall=$3; var_iter=$4
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
printf "deterministic, %d GPUs, 1 iteration:          %8.2f CPU s %8.1f MiB %8.1f s wall  iteration %.3f ms\n" \
    "$GPUS" "$det_cpu" "$det_mib" "$det_wall" "$(echo "$det_iter * 1000" | bc -l)"
printf "variable (lognormal CV %s), %d iterations:  %8.2f CPU s %8.1f MiB %8.1f s wall  mean %.3f ms\n" \
    "$CV" "$ITERS" "$var_cpu" "$var_mib" "$var_wall" "$(echo "$var_iter * 1000" | bc -l)"
printf "ratio variable/deterministic: %.2fx CPU, %.2fx memory; per iteration %.2fx CPU\n" \
    "$(echo "$var_cpu / $det_cpu" | bc -l)" "$(echo "$var_mib / $det_mib" | bc -l)" \
    "$(echo "$var_cpu / $det_cpu / $ITERS" | bc -l)"
awk -v c="$var_cpu" -v m="$var_mib" 'BEGIN { printf "target (under 60 CPU s and 2048 MiB): CPU %s, memory %s\n", (c < 60 ? "met" : "NOT met"), (m < 2048 ? "met" : "NOT met") }'
