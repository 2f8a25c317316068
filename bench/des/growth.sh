#!/bin/sh
# One gcsim binary's DES cost as the GPUs grow (issue 47's growth exponents): for each case
# and GPU count, the whole process's CPU seconds (user + system, the forked simulation child
# included) and peak resident MiB (bench_lib.sh's timed_predict, --des-max-messages -1),
# the size guard's CPU estimate beside it (guard_estimate), then per case the growth
# exponent: the least-squares slope of log CPU s on log GPUs over the counts that ran, and
# the slope between each pair of neighbouring counts. Unpaired (issue47_bench.sh pairs two
# binaries): absolute seconds move with the shared machine's load, printed before and after.
#
# Cases on platforms/a100-hdr.json widened to 12,500 nodes, ResNet-50, --engine des:
#   default (the stack's tuned all-reduce per call), or any --collective name (ring,
#   hierarchical, double-tree, ps, ...).
#
# usage: bench/des/growth.sh GCSIM [CASES] [GPUS]
#   defaults: CASES ring,hierarchical,double-tree,default  GPUS 1024,4096,16384,65536
set -eu
GCSIM=$1
CASES=${2:-ring,hierarchical,double-tree,default}
GPUS=${3:-1024,4096,16384,65536}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
. "$SRC/bench/des/bench_lib.sh"
widen_platform

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-12s %6s | %9s %8s %8s | %9s %6s | %s\n" case gpus cpu_s MiB wall_s guard_s g/cpu iteration_s
for c in $(echo "$CASES" | tr ',' ' '); do
    for n in $(echo "$GPUS" | tr ',' ' '); do
        # shellcheck disable=SC2046
        est=$(guard_estimate "$GCSIM" $(case_args "$c") --gpus "$n" | cut -d' ' -f1)
        # shellcheck disable=SC2046
        set -- $(timed_predict "$GCSIM" $(case_args "$c") --gpus "$n" --engine des \
            --des-max-messages -1)
        if [ "$1" = fail ]; then
            echo "$c $n: failed: $(head -c 300 "$WORK/err")"
            continue
        fi
        printf "%-12s %6d | %9.2f %8.1f %8.1f | %9s %6.2f | %s   (load %s)\n" "$c" "$n" "$1" "$2" \
            "$3" "${est:--}" "$(echo "${est:-0} / $1" | bc -l)" "$4" "$(cut -d' ' -f1 /proc/loadavg)"
        echo "$c $n $1" >> "$WORK/rows"
    done
done
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$SRC/bench/des/fit_exponents.py" "$WORK/rows" cpu_s
