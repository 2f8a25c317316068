#!/usr/bin/env python3
"""Source (b) of the convergence factor: `gcsim train` runs on proxy tasks, several seeds.

For each task (model, epochs, target accuracy) and seed, fp32 (spec none) and every compressor
train with the same seed; the factor of one seed is the compressor's iterations to the target
over fp32's (paired by seed). The table gives the mean over seeds and its 95% confidence
interval (Student t, n - 1 degrees of freedom). A compressor that misses the target in some
seed gets NA (reached < seeds), so the library says it is not covered rather than guessing.

Usage: plots/convergence/make_train_factors.py [--gcsim build/sim/cli/gcsim] [--seeds 5]
           [--out models/convergence/train_factors.tsv] [--runs models/convergence/train_runs.tsv]
Run it under `nice -n 10`: about 20 CPU-minutes with the default tasks. Runs already in the
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

# (task name, gcsim train model, epochs, target test accuracy, workers, compressors).
# Targets sit below what fp32 reaches in the first half of the run, so slower compressors
# have room to get there.
TASKS = [
    ("fmnist-mlp", "mlp", 2, 0.84, 4,
     ["qsgd:s=2", "qsgd:s=4", "terngrad", "terngrad:clip=0", "orq:s=3", "signsgd",
      "ef+signsgd", "topk:ratio=0.01", "ef+topk:ratio=0.01", "powersgd:rank=1"]),
    # the convolutional proxy: one epoch (937 iterations), fp32 passes 0.80 near its middle
    ("fmnist-lenet", "lenet", 1, 0.80, 4, ["qsgd:s=2"]),
]


def run(gcsim, model, spec, epochs, target, workers, seed):
    cmd = [gcsim, "train", "--model", model, "--workers", str(workers), "--compressor", spec,
           "--epochs", str(epochs), "--target-accuracy", str(target), "--eval-every", "25",
           "--seed", str(seed), "--format", "json"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    meta = json.loads(out)["meta"]
    it = meta["iterations_to_target"]
    final = json.loads(out)["rows"][-1]["test_accuracy"]
    return (it if it is not None else None), final


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gcsim", default="build/sim/cli/gcsim")
    ap.add_argument("--seeds", type=int, default=5)
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

    def cached(task, model, spec, epochs, target, workers, seed):
        key = (task, spec, workers, seed)
        if key not in done:
            done[key] = run(a.gcsim, model, spec, epochs, target, workers, seed)
            with open(a.runs + ".partial", "a") as f:
                it, fin = done[key]
                f.write("\t".join(str(x) for x in (task, spec, workers, seed,
                                                     "NA" if it is None else it, fin)) + "\n")
        return done[key]
    for task, model, epochs, target, workers, specs in TASKS:
        if a.only and task not in a.only.split(","):
            continue
        base = {}
        for seed in range(1, a.seeds + 1):
            it, final = cached(task, model, "none", epochs, target, workers, seed)
            base[seed] = it
            runs.append((task, "none", workers, seed, it, final))
            print(task, "none", seed, it, final, file=sys.stderr, flush=True)
        for spec in specs:
            ratios = []
            for seed in range(1, a.seeds + 1):
                it, final = cached(task, model, spec, epochs, target, workers, seed)
                runs.append((task, spec, workers, seed, it, final))
                print(task, spec, seed, it, final, file=sys.stderr, flush=True)
                if it is not None and base[seed]:
                    ratios.append(it / base[seed])
            n = len(ratios)
            if n == a.seeds and n >= 2:
                mean = sum(ratios) / n
                sd = math.sqrt(sum((r - mean) ** 2 for r in ratios) / (n - 1))
                half = T975.get(n - 1, 1.96) * sd / math.sqrt(n)
                rows.append((task, spec, workers, a.seeds, n, "%.4f" % mean,
                             "%.4f" % max(mean - half, 1e-4), "%.4f" % (mean + half)))
            else:
                rows.append((task, spec, workers, a.seeds, n, "NA", "NA", "NA"))
    with open(a.out, "w") as f:
        f.write("task\tspec\tworkers\tseeds\treached\tfactor\tlo\thi\n")
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
