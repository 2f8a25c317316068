#!/usr/bin/env python3
"""gcsim against published end-to-end measurements of compressed data-parallel training.

    compression_cases.py GCSIM REPO [--markdown FILE] [--json FILE] [--check]

For every case of tests/validation/published_compression.tsv, `gcsim predict --engine
analytic` of the compressed run (its training stack, --exchange as listed) and of the
uncompressed run (its baseline stack) on the case's platform, model, GPU count and batch;
the predicted ratio (compressed / uncompressed throughput) against the measured one. Twice:
with each case's stacks ("stacks") and with the fused stack for both runs ("fused": what
gcsim charged before training stacks, an ideal implementation). Reports per case the ratio
error (predicted / measured - 1) and whether the sign of compression's effect agrees:
compression's effect is "faster" above a ratio of 1.03, "slower" below 0.97 and "even"
between (3% is what a figure read by eye cannot resolve), and the sign agrees when the
predicted and measured effects are the same. Summary per source and overall: sign
agreement and median |error|.

A case's `args` column (- for none) adds gcsim predict options to both of its runs (issue
43: --precision, --step-time from a published single-GPU figure); `compressed_args`, when not
-, replaces them for the compressed run (a sharded case compressed by --sharding's ZeRO++);
`compressed_platform`, when not -, is the compressed run's platform (Bagua's runs over
Bagua-Net, their baselines over NCCL's sockets), in both the stacks' and the fused
comparison. The cases are also
summarised per set: issue 24's sources (MC, DGC, CGX, EGO) and the sources issue 43 added
(ISSUE43_SOURCES), so that new data is reported apart from what was seen before.

--json writes the rows, with each run's throughput (KEY_samples_per_s and
KEY_base_samples_per_s, KEY fused or stacks) for the notes doc_notes.py writes from them.

--check exits 1 when a gcsim run fails (not on accuracy: the numbers are reported, not
gated). Standard library only.
"""
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile

EVEN = 0.03  # within 3% of 1: no sign to resolve
ISSUE43_SOURCES = {"DS1BA", "BPS", "BAG", "ZPP"}  # sources added by issue 43 (the others are issue 24's)


def read_cases(repo):
    path = os.path.join(repo, "tests", "validation", "published_compression.tsv")
    rows, header = [], None
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        fields = line.rstrip("\n").split("\t")
        if header is None:
            header = fields
            continue
        rows.append(dict(zip(header, fields)))
    return rows


def stack_file(repo, name, cycle, tmp):
    """The stack's path, or a copy of it with another background cycle."""
    if cycle == "-":
        return name
    path = name if "/" in name else os.path.join(repo, "platforms", "stacks", name + ".json")
    doc = json.load(open(path if os.path.isabs(path) else os.path.join(repo, path)))
    doc["granularity"]["cycle"] = cycle
    doc["name"] = "%s-cycle-%s" % (doc["name"], cycle)
    out = os.path.join(tmp, "%s.json" % doc["name"])
    json.dump(doc, open(out, "w"))
    return out


def run_args(case, compressed):
    """The case's extra options for its compressed or its uncompressed run."""
    args = case.get("args", "-")
    if compressed and case.get("compressed_args", "-") not in ("", "-"):
        args = case["compressed_args"]
    return [] if args in ("", "-") else shlex.split(args)


def platform_of(case, compressed):
    """The platform of the case's compressed or uncompressed run: `compressed_platform`,
    when not -, for the compressed run (its system drove the network otherwise: Bagua's
    runs with Bagua-Net against baselines on NCCL's socket transport)."""
    other = case.get("compressed_platform", "-")
    return other if compressed and other not in ("", "-") else case["platform"]


def throughput(gcsim, repo, case, compressor, stack, exchange, compressed=None):
    compressed = compressor != "none" if compressed is None else compressed
    argv = [gcsim, "predict", "--engine", "analytic", "--format", "json",
            "--platform", platform_of(case, compressed), "--model", case["model"],
            "--gpus", case["gpus"],
            "--batch", case["batch"], "--compressor", compressor, "--stack", stack]
    if exchange != "auto":
        argv += ["--exchange", exchange]
    argv += run_args(case, compressed)
    r = subprocess.run(argv, capture_output=True, text=True, cwd=repo, timeout=600)
    if r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(argv[1:]), r.returncode, r.stderr.strip()))
    return json.loads(r.stdout)["rows"][0]["throughput_samples_per_s"]


def effect(ratio):
    """faster, slower, or even (within 3% of 1)."""
    return "even" if abs(ratio - 1) <= EVEN else "faster" if ratio > 1 else "slower"


def agrees(pred, meas):
    return effect(pred) == effect(meas)


def summary(rows, key):
    ok = [r for r in rows if r.get(key) is not None]
    if not ok:
        return "no case"
    signs = sum(agrees(r[key], r["measured"]) for r in ok)
    errs = sorted(abs(r[key] / r["measured"] - 1) for r in ok)
    return "sign agrees in %d of %d (%.0f%%), median abs. ratio error %.0f%%, p90 %.0f%%" % (
        signs, len(ok), 100.0 * signs / len(ok), 100 * statistics.median(errs),
        100 * errs[min(len(errs) - 1, int(round(0.9 * (len(errs) - 1))))])


def case_sets(rows):
    """(name, rows) for issue 24's sources and issue 43's, when both are present."""
    old = [r for r in rows if r["source"] not in ISSUE43_SOURCES]
    new = [r for r in rows if r["source"] in ISSUE43_SOURCES]
    if not old or not new:
        return []
    return [("issue 24 sources", old), ("issue 43 sources", new)]


def markdown(rows):
    out = ["| case | source | model | platform | GPUs | compressor | measured ratio | "
           "fused ratio | fused error | stack | stack ratio | stack error | sign (stack) |",
           "|---|---|---|---|---:|---|---:|---:|---:|---|---:|---:|---|"]
    for r in rows:
        def cell(key):
            return "%.2f" % r[key] if r.get(key) is not None else "fails"

        def err(key):
            return "%+.0f%%" % (100 * (r[key] / r["measured"] - 1)) if r.get(key) else "-"
        stack = r["stack"].split("/")[-1].replace(".json", "")
        if r["cycle"] != "-":
            stack += " (cycle %s)" % r["cycle"]
        out.append("| %s | %s | %s | %s | %s | %s | %.2f | %s | %s | %s | %s | %s | %s |" % (
            r["case"], r["source"], r["model"].split("/")[-1].replace(".json", ""),
            r["platform"].split("/")[-1][:-5], r["gpus"],
            r["compressor"], r["measured"], cell("fused"), err("fused"), stack, cell("stacks"),
            err("stacks"), "agrees" if r.get("stacks") and agrees(r["stacks"], r["measured"])
            else "differs"))
    out.append("")
    sources = sorted({r["source"] for r in rows})
    out.append("| cases | fused stack (before) | training stacks (now) |")
    out.append("|---|---|---|")
    for s in sources + ["all"]:
        sub = [r for r in rows if s == "all" or r["source"] == s]
        out.append("| %s (%d) | %s | %s |" % (s, len(sub), summary(sub, "fused"),
                                               summary(sub, "stacks")))
    for name, sub in case_sets(rows):
        out.append("| %s (%d) | %s | %s |" % (name, len(sub), summary(sub, "fused"),
                                               summary(sub, "stacks")))
    return "\n".join(out) + "\n"


def main(argv):
    args, opts = [], {}
    it = iter(argv[1:])
    for a in it:
        if a in ("--markdown", "--json"):
            opts[a] = next(it, None)
        elif a == "--check":
            opts[a] = True
        else:
            args.append(a)
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    gcsim, repo = os.path.abspath(args[0]), os.path.abspath(args[1])
    failures = 0
    rows = []
    baselines = {}  # cases on one setup share their uncompressed run
    with tempfile.TemporaryDirectory() as tmp:
        for c in read_cases(repo):
            row = dict(c, measured=float(c["ratio"]))
            for key, comp_stack, base_stack in (
                    ("fused", "fused", "fused"),
                    ("stacks", stack_file(repo, c["stack"], c["cycle"], tmp), c["baseline_stack"])):
                try:
                    exchange = c["exchange"] if key == "stacks" else "auto"
                    comp = throughput(gcsim, repo, c, c["compressor"], comp_stack, exchange,
                                      compressed=True)
                    setup = (c["platform"], c["model"], c["gpus"], c["batch"], base_stack,
                             c.get("args", "-"))
                    if setup not in baselines:
                        baselines[setup] = throughput(gcsim, repo, c, "none", base_stack, "auto",
                                                      compressed=False)
                    base = baselines[setup]
                    row[key] = comp / base
                    # samples/s of both runs, for notes that quote them (doc_notes.py)
                    row[key + "_samples_per_s"] = comp
                    row[key + "_base_samples_per_s"] = base
                except RuntimeError as e:
                    print("FAIL: %s" % e, file=sys.stderr)
                    failures += 1
            rows.append(row)
    text = markdown(rows)
    if opts.get("--markdown"):
        open(opts["--markdown"], "w").write(text)
    else:
        sys.stdout.write(text)
    if opts.get("--json"):
        json.dump(rows, open(opts["--json"], "w"), indent=1)
    for name, sub in case_sets(rows):
        print("%s, %d cases: before (fused) %s; now (stacks) %s" % (
            name, len(sub), summary(sub, "fused"), summary(sub, "stacks")), file=sys.stderr)
    print("%d cases: before (fused) %s; now (stacks) %s" % (
        len(rows), summary(rows, "fused"), summary(rows, "stacks")), file=sys.stderr)
    return 1 if opts.get("--check") and failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
