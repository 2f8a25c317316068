#!/usr/bin/env python3
"""docs/sharding.md's Llama 2 tables on the catalog's H100 platforms, one gcsim predict per cell.

    sharded_tables.py [--gcsim PATH] [--source DIR] [--check DOC]

Prints, in markdown, each (model, platform, checkpointing) table: per strategy and
compressor, at 16, 64 and 256 GPUs, tokens/s per GPU / MFU / memory per GPU, "no fit" where
gcsim refuses the configuration because its memory estimate exceeds gpu.memory (bf16, Adam,
micro-batch 1). Paste the output over the tables it replaces. --check DOC: exit 1 unless
DOC (docs/sharding.md) holds these tables as printed, from the first table's heading to the
next "## " heading. Standard library only.
"""
import argparse
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TABLES = [("llama-2-7b", "h100-ndr", []), ("llama-2-7b", "h100-400g", []),
          ("llama-2-70b", "h100-ndr", ["--act-ckpt"]), ("llama-2-70b", "h100-400g", ["--act-ckpt"])]
STRATEGIES = ["ddp", "zero1", "zero2", "fsdp", "hsdp"]
COMPRESSORS = ["none", "qsgd", "terngrad"]
GPUS = [16, 64, 256]


def cell(gcsim, src, model, platform, strategy, compressor, gpus, extra):
    argv = [gcsim, "predict", "--model", os.path.join(src, "models", model + ".json"),
            "--platform", os.path.join(src, "platforms", platform + ".json"),
            "--gpus", str(gpus), "--sharding", strategy, "--compressor", compressor,
            "--precision", "bf16", "--optimizer", "adam", "--batch", "1",
            "--format", "json"] + extra
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode == 2 and "does not fit in GPU memory" in p.stderr:
        return "no fit"
    if p.returncode != 0:
        sys.exit("gcsim failed (%d) on %s: %s" % (p.returncode, " ".join(argv), p.stderr.strip()))
    row = json.loads(p.stdout)["rows"][-1]
    return "%.0f / %.0f%% / %.0f GB" % (row["tokens_per_s"] / row["gpus"], row["mfu_pct"],
                                        row["memory_bytes_per_gpu"] / 1e9)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gcsim", default=os.path.join(REPO, "build", "sim", "cli", "gcsim"))
    ap.add_argument("--source", default=REPO, help="the tree whose models/ and platforms/ to use")
    ap.add_argument("--check", metavar="DOC", help="compare with DOC's tables instead of printing")
    a = ap.parse_args()
    out = []
    for model, platform, extra in TABLES:
        title = " ".join([model, "on", platform] + extra)
        out.append("### %s (tokens/s per GPU / MFU / memory per GPU)\n" % title
                   if extra else "### %s  (tokens/s per GPU / MFU / memory per GPU)\n" % title)
        out.append("| strategy | compressor | " + " | ".join("%d GPUs" % g for g in GPUS) + " |")
        out.append("|---|---|" + "---|" * len(GPUS))
        rows = [(s, c) for s in STRATEGIES for c in COMPRESSORS] + [("zero3+qwz+hpz+qgz", "none")]
        for s, c in rows:
            cells = [cell(a.gcsim, a.source, model, platform, s, c, g, extra) for g in GPUS]
            out.append("| %s | %s | %s |" % (s, c, " | ".join(cells)))
        out.append("")
    text = "\n".join(out)
    if not a.check:
        print(text)
        return 0
    with open(a.check) as f:
        doc = f.read()
    start = doc.find(out[0].rstrip("\n"))
    end = doc.find("\n## ", start)
    if start < 0 or end < 0:
        print("FAIL: %s has no table headed %r" % (a.check, out[0].strip()))
        return 1
    if doc[start:end].strip() != text.strip():
        print("FAIL: the tables in %s are not what gcsim predicts today; regenerate them with "
              "python3 tests/validation/sharded_tables.py" % a.check)
        return 1
    print("the tables in %s are current" % a.check)
    return 0


if __name__ == "__main__":
    sys.exit(main())
