#!/usr/bin/env python3
"""The named variability preset (--variability, sim/config/variability.c), through predict.

usage: variability_preset.py GCSIM SOURCE_DIR

- No preset is applied by default: a plain predict has no variable-compute columns.
- --variability sinha22 is exactly --compute-cv 0.01 --compute-dist normal (same rows), and
  its expected largest factor over N GPUs is 1 + 0.01 E[max of N standard normals],
  computed here independently (integral of P(max > x) with math.erf, N = 8 and 512).
- Explicit options win over the preset, in either order: --compute-cv 0.02 with it is
  --compute-cv 0.02 --compute-dist normal; --compute-dist lognormal with it is CV 0.01
  lognormal.
- The output names the preset and its source (JSON meta and a note).
Analytic engine only (milliseconds).
"""
import csv
import io
import json
import math
import os
import subprocess
import sys

GCSIM, SRC = sys.argv[1], sys.argv[2]
failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL:", msg)


def run(fmt, *args):
    cmd = [GCSIM, "predict", "--model", os.path.join(SRC, "models", "resnet-50.json"),
           "--platform", os.path.join(SRC, "platforms", "a100-hdr.json"),
           "--gpus", "8,512", "--format", fmt] + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail("%s: exit %d: %s" % (" ".join(cmd), r.returncode, r.stderr))
        return None
    return r.stdout


def rows(*args):
    out = run("csv", *args)
    return list(csv.DictReader(io.StringIO(out))) if out else []


def expected_max_std_normal(n):
    """E[max of n iid N(0,1)] = int_0^inf (1 - Phi^n) dx - int_-inf^0 Phi^n dx (midpoint rule)."""
    phi = lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2)))
    h, total = 1e-3, 0.0
    for k in range(int(12 / h)):
        x = -6 + (k + 0.5) * h
        total += (1 - phi(x) ** n) * h if x > 0 else -(phi(x) ** n) * h
    return total


plain = rows()
if plain and "iteration_p50_s" in plain[0]:
    fail("a plain predict has variable-compute columns: a default was applied")

preset = rows("--variability", "sinha22")
explicit = rows("--compute-cv", "0.01", "--compute-dist", "normal")
if not preset or preset != explicit:
    fail("--variability sinha22 differs from --compute-cv 0.01 --compute-dist normal:\n%s\n%s"
         % (preset, explicit))
for r in preset:
    n = int(r["gpus"])
    want = 1 + 0.01 * expected_max_std_normal(n)
    got = float(r["max_compute_factor_mean"])
    if abs(got - want) > 1e-4:  # printed with 4 decimals
        fail("%d GPUs: E[max factor] %.6f, hand %.6f" % (n, got, want))
    else:
        print("%d GPUs: E[max factor] %.4f (hand %.6f); iteration %s s, deterministic %s s"
              % (n, got, want, r["iteration_s"],
                 next(p["iteration_s"] for p in plain if p["gpus"] == r["gpus"])))

if rows("--variability", "sinha22", "--compute-cv", "0.02") != \
        rows("--compute-cv", "0.02", "--compute-dist", "normal"):
    fail("--compute-cv 0.02 does not override the preset's CV")
if rows("--compute-dist", "lognormal", "--variability", "sinha22") != \
        rows("--compute-cv", "0.01", "--compute-dist", "lognormal"):
    fail("--compute-dist lognormal (given first) does not override the preset's family")

out = run("json", "--variability", "sinha22")
if out:
    doc = json.loads(out)
    text = json.dumps(doc)
    if '"sinha22"' not in text or "2208.11035" not in text:
        fail("the JSON output does not name the preset and its source")

print("%d failure(s)" % failures)
sys.exit(1 if failures else 0)
