#!/usr/bin/env python3
"""Variable compute and stragglers in both engines (issue 41), through gcsim predict.

usage: variability_check.py GCSIM SOURCE_DIR WORK_DIR [small|large]

small: 64 GPUs (slow rank) and 1,024 GPUs (distributions); large: 16,384 GPUs.
- A slow rank at 2x with nothing else varying: the slowest GPU computes 2C instead of C,
  and with the exchange after backward (--no-overlap, or one bucket that backward fills
  last) every barrier waits for it, so the iteration grows by exactly C, the nominal
  compute (hand-computed: T = 2C + comm against C + comm), in both engines.
- Four distributions (normal, lognormal, Pareto, persistently slow GPUs over a normal
  spread): the DES's mean over its iterations and the analytic engine's expected iteration
  (order statistics of the maximum through the shared schedule) agree within 5% of the DES
  mean; both report p50 <= mean-ish <= p99 and an expected largest factor.
- Variability off is the deterministic output: --compute-cv 0 with no slow GPU gives the
  same iteration times as no option (factors all 1).
"""
import csv
import io
import json
import os
import subprocess
import sys

GCSIM, SRC, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
SIZE = sys.argv[4] if len(sys.argv) > 4 else "small"
failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL:", msg)


def platform(nodes):
    os.makedirs(WORK, exist_ok=True)
    with open(os.path.join(SRC, "platforms", "a100-hdr.json")) as f:
        p = json.load(f)
    p["nodes"] = nodes
    path = os.path.join(WORK, "a100-hdr-%d.json" % nodes)
    with open(path, "w") as f:
        json.dump(p, f)
    return path


def predict(*args):
    cmd = [GCSIM, "predict", "--model", os.path.join(SRC, "models", "resnet-50.json"),
           "--format", "csv"] + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail("%s: exit %d: %s" % (" ".join(cmd), r.returncode, r.stderr))
        return []
    return list(csv.DictReader(io.StringIO(r.stdout)))


def by_engine(rows):
    return {r["engine"]: r for r in rows}


def num(row, key):
    return float(row[key])


def slow_rank(plat, gpus, extra):
    base = by_engine(predict("--platform", plat, "--gpus", str(gpus), "--engine", "both", *extra))
    slow = by_engine(predict("--platform", plat, "--gpus", str(gpus), "--engine", "both",
                             "--slow-rank", "5:2", *extra))
    for e in ("analytic", "des"):
        if e not in base or e not in slow:
            return
        C = num(base[e], "compute_s")
        t0, t1 = num(base[e], "iteration_s"), num(slow[e], "iteration_s")
        want = t0 + C
        print("slow rank 2x, %d GPUs %s, %s: %.6f ms -> %.6f ms (hand: %.6f + C %.6f = %.6f)"
              % (gpus, " ".join(extra), e, t0 * 1e3, t1 * 1e3, t0 * 1e3, C * 1e3, want * 1e3))
        if abs(t1 - want) > 0.005 * want:
            fail("slow rank %s %s: %.9f, hand-computed %.9f" % (e, extra, t1, want))
        if num(slow[e], "max_compute_factor_mean") != 2.0:
            fail("slow rank: largest factor %s, not 2" % slow[e]["max_compute_factor_mean"])


def agreement(plat, gpus, cases, iterations):
    for name, opts in cases:
        extra = ["--iterations", str(iterations)] if iterations else []
        rows = by_engine(predict("--platform", plat, "--gpus", str(gpus), "--engine", "both",
                                 "--collective", "hierarchical", *opts, *extra))
        if "analytic" not in rows or "des" not in rows:
            continue
        a, d = rows["analytic"], rows["des"]
        am, dm = num(a, "iteration_s"), num(d, "iteration_s")
        gap = abs(am - dm) / dm
        print("%d GPUs, %s: DES mean %.3f ms (p50 %.3f, p99 %.3f, %s iterations, 95%% CI "
              "%.3f-%.3f), analytic %.3f ms (p50 %.3f, p99 %.3f, E[max factor] %.4f): %.2f%%"
              % (gpus, name, dm * 1e3, num(d, "iteration_p50_s") * 1e3,
                 num(d, "iteration_p99_s") * 1e3, d["iterations"],
                 num(d, "iteration_ci95_low_s") * 1e3, num(d, "iteration_ci95_high_s") * 1e3,
                 am * 1e3, num(a, "iteration_p50_s") * 1e3, num(a, "iteration_p99_s") * 1e3,
                 num(a, "max_compute_factor_mean"), 100 * gap))
        if gap > 0.05:
            fail("%d GPUs %s: analytic %.6f vs DES %.6f (%.2f%% > 5%%)" % (gpus, name, am, dm, 100 * gap))
        for row in (a, d):
            if not (num(row, "iteration_p50_s") <= num(row, "iteration_p99_s")):
                fail("%s: p50 above p99" % name)
            if not num(row, "max_compute_factor_mean") > 1.0:
                fail("%s: no expected maximum" % name)
        # the deterministic run is faster than the expected one
        det = by_engine(predict("--platform", plat, "--gpus", str(gpus), "--engine", "analytic",
                                "--collective", "hierarchical"))
        if det and not num(det["analytic"], "iteration_s") < am:
            fail("%s: variable compute did not slow the iteration" % name)


if SIZE == "small":
    plat = platform(128)
    slow_rank(plat, 64, ["--no-overlap"])
    slow_rank(plat, 64, ["--bucket", "1GiB"])
    # off: cv 0 and no slow GPU is the nominal compute
    base = by_engine(predict("--platform", plat, "--gpus", "64", "--engine", "both"))
    zero = by_engine(predict("--platform", plat, "--gpus", "64", "--engine", "both",
                             "--compute-cv", "0", "--iterations", "2"))
    for e in ("analytic", "des"):
        if e in base and e in zero and abs(num(base[e], "iteration_s") - num(zero[e], "iteration_s")) > 1e-12:
            fail("cv 0 %s: %s vs %s" % (e, base[e]["iteration_s"], zero[e]["iteration_s"]))
    # sweep reports the case's mean iteration: predict's analytic mean, digit for digit
    sw = subprocess.run([GCSIM, "sweep", "--platform", plat, "--model",
                         os.path.join(SRC, "models", "resnet-50.json"), "--gpus", "64",
                         "--collective", "hierarchical", "--compute-cv", "0.1"],
                        capture_output=True, text=True)
    pr = by_engine(predict("--platform", plat, "--gpus", "64", "--collective", "hierarchical",
                           "--compute-cv", "0.1"))
    srows = list(csv.DictReader(io.StringIO(sw.stdout)))
    if sw.returncode != 0 or not srows or "analytic" not in pr or \
            srows[0]["iteration_s"] != pr["analytic"]["iteration_s"]:
        fail("sweep's iteration under --compute-cv is not predict's mean: %s %s"
             % (srows[0]["iteration_s"] if srows else sw.stderr,
                pr["analytic"]["iteration_s"] if pr else "-"))
    cases = [("normal cv 0.1", ["--compute-cv", "0.1", "--compute-dist", "normal"]),
             ("lognormal cv 0.1", ["--compute-cv", "0.1", "--compute-dist", "lognormal"]),
             ("pareto cv 0.1", ["--compute-cv", "0.1", "--compute-dist", "pareto"]),
             ("1% of GPUs 1.3x over normal cv 0.05",
              ["--compute-cv", "0.05", "--compute-dist", "normal", "--slow-fraction", "0.01",
               "--slow-factor", "1.3"])]
    # 12 iterations, not the default's until-converged count (about 70 at 1,024 GPUs, 85
    # CPU-s a case): the DES's 95% interval is then about +-1-8% of its mean and the
    # analytic expectation has been within 1.4% of it on all four (the 5% bound keeps its
    # margin), at a seventh of the time (twice under the sanitizers' pass, which runs this).
    agreement(platform(128), 1024, cases, 12)
else:
    # 16,384 GPUs: one bucket (fewer messages), 4 iterations each; the maximum of 16,384
    # draws is narrow for these families, so 4 samples pin its mean to about 1%.
    cases = [("normal cv 0.1", ["--compute-cv", "0.1", "--compute-dist", "normal"]),
             ("lognormal cv 0.05", ["--compute-cv", "0.05", "--compute-dist", "lognormal"]),
             ("1% of GPUs 1.3x over normal cv 0.05",
              ["--compute-cv", "0.05", "--compute-dist", "normal", "--slow-fraction", "0.01",
               "--slow-factor", "1.3"]),
             ("rank 7 at 2x over lognormal cv 0.05",
              ["--compute-cv", "0.05", "--slow-rank", "7:2"])]
    agreement(platform(2048), 16384, [(n, o + ["--bucket", "1GiB"]) for n, o in cases], 4)

print("%d failure(s)" % failures)
sys.exit(1 if failures else 0)
