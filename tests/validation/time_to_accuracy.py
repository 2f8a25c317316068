#!/usr/bin/env python3
"""gcsim's time to accuracy against published end-to-end results of compressed training.

    time_to_accuracy.py GCSIM REPO [--markdown FILE] [--json FILE] [--check]

For every row of tests/validation/time_to_accuracy.tsv whose setup gcsim can run (the
per-step case it names in published_compression.tsv), `gcsim predict --engine analytic
--convergence best` of the compressed run and of the uncompressed run, as
compression_cases.py runs them (the case's stack, exchange and args). The predicted
time-to-accuracy speedup of a run whose first `warmup` share of the steps is uncompressed:

    speedup = 1 / (warmup + (1 - warmup) x factor / r)

with r = compressed / uncompressed throughput per step and factor = gcsim's convergence
factor (iterations to fp32's accuracy over fp32's; docs/convergence.md) for the compressor,
applied to the compressed steps. The warm-up share is the source's, not gcsim's (1-bit Adam's
warm-up phases are another piece of issue 43). Rows without a setup are listed, not
predicted, with the reason in the data file. Error = predicted / published - 1. A row whose
compressed run ended below the uncompressed run's accuracy in the same epochs is 'missed':
gcsim agrees when it does not predict that run as reaching the target faster (factor
unknown, flagged as missing the target, or a predicted speedup of at most 1).

--check exits 1 when a gcsim run fails or a row names an unknown case (accuracy is reported,
not gated). Standard library only.
"""
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import compression_cases  # noqa: E402  (read_cases, the per-step cases)
import gcsim_cli  # noqa: E402  (read_tsv)


def read_rows(repo):
    path = os.path.join(repo, "tests", "validation", "time_to_accuracy.tsv")
    rows = []
    for n, row in gcsim_cli.read_tsv(path):
        try:
            row["warmup"] = float(row["warmup"])
            row["speedup"] = None if row["speedup"] == "missed" else float(row["speedup"])
        except ValueError:
            raise ValueError("%s:%d: warmup must be a number, speedup a number or 'missed'"
                             % (path, n))
        if not 0 <= row["warmup"] < 1 or (row["speedup"] is not None and row["speedup"] <= 0):
            raise ValueError("%s:%d: warmup in [0, 1), speedup > 0" % (path, n))
        rows.append(row)
    return rows


def predict(gcsim, repo, case, compressor, exchange):
    """(throughput, convergence factor, its source) of one run."""
    argv = [gcsim, "predict", "--engine", "analytic", "--format", "json",
            "--platform", compression_cases.platform_of(case, compressor != "none"),
            "--model", case["model"], "--gpus", case["gpus"],
            "--batch", case["batch"], "--compressor", compressor,
            "--stack", case["stack"] if compressor != "none" else case["baseline_stack"],
            "--convergence", "best"]
    if exchange != "auto":
        argv += ["--exchange", exchange]
    argv += compression_cases.run_args(case, compressor != "none")
    r = subprocess.run(argv, capture_output=True, text=True, cwd=repo, timeout=600)
    if r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(argv[1:]), r.returncode,
                                                r.stderr.strip()))
    doc = json.loads(r.stdout)
    meta = doc["meta"]
    return (doc["rows"][0]["throughput_samples_per_s"], meta.get("convergence_factor"),
            meta.get("convergence_source", "?"),
            meta.get("convergence_reached_target") is False)


def tta_speedup(warmup, factor, ratio):
    """Uncompressed time over compressed time to the same accuracy."""
    return 1.0 / (warmup + (1.0 - warmup) * factor / ratio)


def published(r):
    return "%.2f" % r["speedup"] if r["speedup"] is not None else "missed"


def missed_agrees(r):
    """A published miss: gcsim agrees unless it predicts reaching the target faster."""
    return not (r.get("predicted") is not None and r["predicted"] > 1 and not r.get("flagged"))


def markdown(rows):
    out = ["| case | source | target | warm-up | published speedup | per-step ratio "
           "(gcsim) | factor (gcsim, source) | predicted speedup | error |",
           "|---|---|---|---:|---:|---:|---|---:|---:|"]
    for r in rows:
        if r.get("ratio") is None:
            out.append("| %s | %s | %s | %.0f%% | %s | - | - | not predicted (%s) | - |" % (
                r["case"], r["source"], r["target"], 100 * r["warmup"], published(r),
                r.get("why", "no setup")))
            continue
        factor = "%.2f" % r["factor"] if r["factor"] is not None else "unknown"
        if r.get("flagged"):
            factor += ", misses the target in gcsim's runs"
        pred = "%.2f" % r["predicted"] if r.get("predicted") is not None else "-"
        if r["speedup"] is None:
            err = "agrees (no gain predicted)" if missed_agrees(r) else "differs (gain predicted)"
        elif r.get("predicted") is None:
            err = "-"
        else:
            err = "%+.0f%%" % (100 * (r["predicted"] / r["speedup"] - 1))
        out.append("| %s | %s | %s | %.0f%% | %s | %.2f | %s (%s) | %s | %s |" % (
            r["case"], r["source"], r["target"], 100 * r["warmup"], published(r), r["ratio"],
            factor, r["factor_source"], pred, err))
    return "\n".join(out) + "\n"


def totals(rows):
    done = [r for r in rows if r.get("predicted") is not None and r["speedup"] is not None]
    missed = [r for r in rows if r["speedup"] is None and r.get("ratio") is not None]
    text = "%d rows" % len(rows)
    if done:
        errs = [abs(r["predicted"] / r["speedup"] - 1) for r in done]
        faster = sum((r["predicted"] > 1) == (r["speedup"] > 1) for r in done)
        text += (", %d with a published speedup predicted: compressed faster to the target in "
                 "both for %d of %d, median abs. error %.0f%%" % (
                     len(done), faster, len(done), 100 * statistics.median(errs)))
    if missed:
        text += (", %d published misses of the target: gcsim predicts no gain for %d" % (
            len(missed), sum(missed_agrees(r) for r in missed)))
    return text


def main(argv):
    args, opts = [], {}
    it = iter(argv[1:])
    for a in it:
        if a in ("--markdown", "--json"):
            opts[a] = next(it, None)
            if opts[a] is None:
                sys.stderr.write("time_to_accuracy.py: %s needs a file\n" % a)
                return 2
        elif a == "--check":
            opts[a] = True
        else:
            args.append(a)
    if len(args) != 2:
        sys.stderr.write(__doc__)
        return 2
    gcsim, repo = os.path.abspath(args[0]), os.path.abspath(args[1])
    try:
        rows = read_rows(repo)
    except (OSError, ValueError) as e:
        sys.stderr.write("time_to_accuracy.py: %s\n" % e)
        return 2
    cases = {c["case"]: c for c in compression_cases.read_cases(repo)}
    failures = 0
    for r in rows:
        if r["step_case"] == "-":
            r["why"] = "setup not runnable: see the data file"
            continue
        case = cases.get(r["step_case"])
        if case is None:
            print("FAIL: %s: no case %s in published_compression.tsv" % (
                r["case"], r["step_case"]), file=sys.stderr)
            failures += 1
            continue
        try:
            comp, factor, source, flagged = predict(gcsim, repo, case, case["compressor"],
                                                    case["exchange"])
            base, _, _, _ = predict(gcsim, repo, case, "none", "auto")
        except RuntimeError as e:
            print("FAIL: %s" % e, file=sys.stderr)
            failures += 1
            continue
        r["ratio"] = comp / base
        r["factor"], r["factor_source"], r["flagged"] = factor, source, flagged
        if factor is None:
            r["why"] = "gcsim's factor is unknown"
            continue
        r["predicted"] = tta_speedup(r["warmup"], factor, r["ratio"])
    text = markdown(rows)
    if opts.get("--markdown"):
        open(opts["--markdown"], "w").write(text)
    else:
        sys.stdout.write(text)
    if opts.get("--json"):
        with open(opts["--json"], "w") as f:
            json.dump(rows, f, indent=1)
    print(totals(rows), file=sys.stderr)
    return 1 if opts.get("--check") and failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
