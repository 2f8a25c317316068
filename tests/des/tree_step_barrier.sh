#!/bin/sh
# The steps of a pipelined tree end together (issue 47; des_collectives.c, step_barrier): in
# the DES timeline of a double-tree ResNet-50 iteration on 4 a100-hdr nodes, every GPU's
# transfer slice of a given bucket, phase and step starts at one instant (each endpoint that
# has flows in the phase leaves the previous step's barrier with the others). Without the
# barrier (gcsim before issue 47) the starts of step 10 of the first bucket were 0.28 us apart.
# usage: tree_step_barrier.sh GCSIM SOURCE_DIR WORK_DIR
set -eu
gcsim=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
"$gcsim" predict --platform "$src/platforms/a100-hdr.json" --model "$src/models/resnet-50.json" \
    --gpus 32 --engine des --collective double-tree --format csv --timeline "$work/tl.json" \
    >"$work/out.csv"
python3 - "$work/tl.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
steps = {}
for e in ev:
    a = e.get("args", {})
    if e.get("ph") == "X" and a.get("kind") == "transfer" and a.get("step", -1) >= 0:
        steps.setdefault((a["bucket"], a["phase"], a["step"]), []).append(e)
assert len(steps) > 40, "too few pipelined steps in the timeline: %d" % len(steps)
for key, sl in sorted(steps.items()):
    starts = {round(e["ts"], 3) for e in sl}
    assert len(starts) == 1, "bucket %d phase %d step %d starts at %d instants: %s" % (
        key + (len(starts), sorted(starts)[:4]))
print("tree_step_barrier: %d steps, each starting at one instant" % len(steps))
PY
