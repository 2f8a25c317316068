#!/bin/sh
# Issue 47's DES cases, paired: each case run by a reference gcsim and a candidate gcsim back
# to back in this invocation (the machine is shared: absolute seconds move with the load, the
# ratio much less), with /usr/bin/time on the whole process (user + system, which includes the
# forked simulation child) and peak resident memory, and the size guard's CPU estimate for
# the case (des_plan_estimate, read from the candidate's refusal message) against the
# candidate's measured CPU seconds (the guard promises a factor 2).
#
# Cases (platforms/a100-hdr.json with 12,500 nodes, weak scaling, --engine des), per GPU count:
#   default      ResNet-50, no --collective: the stack's tuned all-reduce per call (double
#                tree on a100-hdr from 64 GPUs for ResNet-50's buckets)
#   ring, hierarchical, double-tree   ResNet-50 with that --collective
#   ps           ResNet-50, --collective ps (one shard per machine)
#   fsdp         Llama-2-7B, --sharding fsdp (no actor per GPU since des_shard_direct.c:
#                65,536 GPUs fits in seconds; GCSIM_DES_ACTORS=1 in the environment runs
#                the per-flow path with its actors, GCSIM_DES_REPLAY=1 every message)
# Growth exponents (log CPU s on log GPUs, least squares over the counts that ran) are
# printed per case and binary.
#
# usage: bench/des/issue47_bench.sh REF_GCSIM NEW_GCSIM [CASES] [GPUS]
#   CASES comma-separated (default default,ring,hierarchical,double-tree,ps,fsdp)
#   GPUS  comma-separated (default 1024,4096)
# e.g. bench/des/issue47_bench.sh /work/main/build-m/sim/cli/gcsim-15d49d8 build/sim/cli/gcsim \
#      ps,fsdp 512,1024
set -eu
REF=$1
NEW=$2
CASES=${3:-default,ring,hierarchical,double-tree,ps,fsdp}
GPUS=${4:-1024,4096}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
. "$SRC/bench/des/bench_lib.sh"
widen_platform

# run GCSIM CASE GPUS: prints "cpu_s peak_mib wall_s iteration_s"
run() {
    # shellcheck disable=SC2046
    timed_predict "$1" $(case_args "$2") --gpus "$3" --engine des --des-max-messages -1
}

# estimate GCSIM CASE GPUS: the guard's CPU seconds (bench_lib.sh's guard_estimate).
estimate() {
    # shellcheck disable=SC2046
    guard_estimate "$1" $(case_args "$2") --gpus "$3" | cut -d' ' -f1
}

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-12s %6s | %9s %8s | %9s %8s | %7s %7s | %9s %6s | %s\n" case gpus ref_cpu_s ref_MiB \
    new_cpu_s new_MiB cpu_x mem_x guard_s g/meas "iteration_s new (ref if different)"
for c in $(echo "$CASES" | tr ',' ' '); do
    for n in $(echo "$GPUS" | tr ',' ' '); do
        set -- $(run "$REF" "$c" "$n")
        rc=$1 rm=$2 ri=$4
        set -- $(run "$NEW" "$c" "$n")
        nc=$1 nm=$2 ni=$4
        est=$(estimate "$NEW" "$c" "$n")
        [ "$rc" = fail ] || [ "$nc" = fail ] && { echo "$c $n: a run failed: $(head -c 300 "$WORK/err")"; continue; }
        same=$([ "$ri" = "$ni" ] && echo "" || echo " (ref $ri)")
        printf "%-12s %6d | %9.2f %8.1f | %9.2f %8.1f | %7.3f %7.3f | %9s %6.2f | %s%s\n" "$c" "$n" \
            "$rc" "$rm" "$nc" "$nm" "$(echo "$nc / $rc" | bc -l)" "$(echo "$nm / $rm" | bc -l)" \
            "${est:--}" "$(echo "${est:-0} / $nc" | bc -l)" "$ni" "$same"
        echo "$c $n $rc $nc" >> "$WORK/rows"
    done
done
echo "load after:  $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$SRC/bench/des/fit_exponents.py" "$WORK/rows" ref new
