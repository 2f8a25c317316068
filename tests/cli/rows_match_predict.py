#!/usr/bin/env python3
"""Issue 46: sweep's, breakeven's and plan's rows carry the fields predict has for the same
case, with predict's values: tokens_per_s, mfu_pct, memory_bytes_per_gpu (sweep, breakeven,
plan), sharding, act_ckpt_policy (predict: meta members) and compute_source.

    rows_match_predict.py GCSIM

For each case (an FSDP LLM with checkpointing, a CNN under a compressor, a ZeRO-2 bf16 case
with gradient accumulation) it runs predict once and the other three commands once, finds
the row of the same case (plan: its one collective, the row at the GPU count), checks first
that its samples/s is predict's (else the comparison would prove nothing), then each field:
numbers within 1e-9 relative, text equal, null exactly where predict's is null. It also
checks that the CNN's tokens_per_s is null (no tokens_per_sample) and the LLM's is not, so
the null rule is exercised both ways.
"""
import json
import subprocess
import sys

failures = []


def fail(what):
    failures.append(what)
    print("FAIL:", what)


def run(gcsim, args):
    r = subprocess.run([gcsim] + args, capture_output=True, text=True, timeout=300)
    if r.returncode not in (0, 1):  # plan answers "no" with 1
        raise RuntimeError("gcsim %s -> %d: %s" % (" ".join(args), r.returncode, r.stderr.strip()))
    return r.stdout


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b))


# name, the case's options (every command), the compressor, the GPU count
CASES = [
    ("llama-2-7b fsdp act-ckpt",
     ["--platform", "h100-ndr", "--model", "llama-2-7b", "--sharding", "fsdp", "--act-ckpt"],
     "none", 64),
    ("resnet-50 fp16",
     ["--platform", "a100-hdr", "--model", "resnet-50", "--collective", "ring"], "fp16", 16),
    ("bert-base bf16 zero2 accum",
     ["--platform", "a100-hdr", "--model", "bert-base", "--collective", "ring", "--batch", "16",
      "--precision", "bf16", "--grad-accum", "4", "--sharding", "zero2"], "none", 16),
]

NUMBERS = ["tokens_per_s", "mfu_pct", "memory_bytes_per_gpu"]


def check_row(where, row, want, tput_key):
    if not close(row.get(tput_key), want["tput"]):
        fail("%s: %s %r, predict's samples/s %r: not the same case" %
             (where, tput_key, row.get(tput_key), want["tput"]))
        return
    for k in NUMBERS:
        if k not in row:
            fail("%s: no %s" % (where, k))
        elif not close(row[k], want[k]):
            fail("%s: %s %r, predict %r" % (where, k, row[k], want[k]))
    for k in ("sharding", "act_ckpt_policy", "compute_source"):
        if k in want and row.get(k) != want[k]:
            fail("%s: %s %r, predict %r" % (where, k, row.get(k), want[k]))


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    gcsim = argv[1]
    for name, opts, comp, gpus in CASES:
        case = opts + ["--gpus", str(gpus)]
        p = json.loads(run(gcsim, ["predict"] + case + ["--compressor", comp, "--format", "json"]))
        prow = p["rows"][0]
        want = {k: prow.get(k) for k in NUMBERS}
        want["tput"] = prow["throughput_samples_per_s"]
        want["compute_source"] = prow["compute_source"]
        want["sharding"] = p["meta"]["sharding"]
        want["act_ckpt_policy"] = p["meta"]["act_ckpt_policy"]
        if name.startswith("resnet") != (want["tokens_per_s"] is None):
            fail("%s: predict's tokens_per_s %r (a CNN has none, an LLM has)" %
                 (name, want["tokens_per_s"]))

        lines = run(gcsim, ["sweep"] + case + ["--compressor", comp, "--format", "jsonl",
                                               "--no-progress"]).splitlines()
        rows = [json.loads(l) for l in lines if l.strip()]
        if len(rows) != 1:
            fail("%s: sweep printed %d rows, expected 1" % (name, len(rows)))
        else:
            check_row(name + ": sweep", rows[0], want, "throughput_samples_per_s")

        b = json.loads(run(gcsim, ["breakeven"] + case + ["--compressor", comp,
                                                          "--format", "json"]))
        if len(b["rows"]) != 1:
            fail("%s: breakeven printed %d rows, expected 1" % (name, len(b["rows"])))
        else:
            check_row(name + ": breakeven", b["rows"][0], want, "samples_per_s")

        pl = json.loads(run(gcsim, ["plan"] + case + ["--compressor", comp,
                                                      "--target-throughput", "1",
                                                      "--format", "json"]))
        same = [r for r in pl["rows"] if r["gpus"] == gpus and close(r["throughput_samples_per_s"],
                                                                     want["tput"])]
        if not same:
            fail("%s: plan has no row at %d GPUs with predict's samples/s %r (rows: %s)" %
                 (name, gpus, want["tput"],
                  [(r["gpus"], r["throughput_samples_per_s"]) for r in pl["rows"]]))
        else:
            check_row(name + ": plan", same[0], want, "throughput_samples_per_s")
        print("%s: predict's %s checked in sweep, breakeven, plan" % (name, sorted(want)))
    if failures:
        print("%d failure(s)" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
