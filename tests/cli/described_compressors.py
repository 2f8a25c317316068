#!/usr/bin/env python3
"""A compressor described only in JSON (compressors/described/*.json, docs/compressors.md
"Described compressors") predicts what the built-in it imitates predicts, in every command
that takes --compressor: predict (analytic and des engines, fused and pytorch-ddp stacks),
sweep, plan and breakeven.

Each command runs twice, once with the built-in's name and once with file:PATH.json; the
CSV outputs must be equal field by field, as text (so to the last printed digit), after the
compressor's spec is written the same way in both (the described one prints its own spec) and
the case id column, a hash of the spec, is left out. The sparse and low-rank examples, whose
formats approximate their built-ins', are compared within a stated tolerance (below).
Convergence is off (--convergence none) in these comparisons: a described compressor's
factor is unknown unless its file states one (checked at the end).

usage: described_compressors.py GCSIM SOURCE_DIR
"""
import csv
import io
import re
import subprocess
import sys

GCSIM, SRC = sys.argv[1], sys.argv[2]
PLATFORM = f"{SRC}/platforms/h100-400g.json"
MODEL = f"{SRC}/models/alexnet.json"
PAIRS = [("terngrad", f"file:{SRC}/compressors/described/terngrad-like.json"),
         ("signsgd", f"file:{SRC}/compressors/described/signsgd-like.json")]
DESCRIBED = re.compile(r"(ef\+)?described:[a-z0-9_=.,+-]*codec=([a-z0-9-]+)")
failures = 0


def run(args):
    p = subprocess.run([GCSIM] + args, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"FAIL: gcsim {' '.join(args)} exited {p.returncode}: {p.stderr}")
    return p.stdout


# the built-ins' specs with every default filled in, as gcsim prints them
BUILTIN_SPEC = {"terngrad": "terngrad:clip=2.5,bucket=0,min_size=0,last=fp32",
                "signsgd": "signsgd:bucket=0"}


def rows(text, builtin):
    """The CSV's rows without the id column, each spec of the compressor written @SPEC@."""
    reader = csv.reader(io.StringIO(text))
    header = next(reader)
    keep = [i for i, name in enumerate(header) if name != "id"]
    out = []
    for row in reader:
        out.append([DESCRIBED.sub("@SPEC@", row[i]).replace(BUILTIN_SPEC[builtin], "@SPEC@")
                    for i in keep])
    return [header[i] for i in keep], out


def compare(what, args_of, builtin, described):
    global failures
    ha, ra = rows(run(args_of(builtin)), builtin)
    hb, rb = rows(run(args_of(described)), builtin)
    if ha != hb or ra != rb or not ra:
        failures += 1
        print(f"FAIL: {what}: {builtin} and {described} differ")
        for x, y in zip(ra, rb):
            for i, (u, v) in enumerate(zip(x, y)):
                if u != v:
                    print(f"  column {ha[i]}: {u!r} != {v!r}")
    else:
        print(f"ok: {what}: {builtin} == {described} ({len(ra)} rows)")


for builtin, described in PAIRS:
    for stack in ("fused", "pytorch-ddp"):
        for engine in ("analytic", "des"):
            compare(f"predict --stack {stack} --engine {engine}",
                    lambda c, s=stack, e=engine: ["predict", "--platform", PLATFORM, "--model",
                                                  MODEL, "--gpus", "8,16", "--format", "csv",
                                                  "--stack", s, "--engine", e,
                                                  "--compressor", c],
                    builtin, described)
    compare("sweep", lambda c: ["sweep", "--platforms", PLATFORM, "--models", MODEL,
                                "--gpus", "8,16", "--stacks", "fused,pytorch-ddp",
                                "--format", "csv", "--compressor", c], builtin, described)
    compare("plan", lambda c: ["plan", "--platform", PLATFORM, "--model", MODEL,
                               "--target-throughput", "50000", "--convergence", "none",
                               "--format", "csv", "--compressor", c], builtin, described)
    compare("breakeven", lambda c: ["breakeven", "--platform", PLATFORM, "--model", MODEL,
                                    "--gpus", "16", "--convergence", "none", "--format", "csv",
                                    "--compressor", c], builtin, described)
# The sparse and low-rank examples approximate their built-ins' formats (their descriptions
# say how): throughput within 1e-4 relative, payload bytes within 0.05% (PowerSGD-like: 64 bytes of
# 501546 on AlexNet, its header varints).
NEAR = [("ef+topk:ratio=0.01", f"file:{SRC}/compressors/described/topk-like.json"),
        ("powersgd:rank=4", f"file:{SRC}/compressors/described/powersgd-like.json")]
for builtin, described in NEAR:
    def first_row(c, stack):
        text = run(["sweep", "--platforms", PLATFORM, "--models", MODEL, "--gpus", "16",
                    "--stacks", stack, "--format", "csv", "--compressor", c])
        return next(csv.DictReader(io.StringIO(text)))
    for stack in ("fused", "pytorch-ddp"):
        a, b = first_row(builtin, stack), first_row(described, stack)
        ok = a["status"] == b["status"] == "ok"
        for key, tol in (("throughput_samples_per_s", 1e-4), ("payload_bytes", 5e-4)):
            x, y = float(a[key]), float(b[key])
            ok = ok and abs(x - y) <= tol * max(abs(x), abs(y))
        if ok:
            print(f"ok: sweep --stack {stack}: {builtin} ~ {described}")
        else:
            failures += 1
            print(f"FAIL: sweep --stack {stack}: {builtin} {a} vs {described} {b}")
# Convergence: unknown for a description without a factor; a factor the file states, with
# its source, used and labelled as the file's (breakeven's to-accuracy columns).
def conv(c):
    text = run(["breakeven", "--platform", PLATFORM, "--model", MODEL, "--gpus", "16",
                "--format", "csv", "--compressor", c])
    return next(csv.DictReader(io.StringIO(text)))
plain = conv(f"file:{SRC}/compressors/described/terngrad-like.json")
stated = conv(f"file:{SRC}/tests/cli/described/terngrad-stated.json")
if plain.get("convergence_source") == "unknown" and stated.get("convergence_source") == "stated by file" \
        and float(stated.get("convergence_factor") or "nan") == 1.25:
    print("ok: convergence: unknown without a stated factor, the file's 1.25 with one")
else:
    failures += 1
    print("FAIL: convergence:", plain.get("convergence_source"), "/",
          stated.get("convergence_source"), stated.get("convergence_factor"))
# Exchanges: a description listing only all-reduce runs all-reduce under fused where the
# built-in all-gathers by default; one listing all-gather and ps never gets all-reduce from
# --exchange best. (Refusals: tests/cli/bad_inputs.txt, compressor_file_*exchange*.)
def exchange_of(c, *extra):
    text = run(["predict", "--platform", PLATFORM, "--model", MODEL, "--gpus", "16",
                "--stack", "fused", "--format", "csv", "--compressor", c] + list(extra))
    return next(csv.DictReader(io.StringIO(text)))["exchange"]
got = (exchange_of("terngrad"),
       exchange_of(f"file:{SRC}/tests/cli/described/terngrad-allreduce-only.json"),
       exchange_of(f"file:{SRC}/tests/cli/described/terngrad-gather-ps.json", "--exchange", "best"))
if got[0] == "allgather" and got[1] == "allreduce" and got[2] in ("allgather", "ps"):
    print(f"ok: exchanges: {got}")
else:
    failures += 1
    print(f"FAIL: exchanges: {got}")
# Codec costs measured per tensor size in the file ($.codec.measured), under fused: a flat
# 10 us encode and 5 us decode per tensor. AlexNet's 8 layers are encoded once each (80 us)
# and, all-gathered on 16 GPUs, each GPU decodes the 15 other payloads of each layer
# (8 x 15 x 5 us = 600 us). Other stacks refuse it (tests/cli/bad_inputs.txt).
text = run(["predict", "--platform", PLATFORM, "--model", MODEL, "--gpus", "16", "--stack",
            "fused", "--format", "csv", "--compressor",
            f"file:{SRC}/tests/cli/described/terngrad-measured.json"])
row = next(csv.DictReader(io.StringIO(text)))
enc, dec = float(row["encode_s"]), float(row["decode_s"])
if abs(enc - 80e-6) < 1e-12 and abs(dec - 600e-6) < 1e-12:
    print("ok: measured codec costs: encode 80 us, decode 600 us")
else:
    failures += 1
    print(f"FAIL: measured codec costs: encode {enc}, decode {dec}")
sys.exit(1 if failures else 0)
