#!/usr/bin/env python3
"""Source (b) of the convergence factor: `gcsim train` runs on proxy tasks, several seeds.

For each task (model, epochs, target accuracy) and seed, fp32 (spec none) and every compressor
train with the same seed; the factor of one seed is the compressor's iterations to the target
over fp32's (paired by seed). The table gives the mean over seeds and its 95% confidence
interval (Student t, n - 1 degrees of freedom). A compressor that misses the target in some
seed gets NA (reached < seeds), so the library says it is not covered rather than guessing.

Usage: plots/convergence/make_train_factors.py [--gcsim build/sim/cli/gcsim] [--seeds N]
           [--out models/convergence/train_factors.tsv] [--runs models/convergence/train_runs.tsv]
Run it under `nice -n 10`: about 25 CPU-minutes with the default tasks (almost all of it the
Fashion-MNIST LeNet runs); run from the source tree (the digits are in traces/datasets/digits). Runs already in the
--runs file (same task, spec, workers and seed) are not run again (--resume), since a seed
gives the same run every time (tests/train determinism).
"""
import argparse
import json
import math
import os
import subprocess
import sys

# Two-sided 95% Student t quantiles t_{0.975, df} for df = 1..10 (standard t table, e.g.
# NIST/SEMATECH e-Handbook of Statistical Methods, Table 1.3.6.7.2).
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306,
        9: 2.262, 10: 2.228}

# The compressors the catalog covers (or plan ranks), at gcsim's defaults: fp16 is the
# reference (factor 1 by assumption in the library; measured here as a check), top-k and
# signSGD with and without error feedback, DGC (momentum correction), PowerSGD rank 1.
COMMON = ["fp16", "qsgd:s=2", "qsgd:s=4", "terngrad", "signsgd", "ef+signsgd",
          "topk:ratio=0.01", "ef+topk:ratio=0.01", "dgc:ratio=0.001", "powersgd:rank=1"]

# One proxy task: gcsim train's model and data, the run length, the target test accuracy,
# workers (4, global batch 64: TernGrad Fig. 3's batch), how often the test set is evaluated
# (the resolution of iterations to target), how many test images (None: all), how many
# seeds, whether the run ends at the target (stop: the LeNet tasks, whose runs would
# otherwise spend most of their time after it; final_test_accuracy in the runs file is then
# the accuracy where the run stopped), and the compressors. Targets sit below what fp32 reaches in the first half of the
# run, so slower compressors have room to get there.
TASKS = [
    dict(task="fmnist-mlp", model="mlp", data=None, epochs=2, target=0.84, workers=4,
         eval_every=25, limit_test=None, seeds=5,
         specs=["qsgd:s=2", "qsgd:s=4", "terngrad", "terngrad:clip=0", "orq:s=3", "signsgd",
                "ef+signsgd", "topk:ratio=0.01", "ef+topk:ratio=0.01", "powersgd:rank=1",
                "fp16", "dgc:ratio=0.001"]),
    # The second dataset: the 8x8 UCI digits carried in traces/datasets/digits (1,347 training and
    # 450 test images, 21 iterations an epoch). fp32 passes 0.85 after about 30 (MLP) and 30
    # to 80 (LeNet) iterations; runs are long enough for 5 times that. Cheap (the MLP about
    # a CPU second a run; LeNet, evaluated every 2 iterations, stops at the target), so 10
    # seeds.
    dict(task="digits-mlp", model="mlp", data="traces/datasets/digits", epochs=10, target=0.85,
         workers=4, eval_every=1, limit_test=None, seeds=10,
         specs=COMMON + ["terngrad:clip=0", "orq:s=3"]),
    dict(task="digits-lenet", model="lenet", data="traces/datasets/digits", epochs=20, target=0.85,
         workers=4, eval_every=2, limit_test=None, seeds=10, stop=True,
         specs=COMMON + ["terngrad:clip=0", "orq:s=3"]),
    # The convolutional proxy: one epoch (937 iterations); fp32 passes 0.80 after 150 to 225
    # iterations. Evaluated every 10 iterations (fp32's count is then known to within 5 to 7%)
    # on the first 1,000 test images (accuracy steps of 0.1 point), so that the 94
    # evaluations of a run cost less than its training (about 20 CPU-s a run).
    dict(task="fmnist-lenet", model="lenet", data=None, epochs=1, target=0.80, workers=4,
         eval_every=10, limit_test=1000, seeds=5, stop=True, specs=COMMON),
]


def run(gcsim, t, spec, seed):
    cmd = [gcsim, "train", "--model", t["model"], "--workers", str(t["workers"]),
           "--compressor", spec, "--epochs", str(t["epochs"]),
           "--target-accuracy", str(t["target"]), "--eval-every", str(t["eval_every"]),
           "--seed", str(seed), "--format", "json"]
    if t["data"]:
        cmd += ["--data", t["data"]]
    if t["limit_test"]:
        cmd += ["--limit-test", str(t["limit_test"])]
    if t.get("stop"):
        cmd += ["--stop-at-target"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    meta = json.loads(out)["meta"]
    it = meta["iterations_to_target"]
    final = json.loads(out)["rows"][-1]["test_accuracy"]
    return (it if it is not None else None), final


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gcsim", default="build/sim/cli/gcsim")
    ap.add_argument("--seeds", type=int, default=0, help="seeds per task (0: the task's own)")
    ap.add_argument("--out", default="models/convergence/train_factors.tsv")
    ap.add_argument("--runs", default="models/convergence/train_runs.tsv")
    ap.add_argument("--only", default="", help="comma list of task names")
    ap.add_argument("--resume", action="store_true", help="reuse the runs in --runs")
    a = ap.parse_args()
    rows, runs = [], []
    done = {}
    if a.resume:
        try:
            with open(a.runs) as f:
                next(f)
                for line in f:
                    t, sp, w, sd, it, fin = line.rstrip("\n").split("\t")
                    done[(t, sp, int(w), int(sd))] = (None if it == "NA" else int(it), float(fin))
        except FileNotFoundError:
            pass

    def cached(t, spec, seed):
        task, workers = t["task"], t["workers"]
        key = (task, spec, workers, seed)
        if key not in done:
            done[key] = run(a.gcsim, t, spec, seed)
            with open(a.runs + ".partial", "a") as f:
                it, fin = done[key]
                f.write("\t".join(str(x) for x in (task, spec, workers, seed,
                                                     "NA" if it is None else it, fin)) + "\n")
        return done[key]
    for t in TASKS:
        task, workers = t["task"], t["workers"]
        if a.only and task not in a.only.split(","):
            continue
        seeds = a.seeds or t["seeds"]
        base = {}
        for seed in range(1, seeds + 1):
            it, final = cached(t, "none", seed)
            base[seed] = it
            runs.append((task, "none", workers, seed, it, final))
            print(task, "none", seed, it, final, file=sys.stderr, flush=True)
        for spec in t["specs"]:
            ratios, finals = [], []
            for seed in range(1, seeds + 1):
                it, final = cached(t, spec, seed)
                finals.append(final)
                runs.append((task, spec, workers, seed, it, final))
                print(task, spec, seed, it, final, file=sys.stderr, flush=True)
                if it is not None and base[seed]:
                    ratios.append(it / base[seed])
            n = len(ratios)
            # issue 43: the target and the mean final test accuracy, so that a compressor
            # that missed the target is reported with its gap (conv_train_miss)
            acc = (t["target"], "%.4f" % (sum(finals) / len(finals)))
            if n == seeds and n >= 2:
                mean = sum(ratios) / n
                sd = math.sqrt(sum((r - mean) ** 2 for r in ratios) / (n - 1))
                half = T975.get(n - 1, 1.96) * sd / math.sqrt(n)
                rows.append((task, spec, workers, seeds, n, "%.4f" % mean,
                             "%.4f" % max(mean - half, 1e-4), "%.4f" % (mean + half)) + acc)
            else:
                rows.append((task, spec, workers, seeds, n, "NA", "NA", "NA") + acc)
    with open(a.out, "w") as f:
        f.write("task\tspec\tworkers\tseeds\treached\tfactor\tlo\thi\ttarget\treached_accuracy\n")
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")
    with open(a.runs, "w") as f:
        f.write("task\tspec\tworkers\tseed\titerations_to_target\tfinal_test_accuracy\n")
        for r in runs:
            f.write("\t".join("NA" if x is None else str(x) for x in r) + "\n")
    try:
        os.remove(a.runs + ".partial")  # its runs are all in --runs now
    except FileNotFoundError:
        pass


if __name__ == "__main__":
    main()
