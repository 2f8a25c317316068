#!/usr/bin/env python3
"""gcsim plan and breakeven with --convergence (issue 26): properties, not timings.

- breakeven: with --convergence none the to-accuracy answer is the per-step one; with a
  catalog factor > 1 (signSGD) the to-accuracy break-even bandwidth is lower; with a factor
  < 1 (DGC on ResNet-50) it is not lower.
- plan on ResNet-50, 32 V100s, 25 GbE: --convergence none ranks signSGD ahead of fp32 per
  step; with the catalog factor its hours to accuracy are the per-step hours x 1.415 and it
  falls behind fp32; every row names its factor's source.
- a bad --convergence value is refused with exit 2 and nothing on stdout.
"""
import csv
import io
import json
import subprocess
import sys

gcsim, src = sys.argv[1], sys.argv[2]
failures = 0


def check(cond, what):
    global failures
    if not cond:
        print("FAIL:", what)
        failures += 1


def run(*args):
    p = subprocess.run([gcsim, *args], capture_output=True, text=True)
    if p.returncode != 0:
        print("FAIL: exit", p.returncode, args, p.stderr)
        sys.exit(1)
    return list(csv.DictReader(io.StringIO(p.stdout)))


common = ["--model", src + "/models/resnet-50.json", "--platform",
          src + "/platforms/cloud-v100-25gbe.json", "--gpus", "32"]
rows = {r["compressor"].split(":")[0]: r for r in
        run("breakeven", *common, "--compressor", "signsgd,dgc:ratio=0.001", "--format", "csv",
            "--convergence", "none")}
for name, r in rows.items():
    check(r["accuracy_breakeven_Bps"] == r["breakeven_Bps"], name + ": none: same answer")
    check(float(r["convergence_factor"]) == 1.0, name + ": none: factor 1")
rows = {r["compressor"].split(":")[0]: r for r in
        run("breakeven", *common, "--compressor", "signsgd,dgc:ratio=0.001", "--format", "csv")}
s, d = rows["signsgd"], rows["dgc"]
check(s["convergence_source"] == "catalog (same class)" and float(s["convergence_factor"]) > 1.0,
      "signsgd: a catalog factor above 1")
check(float(s["accuracy_breakeven_Bps"]) < float(s["breakeven_Bps"]),
      "signsgd: to accuracy it needs a slower network to win")
check(float(d["convergence_factor"]) < 1.0 and
      float(d["accuracy_breakeven_Bps"]) >= float(d["breakeven_Bps"]),
      "dgc on resnet-50: factor below 1, break-even not lower")

plan = ["plan", *common, "--epochs", "90", "--dataset-size", "1281167", "--compressors",
        "none,signsgd", "--collectives", "ring", "--format", "csv"]
per_step = run(*plan, "--convergence", "none")
check([r["compressor"] for r in per_step] == ["signsgd:bucket=0", "none"],
      "per step, signsgd ranks before fp32: %s" % [r["compressor"] for r in per_step])
to_acc = run(*plan)
check([r["compressor"] for r in to_acc] == ["none", "signsgd:bucket=0"],
      "to accuracy, fp32 ranks before signsgd: %s" % [r["compressor"] for r in to_acc])
for r in to_acc:
    f = float(r["convergence_factor"])
    check(r["convergence_source"] in ("catalog (same class)", "reference"),
          "a named source: %s" % r)
    check(float(r["convergence_lo"]) <= f <= float(r["convergence_hi"]),
          "the factor inside its interval: %s" % r)
    check(abs(float(r["train_time_s"]) - f * float(r["per_step_train_time_s"])) <=
          1e-9 * float(r["train_time_s"]), "hours to accuracy = factor x per-step hours")

# issue 43: a compressor that missed the target in gcsim's own runs (top-k 1% without error
# feedback: 0 of 5 seeds on the Fashion-MNIST MLP) or that nothing covers ranks after every
# known factor, even where its per-step throughput is the highest; its gap is given.
plan2 = ["plan", *common, "--epochs", "90", "--dataset-size", "1281167", "--compressors",
         "none,topk:ratio=0.01,signsgd,dgc:ratio=0.001", "--collectives", "ring", "--format",
         "csv", "--rank-by", "time"]
rows = run(*plan2)
names = [r["compressor"].split(":")[0] for r in rows]
check(names[-2:] == ["signsgd", "topk"] or names[-2:] == ["topk", "signsgd"],
      "missed compressors last: %s" % names)
for r in rows:
    missed = r["compressor"].split(":")[0] in ("signsgd", "topk")
    check((r["convergence_missed_gap_pts"] != "") == missed,
          "missed gap only for a compressor that missed: %s" % r)
    if missed:
        check(float(r["convergence_missed_gap_pts"]) > 0, "a positive gap: %s" % r)
topk = [r for r in rows if r["compressor"].startswith("topk")][0]
check(topk["convergence_source"] == "unknown" and topk["convergence_factor"] == "",
      "top-k: unknown, no factor printed as 1: %s" % topk)
# predict --convergence: the numeric factor, its source and interval in the JSON
p = subprocess.run([gcsim, "predict", *common, "--compressor", "qsgd:s=4", "--convergence",
                    "best", "--format", "json"], capture_output=True, text=True)
meta = json.loads(p.stdout)["meta"]
check(p.returncode == 0 and meta["convergence_source"] == "catalog (same class)" and
      meta["convergence_lo"] <= meta["convergence_factor"] <= meta["convergence_hi"] and
      meta["convergence_reached_target"] is True and meta["convergence_gpus"] == 32,
      "predict json: numeric factor, source, interval: %s" % {k: v for k, v in meta.items()
                                                               if k.startswith("convergence")})

p = subprocess.run([gcsim, "plan", *common, "--target-throughput", "1", "--convergence",
                    "maybe"], capture_output=True, text=True)
check(p.returncode == 2 and p.stdout == "" and "--convergence: expected" in p.stderr,
      "bad --convergence: exit 2, message, nothing on stdout")
print("%d failure(s)" % failures)
sys.exit(1 if failures else 0)
