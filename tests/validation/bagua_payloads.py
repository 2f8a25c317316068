#!/usr/bin/env python3
"""Bagua's compressed payloads in published_compression.tsv against Bagua's own code.

Usage: bagua_payloads.py GCSIM SOURCE_DIR

For every BAG case (published_compression.tsv), the payload gcsim computes for the case's
compressor spec (`gcsim predict` meta.compressor.payload_bytes) against the width Bagua's
code sends (derived from the code, BaguaSys/bagua @3e480d29):
  - ByteGrad (bagua/torch_api/algorithms/bytegrad.py, compression="MinMaxUInt8") and QAdam
    (q_adam.py, compression="MinMaxUInt8" in every version since the algorithm's first
    commit 0dafd246, 2021-07-02) send one byte per element plus a min and a max (2 fp32)
    per chunk (rust/bagua-core/.../centralized_low_precision_synchronous.rs: one chunk per
    rank of the inter-node communicator): for VGG-16's 138,357,544 parameters that is
    138,357,544 B (hand-computed: 1 B x 138,357,544) plus 8 B x 16 leaders per bucket, under
    0.01% of it. Checked: within 0.01% of parameters x 1 B, and VGG-16's parameter count
    equal to the hand figure (the model file is what the 8 VGG QAdam rows run).
  - BERT-Large's QAdam is 'QAdam-1bit' on the page (src/benchmark/index.md @45b5c9f), but
    Bagua's code sends MinMaxUInt8 for it too: the algorithm's name was "Onebit Adam"
    before it was QAdam, and that version (bagua/torch_api/algorithms/onebit_adam.py
    @c62da5b5, OnebitAdamAlgorithm.init_operations) already compressed the momentum with
    compression="MinMaxUInt8" after warm-up. So every QAdam row is checked as ByteGrad's.
Also checks that every BAG case runs its compressed side on the bagua stack and its fp32
baseline on the stack of the system its name gives (BASELINE_STACKS): AR is Bagua's own
GradientAllReduceAlgorithm (hierarchical=False by default, bagua/torch_api/algorithms/
gradient_allreduce.py:13 @3e480d29: one flat all-reduce per 10 MiB bucket, the bagua
stack's uncompressed exchange), DDP PyTorch's reducer (pytorch-ddp), Horovod its own
(horovod). BytePS stays a dense all-reduce on fused: the byteps stack's schedule charges
its traffic to one NCCL-style socket proxy core per machine, where ps-lite moves it through
ZeroMQ's IO threads (4 by default, bytedance/ps-lite@a848f53c src/zmq_van.h:68-70) and one
receiving thread per process, in server processes apart from the workers: not modelled yet
(published_compression.tsv, BAG's notes).
Exit 1 when a check fails or a gcsim run fails. Seconds."""
import os
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gcsim_cli import GcsimError, read_tsv, run_json  # noqa: E402

VGG16_PARAMETERS = 138357544      # models/vgg-16.json (torchvision's vgg16, no batch norm)
VGG16_MINMAXUINT8_BYTES = 138357544  # hand-computed: 1 byte per element
MINMAX_TOLERANCE = 1e-4           # min/max headers: 8 B x 16 chunks per bucket, < 1e-4 here
BASELINE_STACKS = {"AR": "bagua", "DDP": "pytorch-ddp", "Horovod": "horovod", "BytePS": "fused"}


def baseline_problem(case):
    """None when the case's stacks are the systems its name says (BASELINE_STACKS)."""
    system = case["case"].split("-")[3]
    want = BASELINE_STACKS.get(system)
    if want is None:
        return "unknown baseline system %r in the case name" % system
    if case["baseline_stack"] != want:
        return "baseline %s runs on %r, want %r" % (system, case["baseline_stack"], want)
    if case["stack"] != "bagua":
        return "compressed run on %r, want 'bagua'" % case["stack"]
    return None


def payload(gcsim, repo, case):
    argv = [gcsim, "predict", "--engine", "analytic", "--platform", case["platform"],
            "--model", case["model"], "--gpus", case["gpus"], "--batch", case["batch"],
            "--compressor", case["compressor"], "--stack", case["stack"]]
    if case["exchange"] != "auto":
        argv += ["--exchange", case["exchange"]]
    args = case["args"] if case.get("compressed_args", "-") in ("", "-") else case["compressed_args"]
    if args not in ("", "-"):
        argv += shlex.split(args)
    meta = run_json(argv, cwd=repo, timeout_s=300)["meta"]
    return meta["model"]["parameters"], meta["compressor"]["payload_bytes"]


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    gcsim, repo = argv[1], argv[2]
    rows = read_tsv(os.path.join(repo, "tests", "validation", "published_compression.tsv"))
    failures, checked = [], 0
    for line, case in rows:
        if case["source"] != "BAG":
            continue
        name = case["case"]
        problem = baseline_problem(case)
        if problem:
            failures.append("%s (line %d): %s" % (name, line, problem))
        if not ("ByteGrad" in name or "QAdam" in name):
            continue
        try:
            params, bytes_ = payload(gcsim, repo, case)
        except GcsimError as e:
            failures.append("%s (line %d): %s" % (name, line, e))
            continue
        checked += 1
        bits = 8.0 * bytes_ / params
        want = params * 1.0
        ok = abs(bytes_ / want - 1) <= MINMAX_TOLERANCE
        if "VGG16" in name:
            ok = ok and params == VGG16_PARAMETERS and \
                abs(bytes_ / VGG16_MINMAXUINT8_BYTES - 1) <= MINMAX_TOLERANCE
        what = "MinMaxUInt8: %d B (1 B per element)" % want
        print("%-34s %-34s %12d B  %.3f bits/element  %s" % (
            name, case["compressor"], bytes_, bits, "ok" if ok else "WRONG, want " + what))
        if not ok:
            failures.append("%s (line %d): %d B, %.3f bits per element; Bagua sends %s"
                            % (name, line, bytes_, bits, what))
    if checked == 0:
        failures.append("no BAG ByteGrad or QAdam case found")
    for f in failures:
        sys.stderr.write("bagua_payloads: %s\n" % f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
