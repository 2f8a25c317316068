#!/bin/sh
# The DES size guard's CPU and memory estimates (des_plan_estimate, read from the engine's
# refusal message: no simulation runs for it) against the simulation's measured CPU
# seconds (user + system of the whole process, the forked child included) and peak
# resident memory, on a grid of collectives x strategies x GPU counts, all in this one run:
# the guard promises a factor 2 (docs/des.md, "Size guard"). Prints one row per case with
# both ratios, then the range of each ratio and whether every case is within 2x.
# Measured CPU seconds move with the machine's load (a loaded 2-core machine inflates the
# larger runs up to ~3x, docs/des.md): the load average is printed before and after.
#
# Cases on platforms/a100-hdr.json widened to 12,500 nodes (bench_lib.sh), ResNet-50
# (data parallel) with each of COLLECTIVES (default: the stack's tuned per call), Llama-2-7B
# with each of STRATEGIES (--sharding), and ResNet-50 on the parameter server at PS_GPUS.
#
# usage: bench/des/guard_grid.sh GCSIM [GPUS] [COLLECTIVES] [STRATEGIES] [PS_GPUS]
#   defaults: GPUS 256,1024  COLLECTIVES default,ring,hierarchical,tree,double-tree,halving-doubling
#             STRATEGIES zero2,fsdp  PS_GPUS 64,128,256,512,1024
set -eu
GCSIM=$1
GPUS=${2:-256,1024}
COLLECTIVES=${3:-default,ring,hierarchical,tree,double-tree,halving-doubling}
STRATEGIES=${4:-zero2,fsdp}
PS_GPUS=${5:-64,128,256,512,1024}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
. "$SRC/bench/des/bench_lib.sh"
widen_platform

row() { # row LABEL GPUS ARGS...
    label=$1 n=$2
    shift 2
    set -- "$@" --gpus "$n"
    est=$(guard_estimate "$GCSIM" "$@")
    # shellcheck disable=SC2086
    set -- $(timed_predict "$GCSIM" "$@" --engine des --des-max-messages -1) $est
    if [ "$1" = fail ] || [ -z "${6:-}" ]; then
        echo "$label $n: failed: $(head -c 300 "$WORK/err")"
        return
    fi
    printf "%-22s %6d | %9.2f %9.2f %6.2f | %8.1f %8.1f %6.2f\n" "$label" "$n" "$5" "$1" \
        "$(echo "$5 / $1" | bc -l)" "$6" "$2" "$(echo "$6 / $2" | bc -l)"
    echo "$(echo "$5 / $1" | bc -l) $(echo "$6 / $2" | bc -l) $1 $6" >> "$WORK/ratios"
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-22s %6s | %9s %9s %6s | %8s %8s %6s\n" case gpus guard_s cpu_s g/cpu guard_MiB MiB g/mem
for n in $(echo "$GPUS" | tr ',' ' '); do
    for c in $(echo "$COLLECTIVES" | tr ',' ' '); do
        if [ "$c" = default ]; then
            row "resnet-50 default" "$n" --model "$SRC/models/resnet-50.json"
        else
            row "resnet-50 $c" "$n" --model "$SRC/models/resnet-50.json" --collective "$c"
        fi
    done
    for s in $(echo "$STRATEGIES" | tr ',' ' '); do
        row "llama-2-7b $s" "$n" --model "$SRC/models/llama-2-7b.json" --sharding "$s"
    done
done
for n in $(echo "$PS_GPUS" | tr ',' ' '); do
    row "resnet-50 ps" "$n" --model "$SRC/models/resnet-50.json" --collective ps
done
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
# Judged: every row. The estimate is the whole gcsim process's, as measured here (the
# simulation child's plus the process's own start, DES_CPU_S_PROCESS and DES_BYTES_PROCESS
# in des_plan.c): before it counted the child only and rows under 0.2 CPU s or 40 MiB,
# where the process's start decides, were listed but not judged.
awk '{ c = $1; if (nc == 0 || c < cmin) cmin = c; if (nc == 0 || c > cmax) cmax = c; nc++
       m = $2; if (nm == 0 || m < mmin) mmin = m; if (nm == 0 || m > mmax) mmax = m; nm++ }
     END { if (nc == 0 || nm == 0) { print "too few cases to judge"; exit }
           ok = cmin >= 0.5 && cmax <= 2 && mmin >= 0.5 && mmax <= 2
           printf "guard / measured: CPU %.2f-%.2f, memory %.2f-%.2f, over %d cases: %s\n",
                  cmin, cmax, mmin, mmax, nc, ok ? "within 2x" : "NOT within 2x" }' "$WORK/ratios"
