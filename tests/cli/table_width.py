#!/usr/bin/env python3
"""Every command's default text output fits 100 columns; --wide still gives every column
(issue 46).

For each representative command line below:
  - the default output (no --format: the text table, or predict's first screen) has no line
    over 100 characters (UTF-8 characters, not bytes);
  - with --wide, the table is the plain layout: one header line and one line per row, as
    many columns as the CSV has columns with a value in some row (the text table leaves out
    a column empty in every row), and as many rows as the CSV;
  - the fitted table loses nothing: every text cell of the CSV (platform, compressor,
    status, reason...) that the --wide table shows appears in the default output (catalog
    excepted: its default table cuts descriptions and leaves out kind and file by design).
gcsim sweep and gcsim merge write CSV or JSONL only (no text table): not listed.

    table_width.py GCSIM SOURCE_DIR WORKDIR
"""
import csv
import io
import os
import re
import subprocess
import sys

WIDTH = 100

# (name, arguments, check --wide against --format csv[, exit status]). Inputs are the repository's files,
# the output of calibrate goes to WORKDIR.
def commands(work):
    trace = "traces/data/fmnist_lenet/lenet_step000000_rank0.safetensors"
    trace300 = "traces/data/fmnist_lenet300/lenet300_step000000_rank0.safetensors"
    return [
        ("predict first screen", ["predict"], False),
        ("predict", ["predict", "--platform", "h100-ndr", "--model", "resnet-50", "--gpus",
                     "8,64", "--stack", "horovod", "--compressor", "terngrad"], True),
        ("predict both engines", ["predict", "--platform", "h100-ndr", "--model", "resnet-50",
                                  "--gpus", "16", "--engine", "both", "--stack", "fused",
                                  "--compressor", "ecq"], True),
        ("predict sharded", ["predict", "--platform", "h100-ndr", "--model", "llama-2-7b",
                             "--gpus", "8,64", "--sharding", "zero3"], True),
        ("predict tensors", ["predict", "--platform", "h100-ndr", "--model", "resnet-50",
                             "--gpus", "16", "--compressor", "qsgd", "--stack", "fused",
                             "--tensors"], True),
        ("plan", ["plan", "--model", "llama-2-70b", "--platform", "h200-ndr",
                  "--target-throughput", "10"], True),
        # exit 1 (no feasible configuration), the closest ones with their reason
        ("plan infeasible", ["plan", "--model", "alexnet", "--platform", "terngrad-fig5a",
                             "--target-throughput", "1e9"], True, 1),
        ("plan convergence", ["plan", "--model", "alexnet", "--platform", "terngrad-fig5a",
                              "--samples", "50000000", "--convergence", "catalog"], True),
        ("breakeven", ["breakeven", "--platform", "a100-hdr,h100-ndr", "--model",
                       "resnet-50,bert-base", "--compressor", "fp16,powersgd,terngrad",
                       "--gpus", "8,64"], True),
        ("collective", ["collective", "--platform", "h100-ndr", "--gpus", "16", "--sizes",
                        "4KiB,64MiB"], True),
        ("check", ["check", "--baseline", "tests/planning/baseline.json", "--engine",
                   "analytic"], True),
        ("compress", ["compress", "--trace", trace, "--compressor", "topk", "--compressor",
                      "randomk:ratio=0.01", "--compressor", "threshold:thr=0.0001"], True),
        # a key wider than half the line (DGC's full spec): numbered rows, the spec listed
        ("compress long spec", ["compress", "--trace", trace, "--compressor", "dgc",
                                "--compressor", "dgc:ratio=0.01,code=pairs,sample=0"], True),
        ("compress per layer", ["compress", "--trace", trace300, "--compressor", "terngrad",
                                "--compressor", "qsgd", "--per-layer"], True),
        ("calibrate", ["calibrate", "--log",
                       "platforms/calibration/a100-nvswitch-1x8-azure-ndv4.log", "--platform",
                       "a100-hdr", "--output", os.path.join(work, "calibrated.json"),
                       "--force"], True),
        ("catalog", ["catalog"], False),
        ("catalog stacks", ["catalog", "stacks"], True),
        ("trace info", ["trace", "info", trace], True),
        ("train", ["train", "--data", "traces/datasets/digits", "--model", "softmax",
                   "--epochs", "1", "--batch", "16", "--workers", "2", "--compressor", "dgc",
                   "--eval-every", "20"], True),
    ]


def run(gcsim, args, cwd):
    p = subprocess.run([gcsim] + args, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8", "replace")


def table_lines(text):
    """The plain table of a --wide output: the lines after the notes' blank line."""
    lines = text.rstrip("\n").split("\n")
    if "" in lines:
        lines = lines[lines.index("") + 1:]
    return lines


def main():
    gcsim, src, work = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(work, exist_ok=True)
    failures = 0

    def fail(msg):
        nonlocal failures
        failures += 1
        print("FAIL: " + msg)

    for item in commands(work):
        name, args, full = item[:3]
        want = item[3] if len(item) > 3 else 0
        rc, out, err = run(gcsim, args, src)
        if rc != want:
            fail("%s: gcsim %s exited %d: %s" % (name, " ".join(args), rc, err.strip()[:300]))
            continue
        long_lines = [(i + 1, len(l)) for i, l in enumerate(out.split("\n")) if len(l) > WIDTH]
        if long_lines:
            fail("%s: %d lines over %d columns, the first (line, width): %s"
                 % (name, len(long_lines), WIDTH, long_lines[:5]))
        else:
            print("ok: %s: %d lines, the widest %d columns"
                  % (name, out.count("\n"), max(len(l) for l in out.split("\n"))))
        if not full:
            continue
        rc_w, wide, err_w = run(gcsim, args + ["--wide"], src)
        rc_c, text_csv, err_c = run(gcsim, args + ["--format", "csv"], src)
        if rc_w != want or rc_c != want:
            fail("%s: --wide exited %d, --format csv %d: %s %s"
                 % (name, rc_w, rc_c, err_w.strip()[:200], err_c.strip()[:200]))
            continue
        rows = list(csv.reader(io.StringIO(text_csv)))
        header, data = rows[0], rows[1:]
        with_value = [k for i, k in enumerate(header) if any(r[i] != "" for r in data)]
        lines = table_lines(wide)
        # The plain layout: headers right-aligned over two-space gaps, single spaces inside
        # a header, so the header's fields are what two or more spaces separate.
        shown = re.split(r" {2,}", lines[0].strip())
        if len(shown) != len(with_value):
            fail("%s: --wide shows %d columns %s, the CSV has %d with a value %s"
                 % (name, len(shown), shown, len(with_value), with_value))
        elif len(lines) - 1 != len(data):
            fail("%s: --wide shows %d rows, the CSV has %d" % (name, len(lines) - 1, len(data)))
        else:
            print("ok: %s: --wide shows the CSV's %d columns with a value, %d rows"
                  % (name, len(shown), len(data)))
        # What the fitted table shows of each text cell: the value, or its file's base name; a value the plain table shows in a
        # short form too (a compressor as written, not its full spec) is not checked here.
        if name.startswith("catalog"):
            continue  # the default catalog cuts descriptions and leaves out kind and file
        # compared without white space: a wrapped text breaks at spaces, a word longer than
        # a line after a comma
        norm_out, norm_wide = "".join(out.split()), "".join(wide.split())
        missing = set()
        for r in data:
            for i, k in enumerate(header):
                v = "".join(r[i].split())
                if not v or re.fullmatch(r"[-+0-9.eE]+", v) or v not in norm_wide:
                    continue
                if v not in norm_out and v.rsplit("/", 1)[-1] not in norm_out:
                    missing.add((k, v))
        if missing:
            fail("%s: text cells of the CSV not in the default output: %s"
                 % (name, sorted(missing)[:5]))
    if failures:
        print("%d failure(s)" % failures)
        return 1
    print("all commands fit %d columns" % WIDTH)
    return 0


if __name__ == "__main__":
    sys.exit(main())
