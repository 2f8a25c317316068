# Shared by the DES benchmarks in this folder (sourced, not run): the widened platform
# they all simulate on, one timed `gcsim predict` run and the size guard's estimate. The caller sets SRC (the source
# tree) and WORK (a scratch folder it removes).

# widen_platform: $WORK/platform.json, platforms/a100-hdr.json with 12,500 nodes (100,000
# GPUs), so that every GPU count of the scale runs (docs/des.md) fits one platform.
widen_platform() {
    python3 - "$SRC/platforms/a100-hdr.json" "$WORK/platform.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1])); p["nodes"] = 12500
json.dump(p, open(sys.argv[2], "w"))
PY
}

# case_args CASE: the model and options of a benchmark case: default (ResNet-50, the tuned
# collective), ring, hierarchical, double-tree, ps (ResNet-50 with that collective), fsdp
# (Llama-2-7B sharded).
case_args() {
    case $1 in
        default) echo "--model $SRC/models/resnet-50.json" ;;
        ring|hierarchical|double-tree|tree|halving-doubling|ps)
            echo "--model $SRC/models/resnet-50.json --collective $1" ;;
        fsdp) echo "--model $SRC/models/llama-2-7b.json --sharding fsdp" ;;
        *) echo "unknown case '$1'" >&2; exit 2 ;;
    esac
}

# timed_predict GCSIM ARGS...: runs `GCSIM predict --platform $WORK/platform.json ARGS
# --format csv` under /usr/bin/time and prints "cpu_s peak_mib wall_s iteration_s": user +
# system CPU of the whole process (the forked simulation child included), peak resident
# memory, and the last row's iteration time. Prints "fail fail fail fail" when gcsim fails;
# its standard error is left in $WORK/err.
timed_predict() {
    gcsim=$1
    shift
    /usr/bin/time -f "%U %S %M %e" -o "$WORK/time" "$gcsim" predict \
        --platform "$WORK/platform.json" "$@" --format csv > "$WORK/out.csv" 2> "$WORK/err" ||
        { echo "fail fail fail fail"; return; }
    read -r u s kib wall < "$WORK/time"
    iter=$(python3 -c "import csv;r=list(csv.DictReader(open('$WORK/out.csv')));print(r[-1]['iteration_s'])")
    echo "$(echo "$u + $s" | bc -l) $(echo "$kib / 1024" | bc -l) $wall $iter"
}

# guard_estimate GCSIM ARGS...: prints "cpu_s mib", the DES size guard's estimate for
# `GCSIM predict --platform $WORK/platform.json ARGS --engine des` (des_plan_estimate), read
# from its refusals without simulating: a limit of 1 message is refused first by the CLI's
# lower bound, which names its count; a limit of that count passes it, and the engine's
# guard then refuses with its estimate. Prints nothing when gcsim names no estimate.
guard_estimate() {
    gcsim=$1
    shift
    lim=$("$gcsim" predict --platform "$WORK/platform.json" "$@" --engine des \
        --des-max-messages 1 --format csv 2>&1 >/dev/null |
        sed -n 's/.*would send at least \([0-9]*\).*/\1/p')
    "$gcsim" predict --platform "$WORK/platform.json" "$@" --engine des \
        --des-max-messages "${lim:-1}" --format csv 2>&1 >/dev/null |
        sed -n 's/.*an estimated \([0-9.]*\) CPU s and \([0-9.]*\) MiB.*/\1 \2/p'
}
