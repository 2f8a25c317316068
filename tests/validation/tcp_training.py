#!/usr/bin/env python3
"""gcsim against published uncompressed (fp32) data-parallel training on TCP clusters.

    tcp_training.py GCSIM REPO [--markdown FILE]

For every case of tests/validation/published_tcp_training.tsv (measured speedups, scaling
factors or throughputs, with sources), `gcsim predict --engine analytic --compressor none`
on the case's platform, model, batch and stack at N GPUs, and at one GPU where the metric is
relative to one GPU; the predicted speedup (throughput(N) / throughput(1)), scaling factor
(speedup / N) or throughput (samples/s of all N GPUs together, throughput(N)) against the
measured one. Signed error = predicted / measured - 1: positive means gcsim is optimistic
(too fast).
Nothing is fitted to these numbers. Exit 1 when a gcsim run fails (not on accuracy: the
numbers are reported, not gated). Standard library only.
"""
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gcsim_cli  # noqa: E402  (read_tsv, first_row, table_script_main)


METRICS = ("speedup", "scaling", "throughput")


def read_cases(path):
    """The cases of PATH; a metric other than METRICS raises ValueError naming the line."""
    cases = []
    for n, row in gcsim_cli.read_tsv(path):
        if row["metric"] not in METRICS:
            raise ValueError("%s:%d: metric %r: expected one of %s"
                             % (path, n, row["metric"], ", ".join(METRICS)))
        cases.append(row)
    return cases


def throughput(gcsim, repo, case, gpus):
    return gcsim_cli.first_row(gcsim, repo, [
        "predict", "--engine", "analytic", "--platform", case["platform"],
        "--model", case["model"], "--gpus", str(gpus), "--batch", case["batch"],
        "--compressor", "none", "--stack", case["stack"]])["throughput_samples_per_s"]

def predicted_metric(metric, gpus, at_n, at_one):
    """The case's metric from gcsim's throughput at N GPUs (at_n) and at one (at_one, called
    only for the metrics relative to one GPU)."""
    if metric == "throughput":
        return at_n
    speedup = at_n / at_one()
    return speedup if metric == "speedup" else speedup / gpus


def predict(gcsim, repo, cases, run=throughput):
    """Each case with 'predicted' and 'error' (signed) added. run(gcsim, repo, case, gpus) is
    gcsim's throughput (samples/s); the 1-GPU run is made once per configuration."""
    one = {}
    out = []
    for c in cases:
        key = (c["platform"], c["model"], c["batch"], c["stack"])

        def at_one():
            if key not in one:
                one[key] = run(gcsim, repo, c, 1)
            return one[key]
        n = int(c["gpus"])
        pred = predicted_metric(c["metric"], n, run(gcsim, repo, c, n), at_one)
        meas = float(c["measured"])
        out.append(dict(c, predicted=pred, error=pred / meas - 1.0))
    return out


def summary(rows, kind):
    errs = [r["error"] for r in rows if r["kind"] == kind]
    if not errs:
        return "%s: no case" % kind
    return ("%s: %d cases, signed error median %+.0f%%, from %+.0f%% to %+.0f%%; "
            "%d of %d optimistic (gcsim too fast)"
            % (kind, len(errs), 100 * statistics.median(errs), 100 * min(errs),
               100 * max(errs), sum(e > 0 for e in errs), len(errs)))


def markdown(rows):
    out = ["| case | kind | model | platform | GPUs | batch | stack | metric | measured | "
           "gcsim | signed error | how read |",
           "|---|---|---|---|---:|---:|---|---|---:|---:|---:|---|"]
    for r in rows:
        pred = ("%.1f" if r["metric"] == "throughput" else "%.2f") % r["predicted"]
        out.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %+.0f%% | %s |" % (
            r["case"], r["kind"], os.path.basename(r["model"]).replace(".json", ""),
            os.path.basename(r["platform"]), r["gpus"],
            r["batch"], r["stack"], r["metric"], r["measured"], pred,
            100 * r["error"], r["how"]))
    return "\n".join(out) + "\n"


def tables(gcsim, repo):
    rows = predict(gcsim, repo, read_cases(os.path.join(HERE, "published_tcp_training.tsv")))
    return markdown(rows), [summary(rows, kind) for kind in ("tcp", "local")]


def main(argv):
    return gcsim_cli.table_script_main("tcp_training.py", argv, tables)

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
