#!/usr/bin/env python3
"""The codec of a call's reducing steps is GPU work in both engines (docs/analytic.md,
"Compression time"; sim/analytic/timeline.c).

usage: hop_codec_engines.py GCSIM SOURCE_DIR

A per-worker-scale payload (4-bit QSGD) that an all-reduce or a reduce-scatter carries is
decoded, summed and re-encoded at every reducing hop. The DES runs that codec on the GPU
step by step, beside backward; the analytic engine runs it after the call's transfers, on
the GPU too. Checked, with backward overlapping the exchange:
- ring, halving-doubling, double-tree and hierarchical all-reduces, and the ZeRO-2, ZeRO-3
  and HSDP reduce-scatters: DES / analytic - 1 within 1% (9-28% apart, the DES slower,
  while the analytic engine counted that codec as communication);
- the reported decode seconds include the reducing steps' codec, the same in both engines
  on a ring (every GPU receives alike) and several times fp16's (which has none);
- the analytic iteration is at least its GPU work (compute + encode + decode): it fails if
  the timeline counts the codec without giving it the GPU;
- a payload without reducing-step codec (fp16) gives the same iteration in both engines
  (within 1e-6).
"""
import json
import os
import subprocess
import sys

GCSIM, SRC = sys.argv[1], sys.argv[2]
failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL:", msg)


def both(*args):
    cmd = [GCSIM, "predict", "--engine", "both", "--format", "json"] + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail("%s: exit %d: %s" % (" ".join(cmd), r.returncode, r.stderr.strip()))
        return None, None
    rows = json.loads(r.stdout)["rows"]
    a = [x for x in rows if x["engine"] == "analytic"][0]
    d = [x for x in rows if x["engine"] == "des"][0]
    return a, d


def plat(name):
    return os.path.join(SRC, "platforms", name + ".json")


def model(name):
    return os.path.join(SRC, "models", name + ".json")


CASES = [
    ("ring, fused stack", ["--platform", plat("h100-ndr"), "--model", model("bert-base"),
                           "--compressor", "qsgd", "--gpus", "8", "--stack", "fused",
                           "--exchange", "allreduce", "--collective", "ring"]),
    ("halving-doubling", ["--platform", plat("a100-hdr"), "--model", model("alexnet"),
                          "--compressor", "qsgd", "--gpus", "32",
                          "--collective", "halving-doubling"]),
    ("double tree", ["--platform", plat("h100-ndr"), "--model", model("bert-base"),
                     "--compressor", "qsgd", "--gpus", "16", "--collective", "double-tree"]),
    ("hierarchical", ["--platform", plat("cloud-v100-25gbe"), "--model", model("bert-base"),
                      "--compressor", "qsgd", "--gpus", "32", "--collective", "hierarchical"]),
    ("zero2", ["--platform", plat("h100-ndr"), "--model", model("bert-base"),
               "--compressor", "qsgd", "--gpus", "8", "--sharding", "zero2"]),
    ("zero3", ["--platform", plat("h100-ndr"), "--model", model("bert-base"),
               "--compressor", "qsgd", "--gpus", "8", "--sharding", "zero3"]),
    ("hsdp", ["--platform", plat("h100-ndr"), "--model", model("bert-base"),
              "--compressor", "qsgd", "--gpus", "16", "--sharding", "hsdp"]),
]

results = {}
for name, args in CASES:
    a, d = both(*args)
    if a is None:
        continue
    results[name] = (a, d)
    gap = d["iteration_s"] / a["iteration_s"] - 1
    if abs(gap) > 0.01:
        fail("%s: DES %.6f s against analytic %.6f s (%+.2f%%), beyond 1%%"
             % (name, d["iteration_s"], a["iteration_s"], 100 * gap))
    if not a["decode_s"] > 0:
        fail("%s: no decode seconds reported" % name)

ring = CASES[0][0]
a16, d16 = both(*[x if x != "qsgd" else "fp16" for x in CASES[0][1]])
if ring in results:
    a, d = results[ring]
    # every GPU of a ring receives the same share at every step, so the decode seconds (the
    # bucket's decode plus the reducing steps' codec) are the same in both engines
    if abs(a["decode_s"] / d["decode_s"] - 1) > 1e-6:
        fail("ring: decode %.9f s analytic against %.9f s DES" % (a["decode_s"], d["decode_s"]))
    # and more than the one decode of each bucket: fp16 (dense summable) has no hop codec
    if a16 is not None and not a["decode_s"] > 5 * a16["decode_s"]:
        fail("ring: qsgd's decode %.6f s is not several times fp16's %.6f s (the reducing "
             "steps' codec missing?)" % (a["decode_s"], a16["decode_s"]))
    # GPU work cannot take less than its seconds, whatever runs beside it
    gpu_work = a["compute_s"] + a["encode_s"] + a["decode_s"]
    if a["iteration_s"] < gpu_work * (1 - 1e-9):
        fail("ring: the analytic iteration %.6f s is shorter than its GPU work %.6f s "
             "(compute %.6f + encode %.6f + decode %.6f): the codec did not take the GPU"
             % (a["iteration_s"], gpu_work, a["compute_s"], a["encode_s"], a["decode_s"]))

# a payload without reducing-step codec: the engines agree
if a16 is not None and abs(d16["iteration_s"] / a16["iteration_s"] - 1) > 1e-6:
    fail("fp16 ring: analytic %.9f s, DES %.9f s" % (a16["iteration_s"], d16["iteration_s"]))

print("hop_codec_engines: %d failure(s)" % failures)
sys.exit(1 if failures else 0)
