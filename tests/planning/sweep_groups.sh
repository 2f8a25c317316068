#!/bin/sh
# A sweep's rows do not depend on the groups beside them (issue 47): the writer keeps the
# cells a group of GPU counts shares (names, scaling, batch, engine, payload, stack,
# sharding, policy, compute source) and puts them again for the group's next rows, and the
# sweep drops the schedule memo when it moves on to another platform's network. So every
# row of a sweep over several values of each of those fields must be, from its `id` on,
# the row of the sweep of that one combination alone (the `case` and `cases` columns
# differ). Checked in CSV and in JSON lines (whose cells name their columns) for the
# default sharding, and in CSV for a sharded, checkpointed sweep (its sharding and policy
# cells).
# usage: sweep_groups.sh GCSIM SOURCE_DIR WORK_DIR
set -eu
gcsim=$1 src=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work"
p=$src/platforms m=$src/models
plats="$p/a100-hdr.json $p/h100-ndr.json $p/h200-ndr.json"
models="$m/resnet-50.json $m/alexnet.json"
comps="none fp16"
stacks="pytorch-ddp fused"
scalings="weak strong"
batches="32 64"
gpus=1,2,8,16

joined() { echo "$*" | tr ' ' ','; }

# From the id on: CSV fields 3- (no compressor here holds a comma); JSON lines without
# their "case" and "cases" members.
tail_of() { # format file
    if [ "$1" = csv ]; then
        sed 1d "$2" | cut -d, -f3-
    else
        sed 's/"case":[0-9]*,"cases":[0-9]*,//' "$2"
    fi
}

for extra in "" "--sharding zero2 --act-ckpt"; do
    fmts="csv jsonl"
    [ -z "$extra" ] || fmts=csv # the sharded sweep in CSV only (each loop runs 96 sweeps)
    for fmt in $fmts; do
        # shellcheck disable=SC2086
        "$gcsim" sweep --platform "$(joined $plats)" --model "$(joined $models)" \
            --compressor "$(joined $comps)" --stack "$(joined $stacks)" \
            --scaling "$(joined $scalings)" --batch "$(joined $batches)" --gpus $gpus \
            --format $fmt --no-progress $extra --output "$work/all.$fmt" 2>/dev/null
        tail_of $fmt "$work/all.$fmt" >"$work/all.tail"
        : >"$work/one.tail"
        for pl in $plats; do for mo in $models; do for co in $comps; do for st in $stacks; do
            for sc in $scalings; do for ba in $batches; do
                # shellcheck disable=SC2086
                "$gcsim" sweep --platform "$pl" --model "$mo" --compressor "$co" --stack "$st" \
                    --scaling "$sc" --batch "$ba" --gpus $gpus --format $fmt --no-progress \
                    $extra --output "$work/one.$fmt" 2>/dev/null
                tail_of $fmt "$work/one.$fmt" >>"$work/one.tail"
            done; done
        done; done; done; done
        rows=$(wc -l <"$work/all.tail")
        [ "$rows" -eq 384 ] || fail "$fmt ${extra:-ddp}: $rows rows, expected 3x2x2x2x2x2x4 = 384"
        cmp -s "$work/all.tail" "$work/one.tail" ||
            fail "$fmt ${extra:-ddp}: a row of the whole sweep differs from its combination's own sweep: $(diff "$work/all.tail" "$work/one.tail" | head -3)"
    done
done
# the sharded sweep's rows say so (the cells the writer keeps are really written)
grep -q ',zero2,' "$work/all.tail" || fail "the sharded sweep's rows do not name their sharding"
echo "sweep groups: 384 rows, 3 times (CSV, JSON lines, sharded CSV), each its combination's own"
