#!/bin/sh
# Compares the DES outputs of two gcsim binaries (or one binary with the replay forced,
# GCSIM_DES_REPLAY=1: every block of a pipelined phase sent as messages, docs/des.md step 16)
# on a grid: `gcsim predict --engine des --format json` (ResNet-50 under the default tuned
# collective, ring, hierarchical, double tree and the parameter server; Llama-2-7B under
# FSDP) and `gcsim collective --engine des --format csv` (the tuned default, ring,
# hierarchical, double tree, parameter server), on several platforms and GPU counts. Per
# command it prints whether the outputs are byte-identical and, where not, the largest
# relative difference between numbers at the same place of the two outputs (a different
# shape of output is a failure); at the end, the count of identical outputs and the largest
# relative difference seen. Exits 1 when any output differs in shape or by more than MAX_REL.
#
# usage: bench/des/compare_replay.sh REF_GCSIM NEW_GCSIM [GPUS] [PLATFORMS] [MAX_REL]
#   REF_GCSIM "replay" runs NEW_GCSIM with GCSIM_DES_REPLAY=1 as the reference
#   GPUS      comma-separated (default 2,8,16,64,256,1024)
#   PLATFORMS comma-separated names (default a100-hdr,h100-ndr,cloud-v100-25gbe)
#   MAX_REL   default 1e-9
# e.g. bench/des/compare_replay.sh /tmp/base/bin/gcsim build/sim/cli/gcsim 2,64,1024
set -eu
REF=$1
NEW=$2
GPUS=${3:-2,8,16,64,256,1024}
PLATFORMS=${4:-a100-hdr,h100-ndr,cloud-v100-25gbe}
MAX_REL=${5:-1e-9}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# the platform with enough nodes for the largest GPU count
widen() {
    python3 - "$SRC/platforms/$1.json" "$WORK/$1.json" "$2" <<'PY'
import json, math, sys
p = json.load(open(sys.argv[1]))
per = p.get("gpus_per_node", 8)
need = math.ceil(int(sys.argv[3]) / per)
if p.get("nodes", 0) < need:
    p["nodes"] = need
json.dump(p, open(sys.argv[2], "w"))
PY
}

# Both binaries run from one installed layout (PREFIX/bin/gcsim beside PREFIX/share/gcsim,
# this source tree), one after the other: the catalog paths printed in outputs are then the
# same strings on both sides.
mkdir -p "$WORK/inst/bin" "$WORK/inst/share"
ln -s "$SRC" "$WORK/inst/share/gcsim"
run() { # run REF|NEW OUT ARGS...
    who=$1 out=$2
    shift 2
    bin=$NEW
    [ "$who" = ref ] && [ "$REF" != replay ] && bin=$REF
    cp "$bin" "$WORK/inst/bin/gcsim"
    if [ "$who" = ref ] && [ "$REF" = replay ]; then
        GCSIM_DES_REPLAY=1 "$WORK/inst/bin/gcsim" "$@" > "$out" 2> "$out.err" || echo "exit $?" >> "$out"
    else
        "$WORK/inst/bin/gcsim" "$@" > "$out" 2> "$out.err" || echo "exit $?" >> "$out"
    fi
}

max_gpus=$(echo "$GPUS" | tr ',' '\n' | sort -n | tail -1)
n=0 same=0 bad=0
: > "$WORK/rel"
for plat in $(echo "$PLATFORMS" | tr ',' ' '); do
    widen "$plat" "$max_gpus"
    for g in $(echo "$GPUS" | tr ',' ' '); do
        i=0
        while read -r label args; do
            i=$((i + 1))
            # shellcheck disable=SC2086
            run ref "$WORK/a" $args
            # shellcheck disable=SC2086
            run new "$WORK/b" $args
            n=$((n + 1))
            if cmp -s "$WORK/a" "$WORK/b"; then
                same=$((same + 1))
                echo "$plat $g $label: identical"
                continue
            fi
            rel=$(python3 - "$WORK/a" "$WORK/b" <<'PY'
import re, sys
num = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")
a, b = open(sys.argv[1]).read(), open(sys.argv[2]).read()
if num.sub("#", a) != num.sub("#", b):
    print("shape")
    sys.exit()
worst = 0.0
for x, y in zip(num.findall(a), num.findall(b)):
    x, y = float(x), float(y)
    if x != y:
        worst = max(worst, abs(x - y) / max(abs(x), abs(y)))
print("%.3g" % worst)
PY
)
            echo "$plat $g $label: differs, largest relative difference $rel"
            if [ "$rel" = shape ]; then
                bad=$((bad + 1))
                diff "$WORK/a" "$WORK/b" | head -5 >&2 || true
            else
                echo "$rel" >> "$WORK/rel"
                if python3 -c "import sys; sys.exit(0 if float('$rel') > float('$MAX_REL') else 1)"; then
                    bad=$((bad + 1))
                fi
            fi
        done <<EOF
predict-default predict --platform $WORK/$plat.json --model $SRC/models/resnet-50.json --gpus $g --engine des --des-max-messages -1 --format json
predict-ring predict --platform $WORK/$plat.json --model $SRC/models/resnet-50.json --collective ring --gpus $g --engine des --des-max-messages -1 --format json
predict-hierarchical predict --platform $WORK/$plat.json --model $SRC/models/resnet-50.json --collective hierarchical --gpus $g --engine des --des-max-messages -1 --format json
predict-double-tree predict --platform $WORK/$plat.json --model $SRC/models/resnet-50.json --collective double-tree --gpus $g --engine des --des-max-messages -1 --format json
predict-ps predict --platform $WORK/$plat.json --model $SRC/models/resnet-50.json --collective ps --gpus $g --engine des --des-max-messages -1 --format json
predict-fsdp predict --platform $WORK/$plat.json --model $SRC/models/llama-2-7b.json --sharding fsdp --gpus $g --engine des --des-max-messages -1 --format json
collective-default collective --platform $WORK/$plat.json --gpus $g --engine des --format csv
collective-double-tree collective --platform $WORK/$plat.json --collective double-tree --gpus $g --engine des --format csv
collective-tree collective --platform $WORK/$plat.json --collective tree --gpus $g --engine des --format csv
collective-ring collective --platform $WORK/$plat.json --collective ring --gpus $g --engine des --format csv
EOF
    done
done
worst=$(sort -g "$WORK/rel" | tail -1)
echo "outputs: $n, identical: $same, differing beyond $MAX_REL or in shape: $bad, largest relative difference: ${worst:-0}"
[ "$bad" -eq 0 ]
