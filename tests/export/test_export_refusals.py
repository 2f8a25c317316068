#!/usr/bin/env python3
"""tests/export: what traces/capture/gcsim_export.py refuses (issues 29 and 45).

    test_export_refusals.py SOURCE_DIR WORK_DIR

A model with no trainable parameters (frozen, or none at all) was exported with exit 0 to
a file gcsim then refused; --input-shape 0,4 ended in a Python traceback. Each must exit 2
with the reason on stderr, no traceback and no file written. Fails (never skips) without
PyTorch. --out naming the --model's own .py file replaced the model's code (issue 45):
refused, the code kept.
"""
import os
import subprocess
import sys

src, work = sys.argv[1:3]
os.makedirs(work, exist_ok=True)
export = os.path.join(src, "traces", "capture", "gcsim_export.py")
models = os.path.join(src, "tests", "export", "small_models.py")
failures = []


def refused(name, args, message):
    out = os.path.join(work, name + ".json")
    for stale in (out, out + ".buckets.json"):
        if os.path.exists(stale):
            os.remove(stale)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    r = subprocess.run([sys.executable, export, "--out", out] + args, capture_output=True,
                       text=True, env=env)
    problems = []
    if r.returncode != 2:
        problems.append("exit %d, expected 2" % r.returncode)
    if message not in r.stderr:
        problems.append("stderr lacks %r" % message)
    if "Traceback" in r.stderr:
        problems.append("a Python traceback")
    if os.path.exists(out) or os.path.exists(out + ".buckets.json"):
        problems.append("an output file was written")
    if problems:
        failures.append(name)
        print("FAIL: %s: %s\n--- stderr:\n%s" % (name, "; ".join(problems), r.stderr[-2000:]))
    else:
        print("PASS: %s: %s" % (name, r.stderr.strip().splitlines()[-1]))


refused("frozen", ["--model", models + ":frozen", "--input-shape", "4,3,16,16"],
        "small_models.py:frozen: the model has no trainable parameters")
refused("parameter_free", ["--model", models + ":parameter_free", "--input-shape", "4,8"],
        "small_models.py:parameter_free: the model has no trainable parameters")
refused("zero_batch", ["--model", models + ":cnn", "--input-shape", "0,4"],
        "--input-shape: every dimension must be at least 1 (batch first), got '0,4'")
refused("negative_dimension", ["--model", models + ":cnn", "--input-shape", "4,-3,16,16"],
        "--input-shape: every dimension must be at least 1")
refused("wrong_rank", ["--model", models + ":cnn", "--input-shape", "4,5"],
        "small_models.py:cnn: the forward pass fails on an input of shape 4x5:")

# --out naming the model's own source file replaced the code with the export (issue 45).
code = os.path.join(work, "out_is_model.py")
with open(models) as f, open(code, "w") as g:
    g.write(f.read())
with open(code) as f:
    before = f.read()
r = subprocess.run([sys.executable, export, "--out", code, "--model", code + ":cnn",
                    "--input-shape", "4,3,16,16"], capture_output=True, text=True,
                   env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
with open(code) as f:
    after = f.read()
if r.returncode != 2 or "--out and --model name the same file" not in r.stderr or after != before \
        or os.path.exists(code + ".buckets.json"):
    failures.append("out_is_model")
    print("FAIL: out_is_model: exit %d, model code %s\n--- stderr:\n%s"
          % (r.returncode, "kept" if after == before else "REPLACED", r.stderr[-2000:]))
else:
    print("PASS: out_is_model: %s" % r.stderr.strip().splitlines()[-1])
if failures:
    sys.exit("%d refusal(s) wrong: %s" % (len(failures), ", ".join(failures)))
